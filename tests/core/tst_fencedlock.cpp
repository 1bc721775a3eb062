// FencedLock against a real redis-server: the lockAndGetToken script (protocol §5.2), tokens that
// climb on every acquire including re-entry and survive unlock, the inherited RLock unlock and
// waiting, the watchdog, and a foreign fenced client driven by redis-cli.

#include "lock/fencedlock.h"
#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "protocol/locknames.h"
#include "redis/redisscript.h"

#include "lockfixture.h"
#include "testsupport.h"

#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::waitUntil;

namespace
{

struct Participant : test::LockKindParticipant<FencedLock> {
    using LockKindParticipant::LockKindParticipant;

    qint64 token(const QString &name)
    {
        return test::await([&](auto done) { lock->token(name, nullptr, done); }, qint64(-99));
    }
};

// Written for this test from the protocol (§5.2 and §2.3 without the latch), independently of
// resources/scripts: a foreign fenced-lock client driven through redis-cli.
const char *const kForeignFencedAcquire = R"LUA(
local lockKey, tokenKey, lease, me = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local mayTake = redis.call('EXISTS', lockKey) == 0 or redis.call('HEXISTS', lockKey, me) == 1
if not mayTake then
  return {redis.call('PTTL', lockKey), -1}
end
local t = redis.call('INCR', tokenKey)
redis.call('HINCRBY', lockKey, me, 1)
redis.call('PEXPIRE', lockKey, lease)
return {-1, t}
)LUA";

const char *const kForeignUnlock = R"LUA(
local lockKey, channel, me = KEYS[1], KEYS[2], ARGV[1]
if redis.call('HEXISTS', lockKey, me) == 0 then return 'NOT_HELD' end
if redis.call('HINCRBY', lockKey, me, -1) > 0 then return 'STILL_HELD' end
redis.call('DEL', lockKey)
redis.call('PUBLISH', channel, '0')
return 'RELEASED'
)LUA";

} // namespace

class TestFencedLock : public test::LockTestCase<Participant>
{
    Q_OBJECT

private slots:
    void tokenClimbsOnEveryAcquireAndSurvivesUnlock();
    void busyLockReturnsPttlAndNoToken();
    void scriptReplies();
    void unlockReappliesTheLease();
    void waitingAcquireWakesOnUnlock();
    void waitTimesOut();
    void watchdogRenewsFencedLock();
    void interopRedisCliClient();
};

void TestFencedLock::tokenClimbsOnEveryAcquireAndSurvivesUnlock()
{
    const QString name = QStringLiteral("fence:1");
    const QByteArray tokenKey = "redisson_lock_token:{fence:1}";
    QCOMPARE(LockNames::tokenKey(name).toUtf8(), tokenKey);
    QCOMPARE(m_a->token(name), qint64(0)); // never acquired

    AcquireResult r = m_a->tryAcquire(name, 1, 20000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(r.token, qint64(1));
    // The RLock hash plus the counter, which has no TTL.
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});
    QCOMPARE(m_admin->get(tokenKey), QByteArray("1"));
    QCOMPARE(m_admin->pttl(tokenKey), qint64(-1));
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 10000 && pttl <= 20000, qPrintable(QString::number(pttl)));

    // Re-entry is a successful acquire too: new token.
    r = m_a->tryAcquire(name, 1, 20000);
    QVERIFY(r.acquired);
    QCOMPARE(r.token, qint64(2));
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("2"));
    QCOMPARE(m_a->token(name), qint64(2));

    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::StillHeld);
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    // The counter survives the release, with no TTL...
    QCOMPARE(m_admin->get(tokenKey), QByteArray("2"));
    QCOMPARE(m_admin->pttl(tokenKey), qint64(-1));
    // ...so the next owner's token is larger than every earlier one.
    r = m_b->tryAcquire(name, 4, 20000);
    QVERIFY(r.acquired);
    QCOMPARE(r.token, qint64(3));
    QCOMPARE(m_b->token(name), qint64(3));
    QCOMPARE(m_b->unlock(name, 4).status, UnlockResult::Status::Released);
    r = m_a->tryAcquire(name, 1, 20000);
    QCOMPARE(r.token, qint64(4));
}

