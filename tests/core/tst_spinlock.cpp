// SpinLock against a real redis-server: the RLock acquire and the publish-free unlock (protocol
// §5.1), polling waiters that never subscribe and never see a PUBLISH, the latch, the watchdog,
// and a foreign spin client driven by redis-cli.

#include "demo/redisserverprocess.h"
#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "lock/spinlock.h"
#include "observe/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redisscript.h"
#include "redis/redissubscriber.h"

#include "testsupport.h"

#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace {

template <typename T>
struct Box
{
    bool done = false;
    T value{};
};

/** A spin-lock participant. It has a subscriber (as a real client would) that must stay unused. */
struct Participant
{
    std::unique_ptr<RedisConnection> connection;
    std::unique_ptr<RedisSubscriber> subscriber;
    std::unique_ptr<LockClient> client;
    std::unique_ptr<SpinLock> spin;

    explicit Participant(const RedisEndpoint &endpoint)
    {
        connection = std::make_unique<RedisConnection>(endpoint);
        connection->setReconnectDelaysMs(20, 200);
        connection->open();
        subscriber = std::make_unique<RedisSubscriber>(endpoint);
        subscriber->open();
        client = std::make_unique<LockClient>(connection.get(), subscriber.get());
        spin = std::make_unique<SpinLock>(client.get());
    }
    ~Participant()
    {
        spin.reset();
        client.reset();
        subscriber.reset();
        connection.reset();
    }
    bool waitReady()
    {
        return waitUntil([this] { return connection->isReady() && subscriber->isReady(); });
    }
    QString field(qint64 thread) const { return client->holderField(thread); }

    AcquireResult tryAcquire(const QString &name, qint64 thread, qint64 leaseMs)
    {
        auto box = std::make_shared<Box<AcquireResult>>();
        box->value.error = QStringLiteral("test: no answer");
        spin->tryAcquire(name, thread, leaseMs, nullptr, [box](const AcquireResult &r) {
            box->value = r;
            box->done = true;
        });
        waitUntil([box] { return box->done; });
        return box->value;
    }
    std::shared_ptr<Box<AcquireResult>> startAcquire(const QString &name, qint64 thread, qint64 leaseMs, qint64 waitMs,
                                                     QObject *context = nullptr)
    {
        auto box = std::make_shared<Box<AcquireResult>>();
        spin->acquire(name, thread, leaseMs, waitMs, context, [box](const AcquireResult &r) {
            box->value = r;
            box->done = true;
        });
        return box;
    }
    UnlockResult unlock(const QString &name, qint64 thread)
    {
        auto box = std::make_shared<Box<UnlockResult>>();
        box->value.error = QStringLiteral("test: no answer");
        spin->unlock(name, thread, nullptr, [box](const UnlockResult &r) {
            box->value = r;
            box->done = true;
        });
        waitUntil([box] { return box->done; });
        return box->value;
    }
};

/** PSUBSCRIBE * on its own connection: every PUBLISH on the server shows up here. */
class AllMessages
{
public:
    explicit AllMessages(const RedisEndpoint &endpoint) : m_sub(endpoint)
    {
        QObject::connect(&m_sub, &RedisSubscriber::message, &m_sub,
                         [this](const QByteArray &c, const QByteArray &payload, const QByteArray &) {
                             m_messages << c + ' ' + payload;
                         });
        QObject::connect(&m_sub, &RedisSubscriber::subscribed, &m_sub, [this](const QByteArray &c) {
            if (c == "*")
                m_confirmed = true;
        });
        m_sub.psubscribe("*");
        m_sub.open();
    }
    bool waitSubscribed() { return waitUntil([this] { return m_confirmed; }); }
    const QList<QByteArray> &messages() const { return m_messages; }
    bool waitFor(const QByteArray &message) { return waitUntil([&] { return m_messages.contains(message); }); }

private:
    RedisSubscriber m_sub;
    QList<QByteArray> m_messages;
    bool m_confirmed = false;
};

