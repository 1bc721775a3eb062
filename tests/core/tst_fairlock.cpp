// FairLock against a real redis-server: every branch of the fair-lock scripts (protocol §3.2-§3.5)
// with a controlled clock, the queue and timeout-set layout, FIFO hand-over between several
// clients, stale-head pruning, acquireFailed, head-only wake-ups, the watchdog, and a waiter
// enqueued by redis-cli running an independently written script.

#include "lock/fairlock.h"
#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "protocol/locknames.h"

#include "lockfixture.h"
#include "testsupport.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTest>
#include <QTimer>

#include <cmath>
#include <memory>

using namespace lockscope;
using lockscope::test::MessageListener;
using lockscope::test::waitUntil;

namespace
{

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

/** A Redisson-like participant: its own connections, client id and FairLock. */
struct Participant : test::LockKindParticipant<FairLock> {
    using LockKindParticipant::LockKindParticipant;

    bool acquireFailed(const QString &name, qint64 thread, qint64 waitMs)
    {
        return test::awaitBool([&](LockClient::BoolCallback done) {
                   lock->acquireFailed(name, thread, waitMs, nullptr, std::move(done));
               })
            .ok;
    }
};

// Written for this test from the protocol's pseudocode (§3.2, §3.5), independently of
// resources/scripts: a foreign fair-lock participant driven through redis-cli.
const char *const kForeignFairAcquire = R"LUA(
local lockKey, queueKey, zsetKey = KEYS[1], KEYS[2], KEYS[3]
local lease, me, waitMs, now = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
repeat
  local first = redis.call('LINDEX', queueKey, 0)
  local expired = false
  if first then
    local s = redis.call('ZSCORE', zsetKey, first)
    if s and tonumber(s) <= now then
      redis.call('ZREM', zsetKey, first)
      redis.call('LPOP', queueKey)
      expired = true
    end
  end
until not expired
local queueEmpty = redis.call('EXISTS', queueKey) == 0
if redis.call('EXISTS', lockKey) == 0 and (queueEmpty or redis.call('LINDEX', queueKey, 0) == me) then
  redis.call('LPOP', queueKey)
  redis.call('ZREM', zsetKey, me)
  for _, other in ipairs(redis.call('ZRANGE', zsetKey, 0, -1)) do
    redis.call('ZINCRBY', zsetKey, -waitMs, other)
  end
  redis.call('HSET', lockKey, me, 1)
  redis.call('PEXPIRE', lockKey, lease)
  return 'ACQUIRED'
end
if redis.call('HEXISTS', lockKey, me) == 1 then
  redis.call('HINCRBY', lockKey, me, 1)
  redis.call('PEXPIRE', lockKey, lease)
  return 'ACQUIRED'
end
if redis.call('ZSCORE', zsetKey, me) then
  local p = redis.call('PTTL', lockKey)
  if p < 0 then p = 0 end
  return p
end
local tail = redis.call('LINDEX', queueKey, -1)
local tailScore = nil
if tail and tail ~= me then tailScore = redis.call('ZSCORE', zsetKey, tail) end
local ttl
if tailScore then ttl = tonumber(tailScore) - now else ttl = redis.call('PTTL', lockKey) end
if redis.call('ZADD', zsetKey, ttl + waitMs + now, me) == 1 then
  redis.call('RPUSH', queueKey, me)
end
return ttl
)LUA";

const char *const kForeignFairUnlock = R"LUA(
local lockKey, queueKey, zsetKey, channelBase = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local me, now = ARGV[1], tonumber(ARGV[2])
while true do
  local first = redis.call('LINDEX', queueKey, 0)
  if not first then break end
  local s = redis.call('ZSCORE', zsetKey, first)
  if not (s and tonumber(s) <= now) then break end
  redis.call('ZREM', zsetKey, first)
  redis.call('LPOP', queueKey)
end
if redis.call('HEXISTS', lockKey, me) == 0 then return 'NOT_HELD' end
if redis.call('HINCRBY', lockKey, me, -1) > 0 then return 'STILL_HELD' end
redis.call('DEL', lockKey)
local nextWaiter = redis.call('LINDEX', queueKey, 0)
if nextWaiter then redis.call('PUBLISH', channelBase .. ':' .. nextWaiter, '0') end
return 'RELEASED'
)LUA";

} // namespace

