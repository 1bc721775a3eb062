// Interop with an independent Redisson-compatible client: node-redisson (npm, protocol doc §12)
// holds and releases locks in a real redis-server; lockscope-cli must see exactly what it wrote,
// report its acquire/release live, and a force unlock must wake its blocked waiter at once.
#include "demo/redisserverprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

using namespace lockscope;

class TestNodeRedisson : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void listShowsHoldersCountsAndTtl();
    void watchReportsAcquireAndRelease();
    void forceUnlockWakesBlockedWaiter();

private:
    void send(const QByteArray &line) { m_driver.write(line + '\n'); }
    QString waitForLine(const QString &prefix, int timeoutMs);
    QJsonObject lockJson(const QString &name);
    QProcess *cli(const QStringList &args);

    RedisServerProcess m_server;
    QProcess m_driver;
    QStringList m_lines;
};

QString TestNodeRedisson::waitForLine(const QString &prefix, int timeoutMs)
{
    QString found;
    (void)QTest::qWaitFor(
        [&] {
            while (m_driver.canReadLine())
                m_lines << QString::fromUtf8(m_driver.readLine()).trimmed();
            for (int i = 0; i < m_lines.size(); ++i) {
                if (m_lines[i].startsWith(prefix)) {
                    found = m_lines.takeAt(i);
                    return true;
                }
            }
            return false;
        },
        timeoutMs);
    return found;
}

QProcess *TestNodeRedisson::cli(const QStringList &args)
{
    auto *p = new QProcess(this);
    p->start(QStringLiteral(LOCKSCOPE_CLI_PATH), QStringList{QStringLiteral("--url"), m_server.url()} + args);
    return p;
}

QJsonObject TestNodeRedisson::lockJson(const QString &name)
{
    QProcess *p = cli({QStringLiteral("list"), QStringLiteral("--json")});
    p->waitForFinished(10000);
    const QList<QByteArray> lines = p->readAllStandardOutput().split('\n');
    for (const auto &line : lines) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("name")).toString() == name)
            return o;
    }
    return {};
}

void TestNodeRedisson::initTestCase()
{
    const QString dir = QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR);
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty())
        QSKIP("node is not installed: the node-redisson interop test needs Node.js >= 16");
    if (!QFileInfo::exists(dir + QStringLiteral("/node_modules/node-redisson/package.json")))
        QSKIP("node-redisson is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_driver.setWorkingDirectory(dir);
    m_driver.start(node, {QStringLiteral("driver.js"), QString::number(m_server.port())});
    QVERIFY(!waitForLine(QStringLiteral("READY"), 10000).isEmpty());
}

void TestNodeRedisson::cleanupTestCase()
{
    if (m_driver.state() == QProcess::Running) {
        send("quit");
        if (!m_driver.waitForFinished(3000))
            m_driver.kill();
    }
    m_server.stop();
}

