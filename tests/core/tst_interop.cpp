// Interoperability: an INDEPENDENT client (redis-cli, running Redisson's commands and scripts as
// written down in redisson-protocol.md, not LockScope's own script files) writes the locks;
// SnapshotReader, LockMonitor and lockscope-cli must classify them correctly, and LockScope's
// actions must reach that client (unlock messages) and vice versa.

#include "demo/redisserverprocess.h"
#include "lock/lockclient.h"
#include "protocol/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"
#include "watch/lockmonitor.h"
#include "watch/snapshotreader.h"

#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::kRedissonFairAcquireScript;
using lockscope::test::ProcessResult;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

// ---- Redisson's scripts, written from the protocol description (not from resources/scripts) ----

// §2.2 RLock acquire (3.52.0+/4.7): the shared text in tests/support.
using lockscope::test::kRedissonAcquireScript;

// §2.3 RLock unlock with latch (3.24.0+). KEYS = name, channel, latch; ARGV = msg, lease, field,
// publish command, latch ttl.
const char *const kRedissonUnlock = "local val = redis.call('get', KEYS[3]); "
                                    "if val ~= false then return tonumber(val); end; "
                                    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; "
                                    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
                                    "if (counter > 0) then "
                                    "redis.call('pexpire', KEYS[1], ARGV[2]); "
                                    "redis.call('set', KEYS[3], 0, 'px', ARGV[5]); "
                                    "return 0; "
                                    "else "
                                    "redis.call('del', KEYS[1]); "
                                    "redis.call(ARGV[4], KEYS[2], ARGV[1]); "
                                    "redis.call('set', KEYS[3], 1, 'px', ARGV[5]); "
                                    "return 1; "
                                    "end;";

// §5.2 fenced lock lockAndGetToken. KEYS = name, token key; ARGV = lease, field.
const char *const kRedissonFencedAcquire =
    "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "local token = redis.call('incr', KEYS[2]); "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return {-1, token}; "
    "end; "
    "return {redis.call('pttl', KEYS[1]), -1};";

const QString kClientA = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b");
const QString kClientB = QStringLiteral("5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60");
const QString kClientC = QStringLiteral("e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b");
const QString kNodeOwner = QStringLiteral("3f2504e0-4f89-41d3-9a0c-0305e82c3301"); // node-redisson: <uuid>:<uuid>

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

} // namespace

class TestInterop : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void snapshotReaderClassifiesForeignLocks();
    void lockMonitorListsOnlyLocks();
    void lockMonitorFollowsForeignClientLive();
    void cliClassifiesForeignLocks();
    void forceUnlockWakesRedisCliSubscriber();
    void ourWaiterWakesOnRedissonUnlock();
    void redissonScriptsActOnOurLocks();

private:
    ProcessResult cli(const QStringList &args);
    QByteArray redis(const QStringList &args);
    void seedForeignData();
    QVector<LockSnapshot> readSnapshots(const QStringList &names);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    qint64 m_fairDeadlineB = 0;
    qint64 m_fencedToken = 0;
};

