// Lease safety against real services: node-redisson clients (an independent Redisson-compatible
// client, one process per "service") hold locks in a real redis-server while lockscope-cli
// watches. A service frozen with SIGSTOP past its watchdog lease loses the lock to a waiting
// service: `watch --json` says lease_lost within 2 s of the expiry and holder_returned within 2 s
// of the frozen service's first lock operation after SIGCONT; `doctor --json` has a critical
// lease_lost finding naming its holder field; `serve`'s /metrics counts the lost lease and the
// return (lockscope_lease_lost_total, lockscope_holder_returned_total). A fixed-lease holder killed with SIGKILL while
// another service waits gives waiters_behind_silent_holder. A normal release and a fixed lease
// that simply ends give no lease_lost; an expiry while LockScope was cut off from the server is
// "cannot tell". The rules themselves: tst_leasetracker.

#include "demo/redisserverprocess.h"
#include "faultproxy.h"
#include "linereader.h"
#include "localsentinel.h"
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
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
using lockscope::test::FaultProxy;
using lockscope::test::Line;
using Reader = lockscope::test::LineReader;
using lockscope::test::LocalSentinel;
using lockscope::test::SyncClient;

namespace
{

bool isEvent(const Line &l, const QString &lock, const QString &type)
{
    const QJsonObject o = l.json();
    return o.value(QStringLiteral("lock")).toString() == lock && o.value(QStringLiteral("type")).toString() == type;
}

} // namespace

class TestLeaseSafety : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void frozenServiceLosesItsLease();
    void killedFixedLeaseHolderLeavesWaitersBehind();
    void normalEndsAreNoLostLease();
    void expiryWhileCutOffCannotBeJudged();
    void failoverLosesAnUnreplicatedLock();

private:
    std::unique_ptr<Reader> service(qint64 watchdogMs, quint16 port = 0);
    std::unique_ptr<Reader> cli(const QStringList &args, const QString &url = QString());
    /** The holder field a service writes for `thread` on `lock`: read back with list --json. */
    QString holderOf(const QString &lock);

    RedisServerProcess m_server;
    QString m_node;
    QString m_dir;
};

std::unique_ptr<Reader> TestLeaseSafety::service(qint64 watchdogMs, quint16 port)
{
    auto r = std::make_unique<Reader>();
    r->process.setWorkingDirectory(m_dir);
    r->process.start(m_node, {QStringLiteral("service.js"), QString::number(port ? port : m_server.port()),
                              QString::number(watchdogMs)});
    if (r->waitForPrefix(QStringLiteral("READY"), 10000).text.isEmpty())
        qWarning("a node-redisson service did not start: %s", r->process.readAllStandardError().constData());
    return r;
}

std::unique_ptr<Reader> TestLeaseSafety::cli(const QStringList &args, const QString &url)
{
    auto r = std::make_unique<Reader>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOCKSCOPE_AUDIT_LOG"), QDir::temp().filePath(QStringLiteral("tst_leasesafety.audit")));
    r->process.setProcessEnvironment(env);
    r->process.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                     QStringList{QStringLiteral("--url"), url.isEmpty() ? m_server.url() : url} + args);
    return r;
}

QString TestLeaseSafety::holderOf(const QString &lock)
{
    auto list = cli({QStringLiteral("list"), QStringLiteral("--json")});
    list->process.waitForFinished(15000);
    for (const auto &line : list->process.readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("name")).toString() == lock)
            return o.value(QStringLiteral("holders"))
                .toArray()
                .first()
                .toObject()
                .value(QStringLiteral("field"))
                .toString();
    }
    return {};
}

