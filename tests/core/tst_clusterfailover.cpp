// Redis Cluster failover while watching, against a real cluster of 3 masters with one replica
// each (tests/support/localcluster, cluster-node-timeout 1000 ms): a master holding a lock is
// SIGKILLed, its replica takes over, and ClusterLockMonitor (then `lockscope-cli watch --json`)
// must report the failover, list the lock again from the new master without reporting it
// released, and go on reporting events on those slots. Timings are printed, not asserted.

#include "localcluster.h"
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "protocol/lockevent.h"
#include "protocol/locknames.h"
#include "protocol/topologyevent.h"
#include "redis/clusterrouter.h"
#include "redis/clustertopology.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "watch/clusterlockmonitor.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <memory>
#include <tuple>

using namespace lockscope;
using lockscope::test::LocalCluster;
using lockscope::test::ProcessResult;
using lockscope::test::SyncClient;

namespace
{

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

// Redisson 3.12's lock and unlock scripts, run by redis-cli: a client independent of LockScope.
const QByteArray kAcquire =
    "if (redis.call('exists', KEYS[1]) == 0) then redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; "
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);";
const QByteArray kUnlock =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; "
    "else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;";

bool acquire(quint16 port, const QString &name, const QString &holder, int leaseMs = 120000)
{
    const ProcessResult r = lockscope::test::redisCliEval(port, kAcquire, {name}, {QString::number(leaseMs), holder});
    return r.finished && r.exitCode == 0 && !r.out.contains("ERR") && !r.out.contains("MOVED");
}

bool release(quint16 port, const QString &name, const QString &holder)
{
    const ProcessResult r = lockscope::test::redisCliEval(port, kUnlock, {name, LockNames::unlockChannel(name)},
                                                          {QStringLiteral("0"), QStringLiteral("30000"), holder});
    return r.finished && r.exitCode == 0 && r.out.trimmed() == "1";
}

/** A CLUSTER SLOTS reply: (first, last, master port) per range, masters on 127.0.0.1. */
ClusterTopology slotsTopology(const QVector<std::tuple<int, int, int>> &ranges)
{
    QVector<RedisReply> entries;
    for (const auto &[first, last, port] : ranges) {
        const RedisReply node = RedisReply::makeArray(
            {RedisReply::makeString("127.0.0.1"), RedisReply::makeInteger(port), RedisReply::makeString("id")});
        entries << RedisReply::makeArray({RedisReply::makeInteger(first), RedisReply::makeInteger(last), node});
    }
    return ClusterTopology::fromSlots(RedisReply::makeArray(entries), QStringLiteral("127.0.0.1"));
}

QString address(const LocalCluster &c, int i)
{
    return QStringLiteral("127.0.0.1:%1").arg(c.port(i));
}

} // namespace

class TestClusterFailover : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void handoversBetweenTopologies();
    void monitorFollowsFailover();
    void cliWatchReportsFailover();
    void monitorFollowsFailoverOfHungMaster();

private:
    /** Holds a lock on master `victim`, watches, kills (or pauses) it, checks the monitor follows. */
    void followFailover(int victim, bool pause);
    /** A lock name whose slot node `node` serves. */
    QString nameOn(int node, const QString &prefix);
    /** Makes sure the replicas got the lock before its master dies (WAIT 1). */
    bool replicated(int master);

    LocalCluster m_cluster;
};

void TestClusterFailover::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty() || lockscope::test::redisCliPath().isEmpty())
        QSKIP("redis-server and redis-cli are needed");
    m_cluster.setNodeTimeoutMs(1000);
    QElapsedTimer t;
    t.start();
    QString error;
    QVERIFY2(m_cluster.start(3, 1, &error), qPrintable(error));
    qInfo("cluster of 3 masters + 3 replicas ready in %lld ms", t.elapsed());
}

void TestClusterFailover::cleanupTestCase()
{
    m_cluster.stop();
}

QString TestClusterFailover::nameOn(int node, const QString &prefix)
{
    for (int i = 0; i < 1000; ++i) {
        const QString n = QStringLiteral("%1-%2").arg(prefix).arg(i);
        if (m_cluster.nodeOf(n.toUtf8()) == node)
            return n;
    }
    return QString();
}

