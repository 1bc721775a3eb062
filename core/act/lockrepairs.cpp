#include "act/lockrepairs.h"
#include "redis/redisbytes.h"

#include "lock/readwritelock.h"
#include "protocol/locknames.h"
#include "protocol/locksnapshot.h"
#include "text/advicewords.h"

#include "redis/redisconnection.h"

#include <QDateTime>

namespace lockscope
{

LockRepairs::LockRepairs(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection), m_setTtl(RedisScript::fromResource(QStringLiteral("repair_set_ttl"))),
      m_removeWaiter(RedisScript::fromResource(QStringLiteral("repair_remove_waiter"))),
      m_removeReader(RedisScript::fromResource(QStringLiteral("repair_remove_reader"))),
      m_wake(RedisScript::fromResource(QStringLiteral("repair_wake")))
{
}

static RepairResult errorResult(const QString &what, const RedisReply &r)
{
    return {QStringLiteral("error"),
            QStringLiteral("%1 failed: %2. Nothing is known to have changed.").arg(what, r.errorMessage()),
            {}};
}

void LockRepairs::setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState, QObject *context,
                         Callback callback)
{
    m_setTtl.eval(m_connection, {RedisBytes::toBytes(name)},
                  {QByteArray::number(ttlMs), RedisBytes::toBytes(confirmedState)}, context,
                  [name, ttlMs, callback](const RedisReply &r) {
                      RepairResult res;
                      if (r.isError())
                          res = errorResult(QStringLiteral("Setting a TTL on %1").arg(name), r);
                      else if (r.at(0).toInteger() == 1)
                          res = {QStringLiteral("done"),
                                 QStringLiteral("%1 now expires in %2 ms unless its holder renews or releases it")
                                     .arg(name)
                                     .arg(ttlMs),
                                 {}};
                      else if (r.at(0).toInteger() == -1)
                          res = {QStringLiteral("changed"),
                                 QStringLiteral("%1 changed since you confirmed it: nothing was done").arg(name),
                                 RedisBytes::toText(r.at(1).toByteArray())};
                      else
                          res = {QStringLiteral("refused"),
                                 QStringLiteral("%1 already has a TTL: nothing to repair").arg(name),
                                 {}};
                      callback(res);
                  });
}