class TestFairLock : public test::LockTestCase<Participant>
{
    Q_OBJECT

public:
    TestFairLock()
    {
        m_server.setNotifyKeyspaceEvents(QString()); // pattern listeners here want publishes only
    }

private slots:
    void namesAndDefaults();
    void scriptBranchesWithControlledClock();
    void tryAcquireFreeReentryAndBusy();
    void tryAcquireRespectsQueueHead();
    void waitingAcquireEnqueuesPerProtocol();
    void fifoHandOverUnderContention();
    void stalePruning();
    void acquireFailedShiftsLaterDeadlines();
    void waitTimesOutAndLeavesQueue();
    void destroyedContextLeavesQueue();
    void unlockBranchesAndHeadOnlyWakeUp();
    void unlockLatchReplaysFirstAnswer();
    void watchdogRenewsFairLock();
    void interopRedisCliWaiterKeepsItsTurn();

private:
    QStringList queue(const QString &name);
    qint64 score(const QString &name, const QString &member);
    QList<QByteArray> fairKeys(const QString &name) const;
    /** Enqueues `field` as a waiter that is not running (deadline `deadline`), at the tail. */
    void seedWaiter(const QString &name, const QString &field, qint64 deadline);
};

QStringList TestFairLock::queue(const QString &name)
{
    const RedisReply r = m_admin->cmd({"LRANGE", LockNames::fairQueueKey(name).toUtf8(), "0", "-1"});
    QStringList out;
    for (const auto &e : r.elements())
        out << QString::fromUtf8(e.toByteArray());
    return out;
}

qint64 TestFairLock::score(const QString &name, const QString &member)
{
    const RedisReply r = m_admin->cmd({"ZSCORE", LockNames::fairTimeoutKey(name).toUtf8(), member.toUtf8()});
    if (r.isNil() || r.isError())
        return -1;
    return std::llround(r.toByteArray().toDouble());
}

QList<QByteArray> TestFairLock::fairKeys(const QString &name) const
{
    return {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()};
}

void TestFairLock::seedWaiter(const QString &name, const QString &field, qint64 deadline)
{
    m_admin->cmd({"RPUSH", LockNames::fairQueueKey(name).toUtf8(), field.toUtf8()});
    m_admin->cmd({"ZADD", LockNames::fairTimeoutKey(name).toUtf8(), QByteArray::number(deadline), field.toUtf8()});
}

void TestFairLock::namesAndDefaults()
{
    QCOMPARE(m_a->lock->waitTimeoutMs(), FairLock::kDefaultWaitTimeoutMs);
    QCOMPARE(FairLock::kDefaultWaitTimeoutMs, qint64(300000));
    m_a->lock->setWaitTimeoutMs(5000);
    QCOMPARE(m_a->lock->waitTimeoutMs(), qint64(5000));
    m_a->lock->setWaitTimeoutMs(0);
    QCOMPARE(m_a->lock->waitTimeoutMs(), FairLock::kDefaultWaitTimeoutMs);
    QCOMPARE(m_a->lock->client(), m_a->client.get());
    const QString field = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    QCOMPARE(FairLock::waiterChannel(QStringLiteral("fl"), field),
             QStringLiteral("redisson_lock__channel:{fl}:") + field);
    QCOMPARE(FairLock::waiterChannel(QStringLiteral("a:{7}"), field),
             QStringLiteral("redisson_lock__channel:a:{7}:") + field);
    QCOMPARE(LockNames::fairQueueKey(QStringLiteral("fl")), QStringLiteral("redisson_lock_queue:{fl}"));
    QCOMPARE(LockNames::fairTimeoutKey(QStringLiteral("fl")), QStringLiteral("redisson_lock_timeout:{fl}"));
}

