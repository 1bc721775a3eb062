// LockClient against a real redis-server: every branch of the Redisson RLock scripts (protocol
// §2.2-§2.6), the watchdog, the unlock latch, force unlock and waiting acquires woken by the
// unlock channel.

#include "demo/redisserverprocess.h"
#include "lock/lockacquisition.h"
#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "protocol/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redisscript.h"

#include "lockfixture.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::BoolResult;
using lockscope::test::Box;
using lockscope::test::MessageListener;
using lockscope::test::waitUntil;

namespace
{

/** A Redisson-like participant: its own command connection, pub/sub connection and client id. */
using Participant = test::LockParticipant;

} // namespace

class TestLockClient : public test::LockTestCase<Participant>
{
    Q_OBJECT

private slots:
    void clientIdentity();
    void acquireFreeLock();
    void reentryIncrementsHoldCount();
    void heldByOtherReturnsPttlAndChangesNothing();
    void heldWithoutTtlReturnsMinusOne();
    void holdCount();
    void watchdogAcquireRenewsPastTimeout();
    void watchdogStopsWhenLockIsGone();
    void unlockPartialKeepsLockAndResetsTtl();
    void unlockFullDeletesAndPublishes();
    void unlockNotHeld();
    void unlockLatchReplaysFirstAnswer();
    void unlockRemovesItsLatchKey();
    void renewHeldAndNotHeld();
    void forceUnlockDeletesAndPublishes();
    void forceUnlockAbsentReturnsFalse();
    void waitingAcquireWakesOnUnlock();
    void waitingAcquireWakesOnForceUnlock();
    void waitingAcquireTimesOut();
    void waitingAcquireWithoutSubscriberRetriesAtTtl();
    void acquireWithWaitOnFreeLockNeedsNoWait();
    void acquireThatMustWaitGetsLockAfterUnlock();
    void acquireWithZeroWaitOnHeldLockFailsAtOnce();
    void acquireWhoseContextDiesDuringFirstAttemptGivesLockBack();
    void bracedNamesUseRedissonChannel();
    void transportErrorsAreReported();

private:
    AcquireResult tryAcquire(Participant &p, const QString &name, qint64 thread, qint64 leaseMs);
    std::shared_ptr<Box<AcquireResult>> startAcquire(Participant &p, const QString &name, qint64 thread, qint64 leaseMs,
                                                     qint64 waitMs);
    UnlockResult unlock(Participant &p, const QString &name, qint64 thread);
    BoolResult renew(Participant &p, const QString &name, qint64 thread, qint64 leaseMs);
    BoolResult forceUnlock(Participant &p, const QString &name);
    RedisReply runUnlockScript(const QString &name, const QString &requestId, const QString &field, qint64 leaseMs);
};

AcquireResult TestLockClient::tryAcquire(Participant &p, const QString &name, qint64 thread, qint64 leaseMs)
{
    return test::awaitAcquire([&](LockClient::AcquireCallback done) {
        p.client->tryAcquire(name, thread, leaseMs, nullptr, std::move(done));
    });
}

std::shared_ptr<Box<AcquireResult>> TestLockClient::startAcquire(Participant &p, const QString &name, qint64 thread,
                                                                 qint64 leaseMs, qint64 waitMs)
{
    auto box = std::make_shared<Box<AcquireResult>>();
    p.client->acquire(name, thread, leaseMs, waitMs, nullptr, test::fillBox(box));
    return box;
}

UnlockResult TestLockClient::unlock(Participant &p, const QString &name, qint64 thread)
{
    return test::awaitUnlock(
        [&](LockClient::UnlockCallback done) { p.client->unlock(name, thread, nullptr, std::move(done)); });
}

BoolResult TestLockClient::renew(Participant &p, const QString &name, qint64 thread, qint64 leaseMs)
{
    return test::awaitBool(
        [&](LockClient::BoolCallback done) { p.client->renew(name, thread, leaseMs, nullptr, std::move(done)); });
}

BoolResult TestLockClient::forceUnlock(Participant &p, const QString &name)
{
    return test::awaitBool(
        [&](LockClient::BoolCallback done) { p.client->forceUnlock(name, nullptr, std::move(done)); });
}

RedisReply TestLockClient::runUnlockScript(const QString &name, const QString &requestId, const QString &field,
                                           qint64 leaseMs)
{
    return m_admin->evalResource(
        QStringLiteral("lock_unlock"),
        {name.toUtf8(), LockNames::unlockChannel(name).toUtf8(), LockNames::unlockLatchKey(name, requestId).toUtf8()},
        {"0", QByteArray::number(leaseMs), field.toUtf8(), "publish", "18000"});
}

