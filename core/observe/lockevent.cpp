#include "lockevent.h"

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QStringList>

namespace lockscope {

QJsonObject LockEvent::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("time_ms"), timeMs);
    o.insert(QStringLiteral("lock"), lock.isEmpty() ? QJsonValue() : QJsonValue(lock));
    o.insert(QStringLiteral("type"), type);
    o.insert(QStringLiteral("holder"), holder.isEmpty() ? QJsonValue() : QJsonValue(holder));
    o.insert(QStringLiteral("detail"), detail);
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it) {
        if (!o.contains(it.key()))
            o.insert(it.key(), it.value());
    }
    return o;
}

LockEvent LockEvent::fromJson(const QJsonObject &o)
{
    LockEvent e{o.value(QStringLiteral("time_ms")).toInteger(), o.value(QStringLiteral("lock")).toString(),
                o.value(QStringLiteral("type")).toString(), o.value(QStringLiteral("holder")).toString(),
                o.value(QStringLiteral("detail")).toString()};
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        static const QStringList known{QStringLiteral("time_ms"), QStringLiteral("lock"), QStringLiteral("type"),
                                       QStringLiteral("holder"), QStringLiteral("detail")};
        if (!known.contains(it.key()))
            e.extra.insert(it.key(), it.value());
    }
    return e;
}

QVector<LockEvent> LockEvent::diff(const LockSnapshot *before, const LockSnapshot &after,
                                   const QString &keyspaceHint, bool forceUnlocked)
{
    QVector<LockEvent> out;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    auto add = [&](const QString &type, const QString &holder, const QString &detail) {
        out.append(LockEvent{now, after.name, type, holder, detail});
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
                QStringLiteral("hold count %1%2").arg(h.holdCount).arg(h.mode.isEmpty() ? QString()
                                                                                        : QStringLiteral(", ") + h.mode));
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
        if (forceUnlocked)
            add(QStringLiteral("force_unlocked"), it.key(),
                QStringLiteral("deleted by LockScope on request (hold count was %1)").arg(it->holdCount));
        else if (keyspaceHint == QLatin1String("expired")
                 || (keyspaceHint.isEmpty() && before->pttlMs >= 0
                     && before->remainingTtlMs(after.readAtSteadyMs) <= 500))
            add(QStringLiteral("expired"), it.key(),
                QStringLiteral("lease ran out with hold count %1: the holder never released it").arg(it->holdCount));
        else
            add(QStringLiteral("released"), it.key(), QStringLiteral("hold count %1 -> 0").arg(it->holdCount));
    }

    // Renewal: same holders, and the TTL is clearly above what the countdown predicts.
    if (before && after.isRenewalOf(*before))
        add(QStringLiteral("renewed"), after.holders.first().field,
            QStringLiteral("TTL %1 ms -> %2 ms").arg(before->remainingTtlMs(after.readAtSteadyMs)).arg(after.pttlMs));

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
    return out;
}

} // namespace lockscope