void TestFairLock::scriptBranchesWithControlledClock()
{
    // fair_acquire.lua (§3.2) driven with an explicit "now", so every deadline is exact.
    const QString name = QStringLiteral("sb");
    const auto keys = fairKeys(name);
    const qint64 now = 1'700'000'000'000;
    const QByteArray w1 = "11111111-1111-1111-1111-111111111111:1";
    const QByteArray w2 = "22222222-2222-2222-2222-222222222222:1";
    const QByteArray w3 = "33333333-3333-3333-3333-333333333333:1";
    const QByteArray holder = "00000000-0000-0000-0000-000000000000:1";
    auto acquire = [&](const QByteArray &me, qint64 at, qint64 wait = 10000) {
        return m_admin->evalResource(QStringLiteral("fair_acquire"), keys,
                                     {"20000", me, QByteArray::number(wait), QByteArray::number(at)});
    };

    // Free, no queue: acquired.
    RedisReply r = acquire(holder, now);
    QVERIFY2(r.isNil(), qPrintable(r.debugString()));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{QString::fromUtf8(holder) + QStringLiteral("=1")});
    // Re-entry.
    QVERIFY(acquire(holder, now).isNil());
    QCOMPARE(m_admin->hget(name.toUtf8(), holder), QByteArray("2"));

    // First waiter: ttl = PTTL of the lock, deadline = ttl + wait + now.
    r = acquire(w1, now);
    QVERIFY2(r.isInteger() && r.toInteger() > 15000 && r.toInteger() <= 20000, qPrintable(r.debugString()));
    const qint64 ttl1 = r.toInteger();
    QCOMPARE(queue(name), QStringList{QString::fromUtf8(w1)});
    QCOMPARE(score(name, QString::fromUtf8(w1)), ttl1 + 10000 + now);

    // Second waiter: ttl = last waiter's deadline - now; deadline = that + wait.
    r = acquire(w2, now + 5, 7000);
    QVERIFY2(r.isInteger(), qPrintable(r.debugString()));
    QCOMPARE(r.toInteger(), ttl1 + 10000 + now - (now + 5));
    QCOMPARE(score(name, QString::fromUtf8(w2)), ttl1 + 10000 + now + 7000);
    QCOMPARE(queue(name), (QStringList{QString::fromUtf8(w1), QString::fromUtf8(w2)}));

    // Already queued: max(0, PTTL), the deadline is not refreshed and nothing is appended.
    r = acquire(w1, now + 100);
    QVERIFY2(r.isInteger() && r.toInteger() > 0 && r.toInteger() <= 20000, qPrintable(r.debugString()));
    QCOMPARE(score(name, QString::fromUtf8(w1)), ttl1 + 10000 + now);
    QCOMPARE(queue(name).size(), 2);

    // A queued entry without a deadline at the tail: the next waiter falls back to the PTTL
    // (3.45.0 guard), and it is not pruned at the head either (3.32.0 guard).
    m_admin->cmd({"RPUSH", LockNames::fairQueueKey(name).toUtf8(), "ghost"});
    r = acquire(w3, now + 10);
    QVERIFY2(r.isInteger() && r.toInteger() > 0 && r.toInteger() <= 20000, qPrintable(r.debugString()));
    QCOMPARE(score(name, QString::fromUtf8(w3)), r.toInteger() + 10000 + now + 10);
    QCOMPARE(queue(name), (QStringList{QString::fromUtf8(w1), QString::fromUtf8(w2), QStringLiteral("ghost"),
                                       QString::fromUtf8(w3)}));

    // The lock is freed while the deadlines are still ahead: only the head may take it.
    m_admin->cmd({"DEL", name.toUtf8()});
    r = acquire(w2, now + 200);
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString())); // already queued, max(0, -2)
    QVERIFY(!m_admin->exists(name.toUtf8()));
    const qint64 w2Before = score(name, QString::fromUtf8(w2));
    const qint64 w3Before = score(name, QString::fromUtf8(w3));
    // The head acquires with its wait (10000): it leaves both structures, everyone else moves up.
    QVERIFY(acquire(w1, now + 300).isNil());
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{QString::fromUtf8(w1) + QStringLiteral("=1")});
    QCOMPARE(score(name, QString::fromUtf8(w1)), qint64(-1));
    QCOMPARE(score(name, QString::fromUtf8(w2)), w2Before - 10000);
    QCOMPARE(score(name, QString::fromUtf8(w3)), w3Before - 10000);
    QCOMPARE(queue(name), (QStringList{QString::fromUtf8(w2), QStringLiteral("ghost"), QString::fromUtf8(w3)}));

    // PRUNE: at a time past w2's deadline, w2 leaves the head; "ghost" (no deadline) stops the loop.
    m_admin->cmd({"DEL", name.toUtf8()});
    r = acquire(w3, w2Before); // w2Before - 10000 <= now: expired; ghost has no score: stays
    QVERIFY2(r.isInteger(), qPrintable(r.debugString()));
    QCOMPARE(queue(name), (QStringList{QStringLiteral("ghost"), QString::fromUtf8(w3)}));
    QCOMPARE(score(name, QString::fromUtf8(w2)), qint64(-1));
    QVERIFY(!m_admin->exists(name.toUtf8()));

    // The no-wait variant (§3.3, ARGV lease, field, NOW, WAIT): never enqueues, answers 1.
    r = m_admin->evalResource(
        QStringLiteral("fair_try_acquire"), keys,
        {"20000", "44444444-4444-4444-4444-444444444444:1", QByteArray::number(now + 400), "10000"});
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    QCOMPARE(queue(name).size(), 2);
    // Clear the ghost; w3 is now the head of the queue and takes it with the no-wait variant.
    m_admin->cmd({"LREM", LockNames::fairQueueKey(name).toUtf8(), "0", "ghost"});
    r = m_admin->evalResource(QStringLiteral("fair_try_acquire"), keys,
                              {"20000", w3, QByteArray::number(now + 500), "10000"});
    QVERIFY2(r.isNil(), qPrintable(r.debugString()));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{QString::fromUtf8(w3) + QStringLiteral("=1")});
    // Queue and timeout set are empty, so Redis removed both keys.
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name).toUtf8()));
    QVERIFY(!m_admin->exists(LockNames::fairTimeoutKey(name).toUtf8()));
    // Re-entry through the no-wait variant.
    QVERIFY(
        m_admin->evalResource(QStringLiteral("fair_try_acquire"), keys, {"20000", w3, QByteArray::number(now), "10000"})
            .isNil());
    QCOMPARE(m_admin->hget(name.toUtf8(), w3), QByteArray("2"));
}