// Written for this test from the protocol (§5.1), independently of resources/scripts: a foreign
// spin-lock client driven through redis-cli.
const char *const kForeignSpinAcquire = R"LUA(
local lockKey, lease, me = KEYS[1], ARGV[1], ARGV[2]
if redis.call('EXISTS', lockKey) == 1 and redis.call('HEXISTS', lockKey, me) == 0 then
  return redis.call('PTTL', lockKey)
end
redis.call('HINCRBY', lockKey, me, 1)
redis.call('PEXPIRE', lockKey, lease)
return 'ACQUIRED'
)LUA";

const char *const kForeignSpinUnlock = R"LUA(
local lockKey, me = KEYS[1], ARGV[1]
if redis.call('HEXISTS', lockKey, me) == 0 then return 'NOT_HELD' end
if redis.call('HINCRBY', lockKey, me, -1) > 0 then return 'STILL_HELD' end
redis.call('DEL', lockKey)
return 'RELEASED'
)LUA";

} // namespace

class TestSpinLock : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void acquireReentryAndBusy();
    void unlockBranches();
    void unlockLatchReplaysFirstAnswer();
    void waiterGetsLockWithoutAnyPublish();
    void manyWaitersAllGetTheirTurn();
    void waitTimesOut();
    void destroyedContextStopsPolling();
    void watchdogRenewsSpinLock();
    void interopRedisCliClient();

private:
    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    std::unique_ptr<Participant> m_a;
    std::unique_ptr<Participant> m_b;
};

void TestSpinLock::initTestCase()
{
    QString error;
    m_server.setNotifyKeyspaceEvents(QString()); // so PSUBSCRIBE * sees publishes only
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestSpinLock::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestSpinLock::init()
{
    m_admin->flushall();
    m_a = std::make_unique<Participant>(m_server.endpoint());
    m_b = std::make_unique<Participant>(m_server.endpoint());
    QVERIFY(m_a->waitReady());
    QVERIFY(m_b->waitReady());
}

void TestSpinLock::cleanup()
{
    m_a.reset();
    m_b.reset();
}

void TestSpinLock::acquireReentryAndBusy()
{
    const QString name = QStringLiteral("spin:1");
    AcquireResult r = m_a->tryAcquire(name, 1, 20000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(r.token, qint64(-1));
    // Same layout as an RLock, nothing else.
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});
    QCOMPARE(m_admin->dbsize(), qint64(1));
    QVERIFY(!m_a->client->watchdog()->contains(name));
    m_admin->cmd({"PEXPIRE", name.toUtf8(), "3000"});
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("2"));
    QVERIFY(m_admin->pttl(name.toUtf8()) > 10000); // re-entry resets the lease

    r = m_b->tryAcquire(name, 1, 20000);
    QVERIFY(!r.acquired);
    QVERIFY(r.error.isEmpty());
    QVERIFY2(r.pttlMs > 10000 && r.pttlMs <= 20000, qPrintable(QString::number(r.pttlMs)));
    QVERIFY(!m_a->tryAcquire(name, 2, 20000).acquired);
    m_admin->cmd({"PERSIST", name.toUtf8()});
    QCOMPARE(m_b->tryAcquire(name, 1, 20000).pttlMs, qint64(-1));
}

void TestSpinLock::unlockBranches()
{
    const QString name = QStringLiteral("spin:2");
    AllMessages all(m_server.endpoint());
    QVERIFY(all.waitSubscribed());

    UnlockResult r = m_a->unlock(name, 1);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error, QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 1")
                          .arg(m_a->client->clientId()));

    QVERIFY(m_a->tryAcquire(name, 1, 8000).acquired);
    QVERIFY(m_a->tryAcquire(name, 1, 8000).acquired);
    QCOMPARE(m_b->unlock(name, 1).status, UnlockResult::Status::NotHeld);
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("2"));

    m_admin->cmd({"PEXPIRE", name.toUtf8(), "2000"});
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::StillHeld);
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 4000 && pttl <= 8000, qPrintable(QString::number(pttl))); // the acquire's lease
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(waitUntil([&] { return m_admin->dbsize() == 0; })); // latch deleted too

    // Not a single publish in all of that.
    m_admin->cmd({"PUBLISH", "marker", "end"});
    QVERIFY(all.waitFor("marker end"));
    QCOMPARE(all.messages(), QList<QByteArray>{"marker end"});
}

