#pragma once

#include "redis/redisscript.h"
#include "redis/redissubscriber.h"
#include "redis/shardedsubscriber.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace lockscope
{

class LockWatchdog;
class RedisConnection;
class RedisSubscriber;

/** Outcome of an acquire attempt. */
struct AcquireResult {
    bool acquired = false;
    /** When not acquired: the lock's PTTL in ms as the script returned it (-1 = held with no
     *  expiry). Meaningless when acquired. */
    qint64 pttlMs = -2;
    QString error; ///< non-empty on a server/transport error (then acquired is false)
    /** The script was sent but its reply never came (a timeout, a connection lost meanwhile):
     *  the server may have run it, so the lock may be held by this client now. */
    bool noReply = false;
    /** Fenced locks only: the fencing token of this acquire (INCR of redisson_lock_token:{name},
     *  protocol §5.2); -1 otherwise. */
    qint64 token = -1;
};

/** Outcome of an unlock (Redisson RedissonLock.unlockInnerAsync reply, protocol §2.3). */
struct UnlockResult {
    enum class Status { Released, StillHeld, NotHeld, Error };
    Status status = Status::Error;
    QString error; ///< for NotHeld: Redisson's IllegalMonitorStateException text; for Error: the cause
    /** Error only: no answer came (not connected, a timeout, a lost connection); asking again
     *  later may get one. */
    bool transport = false;
};

/**
 * A Redisson-compatible RLock client (protocol §2, 3.24+/4.7 semantics): one client id (UUID)
 * per instance, numeric thread ids, hash field "<clientId>:<threadId>". Locks it takes are
 * indistinguishable in Redis from a Java Redisson client's, and interoperate with them:
 * it publishes "0" on the unlock channel on full release and wakes on theirs.
 *
 * All calls are asynchronous; callbacks run on this object's thread, once, unless `context`
 * was destroyed. `leaseMs <= 0` means "use the watchdog": the lock gets the watchdog timeout
 * (30000 ms by default) and is renewed every timeout/3 until unlocked (§2.6).
 */
class LockClient : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 kDefaultWatchdogTimeoutMs = 30000;
    /** Unlock latch TTL in ms, as RedissonBaseLock.unlockInnerAsync computes it (§2.3): (timeout 3000
     *  + retry delay) x 4 attempts. Redisson 3.x's retryInterval 1500 gives 18000; 4.x's default
     *  EqualJitterDelay(1 s, 2 s) draws the delay between 1000 and 2000 ms per unlock (16-20 s), of
     *  which 18000 is the middle. The latch only dedups a retried unlock; its TTL is not observable
     *  by other clients beyond that. */
    static constexpr qint64 kUnlockLatchTtlMs = 18000;

    /** `subscriber` may be null: waiting acquires then poll at the returned TTL instead of waking
     *  on unlock messages. An empty `clientId` makes a new random UUID. */
    LockClient(RedisConnection *connection, RedisSubscriber *subscriber, QObject *parent = nullptr,
               const QString &clientId = QString());
    ~LockClient() override;

    QString clientId() const { return m_clientId; }
    /** "<clientId>:<threadId>", the hash field of this client's thread (§1.1). */
    QString holderField(qint64 threadId) const;
    void setWatchdogTimeoutMs(qint64 ms);
    qint64 watchdogTimeoutMs() const;
    /** The publish verb every unlock script of this client (and of the lock kinds built on it)
     *  passes to Redis: "publish" (default) or "spublish" on a Redis 7+ cluster with sharded
     *  pub/sub, Redisson's PublishSubscribeService.getPublishCommand() (§1.3, §14.3). */
    void setPublishCommand(const QByteArray &command) { m_publishCommand = command; }
    /**
     * Sharded pub/sub (a Redis 7+ cluster, §1.3, §7): waiting acquires of every kind built on this
     * client `SSUBSCRIBE` their channel through `subscriber` (a ShardedSubscriber on the master
     * serving this client's locks) instead of `SUBSCRIBE`, as Redisson 3.22+ waiters do, since an
     * `SPUBLISH` never reaches a classic subscriber. Null (default): classic pub/sub.
     */
    void setShardedSubscriber(ShardedSubscriber *subscriber);
    ShardedSubscriber *shardedSubscriber() const { return m_sharded; }
    LockWatchdog *watchdog() const { return m_watchdog; }
    /** Locks this client's watchdog failed to renew last time (LockWatchdog::atRisk()). */
    bool isAtRisk(const QString &name) const;

    using AcquireCallback = std::function<void(const AcquireResult &)>;
    using UnlockCallback = std::function<void(const UnlockResult &)>;
    using BoolCallback = std::function<void(bool ok, const QString &error)>;

    /** One attempt (Redisson `tryLock()` without wait): acquire script (§2.2) once. */
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context, AcquireCallback callback);
    /**
     * Waits up to `waitMs` (< 0 = forever), as Redisson's lock()/tryLock(wait) (§1.5): attempt,
     * subscribe to the unlock channel, retry when a message 0 or 1 arrives (§1.4) or after
     * min(ttl, remaining). If `context` is destroyed the wait stops, and a lock won meanwhile is
     * released again rather than left held.
     */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                 AcquireCallback callback);
    /** Unlock script with a fresh request id and the latch (§2.3); then DEL of the latch key. */
    void unlock(const QString &name, qint64 threadId, QObject *context, UnlockCallback callback);
    /** Renews one lock held by `threadId` to `leaseMs` (single-lock renew, §2.6): ok=false if not held. */
    void renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context, BoolCallback callback);
    /** Redisson forceUnlock (§2.4): DEL + publish "0"; ok=true when a lock was deleted. Also drops
     *  the lock from this client's watchdog. */
    void forceUnlock(const QString &name, QObject *context, BoolCallback callback);
    /** HGET of this thread's field: the hold count, 0 when not held (§2.5). */
    void holdCount(const QString &name, qint64 threadId, QObject *context, std::function<void(qint64)> callback);

    /** Subscription bookkeeping for waiting acquires (used by LockAcquisition): the first retain
     *  of a channel subscribes (SSUBSCRIBE with a sharded subscriber, else SUBSCRIBE), the last
     *  release unsubscribes. Messages and confirmations come back as channelMessage() and
     *  channelSubscribed(), only for retained channels. */
    void retainChannel(const QByteArray &channel);
    void releaseChannel(const QByteArray &channel);
    /** A subscriber (classic or sharded) is there: waits can wake on messages instead of polling. */
    bool canSubscribe() const { return m_sharded || m_subscriber; }
    RedisSubscriber *subscriber() const { return m_subscriber; }
    RedisConnection *connection() const { return m_connection; }
    const QByteArray &publishCommand() const { return m_publishCommand; }
    /** Unlock latch key for a fresh random request id (16 random bytes as hex, §1.1). */
    static QString newUnlockLatchKey(const QString &name);

    // Hold bookkeeping shared by every lock kind built on this client (RLock, fair, write lock,
    // fenced, spin), per lock name and holder field: the lease of the last acquire, which the
    // unlock scripts re-apply as Redisson's internalLockLeaseTime, and the watchdog registration
    // of holds taken with leaseMs <= 0.

    /** The lease an acquire with `leaseMs` takes: `leaseMs`, or the watchdog timeout when <= 0. */
    qint64 leaseFor(qint64 leaseMs) const;
    /** After a successful acquire (or re-entry) by `field` with lease `lease` (ms): remembers the
     *  lease, and with `watch` has the watchdog renew `name` for `field`. */
    void noteAcquired(const QString &name, const QString &field, qint64 lease, bool watch);
    /** The internalLockLeaseTime for an unlock by `field`: the lease of its last acquire, or the
     *  watchdog timeout when none is known. */
    qint64 unlockLeaseMs(const QString &name, const QString &field) const;
    /** After an unlock by `field`: Released and NotHeld forget its lease and stop the watchdog
     *  renewal of `name`; StillHeld and Error change nothing. */
    void noteUnlocked(const QString &name, const QString &field, UnlockResult::Status status);

