#include "lockcalls.h"
#include "redis/redisbytes.h"

#include "redis/redisreply.h"
#include "redis/redisscript.h"

#include <QPointer>
#include <QTimer>

#include <limits>

namespace lockscope
{

namespace
{

/** When `client` has no connection: runs `fail(callback)` from the event loop (never
 *  re-entrantly), unless `context` died meanwhile, and returns true. */
template <typename Callback, typename Fail>
bool failLaterIfDisconnected(LockClient *client, QObject *context, const Callback &callback, Fail fail)
{
    if (client && client->connection())
        return false;
    QPointer<QObject> ctx(context);
    const bool hasContext = context != nullptr;
    QTimer::singleShot(0, [ctx, hasContext, callback, fail] {
        if (callback && (!hasContext || ctx))
            fail(callback);
    });
    return true;
}

/** Reply handler giving `callback` ok = isOk(reply), or ok=false with the error text on an error
 *  reply; nothing for a null `callback`. */
RedisConnection::ReplyCallback boolReply(LockClient::BoolCallback callback, bool (*isOk)(const RedisReply &))
{
    return [callback, isOk](const RedisReply &r) {
        if (!callback)
            return;
        if (r.isError())
            callback(false, r.errorMessage());
        else
            callback(isOk(r), QString());
    };
}

} // namespace

QString LockCalls::notConnectedMessage()
{
    return QStringLiteral("lock client has no Redis connection");
}

bool LockCalls::failIfDisconnected(LockClient *client, QObject *context, const LockClient::AcquireCallback &callback)
{
    return failLaterIfDisconnected(client, context, callback, [](const LockClient::AcquireCallback &cb) {
        AcquireResult r;
        r.error = notConnectedMessage();
        cb(r);
    });
}

bool LockCalls::failIfDisconnected(LockClient *client, QObject *context, const LockClient::UnlockCallback &callback)
{
    return failLaterIfDisconnected(client, context, callback, [](const LockClient::UnlockCallback &cb) {
        UnlockResult r;
        r.error = notConnectedMessage();
        r.transport = true;
        cb(r);
    });
}

bool LockCalls::failIfDisconnected(LockClient *client, QObject *context, const LockClient::BoolCallback &callback)
{
    return failLaterIfDisconnected(client, context, callback,
                                   [](const LockClient::BoolCallback &cb) { cb(false, notConnectedMessage()); });
}

bool LockCalls::failIfDisconnected(LockClient *client, QObject *context, const std::function<void(qint64)> &callback)
{
    return failLaterIfDisconnected(client, context, callback, [](const std::function<void(qint64)> &cb) { cb(-1); });
}

AcquireResult LockCalls::acquireResult(const RedisReply &reply)
{
    AcquireResult result;
    if (reply.isError()) {
        result.error = reply.errorMessage();
        result.noReply = reply.isTransportError() && !reply.wasNeverSent();
    } else if (reply.isNil())
        result.acquired = true;
    else
        result.pttlMs = reply.toInteger(-2);
    return result;
}

UnlockResult LockCalls::unlockResult(const RedisReply &reply, const QString &field)
{
    UnlockResult result;
    if (reply.isError()) {
        result.error = reply.errorMessage();
        result.transport = reply.isTransportError();
    } else if (reply.isNil()) {
        result.status = UnlockResult::Status::NotHeld;
        const int colon = field.indexOf(QLatin1Char(':'));
        result.error =
            QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: %2")
                .arg(field.left(colon), field.mid(colon + 1));
    } else if (reply.toInteger() == 1) {
        result.status = UnlockResult::Status::Released;
    } else {
        result.status = UnlockResult::Status::StillHeld;
    }
    return result;
}

void LockCalls::runUnlock(const RedisScript &script, RedisConnection *connection, const QString &name,
                          const QString &field, QList<QByteArray> keys, QList<QByteArray> args, QObject *context,
                          LockClient::UnlockCallback done)
{
    const QByteArray latch = RedisBytes::toBytes(LockClient::newUnlockLatchKey(name));
    keys << latch;
    args << QByteArray::number(LockClient::kUnlockLatchTtlMs);
    QPointer<RedisConnection> conn(connection);
    script.eval(connection, keys, args, context, [conn, field, latch, done](const RedisReply &r) {
        if (!r.isError() && conn)
            conn->send({"DEL", latch}); // fire-and-forget, as Redisson does
        if (done)
            done(unlockResult(r, field));
    });
}

LockClient::AcquireCallback LockCalls::noteAcquiredThen(LockClient *client, const QString &name, const QString &field,
                                                        qint64 lease, bool watch, LockClient::AcquireCallback callback)
{
    return [client = QPointer<LockClient>(client), name, field, lease, watch, callback](const AcquireResult &result) {
        if (result.acquired && client)
            client->noteAcquired(name, field, lease, watch);
        if (callback)
            callback(result);
    };
}

LockClient::UnlockCallback LockCalls::noteUnlockedThen(LockClient *client, const QString &name, const QString &field,
                                                       LockClient::UnlockCallback callback)
{
    return [client = QPointer<LockClient>(client), name, field, callback](const UnlockResult &result) {
        if (client)
            client->noteUnlocked(name, field, result.status);
        if (callback)
            callback(result);
    };
}

RedisConnection::ReplyCallback LockCalls::renewReply(LockClient::BoolCallback callback)
{
    return boolReply(std::move(callback), [](const RedisReply &r) { return r.at(0).toInteger() == 1; });
}

RedisConnection::ReplyCallback LockCalls::forceUnlockReply(LockClient::BoolCallback callback)
{
    return boolReply(std::move(callback), [](const RedisReply &r) { return r.toInteger() == 1; });
}

int LockCalls::timerMs(qint64 ms)
{
    return static_cast<int>(qBound(qint64(1), ms, qint64(std::numeric_limits<int>::max())));
}

} // namespace lockscope