void TestSpinLock::unlockLatchReplaysFirstAnswer()
{
    const QString name = QStringLiteral("spin:latch");
    const QString field = m_a->field(1);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    const RedisScript script = RedisScript::fromResource(QStringLiteral("spin_unlock"));
    auto run = [&](const QString &id) {
        auto box = std::make_shared<Box<RedisReply>>();
        script.eval(m_admin->connection(), {name.toUtf8(), LockNames::unlockLatchKey(name, id).toUtf8()},
                    {"20000", field.toUtf8(), "18000"}, nullptr, [box](const RedisReply &r) {
                        box->value = r;
                        box->done = true;
                    });
        waitUntil([box] { return box->done; });
        return box->value;
    };
    const QString id1 = QStringLiteral("0123456789abcdef0123456789abcdef");
    RedisReply r = run(id1);
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->get(LockNames::unlockLatchKey(name, id1).toUtf8()), QByteArray("0"));
    const qint64 latchTtl = m_admin->pttl(LockNames::unlockLatchKey(name, id1).toUtf8());
    QVERIFY2(latchTtl > 0 && latchTtl <= 18000, qPrintable(QString::number(latchTtl)));
    r = run(id1);
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->hget(name.toUtf8(), field.toUtf8()), QByteArray("1"));
    const QString id2 = QStringLiteral("fedcba9876543210fedcba9876543210");
    r = run(id2);
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    r = run(id2);
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    r = run(QStringLiteral("00000000000000000000000000000000"));
    QVERIFY2(r.isNil(), qPrintable(r.debugString()));
}

void TestSpinLock::waiterGetsLockWithoutAnyPublish()
{
    const QString name = QStringLiteral("spin:wait");
    AllMessages all(m_server.endpoint());
    QVERIFY(all.waitSubscribed());

    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto waiting = m_b->startAcquire(name, 1, 30000, 20000);
    QTest::qWait(300);
    QVERIFY(!waiting->done);
    // A polling waiter subscribes to nothing: only our PSUBSCRIBE * exists on the server.
    QCOMPARE(m_admin->cmd({"PUBSUB", "CHANNELS", "*"}).size(), 0);
    QCOMPARE(m_admin->cmd({"PUBSUB", "NUMPAT"}).toInteger(), qint64(1));
    QCOMPARE(m_b->client->subscriber()->channels().size(), 0);

    // The release publishes nothing, and the waiter still gets the lock (well before the 30 s TTL).
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return waiting->done; }));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(1) + QStringLiteral("=1")});
    QVERIFY(m_admin->pttl(name.toUtf8()) > 20000);
    QCOMPARE(m_b->unlock(name, 1).status, UnlockResult::Status::Released);

    m_admin->cmd({"PUBLISH", "marker", "end"});
    QVERIFY(all.waitFor("marker end"));
    QCOMPARE(all.messages(), QList<QByteArray>{"marker end"});
}

void TestSpinLock::manyWaitersAllGetTheirTurn()
{
    const QString name = QStringLiteral("spin:many");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    QList<std::shared_ptr<Box<AcquireResult>>> waiters;
    for (int t = 1; t <= 3; ++t)
        waiters << m_b->startAcquire(name, t, 30000, -1);
    QTest::qWait(200);
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    // Each winner releases; every waiter eventually gets the lock, one at a time.
    int released = 0;
    QStringList wrongOwners;
    QVERIFY(waitUntil(
        [&] {
            for (int t = 1; t <= 3; ++t) {
                const auto &w = waiters[t - 1];
                if (w->done && w->value.acquired && w->value.error != QLatin1String("released")) {
                    const QStringList holders = m_admin->hgetall(name.toUtf8());
                    if (holders != QStringList{m_b->field(t) + QStringLiteral("=1")})
                        wrongOwners << holders.join(QLatin1Char(','));
                    w->value.error = QStringLiteral("released"); // marks "handled" for this loop
                    m_b->unlock(name, t);
                    ++released;
                }
            }
            return released == 3;
        },
        20000));
    QVERIFY2(wrongOwners.isEmpty(), qPrintable(wrongOwners.join(QLatin1Char(';'))));
    QVERIFY(waitUntil([&] { return !m_admin->exists(name.toUtf8()); }));
}

