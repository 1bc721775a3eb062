// Who holds it, against real services: node-redisson clients (an independent Redisson-compatible
// client, one process per "service", some with a client name) hold locks in a real redis-server.
// The truth is `ss -tnp`: which local ports belong to which process. LockScope must name the
// holder's connection by a MONITOR sample (show --identify-ms) and, for an ACL user without
// +monitor (whose MONITOR must never run), by matching lock events with CLIENT LIST; list the
// client with its locks (clients --json); see a SIGKILLed fixed-lease holder as
// holder_disconnected within 5 s (watch --json) and as a finding of the exporter; not mistake a
// pool's reconnect for a death; and never print another client's values. The parsing itself:
// tst_clienttracker.

#include "demo/redisserverprocess.h"
#include "linereader.h"
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace lockscope;
using lockscope::test::Line;
using lockscope::test::LineReader;
using lockscope::test::SyncClient;

namespace
{

bool isEvent(const Line &l, const QString &lock, const QString &type)
{
    const QJsonObject o = l.json();
    return o.value(QStringLiteral("lock")).toString() == lock && o.value(QStringLiteral("type")).toString() == type;
}

/** The local ports process `pid` has open to `serverPort` on loopback, as `ss -tnp` says. */
QSet<QString> portsOf(qint64 pid, quint16 serverPort)
{
    QProcess ss;
    ss.start(QStringLiteral("ss"), {QStringLiteral("-tnpH")});
    ss.waitForFinished(5000);
    QSet<QString> ports;
    const QRegularExpression re(
        QStringLiteral("127\\.0\\.0\\.1:(\\d+)\\s+127\\.0\\.0\\.1:%1\\s.*pid=%2,").arg(serverPort).arg(pid));
    for (const QByteArray &line : ss.readAllStandardOutput().split('\n')) {
        const auto m = re.match(QString::fromUtf8(line));
        if (m.hasMatch())
            ports.insert(m.captured(1));
    }
    return ports;
}

QString portOf(const QString &address)
{
    return address.section(QLatin1Char(':'), -1);
}

} // namespace

class TestClientIdentity : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void monitorNamesTheHoldersConnection();
    void viewerWithoutMonitorIdentifiesByCorrelation();
    void clientsListsTheClientWithItsLocks();
    void killedFixedLeaseHolderIsDisconnected();
    void poolReconnectIsNoDeath();
    void sampleEndsWithinItsBoundAndKeepsNoForeignValue();

private:
    std::unique_ptr<LineReader> service(qint64 watchdogMs, const QString &name = QString());
    std::unique_ptr<LineReader> cli(const QStringList &args, const QString &url = QString());
    /** Runs a CLI command to its end; its stdout lines, stderr in `*err`. */
    QStringList run(const QStringList &args, const QString &url = QString(), QString *err = nullptr,
                    int timeoutMs = 30000);
    QJsonObject showJson(const QString &lock, const QString &url, qint64 identifyMs, QString *err = nullptr);

    RedisServerProcess m_server;
    QString m_node;
    QString m_dir;
    std::unique_ptr<LineReader> m_named;   ///< holds orders:42 with its watchdog, client name "orders-7"
    std::unique_ptr<LineReader> m_unnamed; ///< holds billing:7 with its watchdog, no client name
};

std::unique_ptr<LineReader> TestClientIdentity::service(qint64 watchdogMs, const QString &name)
{
    auto r = std::make_unique<LineReader>();
    r->process.setWorkingDirectory(m_dir);
    QStringList args{QStringLiteral("service.js"), QString::number(m_server.port()), QString::number(watchdogMs)};
    if (!name.isEmpty())
        args << name;
    r->process.start(m_node, args);
    if (r->waitForPrefix(QStringLiteral("READY"), 10000).text.isEmpty())
        qWarning("a node-redisson service did not start: %s", r->process.readAllStandardError().constData());
    return r;
}

std::unique_ptr<LineReader> TestClientIdentity::cli(const QStringList &args, const QString &url)
{
    auto r = std::make_unique<LineReader>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOCKSCOPE_AUDIT_LOG"),
               QDir::temp().filePath(QStringLiteral("tst_clientidentity.audit")));
    r->process.setProcessEnvironment(env);
    r->process.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                     QStringList{QStringLiteral("--url"), url.isEmpty() ? m_server.url() : url} + args);
    return r;
}