void TestLockClient::clientIdentity()
{
    static const QRegularExpression uuid(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
    QVERIFY2(uuid.match(m_a->client->clientId()).hasMatch(), qPrintable(m_a->client->clientId()));
    QVERIFY(m_a->client->clientId() != m_b->client->clientId());
    QCOMPARE(m_a->client->holderField(57), m_a->client->clientId() + QStringLiteral(":57"));
    QCOMPARE(m_a->client->watchdogTimeoutMs(), LockClient::kDefaultWatchdogTimeoutMs);

    // A fixed client id is kept as given.
    const QString fixed = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b");
    LockClient c(m_a->connection.get(), nullptr, nullptr, fixed);
    QCOMPARE(c.clientId(), fixed);
    QCOMPARE(c.holderField(1), fixed + QStringLiteral(":1"));
}

void TestLockClient::acquireFreeLock()
{
    const AcquireResult r = tryAcquire(*m_a, QStringLiteral("free:1"), 1, 10000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QVERIFY(r.error.isEmpty());
    QCOMPARE(m_admin->hgetall("free:1"), QStringList{m_a->field(1) + QStringLiteral("=1")});
    const qint64 pttl = m_admin->pttl("free:1");
    QVERIFY2(pttl > 5000 && pttl <= 10000, qPrintable(QString::number(pttl)));
    QCOMPARE(m_admin->cmd({"TYPE", "free:1"}).toByteArray(), QByteArray("hash"));
    // Acquiring with a lease does not involve the watchdog.
    QVERIFY(!m_a->client->watchdog()->contains(QStringLiteral("free:1")));
}

void TestLockClient::reentryIncrementsHoldCount()
{
    QVERIFY(tryAcquire(*m_a, QStringLiteral("re:1"), 1, 10000).acquired);
    m_admin->cmd({"PEXPIRE", "re:1", "2000"});
    QVERIFY(tryAcquire(*m_a, QStringLiteral("re:1"), 1, 10000).acquired);
    QCOMPARE(m_admin->hget("re:1", m_a->field(1).toUtf8()), QByteArray("2"));
    // Re-entry resets the TTL to the lease.
    QVERIFY(m_admin->pttl("re:1") > 5000);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("re:1"), 1, 10000).acquired);
    QCOMPARE(m_admin->hgetall("re:1"), QStringList{m_a->field(1) + QStringLiteral("=3")});

    // Another thread of the same client is another owner.
    const AcquireResult other = tryAcquire(*m_a, QStringLiteral("re:1"), 2, 10000);
    QVERIFY(!other.acquired);
    QVERIFY(other.pttlMs > 0);
}

void TestLockClient::heldByOtherReturnsPttlAndChangesNothing()
{
    QVERIFY(tryAcquire(*m_a, QStringLiteral("busy:1"), 1, 20000).acquired);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("busy:1"), 1, 20000).acquired);
    const QStringList before = m_admin->hgetall("busy:1");
    m_admin->cmd({"PEXPIRE", "busy:1", "15000"});

    const AcquireResult r = tryAcquire(*m_b, QStringLiteral("busy:1"), 1, 5000);
    QVERIFY(!r.acquired);
    QVERIFY(r.error.isEmpty());
    QVERIFY2(r.pttlMs > 10000 && r.pttlMs <= 15000, qPrintable(QString::number(r.pttlMs)));
    // Neither the hash nor its TTL was touched.
    QCOMPARE(m_admin->hgetall("busy:1"), before);
    const qint64 pttl = m_admin->pttl("busy:1");
    QVERIFY2(pttl > 10000 && pttl <= 15000, qPrintable(QString::number(pttl)));
    QCOMPARE(m_admin->hget("busy:1", m_b->field(1).toUtf8()), QByteArray());
}