bool TestClusterFailover::replicated(int master)
{
    const ProcessResult w = lockscope::test::redisCli(m_cluster.port(master), {"WAIT", "1", "5000"});
    return w.out.trimmed() == "1";
}

void TestClusterFailover::handoversBetweenTopologies()
{
    const ClusterTopology before = slotsTopology({{0, 5460, 7001}, {5461, 10922, 7002}, {10923, 16383, 7003}});
    QVERIFY(before.coversAllSlots());
    QCOMPARE(before, slotsTopology({{10923, 16383, 7003}, {0, 5460, 7001}, {5461, 10922, 7002}}));

    // 7002 marked failed: CLUSTER SHARDS leaves its slots out; merging keeps them on 7002.
    const ClusterTopology gap = slotsTopology({{0, 5460, 7001}, {10923, 16383, 7003}});
    QVERIFY(!gap.coversAllSlots());
    QVERIFY(ClusterTopology::handovers(before, gap).isEmpty());
    const ClusterTopology merged = gap.mergedOver(before);
    QCOMPARE(merged, before);

    // Its replica 7005 took over: one failover handover of the whole range.
    const ClusterTopology after = slotsTopology({{0, 5460, 7001}, {5461, 10922, 7005}, {10923, 16383, 7003}});
    const auto handovers = ClusterTopology::handovers(merged, after);
    QCOMPARE(handovers.size(), 1);
    QCOMPARE(handovers.first().from, QStringLiteral("127.0.0.1:7002"));
    QCOMPARE(handovers.first().to, QStringLiteral("127.0.0.1:7005"));
    QCOMPARE(handovers.first().slotRanges, (QVector<QPair<int, int>>{{5461, 10922}}));
    QCOMPARE(after.mergedOver(merged), after);
    QCOMPARE(after.slotsOf(QStringLiteral("127.0.0.1:7005")), (QVector<QPair<int, int>>{{5461, 10922}}));

    // A migration of two separate slots: one handover, two ranges, and the text form.
    ClusterTopology migrated = before;
    migrated.setMaster(5, QStringLiteral("127.0.0.1:7003"));
    migrated.setMaster(7, QStringLiteral("127.0.0.1:7003"));
    const auto moved = ClusterTopology::handovers(before, migrated);
    QCOMPARE(moved.size(), 1);
    QCOMPARE(ClusterTopology::describeSlots(moved.first().slotRanges), QStringLiteral("5, 7"));
    QCOMPARE(ClusterTopology::describeSlots(before.slotsOf(QStringLiteral("127.0.0.1:7001"))),
             QStringLiteral("0-5460"));
}

void TestClusterFailover::monitorFollowsFailover()
{
    // Master 1 (not the seed, node 0) holds the lock and dies.
    followFailover(1, false);
}

void TestClusterFailover::monitorFollowsFailoverOfHungMaster()
{
    // Master 2 stops answering (SIGSTOP) but its sockets stay open: nothing fails fast, the
    // topology checks must notice the promotion of its replica. Then it wakes up as a replica
    // and takes its slots back (CLUSTER FAILOVER): the monitor follows back to it.
    followFailover(2, true);
}

