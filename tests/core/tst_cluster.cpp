// Redis Cluster support against a real 3-master cluster on loopback (tests/support/localcluster):
// topology, routing by slot, MOVED and ASK (live slot migration), and lockscope-cli pointed at
// one node listing, showing, watching and force-unlocking locks held on the other masters.

#include "localcluster.h"
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "protocol/locknames.h"
#include "redis/clusterrouter.h"
#include "redis/clustertopology.h"
#include "redis/hashslot.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

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

/** Blocking route through a ClusterRouter. */
RedisReply routed(ClusterRouter &router, const QByteArray &key, const QList<QByteArray> &argv)
{
    RedisReply out;
    bool done = false;
    router.send(key, argv, nullptr, [&](const RedisReply &r) {
        out = r;
        done = true;
    });
    if (!lockscope::test::waitUntil([&] { return done; }, 20000))
        return RedisReply::makeError(QStringLiteral("no reply"), true);
    return out;
}

} // namespace

class TestCluster : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void topologyFromShardsAndSlots();
    void detectsClusterMode();
    void routesBySlot();
    void followsMoved();
    void cliListsLocksOfEveryMaster();
    void cliShowsLockOnAnotherMaster();
    void cliAcquiresLockOnAnotherMaster();
    void cliWatchReportsEventsFromEveryMaster();
    void cliForceUnlockWakesClassicAndShardedWaiters();
    void cliDoctorCoversEveryMaster();
    void cliWatchReportsShardedUnlockMessages();
    void cliWatchFollowsFairWaiterChannels();
    void followsAskDuringLiveMigration();
    void watchersAreNoWaiters();
    void locksOfAMigratingSlotAreFound();

private:
    /** A name per node index 0..2 (lock names hashing to each master). */
    QStringList namesOnEachNode(const QString &prefix);
    /** Starts migrating `slot` from node 0 to node 1 (IMPORTING on the target, MIGRATING on the
     *  source, as redis-cli --cluster reshard does) and MIGRATEs `keys`; empty, or what failed. */
    QString migrateFromNode0To1(SyncClient &source, SyncClient &target, int slot, const QList<QByteArray> &keys);
    ProcessResult cli(const QStringList &args, int timeoutMs = 60000);

    LocalCluster m_cluster;
    QTemporaryDir m_tmp;
    std::unique_ptr<RedisConnectionPool> m_pool;
    ClusterTopology m_topology;
};

void TestCluster::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty() || lockscope::test::redisCliPath().isEmpty())
        QSKIP("redis-server and redis-cli are needed");
    QString error;
    QVERIFY2(m_cluster.start(3, &error), qPrintable(error));
    m_pool = std::make_unique<RedisConnectionPool>(m_cluster.endpoint(0));
    RedisConnection *seed = m_pool->connection();
    seed->open();
    bool done = false;
    ClusterRouter::load(seed, nullptr, [&](const ClusterTopology &t, const QString &e) {
        m_topology = t;
        error = e;
        done = true;
    });
    QVERIFY(lockscope::test::waitUntil([&] { return done; }));
    QVERIFY2(m_topology.isValid(), qPrintable(error));
}

void TestCluster::cleanupTestCase()
{
    m_pool.reset();
    m_cluster.stop();
}

ProcessResult TestCluster::cli(const QStringList &args, int timeoutMs)
{
    QStringList all{QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("--audit-log"),
                    m_tmp.filePath("audit.jsonl")};
    all << args;
    return lockscope::test::runProcess(cliPath(), all, timeoutMs);
}

QString TestCluster::migrateFromNode0To1(SyncClient &source, SyncClient &target, int slot,
                                         const QList<QByteArray> &keys)
{
    const RedisReply importing =
        target.cmd({"CLUSTER", "SETSLOT", QByteArray::number(slot), "IMPORTING", m_cluster.nodeId(0)});
    const RedisReply migrating =
        source.cmd({"CLUSTER", "SETSLOT", QByteArray::number(slot), "MIGRATING", m_cluster.nodeId(1)});
    if (importing.toByteArray() != "OK" || migrating.toByteArray() != "OK")
        return importing.debugString() + QLatin1Char(' ') + migrating.debugString();
    QList<QByteArray> migrate{"MIGRATE", "127.0.0.1", QByteArray::number(m_cluster.port(1)), "", "0", "5000", "KEYS"};
    migrate += keys;
    const RedisReply migrated = source.cmd(migrate);
    return migrated.isError() ? migrated.debugString() : QString();
}