void TestInterop::initTestCase()
{
    QVERIFY2(!lockscope::test::redisCliPath().isEmpty(), "redis-cli is not installed (Debian: redis-tools)");
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestInterop::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestInterop::init()
{
    m_admin->flushall();
}

ProcessResult TestInterop::cli(const QStringList &args)
{
    QStringList all{QStringLiteral("--url"), m_server.url()};
    all << args;
    return lockscope::test::runProcess(cliPath(), all);
}

QByteArray TestInterop::redis(const QStringList &args)
{
    const ProcessResult r = lockscope::test::redisCli(m_server.port(), args);
    if (!r.finished || r.exitCode != 0)
        qWarning("redis-cli %s failed: %s", qPrintable(args.join(' ')), qPrintable(r.describe()));
    return r.out.trimmed();
}

void TestInterop::seedForeignData()
{
    // A Redisson RLock held by thread 1, re-entered once (the plain commands its script runs).
    QCOMPARE(redis({"HSET", "orders:42", kClientA + ":1", "2"}), QByteArray("1"));
    QCOMPARE(redis({"PEXPIRE", "orders:42", "30000"}), QByteArray("1"));
    // The acquire script, as Redisson sends it, for thread 57: nil = acquired.
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "inventory:7", "60000", kClientA + ":57"}), QByteArray());
    // A node-redisson holder: "<uuid>:<uuid>".
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "node:lock", "45000", kNodeOwner + ":" + kClientC}),
             QByteArray());

    // Fair lock: A holds it, B then C queue up (client clock = ours, same machine).
    const QStringList fairKeys{QStringLiteral("3"), QStringLiteral("fair:1"),
                               QStringLiteral("redisson_lock_queue:{fair:1}"),
                               QStringLiteral("redisson_lock_timeout:{fair:1}")};
    auto fair = [&](const QString &field) {
        return redis(QStringList{"EVAL", kRedissonFairAcquireScript} + fairKeys +
                     QStringList{"30000", field, "300000", QString::number(QDateTime::currentMSecsSinceEpoch())});
    };
    QCOMPARE(fair(kClientA + ":1"), QByteArray());
    const QByteArray ttlB = fair(kClientB + ":2");
    QVERIFY2(ttlB.toLongLong() > 20000, ttlB.constData());
    const QByteArray ttlC = fair(kClientC + ":3");
    QVERIFY2(ttlC.toLongLong() > 300000, ttlC.constData()); // C waits behind B's whole slot
    m_fairDeadlineB = redis({"ZSCORE", "redisson_lock_timeout:{fair:1}", kClientB + ":2"}).toLongLong();
    QVERIFY(m_fairDeadlineB > QDateTime::currentMSecsSinceEpoch());

    // Fenced lock, acquired and re-entered: each acquire increments the token.
    QByteArray r = redis(
        {"EVAL", kRedissonFencedAcquire, "2", "fenced:1", "redisson_lock_token:{fenced:1}", "30000", kClientB + ":9"});
    QCOMPARE(r.split('\n').value(0).trimmed(), QByteArray("-1"));
    r = redis(
        {"EVAL", kRedissonFencedAcquire, "2", "fenced:1", "redisson_lock_token:{fenced:1}", "30000", kClientB + ":9"});
    m_fencedToken = r.split('\n').value(1).trimmed().toLongLong();
    QCOMPARE(m_fencedToken, qint64(2));

    // Things that are NOT locks.
    redis({"HSET", "plainhash", "foo", "bar"});
    redis({"HSET", "user:1", "name", "Ada", "visits", "3"});
    redis({"SET", "redisson_unlock_latch:{orders:42}:0123456789abcdef0123456789abcdef", "1", "PX", "60000"});
    redis({"SET", "{rw}:" + kClientA + ":1:rwlock_timeout:1", "1", "PX", "60000"});
    // Even when shaped like a lock hash, helper keys are never listed.
    redis({"HSET", "redisson_unlock_latch:{x}:fedcba9876543210fedcba9876543210", kClientA + ":1", "1"});
    redis({"HSET", "{rw}:" + kClientA + ":2:rwlock_timeout:1", kClientA + ":2", "1"});
}

QVector<LockSnapshot> TestInterop::readSnapshots(const QStringList &names)
{
    SnapshotReader reader(m_admin->connection());
    bool done = false;
    QVector<LockSnapshot> out;
    QString error = QStringLiteral("no answer");
    reader.read(names, nullptr, [&](const QVector<LockSnapshot> &s, const QString &e) {
        out = s;
        error = e;
        done = true;
    });
    if (!waitUntil([&] { return done; }) || !error.isEmpty())
        qWarning("snapshot read failed: %s", qPrintable(error));
    return out;
}