void TestFencedLock::busyLockReturnsPttlAndNoToken()
{
    const QString name = QStringLiteral("fence:2");
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    AcquireResult r = m_b->tryAcquire(name, 1, 20000);
    QVERIFY(!r.acquired);
    QVERIFY(r.error.isEmpty());
    QCOMPARE(r.token, qint64(-1));
    QVERIFY2(r.pttlMs > 10000 && r.pttlMs <= 20000, qPrintable(QString::number(r.pttlMs)));
    // Another thread of the same client is another owner.
    QVERIFY(!m_a->tryAcquire(name, 2, 20000).acquired);
    // A refused attempt does not move the counter.
    QCOMPARE(m_admin->get(LockNames::tokenKey(name).toUtf8()), QByteArray("1"));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});

    // Held with no TTL: -1.
    m_admin->cmd({"PERSIST", name.toUtf8()});
    r = m_b->tryAcquire(name, 1, 20000);
    QVERIFY(!r.acquired);
    QCOMPARE(r.pttlMs, qint64(-1));
}

void TestFencedLock::scriptReplies()
{
    // The raw replies of fenced_acquire.lua: {-1, token} / {pttl, -1}.
    const RedisScript script = RedisScript::fromResource(QStringLiteral("fenced_acquire"));
    auto run = [&](const QByteArray &field) {
        return m_admin->eval(script, {"fence:3", "redisson_lock_token:{fence:3}"}, {"20000", field});
    };
    RedisReply r = run("11111111-1111-1111-1111-111111111111:1");
    QVERIFY2(r.isArray() && r.size() == 2, qPrintable(r.debugString()));
    QCOMPARE(r.at(0).toInteger(), qint64(-1));
    QCOMPARE(r.at(1).toInteger(), qint64(1));
    r = run("22222222-2222-2222-2222-222222222222:1");
    QVERIFY2(r.isArray() && r.size() == 2, qPrintable(r.debugString()));
    QVERIFY(r.at(0).toInteger() > 10000);
    QCOMPARE(r.at(1).toInteger(), qint64(-1));
}

void TestFencedLock::unlockReappliesTheLease()
{
    // Unlock is LockClient's; it must re-apply this acquire's lease (internalLockLeaseTime), not
    // the watchdog timeout.
    const QString name = QStringLiteral("fence:4");
    QVERIFY(m_a->tryAcquire(name, 1, 8000).acquired);
    QVERIFY(m_a->tryAcquire(name, 1, 8000).acquired);
    m_admin->cmd({"PEXPIRE", name.toUtf8(), "2000"});
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::StillHeld);
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 4000 && pttl <= 8000, qPrintable(QString::number(pttl)));

    UnlockResult r = m_b->unlock(name, 1);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error, QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 1")
                          .arg(m_b->client->clientId()));
}

void TestFencedLock::waitingAcquireWakesOnUnlock()
{
    const QString name = QStringLiteral("fence:5");
    AcquireResult first = m_a->tryAcquire(name, 1, 30000);
    QCOMPARE(first.token, qint64(1));
    auto waiting = m_b->startAcquire(name, 2, 30000, 20000);
    // It waits on the RLock channel (§5.2: channel inherited from RLock).
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{fence:5}") == 1; }));
    QTest::qWait(100);
    QVERIFY(!waiting->done);
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return waiting->done; }));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(waiting->value.token, qint64(2));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(2) + QStringLiteral("=1")});
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{fence:5}") == 0; }));

    // A waiting acquire of a free lock succeeds at once and gets a token too.
    auto freeLock = m_a->startAcquire(QStringLiteral("fence:free"), 1, 30000, 0);
    QVERIFY(waitUntil([&] { return freeLock->done; }));
    QVERIFY(freeLock->value.acquired);
    QCOMPARE(freeLock->value.token, qint64(1));
}