void TestFairLock::tryAcquireFreeReentryAndBusy()
{
    const QString name = QStringLiteral("try:1");
    AcquireResult r = m_a->tryAcquire(name, 1, 10000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 5000 && pttl <= 10000, qPrintable(QString::number(pttl)));
    QVERIFY(!m_a->client->watchdog()->contains(name));

    QVERIFY(m_a->tryAcquire(name, 1, 10000).acquired);
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("2"));

    // Busy: not acquired, the PTTL is reported, and the no-wait attempt does not enqueue.
    r = m_b->tryAcquire(name, 1, 10000);
    QVERIFY(!r.acquired);
    QVERIFY(r.error.isEmpty());
    QVERIFY2(r.pttlMs > 0 && r.pttlMs <= 10000, qPrintable(QString::number(r.pttlMs)));
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name).toUtf8()));
    QVERIFY(!m_admin->exists(LockNames::fairTimeoutKey(name).toUtf8()));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=2")});
}

void TestFairLock::tryAcquireRespectsQueueHead()
{
    const QString name = QStringLiteral("try:2");
    const QString head = QStringLiteral("aaaaaaaa-0000-0000-0000-000000000001:9");
    const qint64 deadline = nowMs() + 600000;
    seedWaiter(name, head, deadline);
    seedWaiter(name, m_a->field(1), deadline + 300000);

    // Free lock, but someone else is first in line: refused, -2 = free but not our turn.
    AcquireResult r = m_b->tryAcquire(name, 1, 10000);
    QVERIFY(!r.acquired);
    QCOMPARE(r.pttlMs, qint64(-2));
    QVERIFY(!m_admin->exists(name.toUtf8()));
    // The second in line is refused too.
    QVERIFY(!m_a->tryAcquire(name, 1, 10000).acquired);

    // Once the head is gone, the next in line takes it with the no-wait variant; the others move
    // up by the client's wait timeout.
    m_admin->cmd({"LPOP", LockNames::fairQueueKey(name).toUtf8()});
    seedWaiter(name, m_b->field(5), deadline + 900000);
    m_a->lock->setWaitTimeoutMs(40000);
    r = m_a->tryAcquire(name, 1, 10000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(queue(name), (QStringList{m_b->field(5)}));
    QCOMPARE(score(name, m_b->field(5)), deadline + 900000 - 40000);
    QCOMPARE(score(name, head), deadline - 40000); // stale zset entry without a queue slot moves too
    QCOMPARE(score(name, m_a->field(1)), qint64(-1));
}

void TestFairLock::waitingAcquireEnqueuesPerProtocol()
{
    const QString name = QStringLiteral("enq:1");
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);

    // B waits with an explicit wait: wait = waitMs.
    const qint64 before = nowMs();
    auto b = m_b->startAcquire(name, 3, 10000, 60000);
    QVERIFY(waitUntil([&] { return queue(name).size() == 1; }));
    const qint64 after = nowMs();
    QCOMPARE(queue(name), QStringList{m_b->field(3)});
    const qint64 bDeadline = score(name, m_b->field(3));
    // deadline = PTTL (<= 20000, a little less by now) + 60000 + now
    QVERIFY2(bDeadline > before + 60000 + 10000 && bDeadline <= after + 60000 + 20000,
             qPrintable(QStringLiteral("%1 not in (%2, %3]").arg(bDeadline).arg(before + 70000).arg(after + 80000)));

    // It listens on its own channel only (§3.1), never on the shared one.
    const QByteArray bChannel = FairLock::waiterChannel(name, m_b->field(3)).toUtf8();
    QVERIFY(waitUntil([&] { return m_admin->numsub(bChannel) == 1; }));
    QCOMPARE(m_admin->numsub(LockNames::unlockChannel(name).toUtf8()), qint64(0));

    // C waits forever: wait = fairLockWaitTimeout (300000); its deadline is B's + 300000 exactly.
    Participant c(m_server.endpoint());
    QVERIFY(c.waitReady());
    auto cBox = c.startAcquire(name, 1, 10000, -1);
    QVERIFY(waitUntil([&] { return queue(name).size() == 2; }));
    QCOMPARE(queue(name), (QStringList{m_b->field(3), c.field(1)}));
    QCOMPARE(score(name, c.field(1)), bDeadline + 300000);

    // A retry of an already queued waiter (woken by a stray "0") changes nothing.
    m_admin->cmd({"PUBLISH", bChannel, "0"});
    m_admin->cmd({"PUBLISH", bChannel, "ignored"});
    QTest::qWait(200);
    QVERIFY(!b->done);
    QCOMPARE(queue(name), (QStringList{m_b->field(3), c.field(1)}));
    QCOMPARE(score(name, m_b->field(3)), bDeadline);

    // A releases: B (head, wait 60000) takes it and C moves up by B's wait.
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return b->done; }));
    QVERIFY2(b->value.acquired, qPrintable(b->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(3) + QStringLiteral("=1")});
    QCOMPARE(queue(name), QStringList{c.field(1)});
    QCOMPARE(score(name, c.field(1)), bDeadline + 300000 - 60000);
    QVERIFY(waitUntil([&] { return m_admin->numsub(bChannel) == 0; }));
    QVERIFY(!cBox->done);

    QCOMPARE(m_b->unlock(name, 3).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return cBox->done; }));
    QVERIFY(cBox->value.acquired);
    QCOMPARE(c.unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return m_admin->dbsize() == 0; }));
}

