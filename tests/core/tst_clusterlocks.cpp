// LockScope's own locks on a real 3-master Redis 7 cluster (tests/support/localcluster):
// the watchdog renews per hash slot and reports failed renewals (protocol §14.2), and unlocks,
// force unlocks, wake-ups, waits, subscriber counts and the doctor's orphan-waiter probe follow
// sharded pub/sub as Redisson 3.22+ does there (§1.3, §14.3).

#include "localcluster.h"
#include "locksessiontestpeer.h"
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "diagnose/doctorprobe.h"
#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "protocol/locknames.h"
#include "redis/clusterrouter.h"
#include "redis/clustertopology.h"
#include "redis/hashslot.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/shardedsubscriber.h"
#include "session/locksession.h"
#include "watch/snapshotreader.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::LocalCluster;
using lockscope::test::MessageListener;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

/** SSUBSCRIBE of one channel on one node, collecting the payloads. */
struct ShardedListener {
    ShardedListener(const RedisEndpoint &node, const QByteArray &channel) : sub(node)
    {
        QObject::connect(&sub, &ShardedSubscriber::message, &sub,
                         [this](const QByteArray &, const QByteArray &payload) { payloads << payload; });
        QObject::connect(&sub, &ShardedSubscriber::subscribed, &sub, [this] { confirmed = true; });
        sub.open();
        sub.ssubscribe(channel);
    }
    bool waitSubscribed()
    {
        return waitUntil([this] { return confirmed; });
    }
    ShardedSubscriber sub;
    QList<QByteArray> payloads;
    bool confirmed = false;
};

AcquireResult acquireBlocking(LockClient *client, const QString &name, qint64 leaseMs, qint64 waitMs = 0)
{
    AcquireResult out;
    bool done = false;
    auto cb = [&](const AcquireResult &r) {
        out = r;
        done = true;
    };
    if (waitMs == 0)
        client->tryAcquire(name, 1, leaseMs, nullptr, cb);
    else
        client->acquire(name, 1, leaseMs, waitMs, nullptr, cb);
    if (!waitUntil([&] { return done; }, 20000))
        out.error = QStringLiteral("no reply");
    return out;
}

} // namespace

class TestClusterLocks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void detectsShardedPubSub();
    void watchdogRenewsLocksOfDifferentSlotsOnOneMaster();
    void failedRenewalMarksHoldAtRisk();
    void cliWarnsWhenRenewalFails();
    void unlockPublishesSharded();
    void forceUnlockWakesShardedAndClassicOnce();
    void wakePublishesSharded();
    void waitingAcquireSsubscribesAndWakesOnSpublish();
    void snapshotCountsShardedSubscribers();
    void doctorSeesShardedOrphanWaiters();
    void singleServerKeepsClassicPubSub();
    void singleServerIsAOneMasterTopology();
    void clusterSessionReportsEveryMaster();

private:
    std::unique_ptr<LockSession> session();
    /** Two names served by node `node` whose hash slots differ. */
    QStringList twoSlotsOnNode(const QString &prefix, int node);
    QString nameOnNode(const QString &prefix, int node);
    /** Runs a LockSession write and waits for its actionFinished(); returns the outcome. */
    QString run(LockSession *s, const std::function<void()> &action);

    LocalCluster m_cluster;
    QTemporaryDir m_tmp;
    std::unique_ptr<RedisConnectionPool> m_pool;
    ClusterTopology m_topology;
};

void TestClusterLocks::initTestCase()
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
    QVERIFY(waitUntil([&] { return done; }));
    QVERIFY2(m_topology.isValid(), qPrintable(error));
}

void TestClusterLocks::cleanupTestCase()
{
    m_pool.reset();
    m_cluster.stop();
}

std::unique_ptr<LockSession> TestClusterLocks::session()
{
    LockSession::Options o;
    o.endpoint = m_cluster.endpoint(0);
    o.auditLogPath = m_tmp.filePath(QStringLiteral("audit.jsonl"));
    auto s = std::make_unique<LockSession>(o);
    peer(s).enableCluster(m_topology);
    s->open();
    return s;
}