void TestLeaseSafety::initTestCase()
{
    m_dir = QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR);
    m_node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (m_node.isEmpty())
        QSKIP("node is not installed: the lease-safety test needs Node.js >= 16 (node-redisson)");
    if (!QFileInfo::exists(m_dir + QStringLiteral("/node_modules/node-redisson/package.json")))
        QSKIP("node-redisson is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestLeaseSafety::cleanupTestCase()
{
    m_server.stop();
}

void TestLeaseSafety::frozenServiceLosesItsLease()
{
    const QString lock = QStringLiteral("orders:42");
    auto watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("40000")});
    auto doctor = cli(
        {QStringLiteral("doctor"), QStringLiteral("--json"), QStringLiteral("--observe-ms"), QStringLiteral("22000")});
    auto serve = cli({QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    QVERIFY(watch->process.waitForStarted(5000));
    QTest::qWait(1500); // the watchers' first scan

    // Service A holds the lock with its watchdog (3 s lease, renewed every second).
    auto a = service(3000);
    a->send("hold orders:42 1");
    QVERIFY(!a->waitForPrefix(QStringLiteral("OK hold orders:42"), 10000).text.isEmpty());
    const QString holderA = holderOf(lock);
    QVERIFY(holderA.endsWith(QStringLiteral(":1")));
    QVERIFY(!watch->waitFor([&](const Line &l) { return isEvent(l, lock, QStringLiteral("renewed")); }, 5000)
                 .text.isEmpty());
    QTest::qWait(1200);
    // Service B waits for it.
    auto b = service(3000);
    b->send("wait orders:42 7");
    QVERIFY(!b->waitForPrefix(QStringLiteral("WAITING orders:42"), 10000).text.isEmpty());
    QTest::qWait(300);

    // A freezes (a long GC pause, a stopped container): its watchdog stops renewing.
    QCOMPARE(::kill(pid_t(a->process.processId()), SIGSTOP), 0);
    const Line lost =
        watch->waitFor([&](const Line &l) { return isEvent(l, lock, QStringLiteral("lease_lost")); }, 10000);
    if (lost.text.isEmpty()) {
        watch->pump();
        for (const Line &l : watch->lines)
            qWarning("watch: %s", qPrintable(l.text));
    }
    QVERIFY2(!lost.text.isEmpty(), "no lease_lost event from watch --json");
    const QJsonObject e = lost.json();
    QCOMPARE(e.value(QStringLiteral("holder")).toString(), holderA);
    QCOMPARE(e.value(QStringLiteral("lease_ms")).toInteger() / 1000, 2); // ~3000 ms as read back
    const qint64 expiryMs =
        e.value(QStringLiteral("last_renewed_ms")).toInteger() + e.value(QStringLiteral("lease_ms")).toInteger();
    qInfo("lease_lost printed %lld ms after the expiry its last renewal implies", lost.arrivedMs - expiryMs);
    QVERIFY2(lost.arrivedMs - expiryMs <= 2000, qPrintable(lost.text));
    QVERIFY(e.value(QStringLiteral("detail")).toString().contains(QStringLiteral("critical section")));

    // B takes the lock while A may still be running.
    QVERIFY(!b->waitForPrefix(QStringLiteral("ACQUIRED orders:42"), 10000).text.isEmpty());
    const QString holderB = holderOf(lock);
    QVERIFY(holderB.endsWith(QStringLiteral(":7")));
    QVERIFY(holderB != holderA);

    // A resumes and does something Redis shows: it acquires another lock.
    QTest::qWait(1000);
    QCOMPARE(::kill(pid_t(a->process.processId()), SIGCONT), 0);
    a->send("hold audit:1 5");
    const Line acquiredAudit = a->waitForPrefix(QStringLiteral("OK hold audit:1"), 10000);
    QVERIFY(!acquiredAudit.text.isEmpty());
    const Line back =
        watch->waitFor([&](const Line &l) { return isEvent(l, lock, QStringLiteral("holder_returned")); }, 5000);
    QVERIFY2(!back.text.isEmpty(), "no holder_returned event from watch --json");
    qInfo("holder_returned printed %lld ms after A's acquire of audit:1 returned",
          back.arrivedMs - acquiredAudit.arrivedMs);
    QVERIFY(back.arrivedMs - acquiredAudit.arrivedMs <= 2000);
    const QJsonObject r = back.json();
    QCOMPARE(r.value(QStringLiteral("holder")).toString(), holderA);
    QCOMPARE(r.value(QStringLiteral("returned_on")).toString(), QStringLiteral("audit:1"));
    QCOMPARE(r.value(QStringLiteral("next_holder")).toString(), holderB);
    QVERIFY(r.value(QStringLiteral("overlap_to_ms")).toInteger() >=
            r.value(QStringLiteral("overlap_from_ms")).toInteger());

    // The doctor, observing meanwhile, has a critical lease_lost naming A's holder field.
    QVERIFY(doctor->process.waitForFinished(30000));
    doctor->pump();
    bool found = false;
    for (const Line &l : doctor->lines) {
        const QJsonObject f = l.json();
        if (f.value(QStringLiteral("code")).toString() == QLatin1String("lease_lost") &&
            f.value(QStringLiteral("lock")).toString() == lock) {
            found = true;
            QCOMPARE(f.value(QStringLiteral("severity")).toString(), QStringLiteral("critical"));
            QCOMPARE(f.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("holder")).toString(),
                     holderA);
            QCOMPARE(f.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("next_holder")).toString(),
                     holderB);
        }
    }
    QVERIFY2(found, qPrintable(QStringLiteral("doctor output: ") + doctor->process.readAllStandardError()));
    QCOMPARE(doctor->process.exitCode(), 4); // problems found

    // The exporter, watching all along, counts the lost lease and the return (the alerts' input).
    static const QRegularExpression servedAt(QStringLiteral("(127\\.0\\.0\\.1:\\d+)/metrics"));
    const QRegularExpressionMatch served = servedAt.match(QString::fromUtf8(serve->process.readAllStandardError()));
    QVERIFY2(served.hasMatch(), "lockscope-cli serve did not say where it serves");
    QNetworkAccessManager nam;
    QByteArray metrics;
    auto sample = [&metrics](const QByteArray &series) {
        for (const QByteArray &line : metrics.split('\n'))
            if (line.startsWith(series + ' '))
                return line.mid(series.size() + 1).toDouble();
        return -1.0;
    };
    const QByteArray lostSeries = "lockscope_lease_lost_total{group=\"orders:*\"}";
    const QByteArray backSeries = "lockscope_holder_returned_total{group=\"orders:*\"}";
    (void)QTest::qWaitFor(
        [&] {
            QNetworkReply *reply =
                nam.get(QNetworkRequest(QUrl(QStringLiteral("http://%1/metrics").arg(served.captured(1)))));
            (void)QTest::qWaitFor([reply] { return reply->isFinished(); }, 5000);
            metrics = reply->readAll();
            reply->deleteLater();
            return sample(lostSeries) >= 1 && sample(backSeries) >= 1;
        },
        5000);
    qInfo("/metrics: %s %g, %s %g", lostSeries.constData(), sample(lostSeries), backSeries.constData(),
          sample(backSeries));
    QVERIFY2(sample(lostSeries) >= 1, metrics.constData());
    QVERIFY2(sample(backSeries) >= 1, metrics.constData());
    serve->process.kill();
    serve->process.waitForFinished(3000);

    a->send("quit");
    b->send("quit");
    a->process.waitForFinished(3000);
    b->process.waitForFinished(3000);
    watch->process.kill();
    watch->process.waitForFinished(3000);
}

