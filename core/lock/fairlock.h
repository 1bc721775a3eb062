#pragma once

#include "lockvariant.h"

#include <QObject>
#include <QPointer>
#include <QString>

namespace lockscope
{

/**
 * A Redisson-compatible fair lock client (`RedissonFairLock`, protocol §3, 3.45+/4.7 semantics).
 *
 * Same hash as an RLock (field "<clientId>:<threadId>" -> hold count), plus a FIFO waiter queue
 * `redisson_lock_queue:{name}` (LIST of holder fields) and a timeout set
 * `redisson_lock_timeout:{name}` (ZSET holder field -> epoch-ms deadline by which that waiter must
 * retry). Waiters are woken one at a time on their own channel
 * `redisson_lock__channel:{name}:<clientId>:<threadId>`. "now" in every script is this client's
 * clock (epoch ms), as in Redisson, so clock skew between participants matters.
 *
 * Identity (client id, connection, subscriber, watchdog, publish command) comes from the
 * LockClient. All calls are asynchronous; callbacks run on this object's thread, once, unless
 * `context` was destroyed first (pass nullptr for no context). `leaseMs <= 0` means "use the
 * watchdog": the lease is the client's watchdog timeout and the lock is renewed every timeout/3
 * (the RLock renew script works unchanged for fair locks) until it is unlocked.
 *
 * As a LockVariant: renew is the RLock renew script (Redisson's fair lock inherits it), the
 * wait channel is the caller's own per-waiter channel, and forceUnlock is
 * RedissonFairLock.forceUnlockAsync (prune expired heads, DEL, "0" to the head waiter's channel).
 */
class FairLock : public LockVariant
{
    Q_OBJECT
public:
    /** Redisson's `fairLockWaitTimeout` default (3.13.3+): 300000 ms. */
    static constexpr qint64 kDefaultWaitTimeoutMs = 300000;

    /** `client` gives the identity and the connections; it must outlive this object. */
    explicit FairLock(LockClient *client, QObject *parent = nullptr);
    ~FairLock() override;

    AcquireKind kind() const override { return AcquireKind::Fair; }
    /** The kind's facts ("fair"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();
    /** `fairLockWaitTimeout` in ms: the `wait` used when an acquire has no positive wait of its
     *  own (waitMs <= 0 or forever). Values <= 0 restore the default. */
    void setWaitTimeoutMs(qint64 ms);
    qint64 waitTimeoutMs() const { return m_waitTimeoutMs; }

    /** Per-waiter unlock channel `redisson_lock__channel:{name}:<holderField>` (§3.1). */
    static QString waiterChannel(const QString &name, const QString &holderField);

    /**
     * One attempt without waiting (Redisson `tryLock()`, the EVAL_NULL_BOOLEAN script, §3.3):
     * PRUNE, then acquire when the lock is free and the caller is first in line (or nobody is
     * queued), or re-enter. Never enqueues. When not acquired, `pttlMs` is the lock's PTTL read
     * right after the script (not atomically with it): -1 = held with no expiry, -2 = the lock is
     * free but another waiter is first in line.
     */
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;

    /**
     * Waits up to `waitMs` ms (< 0 = forever), as Redisson's lock()/tryLock(waitTime) (§3.2):
     * the first attempt enqueues the caller with deadline ttl + wait + now, where wait = `waitMs`
     * if > 0, else waitTimeoutMs(). Then it listens on its own per-waiter channel and retries
     * when "0" or "1" arrives there, or after min(ttl, remaining wait, wait/2), so a live waiter
     * retries well before its deadline and is not pruned. When the reply gives no usable ttl
     * (<= 0: the lock is free but not our turn, or held with no expiry) it also polls, starting at
     * 50 ms and doubling up to 1 s.
     *
     * On timeout, or when `context` is destroyed while waiting, it leaves the queue with
     * acquireFailed (§3.4) and reports acquired=false with the last ttl reply in `pttlMs` (the
     * callback is skipped for a destroyed context; a lock acquired in that race is unlocked).
     * A server or transport error ends the wait with `error` set (and a best-effort
     * acquireFailed).
     */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                 LockClient::AcquireCallback callback) override;

    /**
     * Leaves the waiter queue (Redisson `acquireFailed`, §3.4): every waiter behind the caller
     * gets its deadline moved up by `waitMs` (the wait it enqueued with; <= 0 = waitTimeoutMs()),
     * then the caller is removed from the queue and the timeout set. `ok` is true when the script
     * ran (also when the caller was not queued: then nothing changes); false with `error` on a
     * server or transport error.
     */
    void acquireFailed(const QString &name, qint64 threadId, qint64 waitMs, QObject *context,
                       LockClient::BoolCallback callback);

    /**
     * Fair unlock with a fresh request id and the latch (§3.5), then a fire-and-forget DEL of the
     * latch key. Released: hash deleted (or hold count reached 0) and "0" published on the head
     * waiter's channel only. NOTE, as in Redisson: Released is also reported when the lock key
     * was already gone (expired or force-unlocked; the head waiter is told then too), so it does
     * not prove the caller held the lock. StillHeld: hold count decremented, TTL reset to the
     * lease of the acquire. NotHeld: the key exists but this thread is not a holder (Redisson's
     * IllegalMonitorStateException text in `error`). Error: server/transport error.
     * Released and NotHeld stop the watchdog renewal of `name`.
     */
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
    /** RedissonFairLock.forceUnlockAsync, through force_unlock.lua's fair branch: prune the
     *  expired heads, DEL, "0" on the head waiter's own channel. With no queue and no timeout set
     *  the script takes its RLock branch instead (DEL + "0" on `redisson_lock__channel:{name}`,
     *  which no fair waiter listens to). `ok` = a lock was deleted. */
    void forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback) override;
    /** waiterChannel(name, holderField(threadId)): fair waiters are woken one at a time. */
    QByteArray waitChannel(const QString &name, qint64 threadId) const override;

private:
    qint64 effectiveWaitMs(qint64 waitMs) const { return waitMs > 0 ? waitMs : m_waitTimeoutMs; }

    qint64 m_waitTimeoutMs = kDefaultWaitTimeoutMs;
    RedisScript m_acquire;
    RedisScript m_tryAcquire;
    RedisScript m_acquireFailed;
    RedisScript m_unlock;
};

} // namespace lockscope