QStringList TestClusterLocks::twoSlotsOnNode(const QString &prefix, int node)
{
    QStringList out;
    for (int i = 0; out.size() < 2 && i < 5000; ++i) {
        const QString n = QStringLiteral("%1-%2").arg(prefix).arg(i);
        if (m_cluster.nodeOf(n.toUtf8()) != node)
            continue;
        if (out.isEmpty() || HashSlot::of(out.first().toUtf8()) != HashSlot::of(n.toUtf8()))
            out << n;
    }
    return out;
}

QString TestClusterLocks::nameOnNode(const QString &prefix, int node)
{
    for (int i = 0; i < 5000; ++i) {
        const QString n = QStringLiteral("%1-%2").arg(prefix).arg(i);
        if (m_cluster.nodeOf(n.toUtf8()) == node)
            return n;
    }
    return QString();
}

QString TestClusterLocks::run(LockSession *s, const std::function<void()> &action)
{
    return lockscope::test::runSessionAction(s, action, 20000).outcome;
}

void TestClusterLocks::detectsShardedPubSub()
{
    // Redis 7: PUBSUB SHARDNUMSUB answers, so Redisson (shardedSubscriptionMode=AUTO) publishes
    // with spublish, and so does LockScope.
    QVERIFY(m_topology.shardedPubSub());
    QCOMPARE(m_topology.publishCommand(), QByteArray("spublish"));
    auto s = session();
    QCOMPARE(peer(s).publishCommand(), QByteArray("spublish"));
}

void TestClusterLocks::watchdogRenewsLocksOfDifferentSlotsOnOneMaster()
{
    // Two watchdog holds on one master, in two slots: one renewal EVAL with both names fails
    // with CROSSSLOT, and the holds silently expired.
    const QStringList names = twoSlotsOnNode(QStringLiteral("wd-slots"), 1);
    QCOMPARE(names.size(), 2);
    QVERIFY(HashSlot::of(names[0].toUtf8()) != HashSlot::of(names[1].toUtf8()));
    auto s = session();
    QStringList errors;
    connect(s.get(), &LockSession::errorOccurred, this, [&](const QString &e) { errors << e; });
    LockClient *client = peer(s).clientFor(names[0]);
    QCOMPARE(peer(s).clientFor(names[1]), client); // same master, same client, same watchdog
    // By hand: LOCKSCOPE_SOAK_MS=120000 keeps Redisson's default 30 s timeout (renewal every
    // 10 s) and holds for that long instead.
    const int soakMs = qEnvironmentVariableIntValue("LOCKSCOPE_SOAK_MS");
    if (soakMs <= 0)
        client->setWatchdogTimeoutMs(1500); // renewal every 500 ms
    for (const QString &n : names) {
        const AcquireResult r = acquireBlocking(client, n, 0);
        QVERIFY2(r.acquired, qPrintable(r.error));
    }
    SyncClient owner(m_cluster.endpoint(1));
    QVERIFY(owner.open());
    // Four leases long: without renewals both keys are gone long before.
    QTest::qWait(soakMs > 0 ? soakMs : 6000);
    for (const QString &n : names) {
        QVERIFY2(owner.exists(n.toUtf8()),
                 qPrintable(QStringLiteral("%1 expired; errors: %2").arg(n, errors.join(QLatin1Char('\n')))));
        QCOMPARE(owner.hget(n.toUtf8(), client->holderField(1).toUtf8()), QByteArray("1"));
        QVERIFY(owner.pttl(n.toUtf8()) > 0);
    }
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    for (const QString &n : names) {
        bool done = false;
        client->unlock(n, 1, nullptr, [&](const UnlockResult &) { done = true; });
        QVERIFY(waitUntil([&] { return done; }));
    }
}

