// Exposure before loss against real servers (issue 39): a master with one and two replicas, a
// replica frozen with SIGSTOP, a lock taken by a node-redisson service while it is frozen. The
// exporter (`serve`) shows lockscope_locks_unreplicated and a not_replicated finding within a few
// seconds and clears both once the replica resumes; a one-shot `show --json` says "replicated":
// true then, null on a master without replicas (no false alarm); a replica that disconnects
// exposes what is written after. The rules alone: tst_exposuretracker.

#include "demo/redisserverprocess.h"
#include "linereader.h"
#include "localcluster.h"
#include "localsentinel.h"
#include "testsupport.h"

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
#include <QStandardPaths>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace lockscope;
using Reader = lockscope::test::LineReader;
using lockscope::test::LocalCluster;
using lockscope::test::LocalSentinel;
using lockscope::test::SyncClient;

class TestReplication : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void frozenReplicaExposesALockUntilItResumes();
    void twoReplicasOneFrozenIsNoAlarm();
    void noReplicaIsUnknownNotFalse();
    void disconnectedReplicaExposesLaterWrites();
    void sentinelMastersReplicaFrozen();
    void lockWritesWithoutWaitAreSaidOnce();
    void clusterMastersReplicaFrozen();

private:
    std::unique_ptr<Reader> service(quint16 port, qint64 watchdogMs);
    std::unique_ptr<Reader> cli(const QStringList &args, const QString &url);
    /** `show NAME --json` against `url`: the lock's JSON object (empty on failure). */
    QJsonObject show(const QString &name, const QString &url);
    /** Starts a master and `replicas` replicas of it (linked, in sync); false with a QWARN. */
    bool startReplicated(RedisServerProcess &master, std::vector<std::unique_ptr<RedisServerProcess>> &replicas,
                         int count);
    /** `serve` on a free port for `url`; the host:port it serves on (empty on failure). */
    QString serve(std::unique_ptr<Reader> &process, const QString &url);
    /** Writes a Redisson lock hash `name` (holder field, hold count 1, PTTL 60 s) with `c`, as a
     *  Java client's lock script would leave it. */
    static bool writeLock(SyncClient &c, const QByteArray &name);
    /** Waits until the exporter at `at` shows `group` with an unreplicated lock. */
    static bool waitExposed(const QString &at, const QByteArray &group, QByteArray *metrics);
    /** One /metrics scrape. */
    static QByteArray scrape(const QString &at);
    /** The value of `series` (whole name with labels) in `metrics`; -1 when absent. */
    static double sample(const QByteArray &metrics, const QByteArray &series);

    QString m_node;
    QString m_dir;
};

std::unique_ptr<Reader> TestReplication::service(quint16 port, qint64 watchdogMs)
{
    auto r = std::make_unique<Reader>();
    r->process.setWorkingDirectory(m_dir);
    r->process.start(m_node, {QStringLiteral("service.js"), QString::number(port), QString::number(watchdogMs)});
    if (r->waitForPrefix(QStringLiteral("READY"), 10000).text.isEmpty())
        qWarning("a node-redisson service did not start: %s", r->process.readAllStandardError().constData());
    return r;
}

std::unique_ptr<Reader> TestReplication::cli(const QStringList &args, const QString &url)
{
    auto r = std::make_unique<Reader>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOCKSCOPE_AUDIT_LOG"), QDir::temp().filePath(QStringLiteral("tst_replication.audit")));
    r->process.setProcessEnvironment(env);
    r->process.start(QStringLiteral(LOCKSCOPE_CLI_PATH), QStringList{QStringLiteral("--url"), url} + args);
    return r;
}

QJsonObject TestReplication::show(const QString &name, const QString &url)
{
    auto r = cli({QStringLiteral("show"), name, QStringLiteral("--json")}, url);
    if (!r->process.waitForFinished(15000))
        return {};
    return QJsonDocument::fromJson(r->process.readAllStandardOutput()).object();
}

