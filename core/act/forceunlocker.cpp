#include "act/forceunlocker.h"
#include "redis/redisbytes.h"

#include "protocol/locknames.h"

#include "redis/clusterrouter.h"
#include "redis/hashslot.h"
#include "redis/redisconnection.h"

#include <QTimer>

#include <QDateTime>

namespace lockscope
{

ForceUnlocker::ForceUnlocker(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection), m_script(RedisScript::fromResource(QStringLiteral("force_unlock")))
{
}

void ForceUnlocker::forceUnlock(const QString &name, QObject *context,
                                std::function<void(const ForceUnlockResult &)> callback,
                                const std::optional<QString> &confirmedState)
{
    const QList<QByteArray> keys{RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::unlockChannel(name)),
                                 RedisBytes::toBytes(LockNames::fairQueueKey(name)),
                                 RedisBytes::toBytes(LockNames::fairTimeoutKey(name)),
                                 RedisBytes::toBytes(LockNames::readWriteChannel(name))};
    // Like Redisson, "now" for pruning fair waiters is this client's clock (§3.1).
    const QList<QByteArray> args{QByteArray::number(QDateTime::currentMSecsSinceEpoch()), m_publishCommand,
                                 confirmedState ? QByteArray("1") : QByteArray("0"),
                                 confirmedState ? RedisBytes::toBytes(*confirmedState) : QByteArray()};
    QPointer<RedisConnection> connection = m_connection;
    const bool alsoClassic = m_alsoClassic && m_publishCommand.toLower() == "spublish";
    const int slot = HashSlot::of(keys.first());
    run(keys, args, context, 3, [callback, connection, alsoClassic, context, slot](const RedisReply &r) {
        ForceUnlockResult result;
        if (r.isError() && r.errorMessage().startsWith(QLatin1String("TRYAGAIN"))) {
            result.error = QStringLiteral("hash slot %1 is being migrated (a resharding is under way or stopped "
                                          "half-way), and Redis refuses a script over a lock's keys while some "
                                          "of them have moved (TRYAGAIN, 4 tries over 4.5 s). Nothing ran. "
                                          "Try again when the slot's migration has ended (`redis-cli --cluster "
                                          "check` lists no open slot)")
                               .arg(slot);
        } else if (r.isError()) {
            result.error = r.errorMessage();
        } else {
            result.deleted = r.at(0).toInteger() == 1;
            result.changed = r.at(0).toInteger() == -1;
            if (result.changed)
                result.currentState = RedisBytes::toText(r.at(4).toByteArray());
            result.kind = RedisBytes::toText(r.at(1).toByteArray());
            result.channel = RedisBytes::toText(r.at(2).toByteArray());
            result.message = RedisBytes::toText(r.at(3).toByteArray());
        }
        if (alsoClassic && connection && result.error.isEmpty() && !result.channel.isEmpty()) {
            connection->send({"PUBLISH", RedisBytes::toBytes(result.channel), RedisBytes::toBytes(result.message)},
                             context, [callback, result](const RedisReply &) {
                                 // A failed PUBLISH changes nothing: the lock is deleted and the
                                 // sharded message went out.
                                 if (callback)
                                     callback(result);
                             });
            return;
        }
        if (callback)
            callback(result);
    });
}

void ForceUnlocker::run(const QList<QByteArray> &keys, const QList<QByteArray> &args, QObject *context, int retriesLeft,
                        std::function<void(const RedisReply &)> done)
{
    QPointer<ForceUnlocker> self(this);
    QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    auto onReply = [self, keys, args, guard, hasContext, retriesLeft, done](const RedisReply &r) {
        if (self && retriesLeft > 0 && r.isError() && r.errorMessage().startsWith(QLatin1String("TRYAGAIN"))) {
            QTimer::singleShot(1500, self.data(), [self, keys, args, guard, hasContext, retriesLeft, done] {
                if (!hasContext || guard)
                    self->run(keys, args, guard.data(), retriesLeft - 1, done);
            });
            return;
        }
        done(r);
    };
    if (m_router)
        m_router->eval(m_script, keys, args, context, onReply);
    else
        m_script.eval(m_connection, keys, args, context, onReply);
}

QString ForceUnlocker::describe(const QString &name, const ForceUnlockResult &r)
{
    if (!r.error.isEmpty())
        return QStringLiteral("Force unlock of %1 failed: %2. Nothing is known to have changed.").arg(name, r.error);
    if (r.changed)
        return QStringLiteral("%1 changed since you confirmed it, so nothing was deleted. It is now: %2")
            .arg(name, r.currentState.isEmpty()
                           ? QStringLiteral("free")
                           : QString(r.currentState).replace(QLatin1Char('\n'), QStringLiteral(", ")));
    if (!r.deleted)
        return QStringLiteral("%1 was not locked any more: nothing deleted").arg(name);
    if (r.channel.isEmpty())
        return QStringLiteral("Force-unlocked %1 (%2); no waiter to wake").arg(name, r.kind);
    return QStringLiteral("Force-unlocked %1 (%2): deleted, message %3 published on %4 so waiters wake at once")
        .arg(name, r.kind, r.message, r.channel);
}

} // namespace lockscope
