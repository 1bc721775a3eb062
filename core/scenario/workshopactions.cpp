// The workshop's actions, one record each (adding an action is one record here).
// Longer than 500 lines for that reason: the file is the table, each record a few short functions.
#include "workshopactions.h"

#include "redlockstage.h"

#include "diagnose/lockdoctor.h"
#include "lock/fairlock.h"
#include "lock/lockclient.h"
#include "lock/lockvariant.h"
#include "lock/lockvariantfactory.h"
#include "lock/multilock.h"
#include "lock/readwritelock.h"
#include "lock/reentrantlock.h"
#include "protocol/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "redis/redisscript.h"
#include "watch/snapshotreader.h"

#include <QDateTime>
#include <QTimer>

#include <memory>

namespace lockscope
{

QString WorkshopActor::holderField() const
{
    return client ? client->holderField(def.threadId) : QString();
}

namespace
{

using Done = WorkshopAction::Done;

/** A step that failed at LockScope's side or at the server: result "error" with `error`. */
StepOutcome failed(const QString &error)
{
    StepOutcome o;
    o.result = QStringLiteral("error");
    o.error = error;
    return o;
}

/** A server-side step's outcome: `result` with the server's `reply` when `ok`, else failed(`error`). */
StepOutcome outcome(bool ok, const QString &result, const QString &reply, const QString &error)
{
    if (!ok)
        return failed(error);
    StepOutcome o;
    o.result = result;
    o.reply = reply;
    return o;
}

QString unlockStatus(const UnlockResult &r)
{
    switch (r.status) {
    case UnlockResult::Status::Released:
        return QStringLiteral("released");
    case UnlockResult::Status::StillHeld:
        return QStringLiteral("still_held");
    case UnlockResult::Status::NotHeld:
        return QStringLiteral("not_held");
    case UnlockResult::Status::Error:
        break;
    }
    return QStringLiteral("error");
}

/** The outcome of an acquire call (RLock, read/write, fenced). */
std::function<void(const AcquireResult &)> acquired(Done done)
{
    return [done](const AcquireResult &r) {
        StepOutcome o;
        o.result = !r.error.isEmpty() ? QStringLiteral("error")
                   : r.acquired       ? QStringLiteral("acquired")
                                      : QStringLiteral("refused");
        o.error = r.error;
        o.pttlMs = r.pttlMs;
        o.token = r.token;
        o.reply = r.acquired ? (r.token >= 0 ? QStringLiteral("{-1, %1}").arg(r.token) : QStringLiteral("nil"))
                             : QString::number(r.pttlMs);
        done(o);
    };
}

/** The outcome of an unlock call. */
std::function<void(const UnlockResult &)> unlocked(Done done)
{
    return [done](const UnlockResult &r) {
        StepOutcome o;
        o.result = unlockStatus(r);
        o.error = r.status == UnlockResult::Status::Error ? r.error : QString();
        o.reply = r.status == UnlockResult::Status::NotHeld     ? QStringLiteral("nil (%1)").arg(r.error)
                  : r.status == UnlockResult::Status::Released  ? QStringLiteral("1")
                  : r.status == UnlockResult::Status::StillHeld ? QStringLiteral("0")
                                                                : r.error;
        done(o);
    };
}

QString on(const ActionContext &c)
{
    return QStringLiteral(" on \"%1\"").arg(c.step->lock);
}

QString leaseText(const ActionContext &c)
{
    return c.step->leaseMs > 0 ? QStringLiteral("leaseTime=%1 ms").arg(c.leaseMs)
                               : QStringLiteral("no leaseTime: lockWatchdogTimeout %1 ms").arg(c.leaseMs);
}

/** What the script's reply said of the lock, for the three lock-hash keys of a step. */
struct Hold {
    QJsonObject before;     ///< holders before
    qint64 countBefore = 0; ///< the actor's hold count before
    qint64 countAfter = 0;  ///< ... and after
    bool existedBefore = false;
    explicit Hold(const ActionContext &c)
    {
        const QString &name = c.step->lock;
        before = StepReport::holdersOf(c.report->before, name);
        countBefore = qint64(before.value(c.field).toDouble());
        countAfter = qint64(StepReport::holdersOf(c.report->after, name).value(c.field).toDouble());
        existedBefore = c.report->before.contains(name);
    }
};

QPair<QString, QString> unlockMessageWhen(const ActionContext &c, const StepOutcome &o, const char *result)
{
    if (o.result == QLatin1String(result))
        return {LockNames::unlockChannel(c.step->lock), QStringLiteral("0")};
    return {};
}

/** WorkshopAction::waitChannel of an acquire of `kind`: the channel the actor's lock of that
 *  kind waits on (LockVariant::waitChannel). */
std::function<QByteArray(const ActionContext &)> waitChannelOf(AcquireKind kind)
{
    return [kind](const ActionContext &c) {
        return c.actor->lock(kind)->waitChannel(c.step->lock, c.actor->def.threadId);
    };
}

/** Which RLock acquire call ran: one attempt, the whole waiting tryLock, or a fenced acquire. */
enum class Acquire { Once, Waiting, Fenced };

/** The RLock acquire branch (lock, tryLock, fencedLock). */
QString lockBranch(const ActionContext &c, const StepOutcome &o, Acquire call)
{
    const QString &name = c.step->lock;
    const Hold h(c);
    const QString channel = LockNames::unlockChannel(name);
    QString prefix;
    if (call == Acquire::Waiting && o.waitedMs > 0 && h.existedBefore && !h.before.contains(c.field))
        prefix = QStringLiteral("acquire: held by another (%1) -> PTTL %2 ms = refused; subscribed to %3 and "
                                "waited %4 ms (woken by an unlock message or at the TTL), then retry: ")
                     .arg(StepReport::fieldsText(h.before))
                     .arg(StepReport::pttlOf(c.report->before, name))
                     .arg(channel)
                     .arg(o.waitedMs);
    const bool fenced = call == Acquire::Fenced;
    if (o.result == QLatin1String("acquired")) {
        const QString tok =
            fenced ? QStringLiteral("INCR %1 = %2, ").arg(LockNames::tokenKey(name)).arg(o.token) : QString();
        const QString rep = fenced ? QStringLiteral("{-1, %1}").arg(o.token) : QStringLiteral("nil");
        if (h.countBefore > 0)
            return prefix + QStringLiteral("acquire: held by this thread (hold count %1) -> %2HINCRBY %3 1 = %4, "
                                           "PEXPIRE %5 -> %6 = re-entered")
                                .arg(h.countBefore)
                                .arg(tok, c.field)
                                .arg(h.countAfter)
                                .arg(c.leaseMs)
                                .arg(rep);
        return prefix + QStringLiteral("acquire: key absent -> %1HINCRBY %2 1, PEXPIRE %3 -> %4 = acquired")
                            .arg(tok, c.field)
                            .arg(c.leaseMs)
                            .arg(rep);
    }
    if (call == Acquire::Waiting)
        return QStringLiteral("acquire: held by another (%1) -> PTTL; subscribed to %2, retried on messages or at "
                              "the TTL for %3 ms -> waitTime used up = false (refused)")
            .arg(StepReport::fieldsText(h.before), channel)
            .arg(c.step->waitMs);
    return QStringLiteral("acquire: held by another (%1) -> return PTTL %2 ms = refused; the caller subscribes to %3 "
                          "and waits for \"0\" or the TTL")
        .arg(StepReport::fieldsText(h.before))
        .arg(o.pttlMs)
        .arg(channel);
}

/** The read/write acquire branch (readLock, writeLock). */
QString rwLockBranch(const ActionContext &c, const StepOutcome &o, bool read)
{
    const QString &name = c.step->lock;
    const Hold h(c);
    const QString modeBefore = StepReport::hashOf(c.report->before, name).value(QStringLiteral("mode")).toString();
    if (o.result == QLatin1String("acquired")) {
        if (read)
            return QStringLiteral("read acquire: %1 -> HSET mode read, HINCRBY %2 1 = %3, SET %4:%3 PX %5, PEXPIRE "
                                  ">= %5 -> nil = acquired")
                .arg(h.existedBefore ? QStringLiteral("mode %1 (readers share)").arg(modeBefore)
                                     : QStringLiteral("key absent"),
                     c.field)
                .arg(h.countAfter)
                .arg(ReadWriteLock::timeoutPrefix(name, c.field))
                .arg(c.leaseMs);
        return QStringLiteral("write acquire: %1 -> HSET mode write, HINCRBY %2:write 1, PEXPIRE %3 -> nil = acquired")
            .arg(h.existedBefore ? QStringLiteral("held by this thread in write mode") : QStringLiteral("key absent"),
                 c.field)
            .arg(c.leaseMs);
    }
    return QStringLiteral("%1 acquire: mode %2 held by %3 -> return PTTL %4 ms = refused; the caller subscribes to %5")
        .arg(read ? QStringLiteral("read") : QStringLiteral("write"), modeBefore, StepReport::fieldsText(h.before))
        .arg(o.pttlMs)
        .arg(ReadWriteLock::channel(name));
}

/** The fair acquire branch (§3.2): prune, then acquire, re-enter or queue. */
QString fairLockBranch(const ActionContext &c, const StepOutcome &o)
{
    const QString &name = c.step->lock;
    const QString &field = c.field;
    const Hold h(c);
    const QString qk = LockNames::fairQueueKey(name);
    const QStringList qb = StepReport::listOf(c.report->before, qk), qa = StepReport::listOf(c.report->after, qk);
    QStringList pruned;
    for (const QString &w : qb)
        if (!qa.contains(w) && w != field)
            pruned.append(w);
    const QString prune = pruned.isEmpty() ? QStringLiteral("PRUNE: nothing expired; ")
                                           : QStringLiteral("PRUNE: removed %1 (deadline passed: a dead waiter); ")
                                                 .arg(pruned.join(QStringLiteral(", ")));
    if (o.result == QLatin1String("acquired")) {
        if (h.countBefore > 0)
            return prune + QStringLiteral("held by this thread -> HINCRBY %1 1 = %2, PEXPIRE %3 -> nil = re-entered")
                               .arg(field)
                               .arg(h.countAfter)
                               .arg(c.leaseMs);
        return prune +
               QStringLiteral("lock free and %1 -> LPOP queue, ZREM timeout, HSET %2 1, PEXPIRE %3 -> nil = acquired")
                   .arg(qb.contains(field) ? QStringLiteral("the caller is first in line")
                                           : QStringLiteral("nobody queued"),
                        field)
                   .arg(c.leaseMs);
    }
    const int pos = int(qa.indexOf(field)) + 1;
    const QString deadline = QString::number(
        qint64(c.report->after.value(LockNames::fairTimeoutKey(name)).value.toObject().value(field).toDouble()));
    if (qb.contains(field))
        return prune + QStringLiteral("%1 already queued at position %2 -> ttl %3 ms = still waiting")
                           .arg(field)
                           .arg(pos)
                           .arg(o.pttlMs);
    const QString why = h.existedBefore ? QStringLiteral("held by %1").arg(StepReport::fieldsText(h.before))
                                        : QStringLiteral("lock free but %1 is first in line").arg(qb.value(0));
    return prune +
           QStringLiteral(
               "%1 -> RPUSH queue %2, ZADD timeout %2 %3 (ttl + wait + now) -> ttl %4 ms = queued at position %5")
               .arg(why, field, deadline)
               .arg(o.pttlMs)
               .arg(pos);
}

QString fairUnlockBranch(const ActionContext &c, const StepOutcome &o)
{
    const QString &name = c.step->lock;
    const QString &channel = c.report->messageChannel;
    const Hold h(c);
    if (o.result == QLatin1String("released") && !h.existedBefore)
        return channel.isEmpty() ? QStringLiteral("fair unlock: PRUNE; %1 is gone (expired or deleted meanwhile), "
                                                  "queue empty: no message -> 1 "
                                                  "(Redisson reports success although nothing was held)")
                                       .arg(name)
                                 : QStringLiteral("fair unlock: PRUNE; %1 is gone (expired or deleted meanwhile) -> "
                                                  "PUBLISH %2 0 (the head "
                                                  "waiter) -> 1 (Redisson reports success although nothing was held)")
                                       .arg(name, channel);
    if (o.result == QLatin1String("released"))
        return channel.isEmpty()
                   ? QStringLiteral("fair unlock: PRUNE; hold count %1 -> 0 -> DEL %2, queue empty: no message -> "
                                    "1 = released")
                         .arg(h.countBefore)
                         .arg(name)
                   : QStringLiteral("fair unlock: PRUNE; hold count %1 -> 0 -> DEL %2, PUBLISH %3 0 (the head "
                                    "waiter only) -> 1 = released")
                         .arg(h.countBefore)
                         .arg(name, channel);
    if (o.result == QLatin1String("still_held"))
        return QStringLiteral("fair unlock: hold count %1 -> %2, PEXPIRE %3 -> 0 = still held")
            .arg(h.countBefore)
            .arg(h.countAfter)
            .arg(c.leaseMs);
    return QStringLiteral("fair unlock: HEXISTS %1 = 0 -> nil = IllegalMonitorStateException").arg(c.field);
}

/** A RedissonRedLock call (acquire or unlock) over the stage's servers. */
void runRedLock(const ActionContext &c, Done done, bool acquire)
{
    MultiLock *redLock = c.stage ? c.stage->redLockOf(c.step->actor, c.step->lock) : nullptr;
    if (!redLock) {
        done(failed(QStringLiteral("no RedLock servers")));
        return;
    }
    auto report = [done, acquire](const MultiLockResult &r) {
        StepOutcome o;
        QStringList parts;
        for (int i = 0; i < r.components.size(); ++i)
            parts << QStringLiteral("s%1 %2").arg(i + 1).arg(
                MultiLockComponentOutcome::statusName(r.components[i].status));
        o.components = parts.join(QStringLiteral(", "));
        o.granted = r.grantedCount();
        if (acquire) {
            o.result = r.acquired ? QStringLiteral("acquired") : QStringLiteral("refused");
            o.reply = QStringLiteral("%1 of %2 granted, quorum %3")
                          .arg(r.grantedCount())
                          .arg(r.components.size())
                          .arg(r.required);
        } else {
            o.result = r.grantedCount() > 0 ? QStringLiteral("released") : QStringLiteral("not_held");
            o.reply = QStringLiteral("%1 of %2 released").arg(r.grantedCount()).arg(r.components.size());
        }
        done(o);
    };
    if (acquire)
        redLock->acquire(c.actor->def.threadId, qMax<qint64>(0, c.step->leaseMs), qMax<qint64>(0, c.step->waitMs),
                         c.receiver, report);
    else
        redLock->unlock(c.actor->def.threadId, c.receiver, report);
}

QString needsServers(const Scenario::Step &st, const Scenario &s)
{
    return s.servers <= 0
               ? QStringLiteral("\"%1\" needs the scenario's \"servers\" (how many independent servers)").arg(st.action)
               : QString();
}

/** The RLock an RLock step acts with: the actor's own on the main server, or with "server" the
 *  one of its client on that stage server (replication scenarios; made there on first use). */
LockVariant *rlockFor(const ActionContext &c)
{
    if (c.step->server > 0 && c.stage) {
        LockClient *client = c.stage->clientOf(c.actor->def.name, c.step->server - 1);
        if (auto *existing = client->findChild<ReentrantLock *>(QString(), Qt::FindDirectChildrenOnly))
            return existing;
        return LockVariantFactory::create(AcquireKind::Lock, client, client);
    }
    return c.actor->lock(AcquireKind::Lock);
}

/** " on server N (host:port)" for a step with "server", empty otherwise. */
QString onServer(const ActionContext &c)
{
    return c.step->server > 0 && c.stage
               ? QStringLiteral(" on server %1 (%2)").arg(c.step->server).arg(c.stage->address(c.step->server - 1))
               : QString();
}

/** "server" on a lock step needs the scenario's servers. */
QString serverNeedsServers(const Scenario::Step &st, const Scenario &s)
{
    return st.server > 0 ? needsServers(st, s) : QString();
}

/** The branch of a lock step run on a stage server: what that server's copy shows. */
QString serverBranch(const ActionContext &c, const StepOutcome &o)
{
    const QString key = c.stage ? c.stage->keyName(c.step->server - 1, c.step->lock) : c.step->lock;
    // A server's copy is read with HGETALL: the hold counts are strings there.
    QJsonObject before = StepReport::holdersOf(c.report->before, key);
    for (auto it = before.begin(); it != before.end(); ++it)
        if (it.value().isString())
            it.value() = it.value().toString().toDouble();
    return QStringLiteral("the RLock script%1: the lock there was held by %2 -> %3")
        .arg(onServer(c), StepReport::fieldsText(before), o.result);
}

/** Server `index`'s INFO replication, field `name`, from `reply` (empty when missing). */
/** An action on the stage's servers alone (no actor, no lock) aimed at a replica: refused, with
 *  `refusal`, unless the scenario has 2 or more servers and the step names server 2 or later. */
WorkshopAction replicaAction(const QString &name, const QString &refusal)
{
    WorkshopAction a;
    a.name = name;
    a.needsActor = false;
    a.needsLock = false;
    a.usesLock = false;
    a.validate = [refusal](const Scenario::Step &st, const Scenario &s) {
        return s.servers < 2 || st.server < 2 ? refusal : QString();
    };
    return a;
}

/** The connection to the step's server, or nullptr after `done` got "server N is not running". */
RedisConnection *stepServerOr(const ActionContext &c, const Done &done)
{
    RedisConnection *server = c.stage ? c.stage->reader(c.step->server - 1) : nullptr;
    if (!server)
        done(failed(QStringLiteral("server %1 is not running").arg(c.step->server)));
    return server;
}

QString infoField(const RedisReply &reply, const QString &name)
{
    const QString text = QString::fromUtf8(reply.toByteArray());
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        const QString l = line.trimmed();
        if (l.startsWith(name + QLatin1Char(':')))
            return l.mid(name.size() + 1);
    }
    return QString();
}

QVector<WorkshopAction> makeTable()
{
    QVector<WorkshopAction> t;

    WorkshopAction lock;
    lock.name = QStringLiteral("lock");
    lock.validate = serverNeedsServers;
    lock.call = [](const ActionContext &c) {
        return QStringLiteral("RLock.lock(%1), one attempt").arg(leaseText(c)) + on(c) + onServer(c);
    };
    lock.run = [](const ActionContext &c, Done done) {
        rlockFor(c)->tryAcquire(c.step->lock, c.actor->def.threadId, c.leaseMs, c.receiver, acquired(done));
    };
    lock.branch = [](const ActionContext &c, const StepOutcome &o) {
        return c.step->server > 0 ? serverBranch(c, o) : lockBranch(c, o, Acquire::Once);
    };
    lock.waitChannel = [](const ActionContext &c) {
        // waiters listen on the main server only
        return c.step->server > 0 ? QByteArray() : waitChannelOf(AcquireKind::Lock)(c);
    };
    t << lock;

    WorkshopAction tryLock;
    tryLock.name = QStringLiteral("tryLock");
    tryLock.validate = [](const Scenario::Step &st, const Scenario &) {
        return st.waitMs < 0 ? QStringLiteral("\"tryLock\" needs \"waitMs\" (Redisson's waitTime)") : QString();
    };
    tryLock.call = [](const ActionContext &c) {
        return QStringLiteral("RLock.tryLock(waitTime=%1 ms, %2)").arg(c.step->waitMs).arg(leaseText(c)) + on(c);
    };
    tryLock.run = [](const ActionContext &c, Done done) {
        // waitedMs is filled in by the runner from the step's duration.
        c.actor->lock(AcquireKind::Lock)
            ->acquire(c.step->lock, c.actor->def.threadId, c.leaseMs, c.step->waitMs, c.receiver, acquired(done));
    };
    tryLock.branch = [](const ActionContext &c, const StepOutcome &o) { return lockBranch(c, o, Acquire::Waiting); };
    tryLock.waitChannel = waitChannelOf(AcquireKind::Lock);
    tryLock.subscribesWhenRefused = false; // the whole waiting call: nothing stays subscribed
    t << tryLock;

    WorkshopAction unlock;
    unlock.name = QStringLiteral("unlock");
    unlock.validate = serverNeedsServers;
    unlock.call = [](const ActionContext &c) { return QStringLiteral("RLock.unlock()") + on(c) + onServer(c); };
    unlock.run = [](const ActionContext &c, Done done) {
        rlockFor(c)->unlock(c.step->lock, c.actor->def.threadId, c.receiver, unlocked(done));
    };
    unlock.message = [](const ActionContext &c, const StepOutcome &o) { return unlockMessageWhen(c, o, "released"); };
    unlock.branch = [](const ActionContext &c, const StepOutcome &o) {
        if (c.step->server > 0)
            return serverBranch(c, o);
        const QString &name = c.step->lock;
        const Hold h(c);
        if (o.result == QLatin1String("not_held"))
            return h.existedBefore
                       ? QStringLiteral("unlock: HEXISTS %1 = 0 (held by %2) -> nil = IllegalMonitorStateException")
                             .arg(c.field, StepReport::fieldsText(h.before))
                       : QStringLiteral(
                             "unlock: key absent (expired or deleted) -> nil = IllegalMonitorStateException");
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("unlock: hold count %1 -> %2, PEXPIRE %3 -> 0 = still held, no message")
                .arg(h.countBefore)
                .arg(h.countAfter)
                .arg(c.leaseMs);
        if (o.result == QLatin1String("released"))
            return QStringLiteral("unlock: hold count %1 -> 0 -> DEL %2, PUBLISH %3 0 -> 1 = released")
                .arg(h.countBefore)
                .arg(name, LockNames::unlockChannel(name));
        return QString();
    };
    t << unlock;

    WorkshopAction renew;
    renew.name = QStringLiteral("renew");
    renew.call = [](const ActionContext &c) {
        return QStringLiteral("watchdog renewal (renewExpiration, PEXPIRE %1 ms)").arg(c.leaseMs) + on(c);
    };
    renew.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Lock)
            ->renew(c.step->lock, c.actor->def.threadId, c.leaseMs, c.receiver, [done](bool ok, const QString &error) {
                StepOutcome o;
                o.result = !error.isEmpty() ? QStringLiteral("error")
                           : ok             ? QStringLiteral("renewed")
                                            : QStringLiteral("lost");
                o.error = error;
                o.reply = ok ? QStringLiteral("1") : QStringLiteral("0");
                done(o);
            });
    };
    renew.branch = [](const ActionContext &c, const StepOutcome &o) {
        const QString &name = c.step->lock;
        const Hold h(c);
        return o.result == QLatin1String("renewed")
                   ? QStringLiteral("renewExpiration: HEXISTS %1 = 1 -> PEXPIRE %2 (PTTL %3 -> %4 ms) -> 1 = renewed")
                         .arg(c.field)
                         .arg(c.leaseMs)
                         .arg(StepReport::pttlOf(c.report->before, name))
                         .arg(StepReport::pttlOf(c.report->after, name))
                   : QStringLiteral("renewExpiration: HEXISTS %1 = 0 (%2) -> 0 = the lock is lost, the watchdog stops")
                         .arg(c.field, h.existedBefore
                                           ? QStringLiteral("held by %1").arg(StepReport::fieldsText(h.before))
                                           : QStringLiteral("key absent"));
    };
    t << renew;

    WorkshopAction forceUnlock;
    forceUnlock.name = QStringLiteral("forceUnlock");
    forceUnlock.call = [](const ActionContext &c) { return QStringLiteral("RLock.forceUnlock()") + on(c); };
    forceUnlock.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Lock)->forceUnlock(c.step->lock, c.receiver, [done](bool ok, const QString &error) {
            StepOutcome o;
            o.result = !error.isEmpty() ? QStringLiteral("error")
                       : ok             ? QStringLiteral("deleted")
                                        : QStringLiteral("nothing");
            o.error = error;
            o.reply = ok ? QStringLiteral("1") : QStringLiteral("0");
            done(o);
        });
    };
    forceUnlock.message = [](const ActionContext &c, const StepOutcome &o) {
        return unlockMessageWhen(c, o, "deleted");
    };
    forceUnlock.branch = [](const ActionContext &c, const StepOutcome &o) {
        const QString &name = c.step->lock;
        return o.result == QLatin1String("deleted")
                   ? QStringLiteral("forceUnlock: DEL %1 = 1 (was held by %2), PUBLISH %3 0 -> true")
                         .arg(name, StepReport::fieldsText(StepReport::holdersOf(c.report->before, name)),
                              LockNames::unlockChannel(name))
                   : QStringLiteral("forceUnlock: DEL %1 = 0 (key absent) -> false, no message").arg(name);
    };
    t << forceUnlock;

    WorkshopAction fairLock;
    fairLock.name = QStringLiteral("fairLock");
    fairLock.call = [](const ActionContext &c) {
        return QStringLiteral("RFairLock.lock(%1), one attempt (wait %2 ms)")
                   .arg(leaseText(c))
                   .arg(c.step->waitMs > 0 ? c.step->waitMs : FairLock::kDefaultWaitTimeoutMs) +
               on(c);
    };
    fairLock.run = [](const ActionContext &c, Done done) {
        // One iteration of RedissonFairLock's lock loop: the EVAL_LONG acquire script (§3.2), which
        // enqueues the caller when it cannot take the lock. FairLock::acquire runs the same script
        // in its loop; here the loop is the scenario's steps.
        static const RedisScript script = RedisScript::fromResource(QStringLiteral("fair_acquire"));
        const QString name = c.step->lock;
        const QString field = c.field;
        const qint64 lease = c.leaseMs;
        const qint64 wait = c.step->waitMs > 0 ? c.step->waitMs : FairLock::kDefaultWaitTimeoutMs;
        LockClient *client = c.actor->client;
        script.eval(c.actor->connection,
                    {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()},
                    {QByteArray::number(lease), field.toUtf8(), QByteArray::number(wait),
                     QByteArray::number(QDateTime::currentMSecsSinceEpoch())},
                    c.receiver, [done, client, name, field, lease](const RedisReply &r) {
                        StepOutcome o;
                        if (r.isError()) {
                            o.result = QStringLiteral("error");
                            o.error = r.errorMessage();
                        } else if (r.isNil()) {
                            o.result = QStringLiteral("acquired");
                            o.reply = QStringLiteral("nil");
                            client->noteAcquired(name, field, lease, false);
                        } else {
                            o.result = QStringLiteral("queued"); // refined once the keys after are read
                            o.pttlMs = r.toInteger();
                            o.reply = QString::number(o.pttlMs);
                        }
                        done(o);
                    });
    };
    fairLock.refine = [](const ActionContext &c, StepOutcome &o) {
        // "queued" only when the caller really is in the queue now.
        if (o.result == QLatin1String("queued") &&
            !StepReport::listOf(c.report->after, LockNames::fairQueueKey(c.step->lock)).contains(c.field))
            o.result = QStringLiteral("refused");
    };
    fairLock.branch = fairLockBranch;
    fairLock.waitChannel = waitChannelOf(AcquireKind::Fair);
    t << fairLock;

    WorkshopAction fairUnlock;
    fairUnlock.name = QStringLiteral("fairUnlock");
    fairUnlock.call = [](const ActionContext &c) { return QStringLiteral("RFairLock.unlock()") + on(c); };
    fairUnlock.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Fair)->unlock(c.step->lock, c.actor->def.threadId, c.receiver, unlocked(done));
    };
    fairUnlock.message = [](const ActionContext &c, const StepOutcome &o) -> QPair<QString, QString> {
        if (o.result != QLatin1String("released"))
            return {};
        // The head waiter only: the queue's head after the script, or the one it popped.
        const QString &name = c.step->lock;
        const QStringList queue = StepReport::listOf(c.report->before, LockNames::fairQueueKey(name));
        const QStringList queueAfter = StepReport::listOf(c.report->after, LockNames::fairQueueKey(name));
        const QString head = !queueAfter.isEmpty() ? queueAfter.first() : QString();
        if (head.isEmpty() && queue.isEmpty())
            return {};
        return {FairLock::waiterChannel(name, head.isEmpty() ? queue.first() : head), QStringLiteral("0")};
    };
    fairUnlock.branch = fairUnlockBranch;
    t << fairUnlock;

    WorkshopAction readLock;
    readLock.name = QStringLiteral("readLock");
    readLock.call = [](const ActionContext &c) {
        return QStringLiteral("RReadWriteLock.readLock().lock(%1), one attempt").arg(leaseText(c)) + on(c);
    };
    readLock.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Read)
            ->tryAcquire(c.step->lock, c.actor->def.threadId, c.leaseMs, c.receiver, acquired(done));
    };
    readLock.branch = [](const ActionContext &c, const StepOutcome &o) { return rwLockBranch(c, o, true); };
    readLock.waitChannel = waitChannelOf(AcquireKind::Read);
    t << readLock;

    WorkshopAction readUnlock;
    readUnlock.name = QStringLiteral("readUnlock");
    readUnlock.call = [](const ActionContext &c) {
        return QStringLiteral("RReadWriteLock.readLock().unlock()") + on(c);
    };
    readUnlock.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Read)->unlock(c.step->lock, c.actor->def.threadId, c.receiver, unlocked(done));
    };
    readUnlock.message = [](const ActionContext &c, const StepOutcome &o) -> QPair<QString, QString> {
        if (o.result != QLatin1String("released"))
            return {};
        return {ReadWriteLock::channel(c.step->lock), QStringLiteral("0")};
    };
    readUnlock.branch = [](const ActionContext &c, const StepOutcome &o) {
        const QString &name = c.step->lock;
        const Hold h(c);
        if (o.result == QLatin1String("released"))
            return QStringLiteral("read unlock: HINCRBY %1 -1 = 0, DEL its rwlock_timeout key; no reader left -> DEL "
                                  "%2, PUBLISH %3 0 -> 1 = released")
                .arg(c.field, name, ReadWriteLock::channel(name));
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("read unlock: HINCRBY %1 -1 = %2, DEL its rwlock_timeout key; holders left (%3) -> "
                                  "PEXPIRE to the longest "
                                  "remaining hold -> 0 = still held, no message")
                .arg(c.field)
                .arg(h.countAfter)
                .arg(StepReport::fieldsText(StepReport::holdersOf(c.report->after, name)));
        return QStringLiteral("read unlock: %1 holds no read lock -> nil = IllegalMonitorStateException").arg(c.field);
    };
    t << readUnlock;

    WorkshopAction writeLock;
    writeLock.name = QStringLiteral("writeLock");
    writeLock.call = [](const ActionContext &c) {
        return QStringLiteral("RReadWriteLock.writeLock().lock(%1), one attempt").arg(leaseText(c)) + on(c);
    };
    writeLock.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Write)
            ->tryAcquire(c.step->lock, c.actor->def.threadId, c.leaseMs, c.receiver, acquired(done));
    };
    writeLock.branch = [](const ActionContext &c, const StepOutcome &o) { return rwLockBranch(c, o, false); };
    writeLock.waitChannel = waitChannelOf(AcquireKind::Write);
    writeLock.holderSuffix = QStringLiteral(":write");
    t << writeLock;

    WorkshopAction writeUnlock;
    writeUnlock.name = QStringLiteral("writeUnlock");
    writeUnlock.call = [](const ActionContext &c) {
        return QStringLiteral("RReadWriteLock.writeLock().unlock()") + on(c);
    };
    writeUnlock.run = [](const ActionContext &c, Done done) {
        c.actor->lock(AcquireKind::Write)->unlock(c.step->lock, c.actor->def.threadId, c.receiver, unlocked(done));
    };
    writeUnlock.message = [](const ActionContext &c, const StepOutcome &o) -> QPair<QString, QString> {
        // A downgrade (own read holds left) publishes nothing.
        if (o.result != QLatin1String("released") || c.report->after.contains(c.step->lock))
            return {};
        return {ReadWriteLock::channel(c.step->lock), QStringLiteral("1")};
    };
    writeUnlock.branch = [](const ActionContext &c, const StepOutcome &o) {
        const QString &name = c.step->lock;
        if (o.result == QLatin1String("released"))
            return c.report->after.contains(name)
                       ? QStringLiteral("write unlock: write hold 1 -> 0, own read holds left -> HSET mode read "
                                        "(downgrade), no message -> 1")
                       : QStringLiteral("write unlock: write hold 1 -> 0 -> DEL %1, PUBLISH %2 1 -> 1 = released")
                             .arg(name, ReadWriteLock::channel(name));
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("write unlock: write hold count -1, PEXPIRE %1 -> 0 = still held").arg(c.leaseMs);
        return QStringLiteral("write unlock: %1:write is not a holder -> nil = IllegalMonitorStateException")
            .arg(c.field);
    };
    writeUnlock.holderSuffix = QStringLiteral(":write");
    t << writeUnlock;

    WorkshopAction fencedLock;
    fencedLock.name = QStringLiteral("fencedLock");
    fencedLock.call = [](const ActionContext &c) {
        return QStringLiteral("RFencedLock.lockAndGetToken(%1), one attempt").arg(leaseText(c)) + on(c);
    };
    fencedLock.run = [](const ActionContext &c, Done done) {
        WorkshopActor *a = c.actor;
        a->lock(AcquireKind::Fenced)
            ->tryAcquire(c.step->lock, a->def.threadId, c.leaseMs, c.receiver,
                         acquired([a, done](const StepOutcome &o) {
                             if (o.result == QLatin1String("acquired"))
                                 a->lastToken = o.token; // what its later fencedWrite sends
                             done(o);
                         }));
    };
    fencedLock.branch = [](const ActionContext &c, const StepOutcome &o) { return lockBranch(c, o, Acquire::Fenced); };
    fencedLock.waitChannel = waitChannelOf(AcquireKind::Fenced);
    fencedLock.reportsToken = true;
    t << fencedLock;

    WorkshopAction fencedWrite;
    fencedWrite.name = QStringLiteral("fencedWrite");
    fencedWrite.call = [](const ActionContext &c) {
        return QStringLiteral("write to the protected resource with its fencing token") + on(c);
    };
    fencedWrite.run = [](const ActionContext &c, Done done) {
        static const RedisScript script = RedisScript::fromResource(QStringLiteral("workshop_fenced_write"));
        const qint64 token = c.actor->lastToken;
        script.eval(c.actor->connection, {QStringLiteral("workshop_resource:{%1}").arg(c.step->lock).toUtf8()},
                    {QByteArray::number(token), c.field.toUtf8()}, c.receiver, [done, token](const RedisReply &r) {
                        StepOutcome o;
                        o.token = token;
                        if (r.isError() || !r.isArray() || r.size() < 2) {
                            o.result = QStringLiteral("error");
                            o.error = r.isError() ? r.errorMessage()
                                                  : QStringLiteral("unexpected reply %1").arg(r.debugString());
                        } else {
                            o.result =
                                r.at(0).toInteger() == 1 ? QStringLiteral("accepted") : QStringLiteral("rejected");
                            o.reply = QStringLiteral("{%1, %2}").arg(r.at(0).toInteger()).arg(r.at(1).toInteger());
                            o.pttlMs = r.at(1).toInteger(); // the highest token the resource has seen
                        }
                        done(o);
                    });
    };
    fencedWrite.branch = [](const ActionContext &, const StepOutcome &o) {
        return o.result == QLatin1String("accepted")
                   ? QStringLiteral("resource: token %1 >= highest seen -> HSET highest_token %1 -> {1, %1} = accepted")
                         .arg(o.token)
                   : QStringLiteral(
                         "resource: token %1 < highest seen %2 -> {0, %2} = rejected: a newer holder has written")
                         .arg(o.token)
                         .arg(o.pttlMs);
    };
    fencedWrite.reportsToken = true;
    t << fencedWrite;

    WorkshopAction dropSubscription;
    dropSubscription.name = QStringLiteral("dropSubscription");
    dropSubscription.call = [](const ActionContext &c) {
        return QStringLiteral("pub/sub subscription lost (the unlock message will not reach it)") + on(c);
    };
    dropSubscription.run = [](const ActionContext &c, Done done) {
        WorkshopActor *a = c.actor;
        StepOutcome o;
        QStringList dropped;
        for (const QByteArray &ch : std::as_const(a->waitingOn)) {
            a->client->releaseChannel(ch);
            dropped.append(QString::fromUtf8(ch));
            o.unsubscribed.append(ch);
        }
        a->waitingOn.clear();
        o.result = QStringLiteral("dropped");
        o.reply = dropped.join(QStringLiteral(", "));
        done(o);
    };
    dropSubscription.branch = [](const ActionContext &, const StepOutcome &o) {
        return QStringLiteral(
                   "UNSUBSCRIBE %1: this client no longer hears unlock messages; it will retry only when the TTL it "
                   "read runs out")
            .arg(o.reply.isEmpty() ? QStringLiteral("(nothing subscribed)") : o.reply);
    };
    t << dropSubscription;

    WorkshopAction pause;
    pause.name = QStringLiteral("pause");
    pause.needsActor = false;
    pause.needsLock = false;
    pause.usesLock = false;
    pause.validate = [](const Scenario::Step &st, const Scenario &) {
        return st.ms < 0 ? QStringLiteral("\"pause\" needs \"ms\" (how long time passes)") : QString();
    };
    pause.call = [](const ActionContext &c) {
        return QStringLiteral("pause %1 ms (time passes; no client of this actor runs)").arg(c.step->ms);
    };
    pause.run = [](const ActionContext &c, Done done) {
        QTimer::singleShot(int(c.step->ms), c.receiver, [done] {
            StepOutcome o;
            o.result = QStringLiteral("ok");
            done(o);
        });
    };
    pause.branch = [](const ActionContext &, const StepOutcome &) {
        return QStringLiteral("no Redis call: time passes; PTTLs run down, nothing renews them");
    };
    t << pause;

    WorkshopAction expireWait;
    expireWait.name = QStringLiteral("expireWait");
    expireWait.call = [](const ActionContext &c) {
        return QStringLiteral("wait until the lease expires (at most %1 ms)").arg(c.step->ms > 0 ? c.step->ms : 10000) +
               on(c);
    };
    expireWait.run = [](const ActionContext &c, Done done) {
        RedisConnection *conn = c.connection;
        QObject *receiver = c.receiver;
        const QByteArray key = c.step->lock.toUtf8();
        auto last = std::make_shared<qint64>(-2);
        c.poll(
            [conn, receiver, key, last](std::function<void(bool)> answer) {
                conn->send({"PTTL", key}, receiver, [answer, last](const RedisReply &r) {
                    *last = r.isInteger() ? r.toInteger() : -2;
                    answer(r.isInteger() && r.toInteger() == -2);
                });
            },
            int(c.step->ms > 0 ? c.step->ms : 10000),
            [done, last](bool gone) {
                StepOutcome o;
                o.result = gone ? QStringLiteral("expired") : QStringLiteral("not_expired");
                o.reply = QString::number(*last);
                done(o);
            });
    };
    expireWait.branch = [](const ActionContext &c, const StepOutcome &o) {
        return o.result == QLatin1String("expired")
                   ? QStringLiteral(
                         "no script: the lease ran out and Redis deleted %1 by itself; no unlock message is published")
                         .arg(c.step->lock)
                   : QStringLiteral("the key did not expire within %1 ms (PTTL %2)").arg(c.step->ms).arg(o.reply);
    };
    t << expireWait;

    WorkshopAction doctor;
    doctor.name = QStringLiteral("doctor");
    doctor.needsActor = false;
    doctor.needsLock = false;
    doctor.call = [](const ActionContext &) {
        return QStringLiteral("lockscope doctor: deadlocks in the wait-for graph");
    };
    doctor.run = [](const ActionContext &c, Done done) {
        const QStringList locks = c.step->locks.isEmpty() ? c.scenario->lockNames() : c.step->locks;
        auto *reader = new SnapshotReader(c.connection, c.receiver);
        reader->read(locks, c.receiver, [done, reader](const QVector<LockSnapshot> &snaps, const QString &error) {
            reader->deleteLater();
            QHash<QString, LockSnapshot> byName;
            for (const LockSnapshot &s : snaps)
                byName.insert(s.name, s);
            StepOutcome o;
            o.error = error;
            const QVector<LockFinding> found = LockDoctor::deadlocks(byName);
            for (const LockFinding &f : found)
                o.findings.append(
                    QStringLiteral("%1: %2 (locks %3)").arg(f.code, f.title, f.locks.join(QStringLiteral(", "))));
            o.deadlock = !found.isEmpty();
            o.result = !error.isEmpty() ? QStringLiteral("error")
                       : o.deadlock     ? QStringLiteral("deadlock")
                                        : QStringLiteral("no_deadlock");
            done(o);
        });
    };
    doctor.branch = [](const ActionContext &, const StepOutcome &o) {
        return o.deadlock ? QStringLiteral("snapshot.lua on every lock, then a cycle in the wait-for graph (queued "
                                           "waiter -> holder -> lock it waits for): %1")
                                .arg(o.findings.join(QStringLiteral("; ")))
                          : QStringLiteral("snapshot.lua on every lock: no cycle in the wait-for graph");
    };
    t << doctor;

    WorkshopAction redlock;
    redlock.name = QStringLiteral("redlock");
    redlock.validate = needsServers;
    redlock.call = [](const ActionContext &c) {
        return QStringLiteral("RedissonRedLock.tryLock(waitTime=%1 ms, leaseTime=%2 ms) over %3 independent servers")
                   .arg(qMax<qint64>(0, c.step->waitMs))
                   .arg(qMax<qint64>(0, c.step->leaseMs))
                   .arg(c.scenario->servers) +
               on(c);
    };
    redlock.run = [](const ActionContext &c, Done done) { runRedLock(c, done, true); };
    redlock.branch = [](const ActionContext &, const StepOutcome &o) {
        return QStringLiteral(
                   "the RLock acquire script (§2.2) on each server in turn, each waiting at most max(wait / N, 1) ms "
                   "(§5.4): %1 -> %2 = %3")
            .arg(o.components, o.reply, o.result);
    };
    t << redlock;

    WorkshopAction redlockUnlock;
    redlockUnlock.name = QStringLiteral("redlockUnlock");
    redlockUnlock.validate = needsServers;
    redlockUnlock.call = [](const ActionContext &c) {
        return QStringLiteral("RedissonRedLock.unlock() on every server") + on(c);
    };
    redlockUnlock.run = [](const ActionContext &c, Done done) { runRedLock(c, done, false); };
    redlockUnlock.branch = [](const ActionContext &, const StepOutcome &o) {
        return QStringLiteral("the RLock unlock script (§2.3) on every server: %1 -> %2").arg(o.components, o.reply);
    };
    t << redlockUnlock;

    WorkshopAction stopServer;
    stopServer.name = QStringLiteral("stopServer");
    stopServer.needsActor = false;
    stopServer.needsLock = false;
    stopServer.validate = [](const Scenario::Step &st, const Scenario &s) {
        const QString noServers = needsServers(st, s);
        if (!noServers.isEmpty())
            return noServers;
        return st.server < 1 || st.server > s.servers
                   ? QStringLiteral("\"stopServer\" needs \"server\" from 1 to %1").arg(s.servers)
                   : QString();
    };
    stopServer.call = [](const ActionContext &c) {
        return QStringLiteral("server %1 (%2) stops: a master is lost")
            .arg(c.step->server)
            .arg(c.stage ? c.stage->address(c.step->server - 1) : QString());
    };
    stopServer.run = [](const ActionContext &c, Done done) {
        if (c.stage)
            c.stage->stopServer(c.step->server - 1);
        StepOutcome o;
        o.result = QStringLiteral("stopped");
        done(o);
    };
    stopServer.branch = [](const ActionContext &, const StepOutcome &) {
        return QStringLiteral("no script: the server process stops; its copy of the lock is gone with it, and the "
                              "clients' calls to it fail at once");
    };
    t << stopServer;

    WorkshopAction replicate =
        replicaAction(QStringLiteral("replicate"), QStringLiteral("\"replicate\" needs \"servers\" of 2 or more and "
                                                                  "\"server\" from 2: the replica of server 1"));
    replicate.call = [](const ActionContext &c) {
        return QStringLiteral("server %1 (%2) becomes a replica of server 1 (%3): REPLICAOF")
            .arg(c.step->server)
            .arg(c.stage ? c.stage->address(c.step->server - 1) : QString(), c.stage ? c.stage->address(0) : QString());
    };
    replicate.run = [](const ActionContext &c, Done done) {
        const int index = c.step->server - 1;
        RedisConnection *replica = c.stage ? c.stage->reader(index) : nullptr;
        if (!replica || !c.stage->reader(0)) {
            done(failed(QStringLiteral("server 1 or server %1 is not running").arg(c.step->server)));
            return;
        }
        const QStringList master = c.stage->address(0).split(QLatin1Char(':'));
        c.stage->setReplicaOf(index, 0);
        QObject *receiver = c.receiver;
        // The master sends its data at once rather than after the default 5 s wait for more replicas.
        c.stage->reader(0)->send({"CONFIG", "SET", "repl-diskless-sync-delay", "0"}, receiver,
                                 [](const RedisReply &) {});
        const auto poll = c.poll;
        replica->send(
            {"REPLICAOF", master.value(0).toUtf8(), master.value(1).toUtf8()}, receiver,
            [replica, receiver, poll, done](const RedisReply &r) {
                if (r.isError()) {
                    done(failed(r.errorMessage()));
                    return;
                }
                // Linked once the full synchronisation is done: the replica has the master's data.
                poll(
                    [replica, receiver](std::function<void(bool)> answer) {
                        replica->send({"INFO", "replication"}, receiver, [answer](const RedisReply &info) {
                            answer(infoField(info, QStringLiteral("master_link_status")) == QLatin1String("up"));
                        });
                    },
                    10000,
                    [done](bool up) {
                        done(outcome(up, QStringLiteral("replicating"), QStringLiteral("master_link_status:up"),
                                     QStringLiteral("the replica did not link within 10 s")));
                    });
            });
    };
    replicate.branch = [](const ActionContext &c, const StepOutcome &) {
        return QStringLiteral("REPLICAOF: server %1 copies server 1's data, then receives every write of it "
                              "asynchronously; the master does not wait for it")
            .arg(c.step->server);
    };
    t << replicate;

    // Redisson's checkLockSyncedSlaves (3.17.0+, on by default): the lock write is followed by
    // WAIT <replicas> <slavesSyncTimeout> on the same connection; no replica acknowledged means
    // the lock is released again and the acquire fails (NoSyncedSlavesException).
    WorkshopAction waitReplicas;
    waitReplicas.name = QStringLiteral("waitReplicas");
    waitReplicas.needsLock = false;
    waitReplicas.usesLock = false;
    waitReplicas.validate = [](const Scenario::Step &st, const Scenario &s) {
        const QString noServers = needsServers(st, s);
        if (!noServers.isEmpty())
            return noServers;
        return st.server < 1 ? QStringLiteral("\"waitReplicas\" needs \"server\": the master the actor wrote to")
                             : QString();
    };
    waitReplicas.call = [](const ActionContext &c) {
        return QStringLiteral("WAIT 1 %1 after its lock write%2 (Redisson's checkLockSyncedSlaves, slavesSyncTimeout)")
            .arg(c.step->ms > 0 ? c.step->ms : 1000)
            .arg(onServer(c));
    };
    waitReplicas.run = [](const ActionContext &c, Done done) {
        if (!c.stage || !c.actor) {
            done(failed(QStringLiteral("no stage server")));
            return;
        }
        LockClient *client = c.stage->clientOf(c.actor->def.name, c.step->server - 1);
        const QByteArray timeout = QByteArray::number(c.step->ms > 0 ? c.step->ms : 1000);
        client->connection()->send({"WAIT", "1", timeout}, c.receiver, [done](const RedisReply &r) {
            if (r.isError()) {
                done(failed(r.errorMessage()));
                return;
            }
            StepOutcome o;
            o.granted = int(r.toInteger());
            o.result = o.granted > 0 ? QStringLiteral("synced") : QStringLiteral("not_synced");
            o.reply = QString::number(o.granted);
            done(o);
        });
    };
    waitReplicas.branch = [](const ActionContext &, const StepOutcome &o) {
        return o.granted > 0 ? QStringLiteral("WAIT answered %1: a replica has every write of this connection, the "
                                              "lock included; a failover now keeps it")
                                   .arg(o.granted)
                             : QStringLiteral("WAIT answered 0: no replica acknowledged within the timeout; Redisson "
                                              "would release the lock again and fail the acquire "
                                              "(NoSyncedSlavesException)");
    };
    t << waitReplicas;

    WorkshopAction pauseReplication =
        replicaAction(QStringLiteral("pauseReplication"),
                      QStringLiteral("\"pauseReplication\" needs \"server\": the replica (2 or more)"));
    pauseReplication.call = [](const ActionContext &c) {
        return QStringLiteral("server %1 stops applying the replication stream for %2 ms (CLIENT PAUSE %2 WRITE)")
            .arg(c.step->server)
            .arg(c.step->ms > 0 ? c.step->ms : 60000);
    };
    pauseReplication.run = [](const ActionContext &c, Done done) {
        RedisConnection *replica = stepServerOr(c, done);
        if (!replica)
            return;
        const QByteArray ms = QByteArray::number(c.step->ms > 0 ? c.step->ms : 60000);
        replica->send({"CLIENT", "PAUSE", ms, "WRITE"}, c.receiver, [done](const RedisReply &r) {
            done(outcome(!r.isError(), QStringLiteral("paused"), QStringLiteral("OK"), r.errorMessage()));
        });
    };
    pauseReplication.branch = [](const ActionContext &c, const StepOutcome &) {
        return QStringLiteral("CLIENT PAUSE WRITE on server %1: it still answers reads, but the master's writes wait "
                              "in its buffer, unapplied (a slow or partitioned replica)")
            .arg(c.step->server);
    };
    t << pauseReplication;

    WorkshopAction failover =
        replicaAction(QStringLiteral("failover"),
                      QStringLiteral("\"failover\" needs \"server\": the replica to promote (2 or more)"));
    failover.call = [](const ActionContext &c) {
        return QStringLiteral("the master (server 1) dies; server %1 is promoted (REPLICAOF NO ONE)")
            .arg(c.step->server);
    };
    failover.run = [](const ActionContext &c, Done done) {
        const int index = c.step->server - 1;
        RedisConnection *replica = stepServerOr(c, done);
        if (!replica)
            return;
        const int master = qMax(0, c.stage->replicaOf(index));
        const QString detail = QStringLiteral("master %1 (server %2) died, replica %3 (server %4) promoted")
                                   .arg(c.stage->address(master))
                                   .arg(master + 1)
                                   .arg(c.stage->address(index))
                                   .arg(index + 1);
        c.stage->stopServer(master); // killed: what it had not sent yet is lost with it
        RedLockStage *stage = c.stage;
        // Promoted first, then unpaused: the writes still waiting in its buffer came from a master
        // it no longer follows, and are dropped.
        replica->pipeline(
            {{"REPLICAOF", "NO", "ONE"}, {"CLIENT", "UNPAUSE"}}, c.receiver,
            [done, detail, stage, index](const QVector<RedisReply> &r) {
                const bool ok = r.size() == 2 && !r[0].isError() && !r[1].isError();
                StepOutcome o =
                    outcome(ok, QStringLiteral("promoted"), QStringLiteral("OK"),
                            QStringLiteral("promotion refused: %1").arg(r.isEmpty() ? QString() : r[0].errorMessage()));
                if (ok) {
                    stage->setReplicaOf(index, -1);
                    o.failover = detail;
                }
                done(o);
            });
    };
    failover.branch = [](const ActionContext &c, const StepOutcome &) {
        return QStringLiteral("no lock script: server 1 is killed, server %1 becomes the master with the data it "
                              "had applied; clients now write there")
            .arg(c.step->server);
    };
    t << failover;

    return t;
}

} // namespace

const QVector<WorkshopAction> &WorkshopActions::all()
{
    static const QVector<WorkshopAction> table = makeTable();
    return table;
}

const WorkshopAction *WorkshopActions::find(const QString &name)
{
    for (const WorkshopAction &a : all())
        if (a.name == name)
            return &a;
    return nullptr;
}

QStringList WorkshopActions::names()
{
    QStringList out;
    for (const WorkshopAction &a : all())
        out << a.name;
    return out;
}

} // namespace lockscope