bool TestReplication::startReplicated(RedisServerProcess &master,
                                      std::vector<std::unique_ptr<RedisServerProcess>> &replicas, int count)
{
    QString error;
    master.setExtraArguments({QStringLiteral("--repl-diskless-sync-delay"), QStringLiteral("0")});
    if (!master.start(10000, &error)) {
        qWarning("master: %s", qPrintable(error));
        return false;
    }
    for (int i = 0; i < count; ++i) {
        replicas.push_back(std::make_unique<RedisServerProcess>());
        if (!replicas.back()->start(10000, &error)) {
            qWarning("replica: %s", qPrintable(error));
            return false;
        }
        SyncClient c(replicas.back()->endpoint());
        if (!c.open() || c.cmd({"REPLICAOF", "127.0.0.1", QByteArray::number(master.port())}).isError())
            return false;
        const bool linked = QTest::qWaitFor(
            [&c] {
                return c.cmd({"INFO", "replication"}).toByteArray().contains("master_link_status:up");
            },
            15000);
        if (!linked) {
            qWarning("replica %d did not link", i);
            return false;
        }
    }
    return true;
}

QString TestReplication::serve(std::unique_ptr<Reader> &process, const QString &url)
{
    process = cli({QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}, url);
    static const QRegularExpression servedAt(QStringLiteral("(127\\.0\\.0\\.1:\\d+)/metrics"));
    QString at;
    (void)QTest::qWaitFor(
        [&] {
            process->process.waitForReadyRead(100);
            const QRegularExpressionMatch m =
                servedAt.match(QString::fromUtf8(process->process.readAllStandardError()));
            if (m.hasMatch())
                at = m.captured(1);
            return !at.isEmpty();
        },
        10000);
    return at;
}

QByteArray TestReplication::scrape(const QString &at)
{
    QNetworkAccessManager nam;
    QNetworkReply *reply = nam.get(QNetworkRequest(QUrl(QStringLiteral("http://%1/metrics").arg(at))));
    (void)QTest::qWaitFor([reply] { return reply->isFinished(); }, 5000);
    const QByteArray out = reply->readAll();
    reply->deleteLater();
    return out;
}

double TestReplication::sample(const QByteArray &metrics, const QByteArray &series)
{
    for (const QByteArray &line : metrics.split('\n'))
        if (line.startsWith(series + ' '))
            return line.mid(series.size() + 1).toDouble();
    return -1.0;
}

void TestReplication::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty())
        QSKIP("redis-server is needed");
    m_dir = QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR);
    m_node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (m_node.isEmpty())
        QSKIP("node is not installed: the replication test needs Node.js >= 16 (node-redisson)");
    if (!QFileInfo::exists(m_dir + QStringLiteral("/node_modules/node-redisson/package.json")))
        QSKIP("node-redisson is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
}