void TestInterop::snapshotReaderClassifiesForeignLocks()
{
    seedForeignData();
    if (QTest::currentTestFailed())
        return;
    const QVector<LockSnapshot> s = readSnapshots(
        {"orders:42", "inventory:7", "node:lock", "fair:1", "fenced:1", "plainhash", "user:1", "missing"});
    QCOMPARE(s.size(), 8);

    const LockSnapshot &orders = s[0];
    QVERIFY(orders.isLock);
    QCOMPARE(orders.kind, LockKind::Lock);
    QCOMPARE(orders.holders.size(), 1);
    QCOMPARE(orders.holders[0].field, kClientA + ":1");
    QCOMPARE(orders.holders[0].clientId, kClientA);
    QCOMPARE(orders.holders[0].threadId, QStringLiteral("1"));
    QCOMPARE(orders.holders[0].holdCount, qint64(2));
    QVERIFY2(orders.pttlMs > 20000 && orders.pttlMs <= 30000, qPrintable(QString::number(orders.pttlMs)));
    QVERIFY(orders.problems.isEmpty());
    QVERIFY(orders.serverTimeMs > 0);

    const LockSnapshot &inventory = s[1];
    QVERIFY(inventory.isLock);
    QCOMPARE(inventory.kind, LockKind::Lock);
    QCOMPARE(inventory.holders.size(), 1);
    QCOMPARE(inventory.holders[0].clientId, kClientA);
    QCOMPARE(inventory.holders[0].threadId, QStringLiteral("57"));
    QCOMPARE(inventory.holders[0].holdCount, qint64(1));
    QVERIFY2(inventory.pttlMs > 50000 && inventory.pttlMs <= 60000, qPrintable(QString::number(inventory.pttlMs)));

    const LockSnapshot &node = s[2];
    QVERIFY(node.isLock);
    QCOMPARE(node.holders.size(), 1);
    QCOMPARE(node.holders[0].clientId, kNodeOwner);
    QCOMPARE(node.holders[0].threadId, kClientC);

    const LockSnapshot &fair = s[3];
    QVERIFY(fair.isLock);
    QCOMPARE(fair.kind, LockKind::FairLock);
    QCOMPARE(fair.holders.size(), 1);
    QCOMPARE(fair.holders[0].field, kClientA + ":1");
    QCOMPARE(fair.queueLength, qint64(2));
    QCOMPARE(fair.timeoutSetSize, qint64(2));
    QCOMPARE(fair.waiters.size(), 2);
    QCOMPARE(fair.waiters[0].field, kClientB + ":2");
    QCOMPARE(fair.waiters[0].position, 1);
    QCOMPARE(fair.waiters[0].deadlineEpochMs, m_fairDeadlineB);
    QCOMPARE(fair.waiters[1].field, kClientC + ":3");
    QCOMPARE(fair.waiters[1].position, 2);
    QCOMPARE(fair.waiters[1].deadlineEpochMs, m_fairDeadlineB + 300000); // one wait slot behind B
    // Deadlines are shown relative to the server's clock read in the same snapshot.
    const qint64 inMs = fair.waiters[0].toJson(fair.serverTimeMs).value(QLatin1String("deadline_in_ms")).toInteger();
    QVERIFY2(inMs > 300000 && inMs <= 330000, qPrintable(QString::number(inMs)));
    QVERIFY(fair.problems.isEmpty());

    const LockSnapshot &fenced = s[4];
    QVERIFY(fenced.isLock);
    QCOMPARE(fenced.kind, LockKind::FencedLock);
    QCOMPARE(fenced.token, m_fencedToken);
    QCOMPARE(fenced.holders.size(), 1);
    QCOMPARE(fenced.holders[0].holdCount, qint64(2));
    QCOMPARE(fenced.holders[0].threadId, QStringLiteral("9"));

    QVERIFY(!s[5].isLock); // plainhash: field "foo"
    QVERIFY(s[5].exists);
    QVERIFY(s[5].holders.isEmpty());
    QVERIFY(!s[6].isLock);
    QVERIFY(!s[7].isLock);
    QVERIFY(!s[7].exists);
}

void TestInterop::lockMonitorListsOnlyLocks()
{
    seedForeignData();
    if (QTest::currentTestFailed())
        return;
    RedisConnection conn(m_server.endpoint());
    RedisSubscriber sub(m_server.endpoint());
    conn.open();
    sub.open();
    LockMonitor monitor(&conn, &sub);
    bool idle = false;
    connect(&monitor, &LockMonitor::idle, this, [&] { idle = true; });
    monitor.start();
    QVERIFY(waitUntil([&] { return idle && monitor.mode() == LockMonitor::Mode::Live; }));

    QStringList names = monitor.locks().keys();
    names.sort();
    QCOMPARE(names, (QStringList{"fair:1", "fenced:1", "inventory:7", "node:lock", "orders:42"}));
    QCOMPARE(monitor.locks().value(QStringLiteral("orders:42")).holders.value(0).holdCount, qint64(2));
    QCOMPARE(monitor.locks().value(QStringLiteral("inventory:7")).holders.value(0).threadId, QStringLiteral("57"));
    QCOMPARE(monitor.locks().value(QStringLiteral("fair:1")).kind, LockKind::FairLock);
    QCOMPARE(monitor.locks().value(QStringLiteral("fair:1")).waiters.value(0).field, kClientB + ":2");
    QCOMPARE(monitor.locks().value(QStringLiteral("fenced:1")).kind, LockKind::FencedLock);
    QCOMPARE(monitor.locks().value(QStringLiteral("fenced:1")).token, m_fencedToken);

    // A fair lock whose hash is gone but whose queue remains is still found (second scan pass).
    redis({"DEL", "fair:1"});
    idle = false;
    monitor.rediscover();
    QVERIFY(waitUntil([&] {
        return idle && monitor.locks().contains(QStringLiteral("fair:1")) &&
               !monitor.locks().value(QStringLiteral("fair:1")).exists;
    }));
    QCOMPARE(monitor.locks().value(QStringLiteral("fair:1")).queueLength, qint64(2));
}