void TestClusterFailover::followFailover(int victim, bool pause)
{
    QVERIFY(m_cluster.isMaster(victim));
    const QList<int> replicas = m_cluster.replicasOf(victim);
    QVERIFY2(!replicas.isEmpty(), "the master has no replica");
    const QString name = nameOn(victim, QStringLiteral("failover-lock"));
    QVERIFY(!name.isEmpty());
    const QString holder = lockscope::test::newClientId() + QStringLiteral(":1");
    QVERIFY(acquire(m_cluster.port(victim), name, holder));
    QVERIFY(replicated(victim));

    int seedNode = 0; // the first live node other than the victim
    while (seedNode == victim || !m_cluster.isUp(seedNode))
        ++seedNode;
    RedisConnectionPool pool(m_cluster.endpoint(seedNode));
    RedisConnection *seed = pool.connection();
    seed->open();
    ClusterTopology topology;
    QVERIFY(lockscope::test::waitUntil([&] {
        bool done = false;
        ClusterRouter::load(seed, nullptr, [&](const ClusterTopology &t, const QString &) {
            topology = t;
            done = true;
        });
        lockscope::test::waitUntil([&] { return done; });
        return topology.coversAllSlots();
    }));
    ClusterRouter router(&pool, topology);
    ClusterLockMonitor monitor(&router);
    QVector<LockEvent> events;
    QVector<TopologyEvent> changes;
    QList<QPair<int, int>> live;
    QStringList modes;
    connect(&monitor, &ClusterLockMonitor::eventsOccurred, this, [&](const QVector<LockEvent> &e) { events += e; });
    connect(&monitor, &ClusterLockMonitor::topologyChanged, this,
            [&](const QVector<TopologyEvent> &e) { changes += e; });
    connect(&monitor, &ClusterLockMonitor::liveMastersChanged, this, [&](int l, int m) { live.append({l, m}); });
    connect(&monitor, &ClusterLockMonitor::modeChanged, this, [&](LockMonitor::Mode mode, const QString &detail) {
        modes << LockMonitor::modeName(mode) + QStringLiteral(": ") + detail;
    });
    monitor.start();
    QVERIFY(lockscope::test::waitUntil([&] { return monitor.isIdle() && monitor.locks().contains(name); }, 30000));
    QCOMPARE(monitor.nodeOf(name), address(m_cluster, victim));
    QVERIFY(lockscope::test::waitUntil([&] { return monitor.liveMasters() == 3; }));
    QVERIFY(modes.last().endsWith(QLatin1String("(3 of 3 masters live)")));
    events.clear();

    QElapsedTimer clock;
    clock.start();
    if (pause)
        m_cluster.pause(victim);
    else
        m_cluster.kill(victim);
    const int promoted = m_cluster.waitForPromotion(replicas, 30000);
    const qint64 promotedMs = clock.elapsed();
    QVERIFY2(promoted >= 0, "no replica was promoted");
    const QString newMaster = address(m_cluster, promoted);

    auto failoverReported = [&] {
        for (const TopologyEvent &e : changes)
            if (e.type == QLatin1String("failover") && e.oldMaster == address(m_cluster, victim) &&
                e.newMaster == newMaster)
                return true;
        return false;
    };
    const bool followed = lockscope::test::waitUntil(
        [&] {
            return failoverReported() && monitor.nodes().contains(newMaster) &&
                   !monitor.nodes().contains(address(m_cluster, victim)) &&
                   monitor.nodes().value(newMaster)->locks().contains(name) && monitor.liveMasters() == 3;
        },
        30000);
    const qint64 followedMs = clock.elapsed();
    QStringList described;
    for (const TopologyEvent &e : changes)
        described << QString::fromUtf8(QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact));
    qInfo("%s of master %s: replica %s promoted (seen by every node) after %lld ms; the monitor "
          "followed after %lld ms",
          pause ? "SIGSTOP" : "SIGKILL", qPrintable(address(m_cluster, victim)), qPrintable(newMaster), promotedMs,
          followedMs);
    qInfo("topology events: %s", qPrintable(described.join(QLatin1Char('\n'))));
    QVERIFY2(followed,
             qPrintable(described.join(QLatin1Char('\n')) + QLatin1Char('\n') + modes.join(QLatin1Char('\n'))));

    // The lock survived the failover: not reported released, expired or acquired again.
    QCOMPARE(monitor.locks().value(name).holders.size(), 1);
    QCOMPARE(monitor.locks().value(name).holders.first().field, holder);
    for (const LockEvent &e : std::as_const(events))
        QVERIFY2(e.lock != name || e.type == QLatin1String("renewed") || e.type == QLatin1String("unlock_message"),
                 qPrintable(QStringLiteral("spurious %1 event: %2").arg(e.type, e.detail)));
    // The dead master's monitor went down (a paused one may not notice before it is replaced),
    // then every master was live again.
    if (!pause)
        QVERIFY(live.contains(qMakePair(2, 3)));
    QCOMPARE(live.last(), qMakePair(3, 3));
    for (const TopologyEvent &e : std::as_const(changes))
        if (e.type == QLatin1String("failover"))
            QVERIFY(!e.slotRanges.isEmpty());

    // The lock's unlock channel is SSUBSCRIBEd on the new master.
    const QByteArray channel = LockNames::unlockChannel(name).toUtf8();
    SyncClient promotedClient(m_cluster.endpoint(promoted));
    QVERIFY(promotedClient.open());
    QVERIFY(lockscope::test::waitUntil([&] {
        return promotedClient.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() >= 1;
    }));

    // Events on those slots keep coming: the release of the surviving lock, a new lock.
    events.clear();
    QVERIFY(release(m_cluster.port(promoted), name, holder));
    const QString second = nameOn(promoted, QStringLiteral("after-failover"));
    QVERIFY(!second.isEmpty());
    const QString holder2 = lockscope::test::newClientId() + QStringLiteral(":7");
    QVERIFY(acquire(m_cluster.port(promoted), second, holder2));
    auto seen = [&](const QString &lock, const QString &type) {
        return std::any_of(events.cbegin(), events.cend(),
                           [&](const LockEvent &e) { return e.lock == lock && e.type == type; });
    };
    QVERIFY2(
        lockscope::test::waitUntil(
            [&] { return seen(name, QStringLiteral("released")) && seen(second, QStringLiteral("acquired")); }, 15000),
        qPrintable(modes.join(QLatin1Char('\n'))));
    QVERIFY(release(m_cluster.port(promoted), second, holder2));
    QVERIFY(lockscope::test::waitUntil([&] { return seen(second, QStringLiteral("released")); }, 15000));
    QVERIFY(!monitor.locks().contains(name));
    if (!pause)
        return;

    // Fail back: the old master, awake again, is a replica of the new one; a manual
    // CLUSTER FAILOVER on it makes it the master again (its connections, closed when it was
    // retired, are opened again).
    m_cluster.resume(victim);
    SyncClient back(m_cluster.endpoint(victim));
    QVERIFY(back.open());
    QVERIFY(lockscope::test::waitUntil(
        [&] {
            return m_cluster.masterOf(victim) == promoted &&
                   back.cmd({"INFO", "replication"}).toByteArray().contains("master_link_status:up");
        },
        30000));
    const QString third = nameOn(promoted, QStringLiteral("fail-back"));
    const QString holder3 = lockscope::test::newClientId() + QStringLiteral(":3");
    QVERIFY(acquire(m_cluster.port(promoted), third, holder3));
    QVERIFY(replicated(promoted));
    QVERIFY(lockscope::test::waitUntil([&] { return monitor.locks().contains(third); }));
    events.clear();
    changes.clear();
    clock.restart();
    QCOMPARE(back.cmd({"CLUSTER", "FAILOVER"}).toByteArray(), QByteArray("OK"));
    const bool followedBack = lockscope::test::waitUntil(
        [&] {
            for (const TopologyEvent &e : std::as_const(changes))
                if (e.type == QLatin1String("failover") && e.oldMaster == newMaster &&
                    e.newMaster == address(m_cluster, victim) && monitor.nodes().contains(e.newMaster) &&
                    monitor.nodes().value(e.newMaster)->locks().contains(third))
                    return true;
            return false;
        },
        30000);
    qInfo("CLUSTER FAILOVER back to %s followed after %lld ms", qPrintable(address(m_cluster, victim)),
          clock.elapsed());
    QVERIFY2(followedBack, qPrintable(modes.join(QLatin1Char('\n'))));
    for (const LockEvent &e : std::as_const(events))
        QVERIFY2(e.lock != third || e.type == QLatin1String("renewed") || e.type == QLatin1String("unlock_message"),
                 qPrintable(QStringLiteral("spurious %1 event: %2").arg(e.type, e.detail)));
    QVERIFY(release(m_cluster.port(victim), third, holder3));
    QVERIFY(lockscope::test::waitUntil([&] { return seen(third, QStringLiteral("released")); }, 15000));
}