void TestClusterLocks::failedRenewalMarksHoldAtRisk()
{
    // A renewal that fails (here the mixed-slot batch LockScope used to send, with per-slot
    // grouping turned off) is shown: an event, an error, and the hold marked at risk; the next
    // good renewal clears it.
    const QStringList names = twoSlotsOnNode(QStringLiteral("wd-risk"), 2);
    QCOMPARE(names.size(), 2);
    auto s = session();
    QVector<LockEvent> events;
    QStringList errors;
    QStringList risky;
    QStringList recovered;
    connect(s.get(), &LockSession::eventsOccurred, this, [&](const QVector<LockEvent> &e) { events += e; });
    connect(s.get(), &LockSession::errorOccurred, this, [&](const QString &e) { errors << e; });
    connect(s.get(), &LockSession::holdAtRisk, this, [&](const QString &lock, const QString &, qint64 lastRenewedMs) {
        QVERIFY(lastRenewedMs > 0);
        risky << lock;
    });
    connect(s.get(), &LockSession::holdRecovered, this, [&](const QString &lock) { recovered << lock; });
    LockClient *client = peer(s).clientFor(names[0]);
    for (const QString &n : names)
        QVERIFY(acquireBlocking(client, n, 0).acquired);
    QVERIFY(client->watchdog()->oneSlotPerBatch());
    QCOMPARE(client->watchdog()->batches().size(), 2);

    client->watchdog()->setOneSlotPerBatch(false);
    QCOMPARE(client->watchdog()->batches().size(), 1);
    client->watchdog()->renewNow();
    QVERIFY(waitUntil([&] { return risky.size() == 2; }));
    QCOMPARE(peer(s).holdsAtRisk(), QStringList(names.cbegin(), names.cend()));
    QVERIFY(client->isAtRisk(names[0]) && client->isAtRisk(names[1]));
    int failedEvents = 0;
    for (const LockEvent &e : std::as_const(events)) {
        if (e.type != QLatin1String("renewal_failed"))
            continue;
        ++failedEvents;
        QVERIFY(names.contains(e.lock));
        QCOMPARE(e.holder, client->holderField(1));
        QVERIFY2(e.extra.value(QStringLiteral("error")).toString().contains(QLatin1String("CROSSSLOT")),
                 qPrintable(e.detail));
        QVERIFY(e.extra.value(QStringLiteral("at_risk")).toBool());
        QVERIFY(e.toJson().contains(QStringLiteral("last_renewed_ms")));
    }
    QCOMPARE(failedEvents, 2);
    QVERIFY(!errors.isEmpty() && errors.last().contains(QLatin1String("at risk")));

    // Per-slot batches again: renewed, no longer at risk.
    client->watchdog()->setOneSlotPerBatch(true);
    client->watchdog()->renewNow();
    QVERIFY(waitUntil([&] { return recovered.size() == 2; }));
    QVERIFY(peer(s).holdsAtRisk().isEmpty());
    int recoveredEvents = 0;
    for (const LockEvent &e : std::as_const(events))
        recoveredEvents += e.type == QLatin1String("renewal_recovered");
    QCOMPARE(recoveredEvents, 2);
    for (const QString &n : names) {
        bool done = false;
        client->unlock(n, 1, nullptr, [&](const UnlockResult &) { done = true; });
        QVERIFY(waitUntil([&] { return done; }));
    }
}

void TestClusterLocks::cliWarnsWhenRenewalFails()
{
    // lockscope-cli acquire with the watchdog (renewal every 10 s): the owning master's ACL then
    // forbids PEXPIRE, the renewal fails with NOPERM, and the CLI says the hold is at risk.
    const QString name = nameOnNode(QStringLiteral("cli-risk"), 2);
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    QProcess p;
    p.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
            {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("--audit-log"),
             m_tmp.filePath(QStringLiteral("audit.jsonl")), QStringLiteral("acquire"), name,
             QStringLiteral("--hold-ms"), QStringLiteral("14000")});
    QVERIFY(p.waitForStarted());
    QVERIFY(waitUntil([&] { return owner.exists(name.toUtf8()); }, 10000));
    QCOMPARE(owner.cmd({"ACL", "SETUSER", "default", "-pexpire"}).toByteArray(), QByteArray("OK"));
    QByteArray err;
    const bool warned = waitUntil(
        [&] {
            err += p.readAllStandardError();
            return err.contains("Watchdog renewal of " + name.toUtf8() + " failed");
        },
        20000);
    owner.cmd({"ACL", "SETUSER", "default", "+pexpire"});
    p.waitForFinished(20000);
    err += p.readAllStandardError();
    QVERIFY2(warned, err.constData());
    QVERIFY2(err.contains("at risk") && err.contains("can't run this command"), err.constData());
    QCOMPARE(err.count("Watchdog renewal of " + name.toUtf8() + " failed"), 1); // one line per failed renewal
}