void TestInterop::lockMonitorFollowsForeignClientLive()
{
    RedisConnection conn(m_server.endpoint());
    RedisSubscriber sub(m_server.endpoint());
    conn.open();
    sub.open();
    LockMonitor monitor(&conn, &sub);
    QVector<LockEvent> events;
    bool idle = false;
    connect(&monitor, &LockMonitor::idle, this, [&] { idle = true; });
    connect(&monitor, &LockMonitor::eventsOccurred, this, [&](const QVector<LockEvent> &e) { events += e; });
    monitor.start();
    QVERIFY(waitUntil([&] { return idle && monitor.mode() == LockMonitor::Mode::Live; }));
    // The keyspace and unlock-channel subscriptions are in place before anything happens.
    QVERIFY(waitUntil([&] { return m_admin->numpat() == sub.patterns().size(); }));

    auto has = [&](const QString &type, const QString &lock, const QString &holder) {
        for (const auto &e : events)
            if (e.type == type && e.lock == lock && (holder.isEmpty() || e.holder == holder))
                return true;
        return false;
    };
    const QString field = kClientA + ":57";
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "late:1", "30000", field}), QByteArray());
    QVERIFY(waitUntil([&] { return has(QStringLiteral("acquired"), QStringLiteral("late:1"), field); }));
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "late:1", "30000", field}), QByteArray());
    QVERIFY(waitUntil([&] { return has(QStringLiteral("reentered"), QStringLiteral("late:1"), field); }));

    // Helper keys written meanwhile never become locks.
    redis({"SET", "redisson_unlock_latch:{late:1}:0123456789abcdef0123456789abcdef", "0", "PX", "60000"});
    redis({"HSET", "{late:1}:" + kClientA + ":57:rwlock_timeout:1", kClientA + ":57", "1"});
    redis({"HSET", "plain:late", "foo", "1"});

    const QStringList unlockArgs{"EVAL",
                                 kRedissonUnlock,
                                 "3",
                                 "late:1",
                                 "redisson_lock__channel:{late:1}",
                                 "redisson_unlock_latch:{late:1}:11111111111111111111111111111111",
                                 "0",
                                 "30000",
                                 field,
                                 "publish",
                                 "18000"};
    QCOMPARE(redis(unlockArgs), QByteArray("0"));
    QVERIFY(waitUntil([&] {
        return has(QStringLiteral("released"), QStringLiteral("late:1"), field) &&
               monitor.locks().value(QStringLiteral("late:1")).holders.value(0).holdCount == 1;
    }));
    QStringList full = unlockArgs;
    full[5] = QStringLiteral("redisson_unlock_latch:{late:1}:22222222222222222222222222222222");
    QCOMPARE(redis(full), QByteArray("1"));
    QVERIFY(waitUntil([&] {
        return has(QStringLiteral("unlock_message"), QStringLiteral("late:1"), QString()) &&
               !monitor.locks().contains(QStringLiteral("late:1"));
    }));
    QVERIFY(has(QStringLiteral("released"), QStringLiteral("late:1"), field));

    QTest::qWait(200);
    for (const auto &name : monitor.locks().keys())
        QFAIL(qPrintable(QStringLiteral("unexpected lock listed: %1").arg(name)));
    for (const auto &e : events)
        QVERIFY2(e.lock == QLatin1String("late:1"), qPrintable(e.lock + QLatin1Char(' ') + e.type));
}