QStringList TestClientIdentity::run(const QStringList &args, const QString &url, QString *err, int timeoutMs)
{
    auto r = cli(args, url);
    r->process.waitForFinished(timeoutMs);
    if (err)
        *err = QString::fromUtf8(r->process.readAllStandardError());
    return QString::fromUtf8(r->process.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QJsonObject TestClientIdentity::showJson(const QString &lock, const QString &url, qint64 identifyMs, QString *err)
{
    const QStringList out = run({QStringLiteral("show"), lock, QStringLiteral("--json"),
                                 QStringLiteral("--identify-ms"), QString::number(identifyMs)},
                                url, err, int(identifyMs) + 15000);
    return QJsonDocument::fromJson(out.value(0).toUtf8()).object();
}

void TestClientIdentity::initTestCase()
{
    m_dir = QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR);
    m_node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (m_node.isEmpty())
        QSKIP("node is not installed: the identity test needs Node.js >= 16 (node-redisson)");
    if (!QFileInfo::exists(m_dir + QStringLiteral("/node_modules/node-redisson/package.json")))
        QSKIP("node-redisson is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
    if (QStandardPaths::findExecutable(QStringLiteral("ss")).isEmpty())
        QSKIP("ss (iproute2) is not installed: the test's truth of which port is which process");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    SyncClient admin(m_server.endpoint());
    QVERIFY(admin.open());
    QCOMPARE(admin.cmd({"CONFIG", "SET", "notify-keyspace-events", "KEA"}).toByteArray(), QByteArray("OK"));
    // The README's viewer (reads everything LockScope reads, and lists clients), without MONITOR.
    QVERIFY(!admin
                 .cmd({"ACL",
                       "SETUSER",
                       "viewer",
                       "on",
                       ">viewer-pw",
                       "~*",
                       "&*",
                       "-@all",
                       "+@read",
                       "+eval",
                       "+evalsha",
                       "+time",
                       "+pubsub|numsub",
                       "+pubsub|channels",
                       "+psubscribe",
                       "+punsubscribe",
                       "+ping",
                       "+client|setname",
                       "+client|list",
                       "+select"})
                 .isError());

    // Two services hold a lock each with their watchdog: renewals every 5 s and every 2 s. (With
    // both renewing every second, each connection always shows idle=0 and nothing can tell them
    // apart without MONITOR; CLIENT LIST counts idle in whole seconds.)
    m_named = service(15000, QStringLiteral("orders-7"));
    m_named->send("hold orders:42 1");
    QVERIFY(!m_named->waitForPrefix(QStringLiteral("OK hold orders:42"), 10000).text.isEmpty());
    m_unnamed = service(6000);
    m_unnamed->send("hold billing:7 3");
    QVERIFY(!m_unnamed->waitForPrefix(QStringLiteral("OK hold billing:7"), 10000).text.isEmpty());
}

void TestClientIdentity::cleanupTestCase()
{
    for (auto *s : {m_named.get(), m_unnamed.get()})
        if (s) {
            s->process.kill();
            s->process.waitForFinished(3000);
        }
    m_server.stop();
}

void TestClientIdentity::monitorNamesTheHoldersConnection()
{
    QString err;
    QElapsedTimer took;
    took.start();
    const QJsonObject lock = showJson(QStringLiteral("orders:42"), QString(), 10000, &err);
    const QJsonObject client =
        lock.value(QStringLiteral("holders")).toArray().first().toObject().value(QStringLiteral("client")).toObject();
    QCOMPARE(client.value(QStringLiteral("evidence")).toString(), QStringLiteral("monitor"));
    QCOMPARE(client.value(QStringLiteral("state")).toString(), QStringLiteral("connected"));
    QCOMPARE(client.value(QStringLiteral("name")).toString(), QStringLiteral("orders-7"));
    QCOMPARE(client.value(QStringLiteral("host")).toString(), QStringLiteral("127.0.0.1"));
    // Every connection named is the service's own, per ss; and it ended long before its bound.
    const QSet<QString> truth = portsOf(m_named->process.processId(), m_server.port());
    QVERIFY2(!truth.isEmpty(), "ss shows no connection of the service");
    const QJsonArray connections = client.value(QStringLiteral("connections")).toArray();
    QVERIFY(!connections.isEmpty());
    for (const auto &c : connections)
        QVERIFY2(truth.contains(portOf(c.toObject().value(QStringLiteral("address")).toString())),
                 qPrintable(c.toObject().value(QStringLiteral("address")).toString()));
    QVERIFY2(err.contains(QLatin1String("identified by monitor")), qPrintable(err));
    QVERIFY2(took.elapsed() < 9000, qPrintable(QString::number(took.elapsed())));
}

void TestClientIdentity::viewerWithoutMonitorIdentifiesByCorrelation()
{
    SyncClient admin(m_server.endpoint());
    QVERIFY(admin.open());
    auto monitorCalls = [&admin] {
        const QString stats = QString::fromUtf8(admin.cmd({"INFO", "commandstats"}).toByteArray());
        const auto m = QRegularExpression(QStringLiteral("cmdstat_monitor:calls=(\\d+)")).match(stats);
        return m.hasMatch() ? m.captured(1).toLongLong() : 0;
    };
    const qint64 callsBefore = monitorCalls();
    QUrl url(m_server.url());
    url.setUserName(QStringLiteral("viewer"));
    url.setPassword(QStringLiteral("viewer-pw"));
    QString err;
    const QJsonObject lock = showJson(QStringLiteral("billing:7"), url.toString(), 20000, &err);
    const QJsonObject client =
        lock.value(QStringLiteral("holders")).toArray().first().toObject().value(QStringLiteral("client")).toObject();
    QCOMPARE(client.value(QStringLiteral("evidence")).toString(), QStringLiteral("correlated"));
    QVERIFY(client.value(QStringLiteral("events_matched")).toInt() >= 1);
    const QSet<QString> truth = portsOf(m_unnamed->process.processId(), m_server.port());
    const QJsonArray connections = client.value(QStringLiteral("connections")).toArray();
    QVERIFY(!connections.isEmpty());
    for (const auto &c : connections)
        QVERIFY2(truth.contains(portOf(c.toObject().value(QStringLiteral("address")).toString())),
                 qPrintable(QStringLiteral("%1 is not one of the service's ports %2 (ss)")
                                .arg(c.toObject().value(QStringLiteral("address")).toString(),
                                     QStringList(truth.values()).join(QLatin1Char(',')))));
    // MONITOR never ran for it (refused before anything was sent), and it said so.
    QCOMPARE(monitorCalls(), callsBefore);
    QVERIFY2(err.contains(QLatin1String("MONITOR is not allowed")), qPrintable(err));
}

void TestClientIdentity::clientsListsTheClientWithItsLocks()
{
    QString err;
    const QStringList lines = run(
        {QStringLiteral("clients"), QStringLiteral("--json"), QStringLiteral("--identify-ms"), QStringLiteral("10000")},
        QString(), &err);
    QJsonObject named;
    for (const QString &l : lines) {
        const QJsonObject o = QJsonDocument::fromJson(l.toUtf8()).object();
        if (o.value(QStringLiteral("name")).toString() == QLatin1String("orders-7"))
            named = o;
    }
    QVERIFY2(!named.isEmpty(), qPrintable(lines.join(QLatin1Char('\n')) + err));
    QCOMPARE(named.value(QStringLiteral("state")).toString(), QStringLiteral("connected"));
    const QJsonArray holds = named.value(QStringLiteral("holds")).toArray();
    QCOMPARE(holds.size(), 1);
    QCOMPARE(holds.first().toObject().value(QStringLiteral("lock")).toString(), QStringLiteral("orders:42"));
    QCOMPARE(holds.first().toObject().value(QStringLiteral("thread_id")).toString(), QStringLiteral("1"));
}

void TestClientIdentity::killedFixedLeaseHolderIsDisconnected()
{
    auto watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("30000")});
    auto serve = cli({QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    QTest::qWait(1500); // their first scan and subscriptions
    // A service takes a fixed 60 s lease (no watchdog): the acquire is what identifies it.
    auto holder = service(30000);
    holder->send("hold-lease payments:9 5 60000");
    QVERIFY(!holder->waitForPrefix(QStringLiteral("OK hold-lease payments:9"), 10000).text.isEmpty());
    const Line identified = watch->waitFor(
        [](const Line &l) {
            return l.json().value(QStringLiteral("type")).toString() == QLatin1String("client_identified") &&
                   l.text.contains(QLatin1String("correlated"));
        },
        // Its acquire's candidates include the services renewing around it: it is identified by
        // then, or once their own renewals took their connections out of its candidates.
        15000);
    QVERIFY2(!identified.text.isEmpty(), "the holder was not identified");
    const QSet<QString> truth = portsOf(holder->process.processId(), m_server.port());
    QVERIFY(!truth.isEmpty());

    const qint64 killedAt = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(::kill(pid_t(holder->process.processId()), SIGKILL), 0);
    const Line gone = watch->waitFor(
        [](const Line &l) { return isEvent(l, QStringLiteral("payments:9"), QStringLiteral("holder_disconnected")); },
        8000);
    QVERIFY2(!gone.text.isEmpty(), "no holder_disconnected after the SIGKILL");
    QVERIFY2(gone.arrivedMs - killedAt <= 5000, qPrintable(QString::number(gone.arrivedMs - killedAt)));
    const QJsonArray addresses = gone.json().value(QStringLiteral("addresses")).toArray();
    QVERIFY(!addresses.isEmpty());
    for (const auto &a : addresses)
        QVERIFY2(truth.contains(portOf(a.toString())), qPrintable(a.toString()));

    // The exporter has the finding: critical, a fixed lease blocks its waiters until it ends.
    static const QRegularExpression servedAt(QStringLiteral("(127\\.0\\.0\\.1:\\d+)/metrics"));
    const QRegularExpressionMatch served = servedAt.match(QString::fromUtf8(serve->process.readAllStandardError()));
    QVERIFY(served.hasMatch());
    bool found = QTest::qWaitFor(
        [&] {
            QNetworkAccessManager nam;
            std::unique_ptr<QNetworkReply> reply(
                nam.get(QNetworkRequest(QUrl(QStringLiteral("http://%1/metrics").arg(served.captured(1))))));
            if (!QTest::qWaitFor([&] { return reply->isFinished(); }, 5000))
                return false;
            return reply->readAll().contains(R"(lockscope_findings{code="holder_disconnected",severity="critical"} 1)");
        },
        8000);
    QVERIFY(found);
    serve->process.terminate();
    serve->process.waitForFinished(5000);
    watch->process.terminate();
    watch->process.waitForFinished(5000);
}

void TestClientIdentity::poolReconnectIsNoDeath()
{
    auto watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("20000")});
    QTest::qWait(1500);
    for (const QString &name : {QString(), QStringLiteral("inventory-3")}) {
        auto holder = service(30000, name);
        const QByteArray lock = name.isEmpty() ? "stock:1" : "stock:2";
        holder->send("hold-lease " + lock + " 2 60000");
        QVERIFY(!holder->waitForPrefix(QStringLiteral("OK hold-lease"), 10000).text.isEmpty());
        QVERIFY(
            !watch
                 ->waitFor(
                     [&](const Line &l) { return isEvent(l, QString::fromLatin1(lock), QStringLiteral("acquired")); },
                     5000)
                 .text.isEmpty());
        QTest::qWait(500);
        // Its pool closes the connection and opens another, twice.
        for (int i = 0; i < 2; ++i) {
            holder->send("reconnect");
            QVERIFY(!holder->waitForPrefix(QStringLiteral("OK reconnect"), 10000).text.isEmpty());
            QTest::qWait(700);
        }
        QTest::qWait(3000); // longer than the disconnect grace
        watch->pump();
        for (const Line &l : std::as_const(watch->lines))
            QVERIFY2(!isEvent(l, QString::fromLatin1(lock), QStringLiteral("holder_disconnected")), qPrintable(l.text));
        holder->send("quit");
        holder->process.waitForFinished(5000);
    }
    watch->process.terminate();
    watch->process.waitForFinished(5000);
}

