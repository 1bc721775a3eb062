#include "protocol/lockevent.h"
#include "redis/redisbytes.h"
#include "text/displaytext.h"

#include <QDateTime>

#include <QHash>
#include <QSet>
#include <QStringList>
#include <algorithm>

namespace lockscope
{

QJsonObject LockEvent::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("time_ms"), timeMs);
    // A name or holder field that is not UTF-8 keeps its exact bytes: DisplayText::insertJson.
    auto text = [&o](const QString &key, const QString &value) {
        if (value.isEmpty())
            o.insert(key, QJsonValue());
        else
            DisplayText::insertJson(o, key, value);
    };
    text(QStringLiteral("lock"), lock);
    o.insert(QStringLiteral("type"), type);
    text(QStringLiteral("holder"), holder);
    o.insert(QStringLiteral("detail"), RedisBytes::displayed(detail));
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it) {
        if (!o.contains(it.key()))
            o.insert(it.key(), it.value());
    }
    return o;
}

LockEvent LockEvent::fromJson(const QJsonObject &o)
{
    LockEvent e{o.value(QStringLiteral("time_ms")).toInteger(), DisplayText::fromJson(o, QStringLiteral("lock")),
                o.value(QStringLiteral("type")).toString(), DisplayText::fromJson(o, QStringLiteral("holder")),
                o.value(QStringLiteral("detail")).toString()};
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        static const QStringList known{QStringLiteral("time_ms"),   QStringLiteral("lock"),
                                       QStringLiteral("type"),      QStringLiteral("holder"),
                                       QStringLiteral("detail"),    QStringLiteral("lock_hex"),
                                       QStringLiteral("holder_hex")};
        if (!known.contains(it.key()))
            e.extra.insert(it.key(), it.value());
    }
    return e;
}