QStringList TestCluster::namesOnEachNode(const QString &prefix)
{
    QStringList names(3);
    for (int i = 0; names.contains(QString()) && i < 1000; ++i) {
        const QString n = QStringLiteral("%1-%2").arg(prefix).arg(i);
        const int node = m_cluster.nodeOf(n.toUtf8());
        if (node >= 0 && names[node].isEmpty())
            names[node] = n;
    }
    return names;
}

void TestCluster::topologyFromShardsAndSlots()
{
    QVERIFY(m_topology.coversAllSlots());
    QCOMPARE(m_topology.masters().size(), 3);
    QSet<QString> expected;
    for (int i = 0; i < 3; ++i)
        expected.insert(QStringLiteral("127.0.0.1:%1").arg(m_cluster.port(i)));
    const QStringList masters = m_topology.masters();
    QCOMPARE(QSet<QString>(masters.cbegin(), masters.cend()), expected);

    // CLUSTER SLOTS (the fallback for Redis < 7) gives the same owner for every slot.
    SyncClient c(m_cluster.endpoint(1));
    QVERIFY(c.open());
    QString error;
    const ClusterTopology fromSlots =
        ClusterTopology::fromSlots(c.cmd({"CLUSTER", "SLOTS"}), QStringLiteral("127.0.0.1"), &error);
    QVERIFY2(fromSlots.coversAllSlots(), qPrintable(error));
    for (int slot = 0; slot < HashSlot::kSlotCount; slot += 97)
        QCOMPARE(fromSlots.masterForSlot(slot), m_topology.masterForSlot(slot));
    QCOMPARE(fromSlots.masterForSlot(HashSlot::kSlotCount - 1), m_topology.masterForSlot(HashSlot::kSlotCount - 1));

    // The seed's credentials and db travel to the other nodes' endpoints.
    RedisEndpoint seed = RedisEndpoint::parse(QStringLiteral("redis://ops@127.0.0.1:7000/0"));
    seed.setPassword(QStringLiteral("secret"), RedisEndpoint::PasswordSource::Url);
    const RedisEndpoint other = ClusterTopology::endpointFor(QStringLiteral("127.0.0.1:7001"), seed);
    QVERIFY(other.isValid());
    QCOMPARE(other.port(), quint16(7001));
    QCOMPARE(other.username(), QStringLiteral("ops"));
    QCOMPARE(other.password(), QStringLiteral("secret"));
}

void TestCluster::detectsClusterMode()
{
    bool done = false;
    bool cluster = false;
    ClusterRouter::detect(m_pool->connection(), nullptr, [&](bool c, const QString &) {
        cluster = c;
        done = true;
    });
    QVERIFY(lockscope::test::waitUntil([&] { return done; }));
    QVERIFY(cluster);

    RedisServerProcess single;
    QString error;
    QVERIFY2(single.start(10000, &error), qPrintable(error));
    RedisConnection conn(single.endpoint());
    conn.open();
    done = false;
    ClusterRouter::detect(&conn, nullptr, [&](bool c, const QString &) {
        cluster = c;
        done = true;
    });
    QVERIFY(lockscope::test::waitUntil([&] { return done; }));
    QVERIFY(!cluster);
}

void TestCluster::routesBySlot()
{
    ClusterRouter router(m_pool.get(), m_topology);
    const QStringList names = namesOnEachNode(QStringLiteral("route"));
    QVERIFY(!names.contains(QString()));
    for (int node = 0; node < 3; ++node) {
        const QByteArray key = names[node].toUtf8();
        QCOMPARE(routed(router, key, {"SET", key, "v" + QByteArray::number(node)}).toByteArray(), QByteArray("OK"));
        // The key lives on the node that serves its slot, and only there.
        SyncClient owner(m_cluster.endpoint(node));
        QVERIFY(owner.open());
        QCOMPARE(owner.cmd({"GET", key}).toByteArray(), "v" + QByteArray::number(node));
        QCOMPARE(routed(router, key, {"GET", key}).toByteArray(), "v" + QByteArray::number(node));
    }
    QCOMPARE(router.movedCount(), 0);
}