void TestFairLock::fifoHandOverUnderContention()
{
    const QString name = QStringLiteral("fifo:1");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);

    std::vector<std::unique_ptr<Participant>> waiters;
    QList<int> order;
    QList<UnlockResult::Status> unlocks;
    QObject guard;
    for (int i = 0; i < 4; ++i) {
        waiters.push_back(std::make_unique<Participant>(m_server.endpoint()));
        QVERIFY(waiters.back()->waitReady());
    }
    QStringList expectedQueue;
    for (int i = 0; i < 4; ++i) {
        Participant *p = waiters[i].get();
        const qint64 thread = 10 + i;
        p->lock->acquire(name, thread, 30000, -1, &guard, [&, p, i, thread](const AcquireResult &r) {
            QVERIFY2(r.acquired, qPrintable(r.error));
            order << i;
            // Hold it briefly, then hand over.
            QTimer::singleShot(30, &guard, [&, p, thread] {
                p->lock->unlock(name, thread, &guard, [&](const UnlockResult &u) { unlocks << u.status; });
            });
        });
        expectedQueue << p->field(thread);
        // Enqueued in a known order: wait for this one before starting the next.
        QVERIFY(waitUntil([&] { return queue(name) == expectedQueue; }));
        QVERIFY(
            waitUntil([&] { return m_admin->numsub(FairLock::waiterChannel(name, p->field(thread)).toUtf8()) == 1; }));
    }
    // Deadlines are strictly increasing along the queue, one wait (300000) apart.
    for (int i = 1; i < 4; ++i)
        QCOMPARE(score(name, expectedQueue[i]) - score(name, expectedQueue[i - 1]), qint64(300000));
    QCOMPARE(m_admin->numsub(LockNames::unlockChannel(name).toUtf8()), qint64(0));

    // A plain competitor that arrives now must not jump the queue.
    QVERIFY(!m_b->tryAcquire(name, 1, 30000).acquired);

    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return unlocks.size() == 4; }, 30000));
    QCOMPARE(order, (QList<int>{0, 1, 2, 3}));
    for (auto s : unlocks)
        QCOMPARE(s, UnlockResult::Status::Released);
    // Nothing left behind: lock, queue and timeout set are all gone (latches are deleted after).
    QVERIFY(waitUntil([&] { return m_admin->dbsize() == 0; }));
}

void TestFairLock::stalePruning()
{
    const QString name = QStringLiteral("prune:1");
    const qint64 now = nowMs();
    const QString dead1 = QStringLiteral("dead0001-0000-0000-0000-000000000000:1");
    const QString dead2 = QStringLiteral("dead0002-0000-0000-0000-000000000000:1");
    const QString live = QStringLiteral("11ee0000-0000-0000-0000-000000000000:1");
    seedWaiter(name, dead1, now - 5000);
    seedWaiter(name, dead2, now - 1);
    seedWaiter(name, live, now + 600000);

    // Lock free: B's acquire prunes the two dead heads, then finds a live head ahead of it, so it
    // queues behind the live one (wait = 20000) instead of taking the lock.
    auto b = m_b->startAcquire(name, 1, 10000, 20000);
    QVERIFY(waitUntil([&] { return queue(name).size() == 2; }));
    QCOMPARE(queue(name), (QStringList{live, m_b->field(1)}));
    QCOMPARE(score(name, dead1), qint64(-1));
    QCOMPARE(score(name, dead2), qint64(-1));
    QVERIFY(!m_admin->exists(name.toUtf8()));
    // -2 (no lock) + 20000 + now after the live waiter's deadline: deadline(B) = deadline(live) + 20000.
    QCOMPARE(score(name, m_b->field(1)), now + 600000 + 20000);
    QVERIFY(!b->done);

    // The live head dies too (its deadline passes): the next attempt prunes it and B acquires.
    m_admin->cmd({"ZADD", LockNames::fairTimeoutKey(name).toUtf8(), QByteArray::number(nowMs() - 1), live.toUtf8()});
    m_admin->cmd({"PUBLISH", FairLock::waiterChannel(name, m_b->field(1)).toUtf8(), "0"});
    QVERIFY(waitUntil([&] { return b->done; }));
    QVERIFY2(b->value.acquired, qPrintable(b->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(1) + QStringLiteral("=1")});
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name).toUtf8()));
    QVERIFY(!m_admin->exists(LockNames::fairTimeoutKey(name).toUtf8()));

    // The no-wait variant prunes as well.
    const QString name2 = QStringLiteral("prune:2");
    seedWaiter(name2, dead1, nowMs() - 10);
    QVERIFY(m_a->tryAcquire(name2, 1, 10000).acquired);
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name2).toUtf8()));
}

