#pragma once

#include "lockclient.h"

#include "redis/redisconnection.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>

namespace lockscope
{

class RedisReply;
class RedisScript;

/**
 * The plumbing every lock kind built on a LockClient shares (LockClient itself, FairLock,
 * ReadWriteLock, FencedLock, SpinLock): reading the acquire, unlock and renew replies,
 * running an unlock script with Redisson's unlock latch (protocol §2.3), and failing a call
 * when there is no connection to send it on.
 */
class LockCalls
{
public:
    LockCalls() = delete;

    /** "lock client has no Redis connection": the error of a call made without one. */
    static QString notConnectedMessage();

    /**
     * False when `client` has a connection. Otherwise true, and `callback` gets the
     * notConnectedMessage() error (AcquireResult::error, UnlockResult Error, ok=false, or -1 for a
     * value callback) from the event loop, never re-entrantly, unless `context` died meanwhile.
     */
    static bool failIfDisconnected(LockClient *client, QObject *context, const LockClient::AcquireCallback &callback);
    static bool failIfDisconnected(LockClient *client, QObject *context, const LockClient::UnlockCallback &callback);
    static bool failIfDisconnected(LockClient *client, QObject *context, const LockClient::BoolCallback &callback);
    static bool failIfDisconnected(LockClient *client, QObject *context, const std::function<void(qint64)> &callback);

    /** Reply of the acquire scripts that answer nil or a PTTL (RLock §2.2, fair §3.2, read §4.2,
     *  write §4.4, spin §5.1): nil = acquired, an integer = not acquired with that PTTL, an error
     *  reply = `error`. */
    static AcquireResult acquireResult(const RedisReply &reply);

    /** Reply of the unlock scripts: nil = NotHeld (with Redisson's IllegalMonitorStateException
     *  text for holder `field`), 1 = Released, any other integer = StillHeld, an error = Error. */
    static UnlockResult unlockResult(const RedisReply &reply, const QString &field);

    /**
     * Runs `script`, one of the unlock scripts (§2.3, §3.5, §4.3, §4.5, §5.1), for holder `field`
     * of `name` on `connection` (not null). A fresh latch key (LockClient::newUnlockLatchKey) is
     * appended to `keys` and LockClient::kUnlockLatchTtlMs to `args`: every unlock script takes
     * them last. After a reply that is not an error, a fire-and-forget DEL of the latch key
     * follows, as Redisson does. `done` gets unlockResult() of the reply.
     */
    static void runUnlock(const RedisScript &script, RedisConnection *connection, const QString &name,
                          const QString &field, QList<QByteArray> keys, QList<QByteArray> args, QObject *context,
                          LockClient::UnlockCallback done);

    /** `callback` preceded, when the attempt acquired, by client->noteAcquired(name, field, lease,
     *  watch) (while `client` lives): the lease and watchdog bookkeeping after an acquire of the
     *  RLock layout, the fair lock or the write lock. A null `callback` is skipped. */
    static LockClient::AcquireCallback noteAcquiredThen(LockClient *client, const QString &name, const QString &field,
                                                        qint64 lease, bool watch, LockClient::AcquireCallback callback);

    /** `callback` preceded by client->noteUnlocked(name, field, status) (while `client` lives):
     *  the lease and watchdog bookkeeping after an unlock of the RLock layout or the write lock. */
    static LockClient::UnlockCallback noteUnlockedThen(LockClient *client, const QString &name, const QString &field,
                                                       LockClient::UnlockCallback callback);

    /** Reply handler for the renew scripts (lock_renew.lua, rw_read_renew.lua): ok when the first
     *  result is 1; ok=false with the error text on an error reply. */
    static RedisConnection::ReplyCallback renewReply(LockClient::BoolCallback callback);

    /** Reply handler for a force unlock that answers 1 when it deleted the lock, else 0
     *  (lock_force_unlock.lua, RedissonSpinLock's DEL): ok = deleted; ok=false with the error text
     *  on an error reply. */
    static RedisConnection::ReplyCallback forceUnlockReply(LockClient::BoolCallback callback);

    /** `ms` as a QTimer interval: at least 1, at most INT_MAX. */
    static int timerMs(qint64 ms);
};

} // namespace lockscope