signals:
    void watchdogRenewed(const QStringList &names);
    void watchdogLost(const QString &name);
    /** The watchdog could not renew `names` (LockWatchdog::renewalFailed()): they are at risk. */
    void watchdogRenewalFailed(const QStringList &names, const QString &error);
    /** At-risk `names` were renewed again. */
    void watchdogRecovered(const QStringList &names);
    /** A message on a retained channel (classic or sharded pub/sub). */
    void channelMessage(const QByteArray &channel, const QByteArray &payload);
    /** The server confirmed the subscription of a retained channel. */
    void channelSubscribed(const QByteArray &channel);
    /** The sharded subscriber lost `channel` (its slot moved to another master): waiters should
     *  try again rather than wait for a message that can no longer arrive here. */
    void channelLost(const QByteArray &channel);

private:
    QPointer<RedisConnection> m_connection;
    QPointer<RedisSubscriber> m_subscriber;
    QPointer<ShardedSubscriber> m_sharded;
    QString m_clientId;
    QByteArray m_publishCommand = "publish";
    LockWatchdog *m_watchdog = nullptr;
    RedisScript m_acquire;
    RedisScript m_unlock;
    RedisScript m_renew;
    RedisScript m_forceUnlock;
    QHash<QByteArray, int> m_channelRefs;
    QHash<QString, qint64> m_leaseMs; ///< "name\nfield" -> internalLockLeaseTime of the last acquire
};

} // namespace lockscope