void TestLockClient::heldWithoutTtlReturnsMinusOne()
{
    m_admin->cmd({"HSET", "nottl:1", "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    const AcquireResult r = tryAcquire(*m_b, QStringLiteral("nottl:1"), 1, 5000);
    QVERIFY(!r.acquired);
    QCOMPARE(r.pttlMs, qint64(-1));
    QCOMPARE(m_admin->pttl("nottl:1"), qint64(-1));
}

void TestLockClient::holdCount()
{
    auto count = [](Participant &p, const QString &name, qint64 thread) {
        return test::await([&](auto done) { p.client->holdCount(name, thread, nullptr, done); }, qint64(-99));
    };
    QCOMPARE(count(*m_a, QStringLiteral("hc:1"), 1), qint64(0));
    QVERIFY(tryAcquire(*m_a, QStringLiteral("hc:1"), 1, 10000).acquired);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("hc:1"), 1, 10000).acquired);
    QCOMPARE(count(*m_a, QStringLiteral("hc:1"), 1), qint64(2));
    QCOMPARE(count(*m_a, QStringLiteral("hc:1"), 2), qint64(0));
    QCOMPARE(count(*m_b, QStringLiteral("hc:1"), 1), qint64(0));
}

void TestLockClient::watchdogAcquireRenewsPastTimeout()
{
    const qint64 timeout = 1500; // renewed every 500 ms
    m_a->client->setWatchdogTimeoutMs(timeout);
    QCOMPARE(m_a->client->watchdogTimeoutMs(), timeout);
    int renewedSignals = 0;
    connect(m_a->client.get(), &LockClient::watchdogRenewed, this, [&](const QStringList &names) {
        if (names.contains(QStringLiteral("wd:1")))
            ++renewedSignals;
    });

    QVERIFY(tryAcquire(*m_a, QStringLiteral("wd:1"), 1, 0).acquired);
    QVERIFY(m_a->client->watchdog()->contains(QStringLiteral("wd:1")));
    const qint64 first = m_admin->pttl("wd:1");
    QVERIFY2(first > 0 && first <= timeout, qPrintable(QString::number(first)));

    // Sample the TTL for well over twice the timeout: it must never run out and must jump back up.
    QElapsedTimer clock;
    clock.start();
    qint64 previous = first;
    int jumps = 0;
    while (clock.elapsed() < 3 * timeout) {
        QTest::qWait(40);
        const qint64 pttl = m_admin->pttl("wd:1");
        QVERIFY2(pttl > 0,
                 qPrintable(QStringLiteral("lock lost after %1 ms (pttl %2)").arg(clock.elapsed()).arg(pttl)));
        QVERIFY(pttl <= timeout);
        if (pttl > previous + 50)
            ++jumps;
        previous = pttl;
    }
    QVERIFY2(jumps >= 2, qPrintable(QString::number(jumps)));
    QVERIFY(renewedSignals >= 2);
    QCOMPARE(m_admin->hget("wd:1", m_a->field(1).toUtf8()), QByteArray("1"));

    // Unlock stops the renewal; the unlock re-applies the watchdog timeout as the lease.
    QVERIFY(tryAcquire(*m_a, QStringLiteral("wd:1"), 1, 0).acquired);
    QCOMPARE(unlock(*m_a, QStringLiteral("wd:1"), 1).status, UnlockResult::Status::StillHeld);
    const qint64 afterPartial = m_admin->pttl("wd:1");
    QVERIFY(afterPartial > 0 && afterPartial <= timeout);
    QVERIFY(m_a->client->watchdog()->contains(QStringLiteral("wd:1")));
    QCOMPARE(unlock(*m_a, QStringLiteral("wd:1"), 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_a->client->watchdog()->contains(QStringLiteral("wd:1")));
    QVERIFY(!m_admin->exists("wd:1"));
}

void TestLockClient::watchdogStopsWhenLockIsGone()
{
    m_a->client->setWatchdogTimeoutMs(600);
    QStringList lost;
    connect(m_a->client.get(), &LockClient::watchdogLost, this, [&](const QString &n) { lost << n; });
    QVERIFY(tryAcquire(*m_a, QStringLiteral("wd:gone"), 1, 0).acquired);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("wd:kept"), 1, 0).acquired);
    // Someone else deletes one lock (e.g. a force unlock elsewhere): renewal returns 0 for it.
    m_admin->cmd({"DEL", "wd:gone"});
    QVERIFY(waitUntil([&] { return lost.contains(QStringLiteral("wd:gone")); }));
    QVERIFY(!m_a->client->watchdog()->contains(QStringLiteral("wd:gone")));
    QVERIFY(m_a->client->watchdog()->contains(QStringLiteral("wd:kept")));
    QVERIFY(!m_admin->exists("wd:gone")); // the watchdog never re-creates a lock
    QVERIFY(m_admin->exists("wd:kept"));

    // renewNow() runs a round at once.
    m_admin->cmd({"PEXPIRE", "wd:kept", "100000"});
    m_a->client->watchdog()->renewNow();
    QVERIFY(waitUntil([&] { return m_admin->pttl("wd:kept") <= 600; }));

    // forceUnlock drops the lock from this client's watchdog.
    QVERIFY(forceUnlock(*m_a, QStringLiteral("wd:kept")).ok);
    QVERIFY(!m_a->client->watchdog()->contains(QStringLiteral("wd:kept")));
    QVERIFY(m_a->client->watchdog()->lockNames().isEmpty());
}