void TestFairLock::acquireFailedShiftsLaterDeadlines()
{
    const QString name = QStringLiteral("fail:1");
    // A participant whose client id we choose, so it can own a seeded queue entry.
    const QString id = QStringLiteral("f0f0f0f0-0000-0000-0000-00000000000a");
    Participant me(m_server.endpoint(), id);
    QVERIFY(me.waitReady());
    const qint64 base = nowMs() + 600000;
    const QString before1 = QStringLiteral("b0000001-0000-0000-0000-000000000000:1");
    const QString after1 = QStringLiteral("a0000001-0000-0000-0000-000000000000:1");
    const QString after2 = QStringLiteral("a0000002-0000-0000-0000-000000000000:1");
    seedWaiter(name, before1, base);
    seedWaiter(name, me.field(4), base + 10000);
    seedWaiter(name, after1, base + 20000);
    seedWaiter(name, after2, base + 30000);

    QVERIFY(me.acquireFailed(name, 4, 10000));
    QCOMPARE(queue(name), (QStringList{before1, after1, after2}));
    QCOMPARE(score(name, before1), base); // ahead of me: unchanged
    QCOMPARE(score(name, me.field(4)), qint64(-1));
    QCOMPARE(score(name, after1), base + 20000 - 10000); // behind me: moved up by my wait
    QCOMPARE(score(name, after2), base + 30000 - 10000);

    // Not queued: nothing changes.
    QVERIFY(me.acquireFailed(name, 4, 10000));
    QCOMPARE(queue(name), (QStringList{before1, after1, after2}));
    QCOMPARE(score(name, after2), base + 20000);

    // A waiting acquire that is abandoned leaves the same way, with the wait it enqueued with.
    const QString name2 = QStringLiteral("fail:2");
    QVERIFY(m_a->tryAcquire(name2, 1, 30000).acquired);
    auto *context = new QObject;
    auto mine = me.startAcquire(name2, 7, 10000, 45000, context);
    QVERIFY(waitUntil([&] { return queue(name2).size() == 1; }));
    const qint64 myDeadline = score(name2, me.field(7));
    seedWaiter(name2, after1, myDeadline + 45000);
    delete context; // the caller is gone: the waiter gives up
    QVERIFY(waitUntil([&] { return queue(name2) == QStringList{after1}; }));
    QCOMPARE(score(name2, after1), myDeadline);
    QCOMPARE(score(name2, me.field(7)), qint64(-1));
    QTest::qWait(100);
    QVERIFY(!mine->done); // no callback for a destroyed context
}

void TestFairLock::waitTimesOutAndLeavesQueue()
{
    const QString name = QStringLiteral("to:1");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto b = m_b->startAcquire(name, 2, 10000, 500);
    QVERIFY(waitUntil([&] { return b->done; }));
    QVERIFY(!b->value.acquired);
    QVERIFY(b->value.error.isEmpty());
    QVERIFY2(b->value.pttlMs > 0 && b->value.pttlMs <= 30000, qPrintable(QString::number(b->value.pttlMs)));
    // acquireFailed ran before the callback: B is neither queued nor subscribed any more.
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name).toUtf8()));
    QVERIFY(!m_admin->exists(LockNames::fairTimeoutKey(name).toUtf8()));
    QVERIFY(waitUntil([&] { return m_admin->numsub(FairLock::waiterChannel(name, m_b->field(2)).toUtf8()) == 0; }));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});

    // waitMs = 0 is one enqueue-and-leave round (Redisson tryLock(0)).
    auto zero = m_b->startAcquire(name, 3, 10000, 0);
    QVERIFY(waitUntil([&] { return zero->done; }));
    QVERIFY(!zero->value.acquired);
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name).toUtf8()));

    // A wait on a free lock succeeds at once.
    auto freeLock = m_b->startAcquire(QStringLiteral("to:free"), 1, 10000, 0);
    QVERIFY(waitUntil([&] { return freeLock->done; }));
    QVERIFY(freeLock->value.acquired);
}

void TestFairLock::destroyedContextLeavesQueue()
{
    const QString name = QStringLiteral("ctx:1");
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto *context = new QObject;
    auto b = m_b->startAcquire(name, 1, 10000, -1, context);
    QVERIFY(waitUntil([&] { return queue(name).size() == 1; }));
    delete context;
    QVERIFY(waitUntil([&] { return !m_admin->exists(LockNames::fairQueueKey(name).toUtf8()); }));
    QVERIFY(!m_admin->exists(LockNames::fairTimeoutKey(name).toUtf8()));
    QVERIFY(waitUntil([&] { return m_admin->numsub(FairLock::waiterChannel(name, m_b->field(1)).toUtf8()) == 0; }));
    // The lock is released later: nobody takes it on B's behalf.
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QTest::qWait(200);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(!b->done);
}