void TestCluster::followsMoved()
{
    const QStringList names = namesOnEachNode(QStringLiteral("moved"));
    const QByteArray key = names[2].toUtf8();
    // A stale topology that sends the key's slot to node 0: the server answers MOVED.
    ClusterTopology stale = m_topology;
    stale.setMaster(HashSlot::of(key), QStringLiteral("127.0.0.1:%1").arg(m_cluster.port(0)));
    ClusterRouter router(m_pool.get(), stale);
    QCOMPARE(routed(router, key, {"SET", key, "moved"}).toByteArray(), QByteArray("OK"));
    QVERIFY(router.movedCount() >= 1);
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    QCOMPARE(owner.cmd({"GET", key}).toByteArray(), QByteArray("moved"));
    // The redirect was recorded and the topology refreshed: the next command goes straight there.
    QVERIFY(lockscope::test::waitUntil(
        [&] { return router.topology().masterForKey(key) == QStringLiteral("127.0.0.1:%1").arg(m_cluster.port(2)); }));
    const int moved = router.movedCount();
    QCOMPARE(routed(router, key, {"GET", key}).toByteArray(), QByteArray("moved"));
    QCOMPARE(router.movedCount(), moved);
}

void TestCluster::cliListsLocksOfEveryMaster()
{
    const QStringList names = namesOnEachNode(QStringLiteral("list-lock"));
    QVERIFY(!names.contains(QString()));
    for (const QString &n : names) {
        // Written by an independent client that follows MOVED itself (redis-cli -c), via node 0.
        const ProcessResult w = lockscope::test::redisCli(
            m_cluster.port(0),
            {"-c", "EVAL", "redis.call('hset', KEYS[1], ARGV[1], 1); return redis.call('pexpire', KEYS[1], 60000)", "1",
             n, "b983c153-7421-469a-addb-44fb92259a1b:1"});
        QVERIFY2(w.exitCode == 0 && !w.out.contains("ERR"), qPrintable(w.describe()));
    }
    const ProcessResult r = cli({QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QSet<QString> listed;
    for (const QByteArray &line : r.out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        listed.insert(o.value(QStringLiteral("name")).toString());
        if (names.contains(o.value(QStringLiteral("name")).toString())) {
            QCOMPARE(o.value(QStringLiteral("kind")).toString(), QStringLiteral("lock"));
            QVERIFY(o.value(QStringLiteral("pttl_ms")).toInteger() > 0);
        }
    }
    for (const QString &n : names)
        QVERIFY2(listed.contains(n),
                 qPrintable(QStringLiteral("%1 missing from:\n%2").arg(n, QString::fromUtf8(r.out))));

    // The table form says it covered the cluster.
    const ProcessResult table = cli({QStringLiteral("list")});
    QVERIFY2(table.exitCode == 0, qPrintable(table.describe()));
    QVERIFY2(table.out.contains("3 in all"), qPrintable(table.describe()));
}

void TestCluster::cliAcquiresLockOnAnotherMaster()
{
    // --url names node 0; the lock's slot lives on node 2: acquire, hold and release go there.
    const QString name = namesOnEachNode(QStringLiteral("acquire-lock"))[2];
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    QProcess p;
    p.start(cliPath(), {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("--audit-log"),
                        m_tmp.filePath(QStringLiteral("audit.jsonl")), QStringLiteral("acquire"), name,
                        QStringLiteral("--lease-ms"), QStringLiteral("20000"), QStringLiteral("--hold-ms"),
                        QStringLiteral("1500")});
    QVERIFY(p.waitForStarted());
    QVERIFY(lockscope::test::waitUntil([&] { return owner.exists(name.toUtf8()); }, 10000));
    const QStringList fields = owner.hgetall(name.toUtf8());
    QCOMPARE(fields.size(), 1);
    QVERIFY2(fields[0].endsWith(QLatin1String(":1=1")),
             qPrintable(fields.join(QLatin1Char(' ')))); // clientId:1 = hold count 1
    const qint64 pttl = owner.cmd({"PTTL", name.toUtf8()}).toInteger();
    QVERIFY2(pttl > 15000 && pttl <= 20000, qPrintable(QString::number(pttl)));
    QVERIFY(p.waitForFinished(15000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QVERIFY(p.readAllStandardOutput().contains("released"));
    QVERIFY(!owner.exists(name.toUtf8()));
}

void TestCluster::cliShowsLockOnAnotherMaster()
{
    const QStringList names = namesOnEachNode(QStringLiteral("show-lock"));
    const QString name = names[2];
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:7", "2"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});
    const ProcessResult r = cli({QStringLiteral("show"), name, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QJsonObject o = QJsonDocument::fromJson(r.out.trimmed()).object();
    QCOMPARE(o.value(QStringLiteral("name")).toString(), name);
    const QJsonObject holder = o.value(QStringLiteral("holders")).toArray().first().toObject();
    QCOMPARE(holder.value(QStringLiteral("thread_id")).toString(), QStringLiteral("7"));
    QCOMPARE(holder.value(QStringLiteral("hold_count")).toInteger(), 2);
}

void TestCluster::cliWatchReportsEventsFromEveryMaster()
{
    const QStringList names = namesOnEachNode(QStringLiteral("watch-lock"));
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
    for (const QString &n : names)
        lockscope::test::redisCli(m_cluster.port(0), {"-c", "HSET", n, "b983c153-7421-469a-addb-44fb92259a1b:3", "1"});
    const bool all = lockscope::test::waitUntil(
        [&] {
            readAll();
            for (const QString &n : names)
                if (!out.contains(QStringLiteral("\"lock\":\"%1\"").arg(n).toUtf8()))
                    return false;
            return true;
        },
        30000);
    watch.kill();
    watch.waitForFinished();
    QVERIFY2(all, qPrintable(QString::fromUtf8(out + err)));
    QVERIFY(out.contains("\"type\":\"acquired\""));
}

void TestCluster::cliForceUnlockWakesClassicAndShardedWaiters()
{
    const QStringList names = namesOnEachNode(QStringLiteral("force-lock"));
    const QString name = names[1]; // on another master than the one given with --url
    const QByteArray channel = "redisson_lock__channel:{" + name.toUtf8() + "}";
    SyncClient owner(m_cluster.endpoint(1));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});

    // Waiters as Redisson < 3.22 (SUBSCRIBE, on any node: PUBLISH is broadcast) and as Redisson
    // 3.22+ on Redis 7 (SSUBSCRIBE on the shard that owns the channel).
    QProcess classic;
    classic.start(lockscope::test::redisCliPath(),
                  {"-c", "-p", QString::number(m_cluster.port(0)), "SUBSCRIBE", QString::fromUtf8(channel)});
    QProcess sharded;
    sharded.start(lockscope::test::redisCliPath(),
                  {"-p", QString::number(m_cluster.port(1)), "SSUBSCRIBE", QString::fromUtf8(channel)});
    QVERIFY(classic.waitForStarted() && sharded.waitForStarted());
    SyncClient node0(m_cluster.endpoint(0));
    QVERIFY(node0.open());
    QVERIFY(lockscope::test::waitUntil([&] {
        return node0.cmd({"PUBSUB", "NUMSUB", channel}).at(1).toInteger() == 1 &&
               owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() == 1;
    }));

    const ProcessResult r = cli({QStringLiteral("force-unlock"), name, QStringLiteral("--yes")});
    QByteArray classicOut;
    QByteArray shardedOut;
    const bool woken = lockscope::test::waitUntil(
        [&] {
            classicOut += classic.readAllStandardOutput();
            shardedOut += sharded.readAllStandardOutput();
            return classicOut.contains("message\n" + channel + "\n0") &&
                   shardedOut.contains("smessage\n" + channel + "\n0");
        },
        20000);
    classic.kill();
    sharded.kill();
    classic.waitForFinished();
    sharded.waitForFinished();
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY(!owner.exists(name.toUtf8()));
    QVERIFY2(woken, qPrintable(QStringLiteral("classic:\n%1\nsharded:\n%2")
                                   .arg(QString::fromUtf8(classicOut), QString::fromUtf8(shardedOut))));
}

void TestCluster::cliWatchReportsShardedUnlockMessages()
{
    const QStringList names = namesOnEachNode(QStringLiteral("sharded-lock"));
    const QString name = names[2];
    const QByteArray channel = "redisson_lock__channel:{" + name.toUtf8() + "}";
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});
    const qint64 before = owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger();

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
    // LockScope SSUBSCRIBEs the lock's channel on the shard that owns it (where Redisson 3.22+
    // publishes), in addition to PSUBSCRIBE on every master.
    const bool subscribed = lockscope::test::waitUntil(
        [&] {
            readAll();
            return owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() > before;
        },
        30000);
    if (subscribed)
        owner.cmd({"SPUBLISH", channel, "0"});
    const bool reported = subscribed && lockscope::test::waitUntil(
                                            [&] {
                                                readAll();
                                                return out.contains("sharded message 0");
                                            },
                                            20000);
    watch.kill();
    watch.waitForFinished();
    QVERIFY2(subscribed, qPrintable(QString::fromUtf8(err)));
    QVERIFY2(reported, qPrintable(QString::fromUtf8(out + err)));
    QVERIFY(out.contains(QStringLiteral("\"lock\":\"%1\"").arg(name).toUtf8()));
    QVERIFY(out.contains("\"type\":\"unlock_message\""));
}

void TestCluster::cliWatchFollowsFairWaiterChannels()
{
    // A fair lock on another master with one queued waiter (written by hand in Redisson's
    // layout): its own channel {name}:<waiter> is SSUBSCRIBEd on the owning shard, where a
    // Redisson 3.22+ fair unlock SPUBLISHes the hand-over to the head waiter (§3.5).
    const QString name = namesOnEachNode(QStringLiteral("fair-sharded"))[2];
    const QByteArray waiter = "0c7931ed-77b4-4eba-8af7-706668f329e6:7";
    const QByteArray channel = "redisson_lock__channel:{" + name.toUtf8() + "}:" + waiter;
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});
    owner.cmd({"RPUSH", "redisson_lock_queue:{" + name.toUtf8() + "}", waiter});
    owner.cmd({"ZADD", "redisson_lock_timeout:{" + name.toUtf8() + "}",
               QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 60000), waiter});

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
    const bool subscribed = lockscope::test::waitUntil(
        [&] {
            readAll();
            return owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() > 0;
        },
        30000);
    if (subscribed)
        owner.cmd({"SPUBLISH", channel, "0"});
    const bool reported = subscribed && lockscope::test::waitUntil(
                                            [&] {
                                                readAll();
                                                return out.contains("sharded message 0 on " + channel);
                                            },
                                            20000);
    // The waiter leaves the queue: its channel is let go.
    owner.cmd({"LREM", "redisson_lock_queue:{" + name.toUtf8() + "}", "0", waiter});
    owner.cmd({"ZREM", "redisson_lock_timeout:{" + name.toUtf8() + "}", waiter});
    const bool released =
        reported && lockscope::test::waitUntil(
                        [&] {
                            readAll();
                            return owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() == 0;
                        },
                        20000);
    watch.kill();
    watch.waitForFinished();
    owner.cmd({"DEL", name.toUtf8()});
    QVERIFY2(subscribed, qPrintable(QString::fromUtf8(err)));
    QVERIFY2(reported, qPrintable(QString::fromUtf8(out + err)));
    QVERIFY2(released, "the waiter's channel stayed subscribed after it left the queue");
}