void TestLockClient::unlockPartialKeepsLockAndResetsTtl()
{
    QVERIFY(tryAcquire(*m_a, QStringLiteral("part:1"), 1, 20000).acquired);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("part:1"), 1, 20000).acquired);
    m_admin->cmd({"PEXPIRE", "part:1", "3000"});
    MessageListener listener(m_server.endpoint(), "redisson_lock__channel:{part:1}");
    QVERIFY(listener.waitSubscribed());

    const UnlockResult r = unlock(*m_a, QStringLiteral("part:1"), 1);
    QCOMPARE(r.status, UnlockResult::Status::StillHeld);
    QCOMPARE(m_admin->hget("part:1", m_a->field(1).toUtf8()), QByteArray("1"));
    // TTL reset to the lease of the acquire (internalLockLeaseTime).
    const qint64 pttl = m_admin->pttl("part:1");
    QVERIFY2(pttl > 10000 && pttl <= 20000, qPrintable(QString::number(pttl)));

    // No unlock message on a partial release: prove it with a marker published afterwards.
    m_admin->cmd({"PUBLISH", "redisson_lock__channel:{part:1}", "marker"});
    QVERIFY(listener.waitFor("marker"));
    QCOMPARE(listener.payloads(), QList<QByteArray>{"marker"});
}

void TestLockClient::unlockFullDeletesAndPublishes()
{
    MessageListener listener(m_server.endpoint(), "redisson_lock__channel:{full:1}");
    QVERIFY(listener.waitSubscribed());
    QVERIFY(tryAcquire(*m_a, QStringLiteral("full:1"), 7, 20000).acquired);

    const UnlockResult r = unlock(*m_a, QStringLiteral("full:1"), 7);
    QCOMPARE(r.status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists("full:1"));
    QVERIFY(listener.waitFor("0"));
    QCOMPARE(listener.payloads(), QList<QByteArray>{"0"});
}

void TestLockClient::unlockNotHeld()
{
    // Absent lock.
    UnlockResult r = unlock(*m_a, QStringLiteral("nh:1"), 3);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error, QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 3")
                          .arg(m_a->client->clientId()));
    QVERIFY(!m_admin->exists("nh:1"));

    // Held by someone else: refused, nothing changes.
    QVERIFY(tryAcquire(*m_a, QStringLiteral("nh:1"), 1, 20000).acquired);
    const QStringList before = m_admin->hgetall("nh:1");
    r = unlock(*m_b, QStringLiteral("nh:1"), 1);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error, QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 1")
                          .arg(m_b->client->clientId()));
    QCOMPARE(m_admin->hgetall("nh:1"), before);
    // Same client, other thread: also not the owner.
    QCOMPARE(unlock(*m_a, QStringLiteral("nh:1"), 2).status, UnlockResult::Status::NotHeld);
    QCOMPARE(m_admin->hgetall("nh:1"), before);
}