void TestClusterLocks::unlockPublishesSharded()
{
    // LockScope's own unlock publishes as Redisson 3.22+ does on this cluster: SPUBLISH only.
    const QString name = nameOnNode(QStringLiteral("unlock-sharded"), 1);
    const QByteArray channel = LockNames::unlockChannel(name).toUtf8();
    auto s = session();
    LockClient *client = peer(s).clientFor(name);
    QVERIFY(acquireBlocking(client, name, 30000).acquired);
    ShardedListener sharded(m_cluster.endpoint(1), channel);
    MessageListener classic(m_cluster.endpoint(1), channel);
    QVERIFY(sharded.waitSubscribed() && classic.waitSubscribed());
    bool done = false;
    UnlockResult result;
    client->unlock(name, 1, nullptr, [&](const UnlockResult &r) {
        result = r;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(int(result.status), int(UnlockResult::Status::Released));
    QVERIFY(waitUntil([&] { return sharded.payloads.contains("0"); }));
    // A marker after it, on the same node: the classic subscriber got it and nothing before it.
    SyncClient owner(m_cluster.endpoint(1));
    QVERIFY(owner.open());
    owner.cmd({"PUBLISH", channel, "marker"});
    QVERIFY(classic.waitFor("marker"));
    QCOMPARE(classic.payloads(), QList<QByteArray>{"marker"});
    QCOMPARE(sharded.payloads, QList<QByteArray>{"0"});
}

void TestClusterLocks::forceUnlockWakesShardedAndClassicOnce()
{
    // Force unlock: SPUBLISH (Redisson's verb) plus one classic PUBLISH for waiters of clients
    // that do not use sharded pub/sub; each subscriber gets the message exactly once.
    const QString name = nameOnNode(QStringLiteral("force-sharded"), 2);
    const QByteArray channel = LockNames::unlockChannel(name).toUtf8();
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});
    ShardedListener sharded(m_cluster.endpoint(2), channel);
    MessageListener classic(m_cluster.endpoint(2), channel);
    QVERIFY(sharded.waitSubscribed() && classic.waitSubscribed());
    auto s = session();
    QCOMPARE(run(s.get(), [&] { s->forceUnlock(name); }), QStringLiteral("done"));
    QVERIFY(!owner.exists(name.toUtf8()));
    QVERIFY(waitUntil([&] { return sharded.payloads.contains("0"); }));
    QVERIFY(classic.waitFor("0"));
    owner.cmd({"PUBLISH", channel, "marker"});
    owner.cmd({"SPUBLISH", channel, "marker"});
    QVERIFY(classic.waitFor("marker"));
    QVERIFY(waitUntil([&] { return sharded.payloads.contains("marker"); }));
    QCOMPARE(classic.payloads(), (QList<QByteArray>{"0", "marker"}));
    QCOMPARE(sharded.payloads, (QList<QByteArray>{"0", "marker"}));
}

void TestClusterLocks::wakePublishesSharded()
{
    // The wake repair on a free lock: Redisson's verb, so SSUBSCRIBEd waiters hear it.
    const QString name = nameOnNode(QStringLiteral("wake-sharded"), 0);
    const QByteArray channel = LockNames::unlockChannel(name).toUtf8();
    ShardedListener sharded(m_cluster.endpoint(0), channel);
    MessageListener classic(m_cluster.endpoint(0), channel);
    QVERIFY(sharded.waitSubscribed() && classic.waitSubscribed());
    auto s = session();
    QCOMPARE(run(s.get(), [&] { s->wake(name); }), QStringLiteral("done"));
    QVERIFY(waitUntil([&] { return sharded.payloads.contains("0"); }));
    SyncClient owner(m_cluster.endpoint(0));
    QVERIFY(owner.open());
    owner.cmd({"PUBLISH", channel, "marker"});
    QVERIFY(classic.waitFor("marker"));
    QCOMPARE(classic.payloads(), QList<QByteArray>{"marker"});
}

