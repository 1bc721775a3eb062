// A server that stalls (DEBUG SLEEP 6) just as LockScope's write script arrives: LockScope's
// health check gives up after 3 s, and then Redis wakes and runs the script. The outcome of such a
// write is unknown, never "error": lockscope-cli records it so, re-reads the lock once the server
// is back, and releases a hold it finds it owns but did not know it had (the ghost of an acquire).
// A proxy on loopback sees the script go by and puts the server to sleep first.

#include "demo/redisserverprocess.h"
#include "redis/redisscript.h"

#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace lockscope;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

/**
 * Forwards LockScope's connections to redis-server; the first chunk from a client that contains
 * `trigger` is held back while another connection sends DEBUG SLEEP 6, then forwarded: the server
 * is asleep when the script arrives and runs it when it wakes, whatever became of the client.
 */
class StallProxy : public QObject
{
public:
    StallProxy(quint16 redisPort, const QByteArray &trigger) : m_redisPort(redisPort), m_trigger(trigger)
    {
        connect(&m_server, &QTcpServer::newConnection, this, &StallProxy::onNewConnection);
    }
    bool start() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString url() const { return QStringLiteral("redis://127.0.0.1:%1").arg(m_server.serverPort()); }
    bool fired() const { return m_fired; }

private:
    void onNewConnection()
    {
        while (QTcpSocket *client = m_server.nextPendingConnection()) {
            auto *upstream = new QTcpSocket(client);
            upstream->connectToHost(QHostAddress::LocalHost, m_redisPort);
            if (!upstream->waitForConnected(2000)) {
                client->abort();
                client->deleteLater();
                continue;
            }
            auto held = std::make_shared<bool>(false);
            connect(client, &QTcpSocket::readyRead, this, [this, client, upstream, held] {
                const QByteArray data = client->readAll();
                if (!m_fired && data.contains(m_trigger)) {
                    m_fired = true;
                    *held = true;
                    sleepServer();
                    QTimer::singleShot(300, upstream, [upstream, data, held, client] {
                        upstream->write(data);
                        upstream->flush();
                        *held = false;
                        if (client->state() != QAbstractSocket::ConnectedState)
                            upstream->disconnectFromHost();
                    });
                    return;
                }
                upstream->write(data);
            });
            connect(upstream, &QTcpSocket::readyRead, client,
                    [client, upstream] { client->write(upstream->readAll()); });
            connect(client, &QTcpSocket::disconnected, upstream, [upstream, held] {
                if (!*held)
                    upstream->disconnectFromHost(); // what was forwarded still reaches the server
            });
            connect(upstream, &QTcpSocket::disconnected, client, [client] { client->disconnectFromHost(); });
        }
    }
    void sleepServer()
    {
        m_sleeper = std::make_unique<QTcpSocket>();
        m_sleeper->connectToHost(QHostAddress::LocalHost, m_redisPort);
        m_sleeper->waitForConnected(2000);
        m_sleeper->write("*3\r\n$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n$1\r\n6\r\n");
        m_sleeper->flush();
    }

    QTcpServer m_server;
    quint16 m_redisPort;
    QByteArray m_trigger;
    bool m_fired = false;
    std::unique_ptr<QTcpSocket> m_sleeper;
};

QList<QJsonObject> auditRecords(const QString &path)
{
    QList<QJsonObject> records;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return records;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            records << QJsonDocument::fromJson(line).object();
    return records;
}

QString describe(const QList<QJsonObject> &records)
{
    QStringList lines;
    for (const QJsonObject &r : records)
        lines << QString::fromUtf8(QJsonDocument(r).toJson(QJsonDocument::Compact));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestStalledWrite : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void stalledAcquireLeavesNoGhost();
    void stalledForceUnlockIsUnknownThenReRead();

private:
    /** Runs lockscope-cli through `proxy` to completion while the test's event loop (the proxy) runs. */
    struct Run {
        int exitCode = -1;
        QByteArray out, err;
        qint64 ms = 0;
    };
    Run runThrough(const StallProxy &proxy, const QStringList &args);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    QTemporaryDir m_tmp;
};