void TestClientIdentity::sampleEndsWithinItsBoundAndKeepsNoForeignValue()
{
    // Another client writes a secret while the sample runs; a fixed-lease holder sends nothing, so
    // the sample runs to its bound.
    auto quiet = service(30000, QStringLiteral("quiet-1"));
    quiet->send("hold-lease quiet:1 4 60000");
    QVERIFY(!quiet->waitForPrefix(QStringLiteral("OK hold-lease"), 10000).text.isEmpty());
    SyncClient other(m_server.endpoint(), "someone-else");
    QVERIFY(other.open());
    QTimer writer;
    int n = 0;
    connect(&writer, &QTimer::timeout, this, [&] {
        other.connection()->send({"SET", "secret", "hunter2-" + QByteArray::number(++n)});
        other.connection()->send({"EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "token", "hunter2-eval"});
    });
    writer.start(20);
    QElapsedTimer took;
    took.start();
    auto show = cli(
        {QStringLiteral("show"), QStringLiteral("quiet:1"), QStringLiteral("--identify-ms"), QStringLiteral("1500")});
    QVERIFY(QTest::qWaitFor([&] { return show->process.state() == QProcess::NotRunning; }, 10000));
    const qint64 ms = took.elapsed();
    auto clients = cli({QStringLiteral("clients"), QStringLiteral("--identify-ms"), QStringLiteral("1000")});
    QVERIFY(QTest::qWaitFor([&] { return clients->process.state() == QProcess::NotRunning; }, 10000));
    writer.stop();
    QVERIFY2(ms < 1500 + 3000, qPrintable(QString::number(ms))); // the bound, plus start-up and the reads
    const QByteArray everything = show->process.readAllStandardOutput() + show->process.readAllStandardError() +
                                  clients->process.readAllStandardOutput() + clients->process.readAllStandardError();
    QVERIFY(everything.contains("quiet:1"));
    QVERIFY2(!everything.contains("hunter2"), everything.constData());
    // The server ran every MONITOR LockScope asked for and closed it again: none is left open.
    SyncClient admin(m_server.endpoint());
    QVERIFY(admin.open());
    QVERIFY(QTest::qWaitFor(
        [&] {
            return !admin.cmd({"CLIENT", "LIST"}).toByteArray().contains("lockscope-identify");
        },
        3000));
    quiet->process.kill();
    quiet->process.waitForFinished(3000);
}

QTEST_GUILESS_MAIN(TestClientIdentity)
#include "tst_clientidentity.moc"