void TestLeaseSafety::killedFixedLeaseHolderLeavesWaitersBehind()
{
    const QString lock = QStringLiteral("billing:7");
    auto c = service(30000);
    c->send("hold-lease billing:7 3 3600000"); // one hour, no watchdog
    QVERIFY(!c->waitForPrefix(QStringLiteral("OK hold-lease billing:7"), 10000).text.isEmpty());
    auto d = service(30000);
    d->send("wait billing:7 4");
    QVERIFY(!d->waitForPrefix(QStringLiteral("WAITING billing:7"), 10000).text.isEmpty());
    c->process.kill(); // SIGKILL: no release, ever
    c->process.waitForFinished(3000);

    auto doctor = cli({QStringLiteral("doctor"), QStringLiteral("--json"), QStringLiteral("--observe-ms"),
                       QStringLiteral("5000"), QStringLiteral("--silent-holder-threshold-ms"), QStringLiteral("3000")});
    QVERIFY(doctor->process.waitForFinished(30000));
    doctor->pump();
    bool found = false;
    for (const Line &l : doctor->lines) {
        const QJsonObject f = l.json();
        if (f.value(QStringLiteral("code")).toString() != QLatin1String("waiters_behind_silent_holder"))
            continue;
        found = true;
        QCOMPARE(f.value(QStringLiteral("lock")).toString(), lock);
        QCOMPARE(f.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
        const QJsonObject ev = f.value(QStringLiteral("evidence")).toObject();
        QVERIFY(ev.value(QStringLiteral("waiters")).toInteger() >= 1);
        QVERIFY(ev.value(QStringLiteral("ttl_left_ms")).toInteger() > 3000000);
        QVERIFY(f.value(QStringLiteral("action")).toString().contains(QStringLiteral("force-unlock billing:7")));
    }
    QVERIFY2(found, qPrintable(QStringLiteral("no waiters_behind_silent_holder; stderr: ") +
                               doctor->process.readAllStandardError()));
    // Under the threshold it is not reported.
    auto early = cli({QStringLiteral("doctor"), QStringLiteral("--json"), QStringLiteral("--observe-ms"),
                      QStringLiteral("1000"), QStringLiteral("--silent-holder-threshold-ms"), QStringLiteral("60000")});
    QVERIFY(early->process.waitForFinished(30000));
    QVERIFY(!early->process.readAllStandardOutput().contains("waiters_behind_silent_holder"));
    d->process.kill();
    d->process.waitForFinished(3000);
}

void TestLeaseSafety::normalEndsAreNoLostLease()
{
    auto watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("9000")});
    QVERIFY(watch->process.waitForStarted(5000));
    QTest::qWait(1500);
    auto a = service(1500);
    a->send("hold jobs:renewed 1"); // watchdog, renewed every 0.5 s, then released
    QVERIFY(!a->waitForPrefix(QStringLiteral("OK hold jobs:renewed"), 10000).text.isEmpty());
    a->send("hold-lease jobs:fixed 2 1500"); // a fixed lease that simply ends
    QVERIFY(!a->waitForPrefix(QStringLiteral("OK hold-lease jobs:fixed"), 10000).text.isEmpty());
    QTest::qWait(2500);
    a->send("release jobs:renewed 1");
    QVERIFY(!a->waitForPrefix(QStringLiteral("OK release jobs:renewed"), 10000).text.isEmpty());
    QVERIFY(watch->process.waitForFinished(20000));
    watch->pump();
    QStringList renewed;
    QStringList fixed;
    for (const Line &l : watch->lines) {
        const QJsonObject o = l.json();
        if (o.value(QStringLiteral("lock")).toString() == QLatin1String("jobs:renewed"))
            renewed << o.value(QStringLiteral("type")).toString();
        if (o.value(QStringLiteral("lock")).toString() == QLatin1String("jobs:fixed"))
            fixed << o.value(QStringLiteral("type")).toString();
    }
    QVERIFY2(renewed.contains(QStringLiteral("renewed")) && renewed.contains(QStringLiteral("released")),
             qPrintable(renewed.join(QLatin1Char(','))));
    QVERIFY2(!renewed.contains(QStringLiteral("lease_lost")), qPrintable(renewed.join(QLatin1Char(','))));
    QVERIFY2(fixed.contains(QStringLiteral("expired")), qPrintable(fixed.join(QLatin1Char(','))));
    QVERIFY2(!fixed.contains(QStringLiteral("lease_lost")), qPrintable(fixed.join(QLatin1Char(','))));
    a->send("quit");
    a->process.waitForFinished(3000);
}