void TestLockClient::unlockLatchReplaysFirstAnswer()
{
    const QString name = QStringLiteral("latch:1");
    const QString field = m_a->field(1);
    QVERIFY(tryAcquire(*m_a, name, 1, 20000).acquired);
    QVERIFY(tryAcquire(*m_a, name, 1, 20000).acquired);
    const QByteArray latch1 =
        LockNames::unlockLatchKey(name, QStringLiteral("0123456789abcdef0123456789abcdef")).toUtf8();
    QCOMPARE(latch1, QByteArray("redisson_unlock_latch:{latch:1}:0123456789abcdef0123456789abcdef"));

    // Partial release, then the same request id again: same answer, no second decrement.
    RedisReply r = runUnlockScript(name, QStringLiteral("0123456789abcdef0123456789abcdef"), field, 20000);
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->get(latch1), QByteArray("0"));
    const qint64 latchTtl = m_admin->pttl(latch1);
    QVERIFY2(latchTtl > 0 && latchTtl <= 18000, qPrintable(QString::number(latchTtl)));
    r = runUnlockScript(name, QStringLiteral("0123456789abcdef0123456789abcdef"), field, 20000);
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->hget(name.toUtf8(), field.toUtf8()), QByteArray("1"));

    // Full release with a new id, replayed: still "released" (1), not "not held" (nil).
    MessageListener listener(m_server.endpoint(), "redisson_lock__channel:{latch:1}");
    QVERIFY(listener.waitSubscribed());
    const QString id2 = QStringLiteral("fedcba9876543210fedcba9876543210");
    r = runUnlockScript(name, id2, field, 20000);
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    QVERIFY(!m_admin->exists(name.toUtf8()));
    const QByteArray latch2 = LockNames::unlockLatchKey(name, id2).toUtf8();
    QCOMPARE(m_admin->get(latch2), QByteArray("1"));
    QVERIFY(m_admin->pttl(latch2) > 0);
    r = runUnlockScript(name, id2, field, 20000);
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));

    // The same replay through an independent client (redis-cli running our script's source).
    const RedisScript script = RedisScript::fromResource(QStringLiteral("lock_unlock"));
    const auto cli = test::redisCliEval(
        m_server.port(), script.source(), {name, LockNames::unlockChannel(name), QString::fromUtf8(latch2)},
        {QStringLiteral("0"), QStringLiteral("20000"), field, QStringLiteral("publish"), QStringLiteral("18000")});
    QVERIFY2(cli.finished && cli.exitCode == 0, qPrintable(cli.describe()));
    QCOMPARE(cli.out.trimmed(), QByteArray("1"));

    // The replays published nothing more: exactly one unlock message.
    m_admin->cmd({"PUBLISH", "redisson_lock__channel:{latch:1}", "marker"});
    QVERIFY(listener.waitFor("marker"));
    QCOMPARE(listener.payloads(), (QList<QByteArray>{"0", "marker"}));

    // A fresh id on the now-free lock: not held (nil).
    r = runUnlockScript(name, QStringLiteral("00000000000000000000000000000000"), field, 20000);
    QVERIFY2(r.isNil(), qPrintable(r.debugString()));
}

void TestLockClient::unlockRemovesItsLatchKey()
{
    QVERIFY(tryAcquire(*m_a, QStringLiteral("lk:1"), 1, 20000).acquired);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("lk:1"), 1, 20000).acquired);
    QCOMPARE(unlock(*m_a, QStringLiteral("lk:1"), 1).status, UnlockResult::Status::StillHeld);
    QCOMPARE(unlock(*m_a, QStringLiteral("lk:1"), 1).status, UnlockResult::Status::Released);
    // The follow-up DEL of the latch is fire-and-forget: wait for it.
    QVERIFY(waitUntil([&] { return m_admin->cmd({"KEYS", "redisson_unlock_latch:*"}).size() == 0; }));
    QCOMPARE(m_admin->dbsize(), qint64(0));
}

void TestLockClient::renewHeldAndNotHeld()
{
    QVERIFY(tryAcquire(*m_a, QStringLiteral("rn:1"), 1, 5000).acquired);
    m_admin->cmd({"PEXPIRE", "rn:1", "1000"});
    BoolResult r = renew(*m_a, QStringLiteral("rn:1"), 1, 40000);
    QVERIFY(r.ok);
    QVERIFY(r.error.isEmpty());
    QVERIFY(m_admin->pttl("rn:1") > 30000);

    // Renew with leaseMs <= 0 uses the watchdog timeout.
    m_a->client->setWatchdogTimeoutMs(12000);
    QVERIFY(renew(*m_a, QStringLiteral("rn:1"), 1, 0).ok);
    const qint64 pttl = m_admin->pttl("rn:1");
    QVERIFY2(pttl > 6000 && pttl <= 12000, qPrintable(QString::number(pttl)));

    // Not the holder: false, no error, TTL untouched.
    m_admin->cmd({"PEXPIRE", "rn:1", "3000"});
    r = renew(*m_b, QStringLiteral("rn:1"), 1, 60000);
    QVERIFY(!r.ok);
    QVERIFY(r.error.isEmpty());
    QVERIFY(m_admin->pttl("rn:1") <= 3000);
    QVERIFY(!renew(*m_a, QStringLiteral("rn:1"), 2, 60000).ok);
    QVERIFY(m_admin->pttl("rn:1") <= 3000);

    // Absent lock: false, and nothing is created.
    QVERIFY(!renew(*m_a, QStringLiteral("rn:absent"), 1, 60000).ok);
    QVERIFY(!m_admin->exists("rn:absent"));
}