void TestFencedLock::waitTimesOut()
{
    const QString name = QStringLiteral("fence:6");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto waiting = m_b->startAcquire(name, 1, 30000, 400);
    QVERIFY(waitUntil([&] { return waiting->done; }));
    QVERIFY(!waiting->value.acquired);
    QVERIFY(waiting->value.error.isEmpty());
    QCOMPARE(waiting->value.token, qint64(-1));
    QVERIFY(waiting->value.pttlMs > 0);
    QCOMPARE(m_admin->get(LockNames::tokenKey(name).toUtf8()), QByteArray("1"));
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{fence:6}") == 0; }));

    // A waiter whose context dies stops and never takes the lock on its behalf.
    auto *context = new QObject;
    auto orphan = m_b->startAcquire(name, 3, 30000, -1, context);
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{fence:6}") == 1; }));
    delete context;
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{fence:6}") == 0; }));
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QTest::qWait(200);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(!orphan->done);
}

void TestFencedLock::watchdogRenewsFencedLock()
{
    const QString name = QStringLiteral("fence:wd");
    m_a->client->setWatchdogTimeoutMs(1500);
    AcquireResult r = m_a->tryAcquire(name, 1, 0);
    QVERIFY(r.acquired);
    QVERIFY(m_a->client->watchdog()->contains(name));
    for (int i = 0; i < 45; ++i) { // about 4.5 s, three times the timeout
        QTest::qWait(100);
        const qint64 pttl = m_admin->pttl(name.toUtf8());
        QVERIFY2(pttl > 0 && pttl <= 1500, qPrintable(QString::number(pttl)));
    }
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_a->client->watchdog()->contains(name));
}

void TestFencedLock::interopRedisCliClient()
{
    const QString name = QStringLiteral("interop:fenced");
    const QString foreign = QStringLiteral("c0ffee00-1234-4abc-8def-0123456789ab:3");
    auto cli = [&](const char *script, const QStringList &keys, const QStringList &args) {
        return test::redisCliEval(m_server.port(), script, keys, args);
    };

    // The foreign client takes the lock and token 1 (redis-cli prints the two-element array).
    auto res = cli(kForeignFencedAcquire, {name, LockNames::tokenKey(name)}, {QStringLiteral("30000"), foreign});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QCOMPARE(res.out.split('\n').value(1).trimmed(), QByteArray("1"));
    QCOMPARE(m_a->token(name), qint64(1));

    // Ours waits on the shared channel; the foreign unlock publishes "0" there.
    auto waiting = m_a->startAcquire(name, 1, 30000, 20000);
    QVERIFY(waitUntil([&] { return m_admin->numsub(LockNames::unlockChannel(name).toUtf8()) == 1; }));
    QVERIFY(!m_a->tryAcquire(name, 2, 30000).acquired);
    res = cli(kForeignUnlock, {name, LockNames::unlockChannel(name)}, {foreign});
    QCOMPARE(res.out.trimmed(), QByteArray("RELEASED"));
    QVERIFY(waitUntil([&] { return waiting->done; }));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(waiting->value.token, qint64(2));

    // The foreign client is refused while we hold it, and sees our higher token after our release.
    res = cli(kForeignFencedAcquire, {name, LockNames::tokenKey(name)}, {QStringLiteral("30000"), foreign});
    QVERIFY(res.out.split('\n').value(0).trimmed().toLongLong() > 0);
    QCOMPARE(res.out.split('\n').value(1).trimmed(), QByteArray("-1"));
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    res = cli(kForeignFencedAcquire, {name, LockNames::tokenKey(name)}, {QStringLiteral("30000"), foreign});
    QCOMPARE(res.out.split('\n').value(1).trimmed(), QByteArray("3"));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{foreign + QStringLiteral("=1")});
}

QTEST_GUILESS_MAIN(TestFencedLock)
#include "tst_fencedlock.moc"