void TestClusterLocks::waitingAcquireSsubscribesAndWakesOnSpublish()
{
    // A Redisson-style holder with no TTL: a waiter sleeps until a message comes (§1.5 step 3).
    // Redisson 3.22+ releases it with SPUBLISH, which only an SSUBSCRIBEd waiter hears.
    const QString name = nameOnNode(QStringLiteral("wait-sharded"), 1);
    const QByteArray channel = LockNames::unlockChannel(name).toUtf8();
    SyncClient owner(m_cluster.endpoint(1));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    auto s = session();
    LockClient *client = peer(s).clientFor(name);
    AcquireResult result;
    bool done = false;
    client->acquire(name, 1, 30000, -1, nullptr, [&](const AcquireResult &r) {
        result = r;
        done = true;
    });
    QVERIFY(waitUntil([&] { return owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() == 1; }));
    QCOMPARE(owner.cmd({"PUBSUB", "NUMSUB", channel}).at(1).toInteger(), 0);
    QVERIFY(!done);
    // Redisson's unlock (§2.3) with publish command "spublish".
    const RedisReply r = owner.cmd({"EVAL", "redis.call('del', KEYS[1]); return redis.call(ARGV[2], KEYS[2], ARGV[1])",
                                    "2", name.toUtf8(), channel, "0", "spublish"});
    QCOMPARE(r.toInteger(), 1); // one sharded subscriber: LockScope's waiter
    QVERIFY(waitUntil([&] { return done; }));
    QVERIFY2(result.acquired, qPrintable(result.error));
    QCOMPARE(owner.hget(name.toUtf8(), client->holderField(1).toUtf8()), QByteArray("1"));
    // The wait is over: its sharded subscription is let go.
    QVERIFY(waitUntil([&] { return owner.cmd({"PUBSUB", "SHARDNUMSUB", channel}).at(1).toInteger() == 0; }));
    owner.cmd({"DEL", name.toUtf8()});
}