void TestLockClient::forceUnlockDeletesAndPublishes()
{
    MessageListener listener(m_server.endpoint(), "redisson_lock__channel:{fu:1}");
    QVERIFY(listener.waitSubscribed());
    QVERIFY(tryAcquire(*m_a, QStringLiteral("fu:1"), 1, 30000).acquired);
    QVERIFY(tryAcquire(*m_a, QStringLiteral("fu:1"), 1, 30000).acquired);

    // B is not the holder, and still may force it open.
    const BoolResult r = forceUnlock(*m_b, QStringLiteral("fu:1"));
    QVERIFY(r.ok);
    QVERIFY(r.error.isEmpty());
    QVERIFY(!m_admin->exists("fu:1"));
    QVERIFY(listener.waitFor("0"));
    QCOMPARE(listener.payloads(), QList<QByteArray>{"0"});

    // The former holder's unlock now fails as Redisson's would.
    QCOMPARE(unlock(*m_a, QStringLiteral("fu:1"), 1).status, UnlockResult::Status::NotHeld);
}

void TestLockClient::forceUnlockAbsentReturnsFalse()
{
    MessageListener listener(m_server.endpoint(), "redisson_lock__channel:{fu:absent}");
    QVERIFY(listener.waitSubscribed());
    const BoolResult r = forceUnlock(*m_a, QStringLiteral("fu:absent"));
    QVERIFY(!r.ok);
    QVERIFY(r.error.isEmpty());
    QCOMPARE(m_admin->dbsize(), qint64(0));
    // Nothing was published: the marker is the first and only message.
    m_admin->cmd({"PUBLISH", "redisson_lock__channel:{fu:absent}", "marker"});
    QVERIFY(listener.waitFor("marker"));
    QCOMPARE(listener.payloads(), QList<QByteArray>{"marker"});
}

void TestLockClient::waitingAcquireWakesOnUnlock()
{
    const QString name = QStringLiteral("wait:1");
    QVERIFY(tryAcquire(*m_a, name, 1, 30000).acquired);
    auto waiting = startAcquire(*m_b, name, 4, 30000, 20000);
    // B subscribes to the unlock channel while it waits (PUBSUB NUMSUB counts Redisson clients).
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{wait:1}") == 1; }));
    QTest::qWait(200);
    QVERIFY(!waiting->done);

    QElapsedTimer clock;
    clock.start();
    QCOMPARE(unlock(*m_a, name, 1).status, UnlockResult::Status::Released);
    // Woken by the message, long before the 30 s lease would have run out.
    QVERIFY(waitUntil([&] { return waiting->done; }, 10000));
    qInfo("woken %lld ms after the unlock", static_cast<long long>(clock.elapsed()));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(4) + QStringLiteral("=1")});
    QVERIFY(m_admin->pttl(name.toUtf8()) > 20000);
    // Done waiting: the subscription is dropped.
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{wait:1}") == 0; }));
}

void TestLockClient::waitingAcquireWakesOnForceUnlock()
{
    const QString name = QStringLiteral("wait:2");
    QVERIFY(tryAcquire(*m_a, name, 1, 30000).acquired);
    auto waiting = startAcquire(*m_b, name, 1, 30000, 20000);
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{wait:2}") == 1; }));
    QVERIFY(!waiting->done);

    Participant operatorTool(m_server.endpoint(), false);
    QVERIFY(operatorTool.waitReady());
    QVERIFY(forceUnlock(operatorTool, name).ok);
    QVERIFY(waitUntil([&] { return waiting->done; }, 10000));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(1) + QStringLiteral("=1")});
}

void TestLockClient::waitingAcquireTimesOut()
{
    const QString name = QStringLiteral("wait:3");
    QVERIFY(tryAcquire(*m_a, name, 1, 30000).acquired);
    auto waiting = startAcquire(*m_b, name, 1, 30000, 500);
    QVERIFY(waitUntil([&] { return waiting->done; }, 10000));
    QVERIFY(!waiting->value.acquired);
    QVERIFY(waiting->value.error.isEmpty());
    QVERIFY2(waiting->value.pttlMs > 0 && waiting->value.pttlMs <= 30000,
             qPrintable(QString::number(waiting->value.pttlMs)));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{wait:3}") == 0; }));

    // A wait on a free lock succeeds at once.
    auto freeLock = startAcquire(*m_b, QStringLiteral("wait:free"), 1, 5000, 500);
    QVERIFY(waitUntil([&] { return freeLock->done; }));
    QVERIFY(freeLock->value.acquired);
}