void TestSpinLock::waitTimesOut()
{
    const QString name = QStringLiteral("spin:to");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto waiting = m_b->startAcquire(name, 1, 30000, 400);
    QVERIFY(waitUntil([&] { return waiting->done; }));
    QVERIFY(!waiting->value.acquired);
    QVERIFY(waiting->value.error.isEmpty());
    QVERIFY2(waiting->value.pttlMs > 0 && waiting->value.pttlMs <= 30000,
             qPrintable(QString::number(waiting->value.pttlMs)));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});

    auto freeLock = m_b->startAcquire(QStringLiteral("spin:free"), 1, 30000, 0);
    QVERIFY(waitUntil([&] { return freeLock->done; }));
    QVERIFY(freeLock->value.acquired);
}

void TestSpinLock::destroyedContextStopsPolling()
{
    const QString name = QStringLiteral("spin:ctx");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto *context = new QObject;
    auto orphan = m_b->startAcquire(name, 1, 30000, -1, context);
    QTest::qWait(100);
    delete context;
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QTest::qWait(500); // many backoff periods: a live poller would have taken it by now
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(!orphan->done);
}

void TestSpinLock::watchdogRenewsSpinLock()
{
    const QString name = QStringLiteral("spin:wd");
    m_a->client->setWatchdogTimeoutMs(1500);
    auto a = m_a->startAcquire(name, 1, 0, 1000);
    QVERIFY(waitUntil([&] { return a->done; }));
    QVERIFY(a->value.acquired);
    QVERIFY(m_a->client->watchdog()->contains(name));
    for (int i = 0; i < 45; ++i) { // about 4.5 s, three times the timeout
        QTest::qWait(100);
        const qint64 pttl = m_admin->pttl(name.toUtf8());
        QVERIFY2(pttl > 0 && pttl <= 1500, qPrintable(QString::number(pttl)));
    }
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_a->client->watchdog()->contains(name));
}

void TestSpinLock::interopRedisCliClient()
{
    const QString name = QStringLiteral("interop:spin");
    const QString foreign = QStringLiteral("c0ffee00-1234-4abc-8def-0123456789ab:5");
    auto cli = [&](const char *script, const QStringList &args) {
        QStringList all{QStringLiteral("EVAL"), QString::fromUtf8(script), QStringLiteral("1"), name};
        all << args;
        return lockscope::test::redisCli(m_server.port(), all);
    };
    AllMessages all(m_server.endpoint());
    QVERIFY(all.waitSubscribed());

    auto res = cli(kForeignSpinAcquire, {QStringLiteral("30000"), foreign});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QCOMPARE(res.out.trimmed(), QByteArray("ACQUIRED"));
    auto waiting = m_a->startAcquire(name, 1, 30000, 20000);
    QTest::qWait(200);
    QVERIFY(!waiting->done);
    // The foreign release publishes nothing either; our poller notices anyway.
    res = cli(kForeignSpinUnlock, {foreign});
    QCOMPARE(res.out.trimmed(), QByteArray("RELEASED"));
    QVERIFY(waitUntil([&] { return waiting->done; }));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));

    // While we hold it the foreign client gets our PTTL; after our release it gets the lock.
    res = cli(kForeignSpinAcquire, {QStringLiteral("30000"), foreign});
    QVERIFY(res.out.trimmed().toLongLong() > 20000);
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    res = cli(kForeignSpinAcquire, {QStringLiteral("30000"), foreign});
    QCOMPARE(res.out.trimmed(), QByteArray("ACQUIRED"));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{foreign + QStringLiteral("=1")});

    m_admin->cmd({"PUBLISH", "marker", "end"});
    QVERIFY(all.waitFor("marker end"));
    QCOMPARE(all.messages(), QList<QByteArray>{"marker end"});
}

QTEST_GUILESS_MAIN(TestSpinLock)
#include "tst_spinlock.moc"