void TestLeaseSafety::expiryWhileCutOffCannotBeJudged()
{
    // LockScope reaches Redis through a proxy that goes silent while the holder freezes and its
    // lease runs out: when it sees the server again, the lock is gone and it cannot tell why.
    FaultProxy proxy(QHostAddress::LocalHost, m_server.port());
    QVERIFY(proxy.start());
    auto watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("25000")},
        proxy.url());
    QVERIFY(watch->process.waitForStarted(5000));
    QTest::qWait(1500);
    auto a = service(2000);
    a->send("hold cut:1 1");
    QVERIFY(!a->waitForPrefix(QStringLiteral("OK hold cut:1"), 10000).text.isEmpty());
    QVERIFY(
        !watch
             ->waitFor([&](const Line &l) { return isEvent(l, QStringLiteral("cut:1"), QStringLiteral("renewed")); },
                       5000)
             .text.isEmpty());
    proxy.setMode(FaultProxy::Mode::BlackHole);
    QTest::qWait(500);
    QCOMPARE(::kill(pid_t(a->process.processId()), SIGSTOP), 0);
    QTest::qWait(6000); // the health check notices (3 s), the lease ends (2 s)
    proxy.cutAll();
    proxy.setMode(FaultProxy::Mode::Pass);
    const Line gone = watch->waitFor(
        [&](const Line &l) {
            const QString type = l.json().value(QStringLiteral("type")).toString();
            return l.json().value(QStringLiteral("lock")).toString() == QLatin1String("cut:1") &&
                   type != QLatin1String("renewed") && type != QLatin1String("acquired");
        },
        12000);
    QVERIFY2(!gone.text.isEmpty(), "no event for cut:1 after the reconnect");
    const QJsonObject o = gone.json();
    QVERIFY2(o.value(QStringLiteral("type")).toString() != QLatin1String("lease_lost"), qPrintable(gone.text));
    if (o.value(QStringLiteral("type")).toString() == QLatin1String("expired"))
        QCOMPARE(o.value(QStringLiteral("lease_lost")).toString(), QStringLiteral("unknown"));
    ::kill(pid_t(a->process.processId()), SIGCONT);
    a->send("quit");
    a->process.waitForFinished(3000);
    watch->process.kill();
    watch->process.waitForFinished(3000);
}