void LockRepairs::removeWaiter(const QString &name, const QString &field, qint64 waitMs, QObject *context,
                               Callback callback)
{
    m_removeWaiter.eval(
        m_connection,
        {RedisBytes::toBytes(LockNames::fairQueueKey(name)), RedisBytes::toBytes(LockNames::fairTimeoutKey(name)),
         RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::unlockChannel(name))},
        {RedisBytes::toBytes(field), QByteArray::number(qMax<qint64>(0, waitMs)),
         QByteArray::number(kDefaultFairWaitMs), QByteArray::number(QDateTime::currentMSecsSinceEpoch()),
         m_publishCommand, QByteArray::number(kDeadlineFloorMs)},
        context, [name, field, callback](const RedisReply &r) {
            RepairResult res;
            if (r.isError()) {
                res = errorResult(QStringLiteral("Removing waiter %1 of %2").arg(field, name), r);
            } else if (r.at(0).toInteger() == 0 && r.at(1).toInteger() == 0) {
                res = {QStringLiteral("changed"),
                       QStringLiteral("%1 is no longer waiting on %2: nothing was done").arg(field, name),
                       {}};
            } else {
                const qint64 wait = r.at(3).toInteger();
                const QByteArray source = r.at(4).toByteArray();
                QString how;
                if (source == "given")
                    how = QStringLiteral("the wait you gave");
                else if (source == "own_gap")
                    how = QStringLiteral("derived from the timeout set: the gap between its deadline and the previous "
                                         "waiter's");
                else if (source == "gaps_behind")
                    how =
                        QStringLiteral("derived from the timeout set: the equal gaps between the deadlines behind it");
                else
                    how = QStringLiteral("Redisson's default fairLockWaitTimeout, as the timeout set did not tell; "
                                         "clients of 3.13.2 and older wait 5000 ms: %1 if so")
                              .arg(AdviceWords::name(AdviceWords::Choice::WaiterWait));
                QString message = QStringLiteral("Removed waiter %1 from %2 (queue: %3, timeout set: %4); %5 later "
                                                 "waiter(s) moved up by its wait of %6 ms (%7)")
                                      .arg(field, name)
                                      .arg(r.at(0).toInteger() ? QStringLiteral("yes") : QStringLiteral("no"))
                                      .arg(r.at(1).toInteger() ? QStringLiteral("yes") : QStringLiteral("no"))
                                      .arg(r.at(2).toInteger())
                                      .arg(wait)
                                      .arg(how);
                if (r.at(5).toInteger() > 0)
                    message += QStringLiteral("; %1 of them only as far as %2 s from now, so that no live waiter's "
                                              "deadline falls into the past")
                                   .arg(r.at(5).toInteger())
                                   .arg(kDeadlineFloorMs / 1000);
                const QString channel = RedisBytes::toText(r.at(6).toByteArray());
                if (!channel.isEmpty()) {
                    const QString head = channel.mid(LockNames::unlockChannel(name).size() + 1);
                    message += r.at(7).toInteger() > 0
                                   ? QStringLiteral("; the lock is free, so the new head %1 was woken on its channel "
                                                    "(%2 receiver(s)) and takes it now")
                                         .arg(head)
                                         .arg(r.at(7).toInteger())
                                   : QStringLiteral("; the lock is free and the new head %1 was told on its channel, "
                                                    "but nobody listens there: if it is gone, remove it too")
                                         .arg(head);
                }
                res = {QStringLiteral("done"), message, {}};
            }
            callback(res);
        });
}

void LockRepairs::removeReader(const QString &name, const QString &field, QObject *context, Callback callback)
{
    // The read lock's own key names: its channel and the prefix of its per-hold timeout keys.
    m_removeReader.eval(
        m_connection, {RedisBytes::toBytes(name), RedisBytes::toBytes(ReadWriteLock::channel(name))},
        {RedisBytes::toBytes(field), RedisBytes::toBytes(ReadWriteLock::keyPrefix(name)), m_publishCommand}, context,
        [name, field, callback](const RedisReply &r) {
            RepairResult res;
            if (r.isError()) {
                res = errorResult(QStringLiteral("Removing reader %1 of %2").arg(field, name), r);
            } else if (r.at(0).toInteger() == 1) {
                res = {QStringLiteral("done"),
                       r.at(1).toInteger() == 1
                           ? QStringLiteral("Removed dead reader %1; %2 had no holder left, so it was "
                                            "deleted and waiters were woken")
                                 .arg(field, name)
                           : QStringLiteral("Removed dead reader %1 from %2").arg(field, name),
                       {}};
            } else {
                const QString why = RedisBytes::toText(r.at(1).toByteArray());
                res = {why == QLatin1String("alive") ? QStringLiteral("refused") : QStringLiteral("changed"),
                       why == QLatin1String("alive")
                           ? QStringLiteral("%1 still has a live rwlock_timeout key: it is not dead, nothing "
                                            "was done")
                                 .arg(field)
                           : QStringLiteral("%1 is not a reader of %2 (%3): nothing was done").arg(field, name, why),
                       {}};
            }
            callback(res);
        });
}