void TestReplication::frozenReplicaExposesALockUntilItResumes()
{
    RedisServerProcess master;
    std::vector<std::unique_ptr<RedisServerProcess>> replicas;
    QVERIFY(startReplicated(master, replicas, 1));
    std::unique_ptr<Reader> exporter;
    const QString at = serve(exporter, master.url());
    QVERIFY2(!at.isEmpty(), "lockscope-cli serve did not say where it serves");
    QTest::qWait(1500); // its first scan and INFO replication

    // A lock taken while the replica is healthy is replicated: no alarm.
    auto svc = service(master.port(), 30000);
    svc->send("hold-lease healthy 1 60000");
    QVERIFY(!svc->waitForPrefix(QStringLiteral("OK hold-lease healthy"), 10000).text.isEmpty());
    QTest::qWait(3000);
    const QByteArray calm = scrape(at);
    QCOMPARE(sample(calm, "lockscope_locks_unreplicated{group=\"healthy\"}"), 0.0);
    QVERIFY2(!calm.contains("code=\"not_replicated\",severity=\"warning\"} 1"), calm.constData());

    // The replica freezes; the service takes payments on the master.
    QCOMPARE(::kill(pid_t(replicas.front()->pid()), SIGSTOP), 0);
    QTest::qWait(500);
    svc->send("hold-lease payments 1 60000");
    QVERIFY(!svc->waitForPrefix(QStringLiteral("OK hold-lease payments"), 10000).text.isEmpty());
    QElapsedTimer since;
    since.start();
    QByteArray metrics;
    const bool exposed = QTest::qWaitFor(
        [&] {
            metrics = scrape(at);
            return sample(metrics, "lockscope_locks_unreplicated{group=\"payments\"}") >= 1 &&
                   metrics.contains("lockscope_finding_info{lock=\"payments\"");
        },
        8000);
    qInfo("not replicated after %lld ms", since.elapsed());
    QVERIFY2(exposed, metrics.constData());
    QVERIFY2(since.elapsed() < 4000, qPrintable(QString::number(since.elapsed())));
    QVERIFY(sample(metrics, "lockscope_replica_lag_seconds{master=\"127.0.0.1:" + QByteArray::number(master.port()) +
                                "\",replica=\"127.0.0.1:" + QByteArray::number(replicas.front()->port()) + "\"}") >= 0);
    // A one-shot show cannot know the write's time: unknown, with the replica's silence, never false.
    const QJsonObject frozen = show(QStringLiteral("payments"), master.url());
    QVERIFY2(frozen.value(QStringLiteral("replicated")).isNull(), QJsonDocument(frozen).toJson().constData());
    QVERIFY2(!frozen.value(QStringLiteral("replication_note")).toString().isEmpty(),
             QJsonDocument(frozen).toJson().constData());

    // It resumes: both clear within a few seconds, and show says replicated.
    QCOMPARE(::kill(pid_t(replicas.front()->pid()), SIGCONT), 0);
    since.restart();
    const bool cleared = QTest::qWaitFor(
        [&] {
            metrics = scrape(at);
            return sample(metrics, "lockscope_locks_unreplicated{group=\"payments\"}") == 0 &&
                   !metrics.contains("lockscope_finding_info{lock=\"payments\"");
        },
        8000);
    qInfo("replicated again after %lld ms", since.elapsed());
    QVERIFY2(cleared, metrics.constData());
    QVERIFY2(since.elapsed() < 4500, qPrintable(QString::number(since.elapsed())));
    const QJsonObject shown = show(QStringLiteral("payments"), master.url());
    QCOMPARE(shown.value(QStringLiteral("replicated")), QJsonValue(true));
    QCOMPARE(shown.value(QStringLiteral("replicated_on")).toArray().size(), 1);
    svc->send("quit");
    svc->process.waitForFinished(5000);
    exporter->process.kill();
    exporter->process.waitForFinished(3000);
}

void TestReplication::twoReplicasOneFrozenIsNoAlarm()
{
    // One replica acknowledging is enough (a failover can promote it), as for Redisson's
    // checkLockSyncedSlaves, which fails only when none did.
    RedisServerProcess master;
    std::vector<std::unique_ptr<RedisServerProcess>> replicas;
    QVERIFY(startReplicated(master, replicas, 2));
    std::unique_ptr<Reader> exporter;
    const QString at = serve(exporter, master.url());
    QVERIFY(!at.isEmpty());
    QTest::qWait(1500);
    QCOMPARE(::kill(pid_t(replicas.front()->pid()), SIGSTOP), 0);
    auto svc = service(master.port(), 30000);
    svc->send("hold orders 1");
    QVERIFY(!svc->waitForPrefix(QStringLiteral("OK hold orders"), 10000).text.isEmpty());
    for (int i = 0; i < 4; ++i) {
        QTest::qWait(1000);
        const QByteArray metrics = scrape(at);
        QCOMPARE(sample(metrics, "lockscope_locks_unreplicated{group=\"orders\"}"), 0.0);
    }
    const QJsonObject shown = show(QStringLiteral("orders"), master.url());
    QCOMPARE(shown.value(QStringLiteral("replicated")), QJsonValue(true));
    QCOMPARE(shown.value(QStringLiteral("replicated_on")).toArray(),
             QJsonArray{QStringLiteral("127.0.0.1:%1").arg(replicas.back()->port())});
    QCOMPARE(::kill(pid_t(replicas.front()->pid()), SIGCONT), 0);
    svc->send("quit");
    svc->process.waitForFinished(5000);
    exporter->process.kill();
    exporter->process.waitForFinished(3000);
}