void TestLockClient::waitingAcquireWithoutSubscriberRetriesAtTtl()
{
    // Without a subscriber the waiter cannot hear unlocks; it retries when the TTL says so.
    Participant noSub(m_server.endpoint(), false);
    QVERIFY(noSub.waitReady());
    QVERIFY(tryAcquire(*m_a, QStringLiteral("wait:4"), 1, 600).acquired);
    auto waiting = startAcquire(noSub, QStringLiteral("wait:4"), 1, 10000, 15000);
    QVERIFY(waitUntil([&] { return waiting->done; }, 15000));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(m_admin->hgetall("wait:4"), QStringList{noSub.field(1) + QStringLiteral("=1")});
}

void TestLockClient::acquireWithWaitOnFreeLockNeedsNoWait()
{
    const QString name = QStringLiteral("direct:1");
    LockClient *client = m_a->client.get();
    auto box = std::make_shared<Box<AcquireResult>>();
    int waitsWhenDone = -1;
    client->acquire(name, 7, -1, 5000, nullptr, [&, box](const AcquireResult &r) {
        waitsWhenDone = static_cast<int>(client->findChildren<LockAcquisition *>().size());
        box->value = r;
        box->done = true;
    });
    QVERIFY(waitUntil([&] { return box->done; }));
    QVERIFY2(box->value.acquired, qPrintable(box->value.error));
    QVERIFY(box->value.error.isEmpty());
    // Won by the first attempt's reply: no wait (acquisition object, subscription, timer) was set up.
    QCOMPARE(waitsWhenDone, 0);
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(7) + QStringLiteral("=1")});
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 20000 && pttl <= LockClient::kDefaultWatchdogTimeoutMs, qPrintable(QString::number(pttl)));
    QVERIFY(client->watchdog()->contains(name)); // leaseMs <= 0: the watchdog renews it

    // Re-entry through acquire() with a wait: also at once, hold count 2.
    auto again = startAcquire(*m_a, name, 7, -1, 5000);
    QVERIFY(waitUntil([&] { return again->done; }));
    QVERIFY2(again->value.acquired, qPrintable(again->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(7) + QStringLiteral("=2")});
    QCOMPARE(unlock(*m_a, name, 7).status, UnlockResult::Status::StillHeld);
    QCOMPARE(unlock(*m_a, name, 7).status, UnlockResult::Status::Released);
    QVERIFY(!client->watchdog()->contains(name));
}

void TestLockClient::acquireThatMustWaitGetsLockAfterUnlock()
{
    const QString name = QStringLiteral("direct:2");
    QVERIFY(tryAcquire(*m_a, name, 1, 30000).acquired);
    auto waiting = startAcquire(*m_b, name, 3, -1, 20000);
    // The first attempt missed: now B waits, subscribed to the unlock channel.
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{direct:2}") == 1; }));
    QCOMPARE(m_b->client->findChildren<LockAcquisition *>().size(), qsizetype(1));
    QTest::qWait(200);
    QVERIFY(!waiting->done);
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});

    QCOMPARE(unlock(*m_a, name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return waiting->done; }, 10000));
    QVERIFY2(waiting->value.acquired, qPrintable(waiting->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_b->field(3) + QStringLiteral("=1")});
    QVERIFY(m_b->client->watchdog()->contains(name)); // watchdog lease, as for a direct win
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{direct:2}") == 0; }));
    QVERIFY(waitUntil([&] { return m_b->client->findChildren<LockAcquisition *>().isEmpty(); }));
    QCOMPARE(unlock(*m_b, name, 3).status, UnlockResult::Status::Released);
}

void TestLockClient::acquireWithZeroWaitOnHeldLockFailsAtOnce()
{
    const QString name = QStringLiteral("direct:3");
    QVERIFY(tryAcquire(*m_a, name, 1, 30000).acquired);
    QElapsedTimer clock;
    clock.start();
    auto box = std::make_shared<Box<AcquireResult>>();
    int waitsWhenDone = -1;
    m_b->client->acquire(name, 1, 10000, 0, nullptr, [&, box](const AcquireResult &r) {
        waitsWhenDone = static_cast<int>(m_b->client->findChildren<LockAcquisition *>().size());
        box->value = r;
        box->done = true;
    });
    QVERIFY(waitUntil([&] { return box->done; }, 5000));
    // tryLock(0): one attempt, its answer at once; no subscription, no retry.
    QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(waitsWhenDone, 0);
    QVERIFY(!box->value.acquired);
    QVERIFY(box->value.error.isEmpty());
    QVERIFY2(box->value.pttlMs > 0 && box->value.pttlMs <= 30000, qPrintable(QString::number(box->value.pttlMs)));
    QCOMPARE(m_admin->numsub("redisson_lock__channel:{direct:3}"), qint64(0));
    QCOMPARE(m_admin->hgetall(name.toUtf8()), QStringList{m_a->field(1) + QStringLiteral("=1")});
    QVERIFY(!m_b->client->watchdog()->contains(name));
}

