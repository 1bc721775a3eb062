// SpinLock against a real redis-server: the RLock acquire and the publish-free unlock (protocol
// §5.1), polling waiters that never subscribe and never see a PUBLISH, the latch, the watchdog,
// and a foreign spin client driven by redis-cli.

#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "lock/spinlock.h"
#include "protocol/locknames.h"
#include "redis/redisscript.h"
#include "redis/redissubscriber.h"

#include "lockfixture.h"
#include "testsupport.h"

#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::Box;
using lockscope::test::MessageListener;
using lockscope::test::waitUntil;

namespace
{

/** A spin-lock participant. It has a subscriber (as a real client would) that must stay unused. */
using Participant = test::LockKindParticipant<SpinLock>;
using Msg = MessageListener::Message;

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

class TestSpinLock : public test::LockTestCase<Participant>
{
    Q_OBJECT

public:
    TestSpinLock()
    {
        m_server.setNotifyKeyspaceEvents(QString()); // so PSUBSCRIBE * sees publishes only
    }

private slots:
    void acquireReentryAndBusy();
    void unlockBranches();
    void unlockLatchReplaysFirstAnswer();
    void waiterGetsLockWithoutAnyPublish();
    void manyWaitersAllGetTheirTurn();
    void waitTimesOut();
    void destroyedContextStopsPolling();
    void watchdogRenewsSpinLock();
    void interopRedisCliClient();
};

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
    MessageListener all(m_server.endpoint(), "*", MessageListener::Pattern);
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
    QVERIFY(all.waitFor("marker", "end"));
    QCOMPARE(all.messages(), QList<Msg>{Msg("marker", "end")});
}

void TestSpinLock::unlockLatchReplaysFirstAnswer()
{
    const QString name = QStringLiteral("spin:latch");
    const QString field = m_a->field(1);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    const RedisScript script = RedisScript::fromResource(QStringLiteral("spin_unlock"));
    auto run = [&](const QString &id) {
        return m_admin->eval(script, {name.toUtf8(), LockNames::unlockLatchKey(name, id).toUtf8()},
                             {"20000", field.toUtf8(), "18000"});
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
    MessageListener all(m_server.endpoint(), "*", MessageListener::Pattern);
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
    QVERIFY(all.waitFor("marker", "end"));
    QCOMPARE(all.messages(), QList<Msg>{Msg("marker", "end")});
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
        return test::redisCliEval(m_server.port(), script, {name}, args);
    };
    MessageListener all(m_server.endpoint(), "*", MessageListener::Pattern);
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
    QVERIFY(all.waitFor("marker", "end"));
    QCOMPARE(all.messages(), QList<Msg>{Msg("marker", "end")});
}

QTEST_GUILESS_MAIN(TestSpinLock)
#include "tst_spinlock.moc"