void TestFairLock::unlockBranchesAndHeadOnlyWakeUp()
{
    const QString name = QStringLiteral("ul:1");
    MessageListener all(m_server.endpoint(), "*", MessageListener::Pattern);
    QVERIFY(all.waitSubscribed());
    const QString head = QStringLiteral("4ead0000-0000-0000-0000-000000000000:1");
    const QString second = QStringLiteral("5ec00000-0000-0000-0000-000000000000:1");
    const qint64 far = nowMs() + 600000;

    // Absent lock, nobody queued: Released (Redisson reports success), nothing published.
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);

    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    seedWaiter(name, head, far);
    seedWaiter(name, second, far + 300000);

    // Not the holder: refused, nothing changes.
    UnlockResult r = m_b->unlock(name, 1);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error, QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 1")
                          .arg(m_b->client->clientId()));
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("2"));

    // Partial: still held, TTL back to the lease of the acquire, no message.
    m_admin->cmd({"PEXPIRE", name.toUtf8(), "3000"});
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::StillHeld);
    QVERIFY(m_admin->pttl(name.toUtf8()) > 10000);
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("1"));

    // Full: deleted, "0" on the head waiter's own channel only.
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    const QByteArray headChannel = FairLock::waiterChannel(name, head).toUtf8();
    QVERIFY(all.waitFor(headChannel, "0"));
    QCOMPARE(queue(name), (QStringList{head, second})); // unlock does not dequeue

    // Lock already gone (expired or force-unlocked): still Released, and the head is told again.
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);

    // The unlock prunes first: with the head's deadline passed, the second waiter is told.
    m_admin->cmd({"ZADD", LockNames::fairTimeoutKey(name).toUtf8(), QByteArray::number(nowMs() - 1), head.toUtf8()});
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QCOMPARE(queue(name), QStringList{second});
    const QByteArray secondChannel = FairLock::waiterChannel(name, second).toUtf8();
    QVERIFY(all.waitFor(secondChannel, "0"));

    m_admin->cmd({"PUBLISH", "marker", "end"});
    QVERIFY(all.waitFor("marker", "end"));
    using Msg = QPair<QByteArray, QByteArray>;
    QCOMPARE(all.messages(),
             (QList<Msg>{Msg(headChannel, "0"), Msg(headChannel, "0"), Msg(secondChannel, "0"), Msg("marker", "end")}));
    // Latches are deleted after each unlock.
    QVERIFY(waitUntil([&] { return m_admin->cmd({"KEYS", "redisson_unlock_latch:*"}).size() == 0; }));
}

void TestFairLock::unlockLatchReplaysFirstAnswer()
{
    const QString name = QStringLiteral("latch:1");
    const QString field = m_a->field(1);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    QVERIFY(m_a->tryAcquire(name, 1, 20000).acquired);
    auto run = [&](const QByteArray &requestId) {
        return m_admin->evalResource(QStringLiteral("fair_unlock"),
                                     {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(),
                                      LockNames::fairTimeoutKey(name).toUtf8(), LockNames::unlockChannel(name).toUtf8(),
                                      LockNames::unlockLatchKey(name, QString::fromUtf8(requestId)).toUtf8()},
                                     {"0", "20000", field.toUtf8(), QByteArray::number(nowMs()), "publish", "18000"});
    };
    RedisReply r = run("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->get("redisson_unlock_latch:{latch:1}:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), QByteArray("0"));
    r = run("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->hget(name.toUtf8(), field.toUtf8()), QByteArray("1")); // no second decrement
    r = run("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    QVERIFY(!m_admin->exists(name.toUtf8()));
    const qint64 latchTtl = m_admin->pttl("redisson_unlock_latch:{latch:1}:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    QVERIFY2(latchTtl > 0 && latchTtl <= 18000, qPrintable(QString::number(latchTtl)));
    // Re-acquired by someone else meanwhile: the replay still answers "released", touching nothing.
    QVERIFY(m_b->tryAcquire(name, 1, 20000).acquired);
    r = run("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(1) + QStringLiteral("=1")});
    // A fresh id on a lock held by someone else: not held.
    r = run("cccccccccccccccccccccccccccccccc");
    QVERIFY2(r.isNil(), qPrintable(r.debugString()));
}

void TestFairLock::watchdogRenewsFairLock()
{
    const QString name = QStringLiteral("wd:1");
    const qint64 timeout = 1500;
    m_a->client->setWatchdogTimeoutMs(timeout);
    auto a = m_a->startAcquire(name, 1, 0, 5000);
    QVERIFY(waitUntil([&] { return a->done; }));
    QVERIFY(a->value.acquired);
    QVERIFY(m_a->client->watchdog()->contains(name));
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 3 * timeout) {
        QTest::qWait(50);
        const qint64 pttl = m_admin->pttl(name.toUtf8());
        QVERIFY2(pttl > 0 && pttl <= timeout, qPrintable(QString::number(pttl)));
    }
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("1"));
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_a->client->watchdog()->contains(name));

    // tryAcquire with leaseMs <= 0 registers it as well.
    QVERIFY(m_a->tryAcquire(name, 2, 0).acquired);
    QVERIFY(m_a->client->watchdog()->contains(name));
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 0 && pttl <= timeout, qPrintable(QString::number(pttl)));
    QCOMPARE(m_a->unlock(name, 2).status, UnlockResult::Status::Released);
    QVERIFY(!m_a->client->watchdog()->contains(name));
}

