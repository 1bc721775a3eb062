#pragma once

#include "redis/redisscript.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace lockscope
{

class ClusterRouter;
class RedisConnection;

/** What a force unlock did. */
struct ForceUnlockResult {
    bool deleted = false; ///< the lock hash existed and was deleted
    bool changed = false; ///< refused: the lock no longer had the confirmed state (nothing done)
    QString currentState; ///< when changed: the state now (LockSnapshot::stateFingerprint() form)
    QString kind;    ///< "lock", "fair_lock", "read_write_lock" or "faster_multi_lock", as decided inside the script
    QString channel; ///< channel the wake-up message went to, empty when none was sent
    QString message; ///< "0" or "1", empty when none was sent
    QString error;   ///< server/transport error; then nothing is known to have changed
};

/**
 * Operator force unlock of any lock kind, in one atomic script (resources/scripts/force_unlock.lua)
 * that decides the kind from the data at that instant and then does what Redisson's forceUnlock
 * of that kind does (protocol §9): read-write -> DEL + "1" on redisson_rwlock:{name}; fair ->
 * prune expired heads, DEL, "0" to the head waiter's own channel; faster multilock group
 * (fields `h:<owner>:expire_time` / `:lock_count`, §14.10) -> DEL + "0" on
 * redisson_lock__channel:{group}, as RedissonFasterMultiLock.forceUnlock publishes; otherwise
 * DEL + "0" on redisson_lock__channel:{name}. Waiters therefore wake at once instead of after the TTL.
 */
class ForceUnlocker : public QObject
{
    Q_OBJECT
public:
    explicit ForceUnlocker(RedisConnection *connection, QObject *parent = nullptr);

    /** The verb the script publishes the wake-up message with, Redisson's rule (§1.3, §14.3):
     *  "publish" (default), or "spublish" on a Redis 7+ cluster with sharded pub/sub. */
    void setPublishCommand(const QByteArray &command) { m_publishCommand = command; }
    /**
     * With the "spublish" verb: after the script, also send a classic `PUBLISH` of the same
     * message on the same channel (one message per subscriber of each kind, never two). Why both,
     * unlike Redisson's own forceUnlock: an operator's force unlock must wake every waiter, and on a
     * Redis 7 cluster some still listen with classic `SUBSCRIBE` (Redisson < 3.22, or
     * `shardedSubscriptionMode=OFF`, node-redisson); without it they would sleep until the TTL, or
     * forever on a lock with no TTL. Off by default; LockSession turns it on in sharded mode.
     */
    void setAlsoPublishClassic(bool on) { m_alsoClassic = on; }

    /**
     * Redis Cluster: the script goes through `router` (its connection's node first), so a key that
     * moved (`MOVED`) or is being migrated (`ASK`) is followed. While the lock's slot is being
     * migrated, Redis refuses a script over several of its keys once some have moved (`TRYAGAIN`):
     * like Redisson (retryAttempts 3, retryInterval 1500 ms) the script is sent again up to 3
     * times, 1.5 s apart; if the slot is still migrating, `error` says so in words (nothing ran).
     */
    void setRouter(ClusterRouter *router) { m_router = router; }

    /** Force-unlocks `name`. With `confirmedState` set (LockSnapshot::stateFingerprint() of the
     *  snapshot the operator confirmed), the script first checks that the hash is still exactly
     *  that and otherwise changes nothing and reports `changed`. */
    void forceUnlock(const QString &name, QObject *context, std::function<void(const ForceUnlockResult &)> callback,
                     const std::optional<QString> &confirmedState = std::nullopt);

    /** One sentence for the operator: what was deleted and who was woken, or why nothing was. */
    static QString describe(const QString &name, const ForceUnlockResult &result);

private:
    QPointer<RedisConnection> m_connection;
    RedisScript m_script;
    QByteArray m_publishCommand = "publish";
    bool m_alsoClassic = false;
    ClusterRouter *m_router = nullptr; ///< setRouter(); the session's, which outlives this

    void run(const QList<QByteArray> &keys, const QList<QByteArray> &args, QObject *context, int retriesLeft,
             std::function<void(const RedisReply &)> done);
};

} // namespace lockscope