void TestClusterFailover::cliWatchReportsFailover()
{
    // This time the master dies that lockscope-cli was pointed at (--url, the seed of its
    // connection pool): the other masters must answer for the topology.
    const int victim = 0;
    QVERIFY(m_cluster.isMaster(victim));
    const QList<int> replicas = m_cluster.replicasOf(victim);
    QVERIFY2(!replicas.isEmpty(), "the master has no replica");
    const QString name = nameOn(victim, QStringLiteral("cli-failover-lock"));
    const QString holder = lockscope::test::newClientId() + QStringLiteral(":1");
    QVERIFY(acquire(m_cluster.port(victim), name, holder));
    QVERIFY(replicated(victim));

    QProcess watch;
    watch.start(cliPath(),
                {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("watch"), QStringLiteral("--json")});
    QVERIFY(watch.waitForStarted());
    QByteArray out;
    QByteArray err;
    auto readAll = [&] {
        out += watch.readAllStandardOutput();
        err += watch.readAllStandardError();
    };
    QVERIFY2(lockscope::test::waitUntil(
                 [&] {
                     readAll();
                     return err.contains("watching");
                 },
                 30000),
             err.constData());

    QElapsedTimer clock;
    clock.start();
    m_cluster.kill(victim);
    const int promoted = m_cluster.waitForPromotion(replicas, 30000);
    QVERIFY2(promoted >= 0, "no replica was promoted");
    const qint64 promotedMs = clock.elapsed();
    QJsonObject failover;
    const bool reported = lockscope::test::waitUntil(
        [&] {
            readAll();
            for (const QByteArray &line : out.split('\n')) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                if (o.value(QStringLiteral("type")).toString() == QLatin1String("failover")) {
                    failover = o;
                    return true;
                }
            }
            return false;
        },
        30000);
    const qint64 reportedMs = clock.elapsed();
    qInfo("lockscope-cli watch: replica promoted after %lld ms, failover line after %lld ms", promotedMs, reportedMs);
    QVERIFY2(reported, qPrintable(QString::fromUtf8(out + err)));
    QCOMPARE(failover.value(QStringLiteral("old_master")).toString(), address(m_cluster, victim));
    QCOMPARE(failover.value(QStringLiteral("new_master")).toString(), address(m_cluster, promoted));
    QVERIFY(failover.value(QStringLiteral("lock")).isNull());
    QVERIFY(!failover.value(QStringLiteral("slots")).toArray().isEmpty());
    QCOMPARE(failover.value(QStringLiteral("masters")).toInt(), 3);

    // Still watching those slots: a lock taken on the new master is reported.
    const QString second = nameOn(promoted, QStringLiteral("cli-after-failover"));
    const QString holder2 = lockscope::test::newClientId() + QStringLiteral(":9");
    QVERIFY(acquire(m_cluster.port(promoted), second, holder2));
    const bool acquiredSeen = lockscope::test::waitUntil(
        [&] {
            readAll();
            return out.contains(QStringLiteral("\"lock\":\"%1\"").arg(second).toUtf8()) &&
                   out.contains("\"type\":\"acquired\"");
        },
        15000);
    watch.kill();
    watch.waitForFinished();
    readAll();
    qInfo("lockscope-cli stderr:\n%s", err.constData());
    QVERIFY2(acquiredSeen, qPrintable(QString::fromUtf8(out + err)));
    // The lock held through the failover was not reported as released or expired.
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("lock")).toString() == name)
            QVERIFY2(o.value(QStringLiteral("type")).toString() != QLatin1String("released") &&
                         o.value(QStringLiteral("type")).toString() != QLatin1String("expired") &&
                         o.value(QStringLiteral("type")).toString() != QLatin1String("acquired"),
                     line.constData());
    }
    QVERIFY(err.contains("masters live)"));
}

QTEST_GUILESS_MAIN(TestClusterFailover)
#include "tst_clusterfailover.moc"
