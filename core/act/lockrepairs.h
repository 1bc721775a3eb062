#pragma once

#include "redis/redisscript.h"

#include <QObject>
#include <QPointer>

#include <functional>

namespace lockscope
{

class RedisConnection;
struct LockSnapshot;

/** What a repair or force unlock did: `outcome` "done", "changed" (refused: the lock is not in
 *  the state the operator confirmed), "refused" (nothing to do, or unsafe), "error". */
struct RepairResult {
    QString outcome;
    QString message;      ///< one sentence for the operator
    QString currentState; ///< for "changed": the lock's state now (sorted field=value lines)
};

/**
 * Targeted, atomic repairs for the doctor's findings (one Lua script each, resources/scripts/
 * repair_*.lua), each refusing rather than guessing:
 *  - setTtl: PEXPIRE a lock that has no TTL, only if it still has the confirmed state;
 *  - removeWaiter: take one waiter out of a fair queue and timeout set, as acquireFailed (§3.4);
 *  - removeReader: drop a dead reader's holds (all its rwlock_timeout keys gone, §4.3);
 *  - wake: publish the unlock message for clients waiting on a free lock, on the channel its
 *    kind's waiters listen to (§1.5, §14.5).
 */
class LockRepairs : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const RepairResult &)>;

    explicit LockRepairs(RedisConnection *connection, QObject *parent = nullptr);
    void setPublishCommand(const QByteArray &command) { m_publishCommand = command; }

    void setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState, QObject *context, Callback callback);
    /** Redisson's fairLockWaitTimeout default (§1.6); 5000 ms in 3.13.2 and older. */
    static constexpr qint64 kDefaultFairWaitMs = 300000;
    /** A waiter moved up by removeWaiter() keeps at least this long (or the lock's PTTL, if longer)
     *  before its deadline: a repair never moves a live waiter's deadline into the past. */
    static constexpr qint64 kDeadlineFloorMs = 30000;

    /** Removes `field` from the fair queue and timeout set of `name` (repair_remove_waiter.lua);
     *  waiters behind it move up by its wait. `waitMs` > 0: that wait. `waitMs` <= 0: derived
     *  from the timeout set (§14.8: the gap to the waiter queued before it; for the head, the
     *  gaps behind it when they are all equal), else kDefaultFairWaitMs. No deadline is moved
     *  closer than kDeadlineFloorMs (or the lock's PTTL) to now, nor later than it was. When the
     *  lock is free the new head is woken on its own channel ("0", as Redisson's unlock, §3.5).
     *  The result message says which wait was used, where it came from, and whom it woke.
     *  Absent field: outcome "changed". */
    void removeWaiter(const QString &name, const QString &field, qint64 waitMs, QObject *context, Callback callback);
    void removeReader(const QString &name, const QString &field, QObject *context, Callback callback);
    /**
     * Wakes the waiters of the free lock `name` (repair_wake.lua, §14.5): fair (queue or timeout
     * set present) "0" on the head waiter's own channel after pruning expired heads; otherwise by
     * who is subscribed: "1" on redisson_rwlock:{name} (wakes every thread of each read-write
     * waiter), "0" on redisson_lock__channel:{name} (RLock, fenced), both when both have
     * subscribers, nothing when neither has. Uses the publish verb of setPublishCommand(); counts
     * subscribers with PUBSUB SHARDNUMSUB when it is "spublish". The message names each channel,
     * message and receiver count. A lock that exists: outcome "refused", nothing published.
     */
    void wake(const QString &name, QObject *context, Callback callback);

    /**
     * Whether `action` ("set_ttl", "remove_waiter", "remove_reader", "wake", "force_unlock";
     * other actions are never refused here) may be aimed at `before.name`, from the snapshot read
     * just before it (protocol §14.4: `x` and `{x}` share the fair queue, timeout set, channels
     * and rwlock_timeout keys). Returns the sentence of the refusal, or an empty string:
     *  - `before.name`'s hash is absent and its twin's exists: every repair is refused, the keys
     *    it would touch belong to the twin (aim it there);
     *  - both hashes exist: remove_waiter and wake are refused (whose waiter it is cannot be
     *    told); the others act on `before.name`'s own hash and go ahead;
     *  - neither exists: allowed (the keys touched are the same for either name).
     */
    static QString targetRefusal(const QString &action, const LockSnapshot &before);

private:
    QPointer<RedisConnection> m_connection;
    QByteArray m_publishCommand = "publish";
    RedisScript m_setTtl;
    RedisScript m_removeWaiter;
    RedisScript m_removeReader;
    RedisScript m_wake;
};

} // namespace lockscope