void TestInterop::cliClassifiesForeignLocks()
{
    seedForeignData();
    if (QTest::currentTestFailed())
        return;
    const ProcessResult list = cli({"list", "--json"});
    QVERIFY2(list.finished && list.exitCode == 0, qPrintable(list.describe()));
    QHash<QString, QJsonObject> byName;
    for (const QByteArray &line : list.out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        QVERIFY2(err.error == QJsonParseError::NoError && doc.isObject(), line.constData());
        byName.insert(doc.object().value(QLatin1String("name")).toString(), doc.object());
    }
    QStringList names = byName.keys();
    names.sort();
    QCOMPARE(names, (QStringList{"fair:1", "fenced:1", "inventory:7", "node:lock", "orders:42"}));

    const QJsonObject orders = byName.value(QStringLiteral("orders:42"));
    QCOMPARE(orders.value(QLatin1String("kind")).toString(), QStringLiteral("lock"));
    const QJsonObject holder = orders.value(QLatin1String("holders")).toArray().at(0).toObject();
    QCOMPARE(holder.value(QLatin1String("client_id")).toString(), kClientA);
    QCOMPARE(holder.value(QLatin1String("thread_id")).toString(), QStringLiteral("1"));
    QCOMPARE(holder.value(QLatin1String("hold_count")).toInteger(), qint64(2));
    const qint64 pttl = orders.value(QLatin1String("pttl_ms")).toInteger();
    QVERIFY2(pttl > 20000 && pttl <= 30000, qPrintable(QString::number(pttl)));

    QCOMPARE(byName.value(QStringLiteral("inventory:7"))
                 .value(QLatin1String("holders"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QLatin1String("thread_id"))
                 .toString(),
             QStringLiteral("57"));
    QCOMPARE(byName.value(QStringLiteral("node:lock"))
                 .value(QLatin1String("holders"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QLatin1String("thread_id"))
                 .toString(),
             kClientC);
    const QJsonObject fenced = byName.value(QStringLiteral("fenced:1"));
    QCOMPARE(fenced.value(QLatin1String("kind")).toString(), QStringLiteral("fenced_lock"));
    QCOMPARE(fenced.value(QLatin1String("token")).toInteger(), m_fencedToken);

    const ProcessResult show = cli({"show", "fair:1", "--json"});
    QVERIFY2(show.finished && show.exitCode == 0, qPrintable(show.describe()));
    const QJsonObject fair = QJsonDocument::fromJson(show.out.trimmed()).object();
    QCOMPARE(fair.value(QLatin1String("kind")).toString(), QStringLiteral("fair_lock"));
    const QJsonArray waiters = fair.value(QLatin1String("waiters")).toArray();
    QCOMPARE(waiters.size(), 2);
    QCOMPARE(waiters.at(0).toObject().value(QLatin1String("field")).toString(), kClientB + ":2");
    QCOMPARE(waiters.at(0).toObject().value(QLatin1String("position")).toInt(), 1);
    QCOMPARE(waiters.at(0).toObject().value(QLatin1String("deadline_epoch_ms")).toInteger(), m_fairDeadlineB);
    QCOMPARE(waiters.at(1).toObject().value(QLatin1String("field")).toString(), kClientC + ":3");
    QCOMPARE(waiters.at(1).toObject().value(QLatin1String("position")).toInt(), 2);

    // A plain hash is not a lock for `show` either.
    const ProcessResult plain = cli({"show", "plainhash", "--json"});
    QCOMPARE(plain.exitCode, 3);
    QVERIFY(plain.out.trimmed().isEmpty());
}

void TestInterop::forceUnlockWakesRedisCliSubscriber()
{
    seedForeignData();
    if (QTest::currentTestFailed())
        return;
    // A "Redisson client" waiting on both locks, as redis-cli SUBSCRIBE.
    QProcess subscriber;
    subscriber.start(lockscope::test::redisCliPath(),
                     {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                      QString::number(m_server.port()), QStringLiteral("SUBSCRIBE"),
                      QStringLiteral("redisson_lock__channel:{orders:42}"),
                      QStringLiteral("redisson_lock__channel:{inventory:7}")});
    QVERIFY(subscriber.waitForStarted(10000));
    auto stopSubscriber = qScopeGuard([&] {
        subscriber.kill();
        subscriber.waitForFinished(3000);
    });
    QByteArray out;
    auto readOut = [&] {
        out += subscriber.readAllStandardOutput();
        return out;
    };
    QVERIFY(waitUntil([&] {
        return m_admin->numsub("redisson_lock__channel:{orders:42}") == 1 &&
               m_admin->numsub("redisson_lock__channel:{inventory:7}") == 1;
    }));

    // LockScope's client force-unlocks orders:42.
    RedisConnection conn(m_server.endpoint());
    conn.open();
    LockClient client(&conn, nullptr);
    bool done = false;
    bool ok = false;
    client.forceUnlock(QStringLiteral("orders:42"), nullptr, [&](bool o, const QString &) {
        ok = o;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }));
    QVERIFY(ok);
    QVERIFY(!m_admin->exists("orders:42"));
    QVERIFY2(waitUntil([&] { return readOut().contains("message\nredisson_lock__channel:{orders:42}\n0\n"); }),
             out.constData());

    // And lockscope-cli force-unlocks inventory:7.
    const ProcessResult r = cli({"force-unlock", "inventory:7", "--yes"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY(!m_admin->exists("inventory:7"));
    QVERIFY2(waitUntil([&] { return readOut().contains("message\nredisson_lock__channel:{inventory:7}\n0\n"); }),
             out.constData());
}

void TestInterop::ourWaiterWakesOnRedissonUnlock()
{
    const QString field = kClientA + ":1";
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "shared:1", "30000", field}), QByteArray());

    RedisConnection conn(m_server.endpoint());
    RedisSubscriber sub(m_server.endpoint());
    conn.open();
    sub.open();
    LockClient client(&conn, &sub);
    bool done = false;
    AcquireResult result;
    client.acquire(QStringLiteral("shared:1"), 1, 30000, 20000, nullptr, [&](const AcquireResult &r) {
        result = r;
        done = true;
    });
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{shared:1}") == 1; }));
    QVERIFY(!done);

    // The foreign holder unlocks with Redisson's script: it publishes "0" and we wake at once
    // (not when the 30 s lease would have run out).
    QCOMPARE(redis({"EVAL", kRedissonUnlock, "3", "shared:1", "redisson_lock__channel:{shared:1}",
                    "redisson_unlock_latch:{shared:1}:33333333333333333333333333333333", "0", "30000", field, "publish",
                    "18000"}),
             QByteArray("1"));
    QVERIFY(waitUntil([&] { return done; }, 10000));
    QVERIFY2(result.acquired, qPrintable(result.error));
    QCOMPARE(m_admin->hgetall("shared:1"), QStringList{client.holderField(1) + QStringLiteral("=1")});
}