void TestReplication::noReplicaIsUnknownNotFalse()
{
    RedisServerProcess master;
    QString error;
    QVERIFY2(master.start(10000, &error), qPrintable(error));
    std::unique_ptr<Reader> exporter;
    const QString at = serve(exporter, master.url());
    QVERIFY(!at.isEmpty());
    auto svc = service(master.port(), 30000);
    svc->send("hold orders 1");
    QVERIFY(!svc->waitForPrefix(QStringLiteral("OK hold orders"), 10000).text.isEmpty());
    QTest::qWait(3500);
    const QByteArray metrics = scrape(at);
    QCOMPARE(sample(metrics, "lockscope_locks_unreplicated{group=\"orders\"}"), 0.0);
    QVERIFY(!metrics.contains("not_replicated\",severity=\"warning\"} 1"));
    const QJsonObject shown = show(QStringLiteral("orders"), master.url());
    QVERIFY2(shown.contains(QStringLiteral("replicated")) && shown.value(QStringLiteral("replicated")).isNull(),
             QJsonDocument(shown).toJson().constData());
    auto text = cli({QStringLiteral("show"), QStringLiteral("orders")}, master.url());
    QVERIFY(text->process.waitForFinished(15000));
    const QString out = QString::fromUtf8(text->process.readAllStandardOutput());
    QVERIFY2(out.contains(QLatin1String("Replicated:  unknown")), qPrintable(out));
    svc->send("quit");
    svc->process.waitForFinished(5000);
    exporter->process.kill();
    exporter->process.waitForFinished(3000);
}

void TestReplication::disconnectedReplicaExposesLaterWrites()
{
    RedisServerProcess master;
    std::vector<std::unique_ptr<RedisServerProcess>> replicas;
    QVERIFY(startReplicated(master, replicas, 1));
    std::unique_ptr<Reader> exporter;
    const QString at = serve(exporter, master.url());
    QVERIFY(!at.isEmpty());
    QTest::qWait(2500); // the exporter has seen the replica
    SyncClient replica(replicas.front()->endpoint());
    QVERIFY(replica.open());
    QVERIFY(!replica.cmd({"REPLICAOF", "NO", "ONE"}).isError()); // it leaves
    QTest::qWait(1500);
    auto svc = service(master.port(), 30000);
    svc->send("hold-lease later 1 60000");
    QVERIFY(!svc->waitForPrefix(QStringLiteral("OK hold-lease later"), 10000).text.isEmpty());
    QByteArray metrics;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     metrics = scrape(at);
                     return sample(metrics, "lockscope_locks_unreplicated{group=\"later\"}") >= 1;
                 },
                 8000),
             metrics.constData());
    svc->send("quit");
    svc->process.waitForFinished(5000);
    exporter->process.kill();
    exporter->process.waitForFinished(3000);
}

bool TestReplication::writeLock(SyncClient &c, const QByteArray &name)
{
    const QVector<RedisReply> r =
        c.pipeline({{"HSET", name, "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:1", "1"}, {"PEXPIRE", name, "60000"}});
    return r.size() == 2 && !r.at(0).isError() && !r.at(1).isError();
}

bool TestReplication::waitExposed(const QString &at, const QByteArray &group, QByteArray *metrics)
{
    return QTest::qWaitFor(
        [&] {
            *metrics = scrape(at);
            return sample(*metrics, "lockscope_locks_unreplicated{group=\"" + group + "\"}") >= 1;
        },
        10000);
}