void TestFairLock::interopRedisCliWaiterKeepsItsTurn()
{
    const QString name = QStringLiteral("interop:fair");
    const QString foreign = QStringLiteral("c0ffee00-1234-4abc-8def-0123456789ab:42");
    auto cli = [&](const char *script, const QStringList &keys, const QStringList &args) {
        return test::redisCliEval(m_server.port(), script, keys, args);
    };
    const QStringList keys{name, LockNames::fairQueueKey(name), LockNames::fairTimeoutKey(name)};
    MessageListener all(m_server.endpoint(), "redisson_lock__channel:*", MessageListener::Pattern);
    QVERIFY(all.waitSubscribed());

    // A (ours) holds; the foreign client queues first, through redis-cli.
    QVERIFY(m_a->tryAcquire(name, 1, 30000).acquired);
    auto res = cli(kForeignFairAcquire, keys,
                   {QStringLiteral("30000"), foreign, QStringLiteral("300000"), QString::number(nowMs())});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QVERIFY2(res.out.trimmed().toLongLong() > 0, qPrintable(res.describe()));
    QCOMPARE(queue(name), QStringList{foreign});
    const qint64 foreignDeadline = score(name, foreign);

    // B (ours) queues behind it.
    auto b = m_b->startAcquire(name, 1, 30000, -1);
    QVERIFY(waitUntil([&] { return queue(name).size() == 2; }));
    QCOMPARE(queue(name), (QStringList{foreign, m_b->field(1)}));
    QCOMPARE(score(name, m_b->field(1)), foreignDeadline + 300000);

    // A releases: only the foreign head is told, and B must not take the lock.
    QCOMPARE(m_a->unlock(name, 1).status, UnlockResult::Status::Released);
    const QByteArray foreignChannel = FairLock::waiterChannel(name, foreign).toUtf8();
    QVERIFY(all.waitFor(foreignChannel, "0"));
    m_admin->cmd({"PUBLISH", FairLock::waiterChannel(name, m_b->field(1)).toUtf8(), "0"}); // make B retry now
    QTest::qWait(300);
    QVERIFY(!b->done);
    QVERIFY(!m_admin->exists(name.toUtf8()));

    // The foreign client takes its turn (redis-cli), moving B up by its wait...
    res = cli(kForeignFairAcquire, keys,
              {QStringLiteral("30000"), foreign, QStringLiteral("300000"), QString::number(nowMs())});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QCOMPARE(res.out.trimmed(), QByteArray("ACQUIRED"));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{foreign + QStringLiteral("=1")});
    QCOMPARE(score(name, m_b->field(1)), foreignDeadline);
    // ...and releases through redis-cli, which wakes B on B's own channel.
    res = cli(kForeignFairUnlock,
              {name, LockNames::fairQueueKey(name), LockNames::fairTimeoutKey(name), LockNames::unlockChannel(name)},
              {foreign, QString::number(nowMs())});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QCOMPARE(res.out.trimmed(), QByteArray("RELEASED"));
    QVERIFY(waitUntil([&] { return b->done; }));
    QVERIFY2(b->value.acquired, qPrintable(b->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(1) + QStringLiteral("=1")});
    QVERIFY(!m_admin->exists(LockNames::fairQueueKey(name).toUtf8()));

    // And the other way round: a foreign waiter queued behind our holder is woken by our unlock
    // and can then acquire with its independent script.
    res = cli(kForeignFairAcquire, keys,
              {QStringLiteral("30000"), foreign, QStringLiteral("300000"), QString::number(nowMs())});
    QVERIFY2(res.out.trimmed().toLongLong() > 0, qPrintable(res.describe()));
    QCOMPARE(m_b->unlock(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(all.waitFor(foreignChannel, "0", 2));
    res = cli(kForeignFairAcquire, keys,
              {QStringLiteral("30000"), foreign, QStringLiteral("300000"), QString::number(nowMs())});
    QCOMPARE(res.out.trimmed(), QByteArray("ACQUIRED"));
}

QTEST_GUILESS_MAIN(TestFairLock)
#include "tst_fairlock.moc"