void TestLeaseSafety::failoverLosesAnUnreplicatedLock()
{
    // A master with one replica and three sentinels. The replica stops applying the replication
    // stream (CLIENT PAUSE WRITE, as a lagging replica would), a service takes a lock on the
    // master, the master dies before the replica got it, and the sentinels promote the replica:
    // the lock is gone from the new master although nobody released it.
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

    // A fenced lock, replicated: held by X with token 5.
    const QByteArray x = "0b7c1f3e-5a2d-4c8e-9f61-3d2a1b0c9e8f:1";
    const QByteArray y = "7e6d5c4b-3a29-4817-8f6e-5d4c3b2a1908:2";
    SyncClient master(sentinel.endpoint(masterPort));
    QVERIFY(master.open());
    QVERIFY(!master.cmd({"SET", "redisson_lock_token:{fence:1}", "5"}).isError());
    QVERIFY(!master.cmd({"HSET", "fence:1", x, "1"}).isError());
    QVERIFY(!master.cmd({"PEXPIRE", "fence:1", "120000"}).isError());
    QVERIFY(!master.cmd({"WAIT", "1", "5000"}).isError());

    auto watch = cli(
        {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("60000")},
        sentinel.url());
    QVERIFY(watch->process.waitForStarted(5000));
    QTest::qWait(2000); // first scan done

    // The replica stops applying what the master sends.
    SyncClient replica(sentinel.endpoint(replicaPort));
    QVERIFY(replica.open());
    QVERIFY(!replica.cmd({"CLIENT", "PAUSE", "4000", "WRITE"}).isError());
    // On the master only: a service takes failover:1; the fenced lock goes from X to Y (token 6).
    auto service1 = service(30000, masterPort);
    service1->send("hold-lease failover:1 1 120000");
    QVERIFY(!service1->waitForPrefix(QStringLiteral("OK hold-lease failover:1"), 10000).text.isEmpty());
    QVERIFY(!master.cmd({"DEL", "fence:1"}).isError());
    QVERIFY(!master.cmd({"INCR", "redisson_lock_token:{fence:1}"}).isError());
    QVERIFY(!master.cmd({"HSET", "fence:1", y, "1"}).isError());
    QVERIFY(!master.cmd({"PEXPIRE", "fence:1", "120000"}).isError());
    QVERIFY(
        !watch
             ->waitFor(
                 [&](const Line &l) { return isEvent(l, QStringLiteral("failover:1"), QStringLiteral("acquired")); },
                 5000)
             .text.isEmpty());
    QVERIFY(!watch
                 ->waitFor(
                     [&](const Line &l) {
                         return isEvent(l, QStringLiteral("fence:1"), QStringLiteral("acquired")) &&
                                l.json().value(QStringLiteral("holder")).toString() == QString::fromLatin1(y);
                     },
                     5000)
                 .text.isEmpty());
    QTest::qWait(300);
    // The master dies before the replica applied any of it.
    QVERIFY2(sentinel.killMaster(&error), qPrintable(error));
    const Line failover = watch->waitFor(
        [](const Line &l) { return l.json().value(QStringLiteral("type")).toString() == QLatin1String("failover"); },
        40000);
    QVERIFY2(!failover.text.isEmpty(), "no failover event");
    const Line lost = watch->waitFor(
        [&](const Line &l) { return isEvent(l, QStringLiteral("failover:1"), QStringLiteral("lost_in_failover")); },
        20000);
    if (lost.text.isEmpty()) {
        watch->pump();
        for (const Line &l : watch->lines)
            qWarning("watch: %s", qPrintable(l.text));
    }
    QVERIFY2(!lost.text.isEmpty(), "no lost_in_failover for failover:1");
    QVERIFY(lost.json().value(QStringLiteral("holder")).toString().endsWith(QStringLiteral(":1")));
    QVERIFY(lost.json().value(QStringLiteral("detail")).toString().contains(QStringLiteral("RedLock")));
    // The fenced lock: Y's hold is lost and the token went back to 5.
    const Line regressed = watch->waitFor(
        [&](const Line &l) { return isEvent(l, QStringLiteral("fence:1"), QStringLiteral("token_regressed")); }, 10000);
    QVERIFY2(!regressed.text.isEmpty(), "no token_regressed for fence:1");
    QCOMPARE(regressed.json().value(QStringLiteral("token_before")).toInteger(), 6);
    QCOMPARE(regressed.json().value(QStringLiteral("token_after")).toInteger(), 5);
    QVERIFY(!watch
                 ->waitFor(
                     [&](const Line &l) {
                         return isEvent(l, QStringLiteral("fence:1"), QStringLiteral("lost_in_failover"));
                     },
                     5000)
                 .text.isEmpty());
    service1->process.kill();
    service1->process.waitForFinished(3000);
    watch->process.kill();
    watch->process.waitForFinished(3000);
}

QTEST_GUILESS_MAIN(TestLeaseSafety)
#include "tst_leasesafety.moc"