void TestStalledWrite::initTestCase()
{
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QVERIFY(m_tmp.isValid());
    m_server.setExtraArguments({QStringLiteral("--enable-debug-command"), QStringLiteral("local")});
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestStalledWrite::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestStalledWrite::init()
{
    m_admin->flushall();
    // The scripts are known to the server, so the first EVALSHA runs (no NOSCRIPT round trip).
    const QStringList scripts = QDir(QStringLiteral(":/lockscope/scripts")).entryList({QStringLiteral("*.lua")});
    QVERIFY(!scripts.isEmpty());
    for (const QString &file : scripts)
        QVERIFY(
            !m_admin->cmd({"SCRIPT", "LOAD", RedisScript::fromResource(QFileInfo(file).completeBaseName()).source()})
                 .isError());
}

TestStalledWrite::Run TestStalledWrite::runThrough(const StallProxy &proxy, const QStringList &args)
{
    QProcess p;
    p.start(cliPath(), QStringList{QStringLiteral("--url"), proxy.url()} + args);
    Run r;
    if (!p.waitForStarted(10000))
        return r;
    p.closeWriteChannel();
    QElapsedTimer clock;
    clock.start();
    waitUntil([&p] { return p.state() == QProcess::NotRunning; }, 45000);
    r.ms = clock.elapsed();
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished(3000);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

void TestStalledWrite::stalledAcquireLeavesNoGhost()
{
    StallProxy proxy(m_server.port(), RedisScript::fromResource(QStringLiteral("lock_acquire")).sha1());
    QVERIFY(proxy.start());
    const QString audit = m_tmp.filePath(QStringLiteral("acquire.jsonl"));
    const Run r = runThrough(proxy, {"--audit-log", audit, "acquire", "ghost:1", "--lease-ms", "30000"});
    QVERIFY(proxy.fired());
    const QList<QJsonObject> records = auditRecords(audit);
    const QString what = QStringLiteral("exit %1 after %2 ms\nstdout: %3\nstderr: %4\naudit:\n%5")
                             .arg(r.exitCode)
                             .arg(r.ms)
                             .arg(QString::fromUtf8(r.out), QString::fromUtf8(r.err), describe(records));
    QVERIFY2(r.exitCode == 2, qPrintable(what));
    // No hold is left behind: the ghost was found and released.
    QVERIFY2(!m_admin->exists("ghost:1"), qPrintable(what));
    QVERIFY2(records.size() == 2, qPrintable(what));
    const QJsonObject acquire = records.at(0);
    QCOMPARE(acquire.value(QStringLiteral("action")).toString(), QStringLiteral("acquire"));
    QCOMPARE(acquire.value(QStringLiteral("result")).toString(), QStringLiteral("unknown"));
    const QJsonObject after = acquire.value(QStringLiteral("after")).toObject();
    QVERIFY2(after.value(QStringLiteral("exists")).toBool(), qPrintable(what));
    QVERIFY2(acquire.value(QStringLiteral("message")).toString().contains(QLatin1String("releasing")),
             qPrintable(what));
    const QJsonObject release = records.at(1);
    QCOMPARE(release.value(QStringLiteral("action")).toString(), QStringLiteral("release"));
    QCOMPARE(release.value(QStringLiteral("result")).toString(), QStringLiteral("done"));
}

void TestStalledWrite::stalledForceUnlockIsUnknownThenReRead()
{
    m_admin->cmd({"HSET", "stalled:1", "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:9", "1"});
    m_admin->cmd({"PEXPIRE", "stalled:1", "60000"});
    StallProxy proxy(m_server.port(), RedisScript::fromResource(QStringLiteral("force_unlock")).sha1());
    QVERIFY(proxy.start());
    const QString audit = m_tmp.filePath(QStringLiteral("force.jsonl"));
    const Run r = runThrough(proxy, {"--audit-log", audit, "force-unlock", "stalled:1", "--yes"});
    QVERIFY(proxy.fired());
    const QList<QJsonObject> records = auditRecords(audit);
    const QString what = QStringLiteral("exit %1 after %2 ms\nstdout: %3\nstderr: %4\naudit:\n%5")
                             .arg(r.exitCode)
                             .arg(r.ms)
                             .arg(QString::fromUtf8(r.out), QString::fromUtf8(r.err), describe(records));
    QVERIFY2(r.exitCode == 2, qPrintable(what));
    QVERIFY2(!m_admin->exists("stalled:1"), qPrintable(what)); // the server ran it when it woke
    QVERIFY2(records.size() == 1, qPrintable(what));
    const QJsonObject record = records.first();
    QCOMPARE(record.value(QStringLiteral("result")).toString(), QStringLiteral("unknown"));
    // The re-read after reconnecting says what happened: the lock is gone.
    QVERIFY2(record.contains(QStringLiteral("after")), qPrintable(what));
    QVERIFY(record.value(QStringLiteral("after")).toObject().contains(QStringLiteral("exists")));
    QVERIFY(!record.value(QStringLiteral("after")).toObject().value(QStringLiteral("exists")).toBool());
    QVERIFY2(r.err.contains("unknown") && r.err.contains("is free"), qPrintable(what));
}

QTEST_GUILESS_MAIN(TestStalledWrite)
#include "tst_stalledwrite.moc"