void TestInterop::redissonScriptsActOnOurLocks()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    LockClient client(&conn, nullptr);
    auto acquire = [&](qint64 lease) {
        bool done = false;
        bool acquired = false;
        client.tryAcquire(QStringLiteral("ours:1"), 5, lease, nullptr, [&](const AcquireResult &r) {
            acquired = r.acquired;
            done = true;
        });
        waitUntil([&] { return done; });
        return acquired;
    };
    QVERIFY(acquire(30000));
    const QString ours = client.holderField(5);

    // What a Redisson client sees: exactly "<clientId>:<threadId>" -> count.
    QCOMPARE(redis({"HGETALL", "ours:1"}), (ours + QStringLiteral("\n1")).toUtf8());
    // Another Redisson client is refused with the PTTL and changes nothing.
    const qint64 pttl = redis({"EVAL", kRedissonAcquireScript, "1", "ours:1", "10000", kClientB + ":1"}).toLongLong();
    QVERIFY2(pttl > 20000 && pttl <= 30000, qPrintable(QString::number(pttl)));
    QCOMPARE(redis({"HGETALL", "ours:1"}), (ours + QStringLiteral("\n1")).toUtf8());
    // The same field re-enters through Redisson's script, so the formats are the same.
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "ours:1", "30000", ours}), QByteArray());
    QCOMPARE(m_admin->hget("ours:1", ours.toUtf8()), QByteArray("2"));
    // Redisson's unlock releases what we hold: partially, then fully.
    const QStringList unlock{"EVAL",
                             kRedissonUnlock,
                             "3",
                             "ours:1",
                             "redisson_lock__channel:{ours:1}",
                             "redisson_unlock_latch:{ours:1}:44444444444444444444444444444444",
                             "0",
                             "30000",
                             ours,
                             "publish",
                             "18000"};
    QCOMPARE(redis(unlock), QByteArray("0"));
    QStringList second = unlock;
    second[5] = QStringLiteral("redisson_unlock_latch:{ours:1}:55555555555555555555555555555555");
    QCOMPARE(redis(second), QByteArray("1"));
    QVERIFY(!m_admin->exists("ours:1"));

    // And our unlock script, run by redis-cli on a lock Redisson's script took, answers alike.
    QCOMPARE(redis({"EVAL", kRedissonAcquireScript, "1", "theirs:1", "30000", kClientB + ":3"}), QByteArray());
    bool done = false;
    UnlockResult result;
    LockClient asB(&conn, nullptr, nullptr, kClientB);
    asB.unlock(QStringLiteral("theirs:1"), 3, nullptr, [&](const UnlockResult &r) {
        result = r;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(result.status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists("theirs:1"));
}

QTEST_GUILESS_MAIN(TestInterop)
#include "tst_interop.moc"