void TestLockClient::acquireWhoseContextDiesDuringFirstAttemptGivesLockBack()
{
    const QString name = QStringLiteral("direct:4");
    auto *context = new QObject;
    bool called = false;
    m_a->client->acquire(name, 1, -1, 5000, context, [&](const AcquireResult &) { called = true; });
    delete context; // before the first attempt's reply is read
    // The attempt won the lock for nobody: it is unlocked again, and the callback never runs.
    // (The acquire reply's callback sends the unlock, whose callback sends the latch DEL: the
    // connection has something pending until the whole chain is done.)
    QVERIFY(waitUntil([&] { return m_a->connection->pendingCount() == 0; }));
    QTest::qWait(100);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(!m_a->client->watchdog()->contains(name));
    QVERIFY(!called);
}

void TestLockClient::bracedNamesUseRedissonChannel()
{
    const QString name = QStringLiteral("order:{42}");
    QCOMPARE(LockNames::unlockChannel(name), QStringLiteral("redisson_lock__channel:order:{42}"));
    MessageListener listener(m_server.endpoint(), "redisson_lock__channel:order:{42}");
    QVERIFY(listener.waitSubscribed());

    QVERIFY(tryAcquire(*m_a, name, 1, 30000).acquired);
    QCOMPARE(m_admin->hgetall("order:{42}"), QStringList{m_a->field(1) + QStringLiteral("=1")});
    auto waiting = startAcquire(*m_b, name, 1, 30000, 20000);
    // B waits on the same channel Redisson uses (the listener is the other subscriber).
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:order:{42}") == 2; }));
    QCOMPARE(m_admin->numsub("redisson_lock__channel:{order:{42}}"), qint64(0));

    QCOMPARE(unlock(*m_a, name, 1).status, UnlockResult::Status::Released);
    QVERIFY(listener.waitFor("0"));
    QVERIFY(waitUntil([&] { return waiting->done; }, 10000));
    QVERIFY(waiting->value.acquired);

    // Latch keys follow the same rule.
    QCOMPARE(LockNames::unlockLatchKey(name, QStringLiteral("id")),
             QStringLiteral("redisson_unlock_latch:order:{42}:id"));
    QCOMPARE(unlock(*m_b, name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return m_admin->dbsize() == 0; }));
}

void TestLockClient::transportErrorsAreReported()
{
    RedisConnection dead(RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), RedisServerProcess::freePort()));
    dead.setAutoReconnect(false);
    dead.open();
    LockClient client(&dead, nullptr);
    auto box = std::make_shared<Box<AcquireResult>>();
    client.tryAcquire(QStringLiteral("x"), 1, 1000, nullptr, test::fillBox(box));
    QVERIFY(waitUntil([box] { return box->done; }));
    QVERIFY(!box->value.acquired);
    QVERIFY(!box->value.error.isEmpty());

    auto unlockBox = std::make_shared<Box<UnlockResult>>();
    client.unlock(QStringLiteral("x"), 1, nullptr, test::fillBox(unlockBox));
    QVERIFY(waitUntil([unlockBox] { return unlockBox->done; }));
    QCOMPARE(unlockBox->value.status, UnlockResult::Status::Error);
    QVERIFY(!unlockBox->value.error.isEmpty());

    // A waiting acquire reports the error instead of waiting.
    auto waitBox = std::make_shared<Box<AcquireResult>>();
    client.acquire(QStringLiteral("x"), 1, 1000, 5000, nullptr, test::fillBox(waitBox));
    QVERIFY(waitUntil([waitBox] { return waitBox->done; }));
    QVERIFY(!waitBox->value.acquired);
    QVERIFY(!waitBox->value.error.isEmpty());
}

QTEST_GUILESS_MAIN(TestLockClient)
#include "tst_lockclient.moc"