void TestClusterLocks::snapshotCountsShardedSubscribers()
{
    const QString name = nameOnNode(QStringLiteral("snap-sharded"), 2);
    const QByteArray channel = LockNames::unlockChannel(name).toUtf8();
    SyncClient owner(m_cluster.endpoint(2));
    QVERIFY(owner.open());
    owner.cmd({"HSET", name.toUtf8(), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    owner.cmd({"PEXPIRE", name.toUtf8(), "60000"});
    ShardedListener sharded(m_cluster.endpoint(2), channel);
    MessageListener classic(m_cluster.endpoint(2), channel);
    QVERIFY(sharded.waitSubscribed() && classic.waitSubscribed());
    SnapshotReader reader(owner.connection());
    QVector<LockSnapshot> snaps;
    bool done = false;
    reader.read({name}, nullptr, [&](const QVector<LockSnapshot> &s, const QString &error) {
        QVERIFY2(error.isEmpty(), qPrintable(error));
        snaps = s;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(snaps.size(), 1);
    QCOMPARE(snaps[0].subscribers, qint64(2)); // one classic, one sharded waiter
    owner.cmd({"DEL", name.toUtf8()});
}

void TestClusterLocks::doctorSeesShardedOrphanWaiters()
{
    // A Redisson 3.22+ client waiting (SSUBSCRIBE) on a lock that no longer exists.
    const QString ghost = nameOnNode(QStringLiteral("doctor-sharded-ghost"), 1);
    ShardedListener waiter(m_cluster.endpoint(1), LockNames::unlockChannel(ghost).toUtf8());
    QVERIFY(waiter.waitSubscribed());
    auto s = session();
    DoctorProbe::Result result;
    bool done = false;
    s->probeForDoctor([&](const DoctorProbe::Result &r) {
        result = r;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }, 20000));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(result.orphanSubscribers.value(ghost), qint64(1));
}

void TestClusterLocks::singleServerKeepsClassicPubSub()
{
    // A single (non-cluster) Redis 7: Redisson publishes with PUBLISH there, and so does LockScope;
    // its waiters SUBSCRIBE.
    RedisServerProcess single;
    QString error;
    QVERIFY2(single.start(10000, &error), qPrintable(error));
    LockSession::Options o;
    o.endpoint = single.endpoint();
    o.auditLogPath = m_tmp.filePath(QStringLiteral("audit-single.jsonl"));
    LockSession s(o);
    s.open();
    QCOMPARE(peer(s).publishCommand(), QByteArray("publish"));
    LockClient *client = peer(s).clientFor(QStringLiteral("single"));
    QVERIFY(!client->shardedSubscriber());
    QCOMPARE(client->publishCommand(), QByteArray("publish"));
    QVERIFY(!client->watchdog()->oneSlotPerBatch());
}

void TestClusterLocks::singleServerIsAOneMasterTopology()
{
    // A single server is a topology of one master serving every slot: the session reports it
    // like a cluster's (one entry), and routes reads, writes, its own holds and the doctor's
    // probe through the same per-master path, on the server's own connection.
    const ClusterTopology one = ClusterTopology::singleMaster(QStringLiteral("127.0.0.1:6390"));
    QVERIFY(!one.isCluster());
    QVERIFY(one.coversAllSlots());
    QCOMPARE(one.masters(), QStringList{QStringLiteral("127.0.0.1:6390")});
    QCOMPARE(one.masterForKey("any{tag}"), QStringLiteral("127.0.0.1:6390"));
    QCOMPARE(one.publishCommand(), QByteArray("publish"));
    QVERIFY(m_topology.isCluster());
    QVERIFY(one != m_topology);

    RedisServerProcess single;
    QString error;
    QVERIFY2(single.start(10000, &error), qPrintable(error));
    LockSession::Options o;
    o.endpoint = single.endpoint();
    o.auditLogPath = m_tmp.filePath(QStringLiteral("audit-one-master.jsonl"));
    LockSession s(o);
    QVector<SessionTopology> reported;
    connect(&s, &LockSession::topologyChanged, this, [&](const SessionTopology &t) { reported << t; });
    s.start();
    QVERIFY(waitUntil([&] { return !reported.isEmpty() && reported.last().masters.value(0).mode == WatchMode::Live; }));
    const SessionTopology t = reported.last();
    QCOMPARE(t.kind, SessionTopology::Kind::Single);
    QVERIFY(!t.isCluster());
    QCOMPARE(t.masters.size(), 1);
    QCOMPARE(t.masters[0].address, single.endpoint().address());
    QCOMPARE(t.masters[0].slotCount(), HashSlot::kSlotCount);
    QVERIFY(!s.isCluster());
    QVERIFY(!peer(s).router());
    QVERIFY(peer(s).monitor());
    QCOMPARE(peer(s).topology().masters(), QStringList{single.endpoint().address()});
    QCOMPARE(peer(s).connectionFor(QStringLiteral("one:a")), peer(s).connection());
    QCOMPARE(peer(s).clientFor(QStringLiteral("one:a")), peer(s).client());
    QCOMPARE(peer(s).clientFor(QStringLiteral("one:{b}")), peer(s).client()); // one master, one client

    QCOMPARE(run(&s, [&] { s.acquire(QStringLiteral("one:a"), 7, 60000, 0); }), QStringLiteral("done"));
    SyncClient owner(single.endpoint());
    QVERIFY(owner.open());
    QCOMPARE(owner.cmd({"HGET", "one:a", (s.clientId() + QStringLiteral(":7")).toUtf8()}).toInteger(), qint64(1));
    MessageListener waiter(single.endpoint(), LockNames::unlockChannel(QStringLiteral("one:a")).toUtf8());
    QVERIFY(waiter.waitSubscribed());
    QCOMPARE(run(&s, [&] { s.forceUnlock(QStringLiteral("one:a")); }), QStringLiteral("done"));
    QVERIFY(waitUntil([&] { return !waiter.messages().isEmpty(); })); // PUBLISH on the one server
    QCOMPARE(owner.cmd({"EXISTS", "one:a"}).toInteger(), qint64(0));

    // Two overlapping probes share one run: both callers are answered.
    int answered = 0;
    QString probeError;
    for (int i = 0; i < 2; ++i)
        s.probeForDoctor([&](const DoctorProbe::Result &r) {
            ++answered;
            probeError += r.error;
        });
    QVERIFY(waitUntil([&] { return answered == 2; }, 20000));
    QVERIFY2(probeError.isEmpty(), qPrintable(probeError));
}

void TestClusterLocks::clusterSessionReportsEveryMaster()
{
    auto s = session();
    const SessionTopology t = s->sessionTopology();
    QCOMPARE(t.kind, SessionTopology::Kind::Cluster);
    QCOMPARE(t.masters.size(), m_topology.masters().size());
    QCOMPARE(peer(s).topology().masters(), m_topology.masters());
    QVERIFY(s->isCluster());
}

QTEST_GUILESS_MAIN(TestClusterLocks)
#include "tst_clusterlocks.moc"