void TestCluster::cliDoctorCoversEveryMaster()
{
    // A lock without expiry (nobody will ever release it if its holder died) on another master.
    const QStringList names = namesOnEachNode(QStringLiteral("doctor-lock"));
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    owner.cmd({"HSET", names[2].toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    // The probes run on every master: a client waiting on the channel of a lock that does not
    // exist (subscribed on the lock's master, as Redisson does), a latch left on that master,
    // and a waiter of a lock that does exist (never reported: EXISTS is asked of its own master).
    const QString ghost = namesOnEachNode(QStringLiteral("doctor-ghost"))[2];
    const QString latch = QStringLiteral("redisson_unlock_latch:{%1}:0123456789abcdef0123456789abcdef").arg(names[2]);
    owner.cmd({"SET", latch.toUtf8(), "1"});
    QProcess ghostWaiter;
    ghostWaiter.start(lockscope::test::redisCliPath(), {"-p", QString::number(m_cluster.port(2)), "SUBSCRIBE",
                                                        QStringLiteral("redisson_lock__channel:{%1}").arg(ghost)});
    QProcess liveWaiter;
    liveWaiter.start(lockscope::test::redisCliPath(), {"-p", QString::number(m_cluster.port(2)), "SUBSCRIBE",
                                                       QStringLiteral("redisson_lock__channel:{%1}").arg(names[2])});
    QVERIFY(lockscope::test::waitUntil([&] {
        return owner.cmd({"PUBSUB", "NUMSUB", QStringLiteral("redisson_lock__channel:{%1}").arg(ghost).toUtf8()})
                       .at(1)
                       .toInteger() == 1 &&
               owner.cmd({"PUBSUB", "NUMSUB", QStringLiteral("redisson_lock__channel:{%1}").arg(names[2]).toUtf8()})
                       .at(1)
                       .toInteger() == 1;
    }));
    const ProcessResult r =
        cli({QStringLiteral("doctor"), QStringLiteral("--json"), QStringLiteral("--observe-ms"), QStringLiteral("1500"),
             QStringLiteral("--waiter-threshold-ms"), QStringLiteral("500")});
    ghostWaiter.kill();
    liveWaiter.kill();
    ghostWaiter.waitForFinished();
    liveWaiter.waitForFinished();
    owner.cmd({"DEL", names[2].toUtf8()});
    owner.cmd({"DEL", latch.toUtf8()});
    QVERIFY2(r.finished, qPrintable(r.describe()));
    QVERIFY2(r.out.contains(names[2].toUtf8()), qPrintable(r.describe()));
    bool ghostFound = false;
    bool latchFound = false;
    for (const QByteArray &line : r.out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString code = o.value(QStringLiteral("code")).toString();
        if (code == QLatin1String("waiters_without_holder")) {
            QVERIFY2(o.value(QStringLiteral("lock")).toString() != names[2],
                     line.constData()); // it exists: not orphaned
            ghostFound = ghostFound || o.value(QStringLiteral("lock")).toString() == ghost;
        }
        latchFound = latchFound || code == QLatin1String("lingering_latch");
    }
    QVERIFY2(ghostFound, qPrintable(r.describe()));
    QVERIFY2(latchFound, qPrintable(r.describe()));
    QVERIFY2(!r.err.contains("MOVED"), qPrintable(r.describe()));
}

void TestCluster::followsAskDuringLiveMigration()
{
    const QStringList names = namesOnEachNode(QStringLiteral("ask"));
    const QByteArray tag = names[0].toUtf8();
    const QByteArray existing = "{" + tag + "}:old";
    const QByteArray fresh = "{" + tag + "}:new";
    const int slot = HashSlot::of(existing);
    SyncClient source(m_cluster.endpoint(0));
    SyncClient target(m_cluster.endpoint(1));
    QVERIFY(source.open() && target.open());
    ClusterRouter router(m_pool.get(), m_topology);
    QCOMPARE(routed(router, existing, {"SET", existing, "old"}).toByteArray(), QByteArray("OK"));

    // Start migrating the slot from node 0 to node 1 and move the existing key.
    const QByteArray targetId = m_cluster.nodeId(1);
    const QString migrationError = migrateFromNode0To1(source, target, slot, {existing});
    QVERIFY2(migrationError.isEmpty(), qPrintable(migrationError));

    // Keys of a migrating slot that the source no longer has: ASK -> ASKING + the command on the target.
    QCOMPARE(routed(router, existing, {"GET", existing}).toByteArray(), QByteArray("old"));
    QCOMPARE(routed(router, fresh, {"SET", fresh, "new"}).toByteArray(), QByteArray("OK"));
    QVERIFY(router.askCount() >= 2);
    QCOMPARE(router.movedCount(), 0); // ASK does not change the owner
    QCOMPARE(router.topology().masterForSlot(slot), QStringLiteral("127.0.0.1:%1").arg(m_cluster.port(0)));

    // Finish the migration: now the owner changed, and MOVED takes the router there.
    for (int i = 0; i < 3; ++i) {
        SyncClient c(m_cluster.endpoint(i));
        QVERIFY(c.open());
        c.cmd({"CLUSTER", "SETSLOT", QByteArray::number(slot), "NODE", targetId});
    }
    QCOMPARE(routed(router, fresh, {"GET", fresh}).toByteArray(), QByteArray("new"));
    QVERIFY(router.movedCount() >= 1);
    QCOMPARE(target.cmd({"GET", fresh}).toByteArray(), QByteArray("new"));
}

// Issue 37, failure 3: with sharded pub/sub, every watching LockScope SSUBSCRIBEs to the unlock
// channel of each held lock, which PUBSUB SHARDNUMSUB counts. Two watches running: `show` reports 0
// clients waiting, not 2; a real sharded subscriber (a Redisson waiter) is still counted.
void TestCluster::watchersAreNoWaiters()
{
    const QString name = namesOnEachNode(QStringLiteral("watched-lock"))[1];
    SyncClient owner(m_cluster.endpoint(1));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:7", "1"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});
    QVector<QProcess *> watches;
    for (int i = 0; i < 2; ++i) {
        auto *p = new QProcess(this);
        p->start(cliPath(), {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("watch"),
                             QStringLiteral("--json"), QStringLiteral("--duration-ms"), QStringLiteral("20000")});
        watches << p;
    }
    const QByteArray channel = QStringLiteral("redisson_lock__channel:{%1}").arg(name).toUtf8();
    QVERIFY(QTest::qWaitFor(
        [&] {
            const RedisReply r = owner.cmd({"PUBSUB", "SHARDNUMSUB", channel});
            return r.size() == 2 && r.at(1).toInteger() >= 2;
        },
        15000));
    QTest::qWait(2500); // the watchers' own check of who subscribes (every 2 s)
    auto subscribers = [&] {
        const ProcessResult r = cli({QStringLiteral("show"), name, QStringLiteral("--json")});
        return QJsonDocument::fromJson(r.out.trimmed()).object().value(QStringLiteral("subscribers")).toInteger(-1);
    };
    QCOMPARE(subscribers(), 0);
    // A real waiter (as Redisson's, SSUBSCRIBE on the lock's node) counts.
    QProcess waiter;
    waiter.start(test::redisCliPath(), {QStringLiteral("-p"), QString::number(m_cluster.port(1)),
                                        QStringLiteral("SSUBSCRIBE"), QString::fromUtf8(channel)});
    QVERIFY(QTest::qWaitFor(
        [&] {
            const RedisReply r = owner.cmd({"PUBSUB", "SHARDNUMSUB", channel});
            return r.size() == 2 && r.at(1).toInteger() >= 3;
        },
        5000));
    QCOMPARE(subscribers(), 1);
    waiter.kill();
    waiter.waitForFinished(3000);
    for (QProcess *p : watches) {
        p->terminate();
        p->waitForFinished(5000);
    }
    owner.cmd({"DEL", name.toUtf8()});
}

// Issue 37, failure 2: mid-resharding (slot MIGRATING on node 0, IMPORTING on node 1, some of its
// keys moved, as `redis-cli --cluster reshard` leaves it between two MIGRATEs or when it stops
// half-way), every lock of the slot is still listed and shown, wherever its keys are: a plain
// and a fair lock that moved, and one that has not. Force unlock says in words why Redis refuses
// it while the slot is open, changes nothing, and works once the migration has ended.
void TestCluster::locksOfAMigratingSlotAreFound()
{
    const QString tag = namesOnEachNode(QStringLiteral("reshard"))[0];
    const QString moved = QStringLiteral("{%1}:moved").arg(tag);
    const QString fair = QStringLiteral("{%1}:fair-moved").arg(tag);
    const QString stays = QStringLiteral("{%1}:stays").arg(tag);
    const int slot = HashSlot::of(tag.toUtf8());
    const QByteArray holder = "b983c153-7421-469a-addb-44fb92259a1b:1";
    const QByteArray waiter = "b983c153-7421-469a-addb-44fb92259a1b:2";
    SyncClient source(m_cluster.endpoint(0));
    SyncClient target(m_cluster.endpoint(1));
    QVERIFY(source.open() && target.open());
    // Written as Redisson writes them (protocol §2.1, §3.1), by plain commands on the slot's master.
    for (const QString &n : {moved, fair, stays}) {
        source.cmd({"HSET", n.toUtf8(), holder, "1"});
        source.cmd({"PEXPIRE", n.toUtf8(), "120000"});
    }
    const QByteArray queue = LockNames::fairQueueKey(fair).toUtf8();
    const QByteArray timeouts = LockNames::fairTimeoutKey(fair).toUtf8();
    source.cmd({"RPUSH", queue, waiter});
    source.cmd({"ZADD", timeouts, QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 300000), waiter});
    // Locks elsewhere, so the list is more than the slot.
    const QStringList others = namesOnEachNode(QStringLiteral("reshard-other"));
    for (int i = 0; i < 3; ++i) {
        SyncClient c(m_cluster.endpoint(i));
        QVERIFY(c.open());
        c.cmd({"HSET", others[i].toUtf8(), holder, "1"});
        c.cmd({"PEXPIRE", others[i].toUtf8(), "120000"});
    }

    const QByteArray targetId = m_cluster.nodeId(1);
    const QString migrationError =
        migrateFromNode0To1(source, target, slot, {moved.toUtf8(), fair.toUtf8(), queue, timeouts});
    QVERIFY2(migrationError.isEmpty(), qPrintable(migrationError));

    // list: all of them, the moved ones too, and no error.
    const ProcessResult r = cli({QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QHash<QString, QJsonObject> listed;
    for (const QByteArray &line : r.out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            listed.insert(o.value(QStringLiteral("name")).toString(), o);
    }
    for (const QString &n : QStringList{moved, fair, stays} + others)
        QVERIFY2(listed.contains(n), qPrintable(QStringLiteral("%1 missing:\n%2").arg(n, r.describe())));
    QCOMPARE(listed.value(fair).value(QStringLiteral("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(listed.value(fair).value(QStringLiteral("queue_length")).toInteger(), 1);
    QCOMPARE(listed.value(moved).value(QStringLiteral("migrating_slot")).toInteger(-1), slot);

    // show: the moved locks with their holder (and waiter), read where they live.
    for (const QString &n : {moved, fair, stays}) {
        const ProcessResult shown = cli({QStringLiteral("show"), n, QStringLiteral("--json")});
        QVERIFY2(shown.exitCode == 0 && !shown.err.contains("ASK "), qPrintable(shown.describe()));
        const QJsonObject o = QJsonDocument::fromJson(shown.out.trimmed()).object();
        QCOMPARE(o.value(QStringLiteral("holders")).toArray().size(), 1);
        QVERIFY(o.value(QStringLiteral("pttl_ms")).toInteger() > 0);
    }
    const ProcessResult text = cli({QStringLiteral("show"), fair});
    QVERIFY2(text.out.contains("is being migrated"), qPrintable(text.describe()));
    const QJsonObject fairShown =
        QJsonDocument::fromJson(cli({QStringLiteral("show"), fair, QStringLiteral("--json")}).out.trimmed()).object();
    QCOMPARE(fairShown.value(QStringLiteral("waiters")).toArray().size(), 1);

    // force-unlock while the slot is open: Redis refuses (TRYAGAIN); said in words, nothing changed.
    const ProcessResult refused = cli({QStringLiteral("force-unlock"), moved, QStringLiteral("--yes")});
    QVERIFY2(refused.exitCode != 0 && refused.err.contains("being migrated") && !refused.err.contains("ASK "),
             qPrintable(refused.describe()));
    target.cmd({"ASKING"}); // the target serves a key of the slot it imports only after ASKING
    QCOMPARE(target.cmd({"HGET", moved.toUtf8(), holder}).toByteArray(), QByteArray("1"));

    // The migration ends: the slot's last key moves, every node learns the new owner.
    const RedisReply last = source.cmd(
        {"MIGRATE", "127.0.0.1", QByteArray::number(m_cluster.port(1)), "", "0", "5000", "KEYS", stays.toUtf8()});
    QVERIFY2(!last.isError(), qPrintable(last.debugString()));
    for (int i = 0; i < 3; ++i) {
        SyncClient c(m_cluster.endpoint(i));
        QVERIFY(c.open());
        c.cmd({"CLUSTER", "SETSLOT", QByteArray::number(slot), "NODE", targetId});
    }
    QVERIFY(QTest::qWaitFor(
        [&] {
            return cli({QStringLiteral("show"), moved, QStringLiteral("--json")}).exitCode == 0;
        },
        10000));
    const ProcessResult unlocked = cli({QStringLiteral("force-unlock"), moved, QStringLiteral("--yes")});
    QVERIFY2(unlocked.exitCode == 0, qPrintable(unlocked.describe()));
    QCOMPARE(target.cmd({"EXISTS", moved.toUtf8()}).toInteger(), 0);
}

QTEST_GUILESS_MAIN(TestCluster)
#include "tst_cluster.moc"