QVector<LockEvent> LockEvent::diff(const LockSnapshot *before, const LockSnapshot &after, const QString &keyspaceHint,
                                   bool forceUnlocked, Removal removal)
{
    QVector<LockEvent> out;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    auto add = [&](const QString &type, const QString &holder, const QString &detail, const QJsonObject &extra = {}) {
        out.append(LockEvent{now, after.name, type, holder, detail, extra});
    };
    const auto removalOf = [](const char *kind) {
        return QJsonObject{{QStringLiteral("removal"), QLatin1String(kind)}};
    };

    QHash<QString, LockHolder> old;
    if (before) {
        for (const auto &h : before->holders)
            old.insert(h.field, h);
    }
    QSet<QString> seen;
    for (const auto &h : after.holders) {
        seen.insert(h.field);
        auto it = old.find(h.field);
        if (it == old.end()) {
            add(QStringLiteral("acquired"), h.field,
                QStringLiteral("hold count %1%2")
                    .arg(h.holdCount)
                    .arg(h.mode.isEmpty() ? QString() : QStringLiteral(", ") + h.mode));
        } else if (h.holdCount > it->holdCount) {
            add(QStringLiteral("reentered"), h.field,
                QStringLiteral("hold count %1 -> %2").arg(it->holdCount).arg(h.holdCount));
        } else if (h.holdCount < it->holdCount) {
            add(QStringLiteral("released"), h.field,
                QStringLiteral("hold count %1 -> %2, still held").arg(it->holdCount).arg(h.holdCount));
        }
    }
    for (auto it = old.cbegin(); it != old.cend(); ++it) {
        if (seen.contains(it.key()))
            continue;
        if (forceUnlocked) {
            add(QStringLiteral("force_unlocked"), it.key(),
                QStringLiteral("deleted by LockScope on request (hold count was %1)").arg(it->holdCount),
                removalOf("lockscope"));
        } else if (removal == Removal::Replica) {
            add(QStringLiteral("removed"), it.key(),
                QStringLiteral("hold count %1 -> 0, seen from a replica: expired, released or force-unlocked, "
                               "LockScope cannot tell (a replica gets its master's expiries as deletions; watch the "
                               "master to know)")
                    .arg(it->holdCount),
                removalOf("replica"));
        } else if (keyspaceHint == QLatin1String("expired") || (keyspaceHint.isEmpty() && before->pttlMs >= 0 &&
                                                                before->remainingTtlMs(after.readAtSteadyMs) <= 500)) {
            add(QStringLiteral("expired"), it.key(),
                QStringLiteral("lease ran out with hold count %1: the holder never released it").arg(it->holdCount));
        } else if (removal == Removal::Unclassified) {
            add(QStringLiteral("released"), it.key(), QStringLiteral("hold count %1 -> 0").arg(it->holdCount));
        } else if (removal == Removal::Unlock) {
            add(QStringLiteral("released"), it.key(),
                QStringLiteral("hold count %1 -> 0: unlock() by its holder (its unlock latch was written with the "
                               "delete)")
                    .arg(it->holdCount),
                removalOf("unlock"));
        } else if (removal == Removal::Forced) {
            QJsonObject extra = removalOf("forced");
            extra.insert(QStringLiteral("victim"), it.key());
            add(QStringLiteral("force_unlocked"), it.key(),
                QStringLiteral("holder %1 was force-unlocked / deleted by another client (hold count was %2): the "
                               "lock was deleted without the unlock latch every unlock() of Redisson 3.24+ writes")
                    .arg(it.key())
                    .arg(it->holdCount),
                extra);
        } else if (after.exists && std::any_of(before->holders.cbegin(), before->holders.cend(),
                                               [&seen](const LockHolder &h) { return seen.contains(h.field); })) {
            // Only this field went and the same hash goes on: an unlock script's HDEL (§4.3, §4.5).
            add(QStringLiteral("released"), it.key(), QStringLiteral("hold count %1 -> 0").arg(it->holdCount),
                removalOf("unlock"));
        } else {
            const QString why = removal == Removal::Polling ? QStringLiteral("LockScope polls and cannot tell")
                                : removal == Removal::NoLatchSeen
                                    ? QStringLiteral("no client here was seen writing an unlock latch (Redisson before "
                                                     "3.24 writes none), so LockScope cannot tell")
                                    : QStringLiteral("no keyspace event showed which");
            add(QStringLiteral("released"), it.key(),
                QStringLiteral("hold count %1 -> 0: released or force-unlocked, unknown: %2")
                    .arg(it->holdCount)
                    .arg(why),
                removalOf("unknown"));
        }
    }

    // Renewal: same holders, and the TTL is clearly above what the countdown predicts.
    // `margin_ms` is the TTL the countdown had left when the renewal was read (what the holder
    // still had in hand), `pttl_ms` the TTL it was pushed back to (the lease, minus the read's
    // delay), `read_gap_ms` the time between the two reads: the renewal came somewhere in it.
    if (before && after.isRenewalOf(*before)) {
        const qint64 margin = before->remainingTtlMs(after.readAtSteadyMs);
        add(QStringLiteral("renewed"), after.holders.first().field,
            QStringLiteral("TTL %1 ms -> %2 ms").arg(margin).arg(after.pttlMs),
            QJsonObject{
                {QStringLiteral("margin_ms"), margin},
                {QStringLiteral("pttl_ms"), after.pttlMs},
                {QStringLiteral("read_gap_ms"), qMax<qint64>(0, after.readAtSteadyMs - before->readAtSteadyMs)}});
    }
    // A fencing token only ever grows (INCR): a lower one means the token key was lost, e.g. a
    // failover to a replica that had not received the last INCRs. A stale holder's token may
    // then be accepted again by the protected resource.
    if (before && before->token >= 0 && after.token >= 0 && after.token < before->token)
        add(QStringLiteral("token_regressed"), after.holders.isEmpty() ? QString() : after.holders.first().field,
            QStringLiteral("fencing token went down from %1 to %2: the token key lost writes (a failover?); a "
                           "resource that compares tokens may accept a stale holder again")
                .arg(before->token)
                .arg(after.token),
            QJsonObject{{QStringLiteral("token_before"), before->token}, {QStringLiteral("token_after"), after.token}});

    QSet<QString> oldWaiters;
    if (before) {
        for (const auto &w : before->waiters)
            oldWaiters.insert(w.field);
    }
    QSet<QString> newWaiters;
    for (const auto &w : after.waiters) {
        newWaiters.insert(w.field);
        if (!oldWaiters.contains(w.field))
            add(QStringLiteral("enqueued"), w.field, QStringLiteral("position %1 in the waiter queue").arg(w.position));
    }
    for (const auto &f : oldWaiters) {
        if (newWaiters.contains(f))
            continue;
        const bool acquired = seen.contains(f) && !old.contains(f);
        add(QStringLiteral("dequeued"), f,
            acquired ? QStringLiteral("left the queue and acquired the lock")
                     : QStringLiteral("left the queue (gave up or pruned)"));
    }
    // Causal order, so a reader never sees a lock acquired before it was released: a hand-over is the old holder's
    // release, then the waiter's leaving the queue, then its acquire; a release never comes after the acquire it
    // allowed.
    std::stable_sort(out.begin(), out.end(),
                     [](const LockEvent &a, const LockEvent &b) { return causalRank(a.type) < causalRank(b.type); });
    return out;
}

int LockEvent::causalRank(const QString &type)
{
    if (type == QLatin1String("released") || type == QLatin1String("expired") || type == QLatin1String("removed") ||
        type == QLatin1String("force_unlocked") || type == QLatin1String("lease_lost") ||
        type == QLatin1String("lost_in_failover"))
        return 0;
    if (type == QLatin1String("unlock_message"))
        return 1;
    if (type == QLatin1String("dequeued"))
        return 2;
    if (type == QLatin1String("acquired") || type == QLatin1String("reentered"))
        return 3;
    return 4; // renewed, enqueued, and what else
}

} // namespace lockscope
