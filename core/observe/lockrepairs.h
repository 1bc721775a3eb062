#pragma once

#include "redis/redisscript.h"

#include <QObject>
#include <QPointer>

#include <functional>

namespace lockscope {

class RedisConnection;

/** What a repair or force unlock did: `outcome` "done", "changed" (refused: the lock is not in
 *  the state the operator confirmed), "refused" (nothing to do, or unsafe), "error". */
struct RepairResult
{
    QString outcome;
    QString message;       ///< one sentence for the operator
    QString currentState;  ///< for "changed": the lock's state now (sorted field=value lines)
};

/**
 * Targeted, atomic repairs for the doctor's findings (one Lua script each, resources/scripts/
 * repair_*.lua), each refusing rather than guessing:
 *  - setTtl: PEXPIRE a lock that has no TTL, only if it still has the confirmed state;
 *  - removeWaiter: take one waiter out of a fair queue and timeout set, as acquireFailed (§3.4);
 *  - removeReader: drop a dead reader's holds (all its rwlock_timeout keys gone, §4.3);
 *  - wake: publish the unlock message for clients waiting on a free lock (§1.5).
 */
class LockRepairs : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const RepairResult &)>;

    explicit LockRepairs(RedisConnection *connection, QObject *parent = nullptr);
    void setPublishCommand(const QByteArray &command) { m_publishCommand = command; }

    void setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState, QObject *context, Callback callback);
    /** `waitMs` <= 0: Redisson's fairLockWaitTimeout default, 300000 ms. */
    void removeWaiter(const QString &name, const QString &field, qint64 waitMs, QObject *context, Callback callback);
    void removeReader(const QString &name, const QString &field, QObject *context, Callback callback);
    void wake(const QString &name, QObject *context, Callback callback);

private:
    QPointer<RedisConnection> m_connection;
    QByteArray m_publishCommand = "publish";
    RedisScript m_setTtl;
    RedisScript m_removeWaiter;
    RedisScript m_removeReader;
    RedisScript m_wake;
};

} // namespace lockscope
