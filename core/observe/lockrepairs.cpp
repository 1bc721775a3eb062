#include "lockrepairs.h"

#include "locknames.h"
#include "locksnapshot.h"

#include "redis/redisconnection.h"

namespace lockscope {

LockRepairs::LockRepairs(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection),
      m_setTtl(RedisScript::fromResource(QStringLiteral("repair_set_ttl"))),
      m_removeWaiter(RedisScript::fromResource(QStringLiteral("repair_remove_waiter"))),
      m_removeReader(RedisScript::fromResource(QStringLiteral("repair_remove_reader"))),
      m_wake(RedisScript::fromResource(QStringLiteral("repair_wake")))
{
}

static RepairResult errorResult(const QString &what, const RedisReply &r)
{
    return {QStringLiteral("error"), QStringLiteral("%1 failed: %2. Nothing is known to have changed.").arg(what, r.errorMessage()), {}};
}

void LockRepairs::setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState, QObject *context,
                         Callback callback)
{
    m_setTtl.eval(m_connection, {name.toUtf8()}, {QByteArray::number(ttlMs), confirmedState.toUtf8()}, context,
                  [name, ttlMs, callback](const RedisReply &r) {
                      RepairResult res;
                      if (r.isError())
                          res = errorResult(QStringLiteral("Setting a TTL on %1").arg(name), r);
                      else if (r.at(0).toInteger() == 1)
                          res = {QStringLiteral("done"),
                                 QStringLiteral("%1 now expires in %2 ms unless its holder renews or releases it").arg(name).arg(ttlMs), {}};
                      else if (r.at(0).toInteger() == -1)
                          res = {QStringLiteral("changed"),
                                 QStringLiteral("%1 changed since you confirmed it: nothing was done").arg(name),
                                 QString::fromUtf8(r.at(1).toByteArray())};
                      else
                          res = {QStringLiteral("refused"), QStringLiteral("%1 already has a TTL: nothing to repair").arg(name), {}};
                      callback(res);
                  });
}

void LockRepairs::removeWaiter(const QString &name, const QString &field, qint64 waitMs, QObject *context,
                               Callback callback)
{
    const qint64 wait = waitMs > 0 ? waitMs : 300000;
    m_removeWaiter.eval(m_connection, {LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()},
                        {field.toUtf8(), QByteArray::number(wait)}, context, [name, field, callback](const RedisReply &r) {
                            RepairResult res;
                            if (r.isError()) {
                                res = errorResult(QStringLiteral("Removing waiter %1 of %2").arg(field, name), r);
                            } else if (r.at(0).toInteger() == 0 && r.at(1).toInteger() == 0) {
                                res = {QStringLiteral("changed"),
                                       QStringLiteral("%1 is no longer waiting on %2: nothing was done").arg(field, name), {}};
                            } else {
                                res = {QStringLiteral("done"),
                                       QStringLiteral("Removed waiter %1 from %2 (queue: %3, timeout set: %4); %5 later "
                                                      "waiter(s) moved up")
                                           .arg(field, name)
                                           .arg(r.at(0).toInteger() ? QStringLiteral("yes") : QStringLiteral("no"))
                                           .arg(r.at(1).toInteger() ? QStringLiteral("yes") : QStringLiteral("no"))
                                           .arg(r.at(2).toInteger()),
                                       {}};
                            }
                            callback(res);
                        });
}

void LockRepairs::removeReader(const QString &name, const QString &field, QObject *context, Callback callback)
{
    const QString keyPrefix = name.contains(QLatin1Char('{')) ? name : QLatin1Char('{') + name + QLatin1Char('}');
    m_removeReader.eval(m_connection, {name.toUtf8(), LockNames::readWriteChannel(name).toUtf8()},
                        {field.toUtf8(), keyPrefix.toUtf8(), m_publishCommand}, context,
                        [name, field, callback](const RedisReply &r) {
                            RepairResult res;
                            if (r.isError()) {
                                res = errorResult(QStringLiteral("Removing reader %1 of %2").arg(field, name), r);
                            } else if (r.at(0).toInteger() == 1) {
                                res = {QStringLiteral("done"),
                                       r.at(1).toInteger() == 1
                                           ? QStringLiteral("Removed dead reader %1; %2 had no holder left, so it was "
                                                            "deleted and waiters were woken").arg(field, name)
                                           : QStringLiteral("Removed dead reader %1 from %2").arg(field, name),
                                       {}};
                            } else {
                                const QString why = QString::fromUtf8(r.at(1).toByteArray());
                                res = {why == QLatin1String("alive") ? QStringLiteral("refused") : QStringLiteral("changed"),
                                       why == QLatin1String("alive")
                                           ? QStringLiteral("%1 still has a live rwlock_timeout key: it is not dead, nothing "
                                                            "was done").arg(field)
                                           : QStringLiteral("%1 is not a reader of %2 (%3): nothing was done").arg(field, name, why),
                                       {}};
                            }
                            callback(res);
                        });
}

void LockRepairs::wake(const QString &name, QObject *context, Callback callback)
{
    const QString channel = LockNames::unlockChannel(name);
    m_wake.eval(m_connection, {name.toUtf8(), channel.toUtf8()}, {m_publishCommand}, context,
                [name, channel, callback](const RedisReply &r) {
                    RepairResult res;
                    if (r.isError())
                        res = errorResult(QStringLiteral("Waking the waiters of %1").arg(name), r);
                    else if (r.toInteger() < 0)
                        res = {QStringLiteral("refused"),
                               QStringLiteral("%1 is held: waking its waiters would not help; use force unlock").arg(name), {}};
                    else
                        res = {QStringLiteral("done"),
                               QStringLiteral("Published 0 on %1: %2 waiting client(s) told the lock is free")
                                   .arg(channel)
                                   .arg(r.toInteger()),
                               {}};
                    callback(res);
                });
}

QString LockRepairs::targetRefusal(const QString &action, const LockSnapshot &before)
{
    static const QStringList repairs{QStringLiteral("set_ttl"), QStringLiteral("remove_waiter"), QStringLiteral("remove_reader"),
                                     QStringLiteral("wake"), QStringLiteral("force_unlock")};
    if (!repairs.contains(action) || before.twinName.isEmpty())
        return {};
    if (before.companionsOfTwin())
        return QStringLiteral("Refused: %1 does not exist, and the keys Redisson derives for it (%2, %3) are also "
                              "those of %4, whose hash exists (protocol §14.4): they belong to %4. Nothing was done; "
                              "aim the repair at %4.")
            .arg(before.name, LockNames::fairQueueKey(before.name), LockNames::unlockChannel(before.name), before.twinName);
    if (before.companionsShared()
        && (action == QLatin1String("remove_waiter") || action == QLatin1String("wake")))
        return QStringLiteral("Refused: both %1 and %2 exist and share the queue and unlock channels Redisson derives "
                              "(%3, %4; protocol §14.4), so LockScope cannot tell whose waiters these are. Nothing "
                              "was done.")
            .arg(before.name, before.twinName, LockNames::fairQueueKey(before.name), LockNames::unlockChannel(before.name));
    return {};
}

} // namespace lockscope