void LockRepairs::wake(const QString &name, QObject *context, Callback callback)
{
    const QList<QByteArray> keys{RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::unlockChannel(name)),
                                 RedisBytes::toBytes(LockNames::readWriteChannel(name)),
                                 RedisBytes::toBytes(LockNames::fairQueueKey(name)),
                                 RedisBytes::toBytes(LockNames::fairTimeoutKey(name))};
    // Like Redisson, "now" for pruning fair waiters is this client's clock (§3.1).
    const QList<QByteArray> args{m_publishCommand, QByteArray::number(QDateTime::currentMSecsSinceEpoch())};
    const QString verb = RedisBytes::toText(m_publishCommand).toUpper();
    m_wake.eval(m_connection, keys, args, context, [name, verb, callback](const RedisReply &r) {
        RepairResult res;
        if (r.isError()) {
            res = errorResult(QStringLiteral("Waking the waiters of %1").arg(name), r);
        } else if (r.isInteger() && r.toInteger() < 0) {
            res = {QStringLiteral("refused"),
                   QStringLiteral("%1 is held: waking its waiters would not help; use force unlock").arg(name),
                   {}};
        } else {
            const QByteArray kind = r.at(0).toByteArray();
            const qint64 pruned = r.at(1).toInteger();
            QStringList sent;
            for (int i = 2; i + 2 < r.size(); i += 3)
                sent << QStringLiteral("%1 \"%2\" on %3: %4 receiver(s)")
                            .arg(verb, RedisBytes::toText(r.at(i + 1).toByteArray()),
                                 RedisBytes::toText(r.at(i).toByteArray()))
                            .arg(r.at(i + 2).toInteger());
            const QString prunedText =
                pruned > 0
                    ? QStringLiteral(" (first pruned %1 waiter(s) past their deadline, as Redisson does)").arg(pruned)
                    : QString();
            QString message;
            if (kind == "fair")
                message = QStringLiteral("%1 is a free fair lock: %2 to its head waiter%3")
                              .arg(name, sent.join(QString()), prunedText);
            else if (kind == "fair_empty")
                message =
                    QStringLiteral("%1 is a free fair lock with no live waiter left in its queue%2: nothing to wake, "
                                   "nothing published")
                        .arg(name, prunedText);
            else if (kind == "read_write")
                message = QStringLiteral("%1: read-write waiters are subscribed: %2 (\"1\" wakes every waiting thread "
                                         "of each client)")
                              .arg(name, sent.join(QString()));
            else if (kind == "lock")
                message = QStringLiteral("%1: %2").arg(name, sent.join(QString()));
            else if (kind == "both")
                message = QStringLiteral("%1: clients wait on both the read-write and the lock channel, so both were "
                                         "told: %2")
                              .arg(name, sent.join(QStringLiteral("; ")));
            else
                message = QStringLiteral("Nobody is subscribed to %1 or %2: nothing to wake, nothing published")
                              .arg(LockNames::unlockChannel(name), LockNames::readWriteChannel(name));
            const bool nothing = kind == "none" || (kind == "fair_empty" && pruned == 0);
            res = {nothing ? QStringLiteral("refused") : QStringLiteral("done"), message, {}};
        }
        callback(res);
    });
}

QString LockRepairs::targetRefusal(const QString &action, const LockSnapshot &before)
{
    static const QStringList repairs{QStringLiteral("set_ttl"), QStringLiteral("remove_waiter"),
                                     QStringLiteral("remove_reader"), QStringLiteral("wake"),
                                     QStringLiteral("force_unlock")};
    if (!repairs.contains(action) || before.twinName.isEmpty())
        return {};
    if (before.companionsOfTwin())
        return QStringLiteral("Refused: %1 does not exist, and the keys Redisson derives for it (%2, %3) are also "
                              "those of %4, whose hash exists (protocol §14.4): they belong to %4. Nothing was done; "
                              "aim the repair at %4.")
            .arg(before.name, LockNames::fairQueueKey(before.name), LockNames::unlockChannel(before.name),
                 before.twinName);
    if (before.companionsShared() && (action == QLatin1String("remove_waiter") || action == QLatin1String("wake")))
        return QStringLiteral("Refused: both %1 and %2 exist and share the queue and unlock channels Redisson derives "
                              "(%3, %4; protocol §14.4), so LockScope cannot tell whose waiters these are. Nothing "
                              "was done.")
            .arg(before.name, before.twinName, LockNames::fairQueueKey(before.name),
                 LockNames::unlockChannel(before.name));
    return {};
}

} // namespace lockscope