void TestNodeRedisson::listShowsHoldersCountsAndTtl()
{
    send("hold-reentrant orders:42 1");
    QCOMPARE(waitForLine(QStringLiteral("OK hold-reentrant orders:42"), 10000),
             QStringLiteral("OK hold-reentrant orders:42"));
    send("hold-lease inventory:7 57 60000");
    QCOMPARE(waitForLine(QStringLiteral("OK hold-lease inventory:7"), 10000),
             QStringLiteral("OK hold-lease inventory:7"));

    const QJsonObject orders = lockJson(QStringLiteral("orders:42"));
    QCOMPARE(orders.value(QStringLiteral("kind")).toString(), QStringLiteral("lock"));
    const QJsonArray holders = orders.value(QStringLiteral("holders")).toArray();
    QCOMPARE(holders.size(), 1);
    const QJsonObject h = holders.first().toObject();
    QCOMPARE(h.value(QStringLiteral("thread_id")).toString(), QStringLiteral("1"));
    QCOMPARE(h.value(QStringLiteral("hold_count")).toInt(), 2);
    QCOMPARE(h.value(QStringLiteral("client_id")).toString().size(), 36);
    QCOMPARE(h.value(QStringLiteral("field")).toString(),
             h.value(QStringLiteral("client_id")).toString() + QStringLiteral(":1"));
    const qint64 ordersTtl = orders.value(QStringLiteral("pttl_ms")).toInteger();
    QVERIFY2(ordersTtl > 15000 && ordersTtl <= 30000, qPrintable(QString::number(ordersTtl))); // watchdog lease 30 s

    const QJsonObject inventory = lockJson(QStringLiteral("inventory:7"));
    const QJsonObject ih = inventory.value(QStringLiteral("holders")).toArray().first().toObject();
    QCOMPARE(ih.value(QStringLiteral("thread_id")).toString(), QStringLiteral("57"));
    QCOMPARE(ih.value(QStringLiteral("hold_count")).toInt(), 1);
    const qint64 invTtl = inventory.value(QStringLiteral("pttl_ms")).toInteger();
    QVERIFY2(invTtl > 50000 && invTtl <= 60000, qPrintable(QString::number(invTtl)));
}

void TestNodeRedisson::watchReportsAcquireAndRelease()
{
    QProcess *watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("6000")});
    QVERIFY(watch->waitForStarted(5000));
    QTest::qWait(1500); // let the first scan finish: pre-existing locks are not events
    send("hold-lease payments:batch 9 20000");
    QVERIFY(!waitForLine(QStringLiteral("OK hold-lease payments:batch"), 10000).isEmpty());
    QTest::qWait(300);
    send("release payments:batch 9");
    QVERIFY(!waitForLine(QStringLiteral("OK release payments:batch"), 10000).isEmpty());
    QVERIFY(watch->waitForFinished(15000));
    QStringList types;
    for (const auto &line : watch->readAllStandardOutput().split('\n')) {
        const QJsonObject e = QJsonDocument::fromJson(line).object();
        if (e.value(QStringLiteral("lock")).toString() != QLatin1String("payments:batch"))
            continue;
        const QString type = e.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("acquired") || type == QLatin1String("released"))
            QVERIFY(e.value(QStringLiteral("holder")).toString().endsWith(QStringLiteral(":9")));
        types << type;
    }
    QVERIFY2(types.contains(QStringLiteral("acquired")), qPrintable(types.join(QLatin1Char(','))));
    QVERIFY2(types.contains(QStringLiteral("released")), qPrintable(types.join(QLatin1Char(','))));
    QVERIFY2(types.contains(QStringLiteral("unlock_message")), qPrintable(types.join(QLatin1Char(','))));
}

void TestNodeRedisson::forceUnlockWakesBlockedWaiter()
{
    // orders:42 is held (watchdog, renewed every 10 s) by the first client; a second blocks on it.
    send("wait orders:42 2");
    QVERIFY(!waitForLine(QStringLiteral("WAITING orders:42"), 10000).isEmpty());
    QTest::qWait(700); // the waiter has tried once and subscribed to the unlock channel
    QProcess *force = cli({QStringLiteral("force-unlock"), QStringLiteral("orders:42"), QStringLiteral("--yes")});
    QVERIFY(force->waitForFinished(10000));
    QCOMPARE(force->exitCode(), 0);
    QElapsedTimer sinceForce;
    sinceForce.start();
    // Without the unlock message the waiter would sleep for the lock's TTL (~30 s); allow 10 s.
    const QString acquired = waitForLine(QStringLiteral("ACQUIRED orders:42"), 10000);
    QVERIFY2(!acquired.isEmpty(), "the blocked node-redisson waiter was not woken by the force unlock");
    qInfo("node-redisson waiter acquired %lld ms after lockscope-cli force-unlock returned (%s)",
          static_cast<long long>(sinceForce.elapsed()), qPrintable(acquired));
}

QTEST_GUILESS_MAIN(TestNodeRedisson)
#include "tst_noderedisson.moc"