void TestReplication::sentinelMastersReplicaFrozen()
{
    // Sentinel: the master the sentinels name, its replica frozen.
    LocalSentinel sentinel;
    QString error;
    QVERIFY2(sentinel.start(&error, 3, 1, QStringLiteral("KA")), qPrintable(error));
    QVERIFY2(sentinel.waitReady(30000, &error), qPrintable(error));
    const quint16 masterPort = sentinel.masterPort();
    quint16 replicaPort = 0;
    for (quint16 p : sentinel.serverPorts())
        if (p != masterPort)
            replicaPort = p;
    QVERIFY(replicaPort != 0);
    std::unique_ptr<Reader> exporter;
    const QString at = serve(exporter, sentinel.url());
    QVERIFY(!at.isEmpty());
    QTest::qWait(2500);
    QCOMPARE(::kill(pid_t(sentinel.server(replicaPort)->pid()), SIGSTOP), 0);
    QTest::qWait(500);
    SyncClient master(sentinel.endpoint(masterPort));
    QVERIFY(master.open());
    QVERIFY(writeLock(master, "sentinel-lock"));
    QByteArray metrics;
    const bool exposed = waitExposed(at, "sentinel-lock", &metrics);
    QCOMPARE(::kill(pid_t(sentinel.server(replicaPort)->pid()), SIGCONT), 0);
    QVERIFY2(exposed, metrics.constData());
    exporter->process.kill();
    exporter->process.waitForFinished(3000);
}

void TestReplication::clusterMastersReplicaFrozen()
{
    // A cluster: each master's own replicas. The replica of the master serving the lock freezes.
    LocalCluster cluster;
    QString error;
    if (!cluster.start(3, 1, &error))
        QFAIL(qPrintable(error));
    const QByteArray name = "cluster-lock";
    const int owner = cluster.nodeOf(name);
    QVERIFY(owner >= 0);
    const QList<int> replicas = cluster.replicasOf(owner);
    QCOMPARE(replicas.size(), 1);
    std::unique_ptr<Reader> exporter;
    exporter = cli({QStringLiteral("--cluster"), QStringLiteral("serve"), QStringLiteral("--listen"),
                    QStringLiteral("127.0.0.1:0")},
                   cluster.url(0));
    static const QRegularExpression servedAt(QStringLiteral("(127\\.0\\.0\\.1:\\d+)/metrics"));
    QString at;
    QVERIFY(QTest::qWaitFor(
        [&] {
            exporter->process.waitForReadyRead(100);
            const QRegularExpressionMatch m =
                servedAt.match(QString::fromUtf8(exporter->process.readAllStandardError()));
            if (m.hasMatch())
                at = m.captured(1);
            return !at.isEmpty();
        },
        15000));
    QTest::qWait(2500);
    cluster.pause(replicas.first());
    QTest::qWait(500);
    SyncClient master(cluster.endpoint(owner));
    QVERIFY(master.open());
    QVERIFY(writeLock(master, name));
    QByteArray metrics;
    const bool exposed = waitExposed(at, name, &metrics);
    cluster.resume(replicas.first());
    QVERIFY2(exposed, metrics.constData());
    // The other masters' replicas are fine: a lock there is no alarm.
    exporter->process.kill();
    exporter->process.waitForFinished(3000);
}

void TestReplication::lockWritesWithoutWaitAreSaidOnce()
{
    // node-redisson renews its watchdog lease every second and never sends WAIT: after a window
    // of INFO commandstats (30 s) `watch` says once that a failover can lose locks silently.
    RedisServerProcess master;
    std::vector<std::unique_ptr<RedisServerProcess>> replicas;
    QVERIFY(startReplicated(master, replicas, 1));
    auto watch = cli({QStringLiteral("watch"), QStringLiteral("--duration-ms"), QStringLiteral("45000")}, master.url());
    QTest::qWait(1000);
    auto svc = service(master.port(), 3000);
    svc->send("hold renewed 1");
    QVERIFY(!svc->waitForPrefix(QStringLiteral("OK hold renewed"), 10000).text.isEmpty());
    QByteArray err;
    const bool said = QTest::qWaitFor(
        [&] {
            watch->process.waitForReadyRead(200);
            err += watch->process.readAllStandardError();
            return err.contains("no WAIT seen");
        },
        40000);
    QVERIFY2(said, err.constData());
    QVERIFY2(err.count("no WAIT seen") == 1, err.constData());
    svc->send("quit");
    svc->process.waitForFinished(5000);
    watch->process.kill();
    watch->process.waitForFinished(3000);
}

QTEST_GUILESS_MAIN(TestReplication)
#include "tst_replication.moc"
