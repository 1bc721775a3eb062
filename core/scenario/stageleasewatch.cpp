#include "stageleasewatch.h"

#include "protocol/locknames.h"

#include <QDateTime>
#include <QJsonObject>

namespace lockscope
{

namespace
{
/** Steady times must not be 0 (the tracker takes 0 for "never"). */
constexpr qint64 kSteadyOffsetMs = 1000000;
} // namespace

StageLeaseWatch::StageLeaseWatch() : m_epochBaseMs(QDateTime::currentMSecsSinceEpoch())
{
    // The workshop's reads come right after each step: no poll lag to allow for.
    m_tracker.setReadLagMs(0);
}

QStringList StageLeaseWatch::safetyTypes()
{
    return {QStringLiteral("renewal_late"), QStringLiteral("lease_lost"), QStringLiteral("holder_returned"),
            QStringLiteral("lost_in_failover"), QStringLiteral("token_regressed")};
}

LockSnapshot StageLeaseWatch::snapshotOf(const StepReport::Keys &keys, const QString &lock, const QString &key,
                                         qint64 stageMs, qint64 epochBaseMs)
{
    LockSnapshot s;
    s.name = lock;
    s.serverTimeMs = epochBaseMs + stageMs;
    s.readAtSteadyMs = kSteadyOffsetMs + stageMs;
    const auto it = keys.constFind(key);
    if (it != keys.cend() && it->type == QLatin1String("hash")) {
        s.exists = true;
        s.isLock = true;
        s.pttlMs = it->pttlMs;
        const QJsonObject fields = it->value.toObject();
        s.fieldCount = fields.size();
        for (auto f = fields.begin(); f != fields.end(); ++f) {
            if (f.key() == QLatin1String("mode")) {
                s.rwMode = f.value().toString();
                continue;
            }
            LockHolder h;
            h.field = f.key();
            bool write = false;
            LockNames::parseHolderField(f.key(), &h.clientId, &h.threadId, &write);
            // workshop_dump gives numbers, a server's HGETALL strings.
            h.holdCount = f.value().isString() ? f.value().toString().toLongLong() : qint64(f.value().toDouble());
            s.holders << h;
        }
    }
    const auto token = keys.constFind(LockNames::tokenKey(lock));
    if (token != keys.cend()) {
        const QJsonValue v = token->value;
        s.token = v.isString() ? v.toString().toLongLong() : qint64(v.toDouble());
        s.kind = LockKind::FencedLock;
        s.isLock = true;
    }
    return s;
}

QVector<LockEvent> StageLeaseWatch::observe(const StepReport::Keys &keys, const QStringList &locks,
                                            const std::function<QString(const QString &)> &keyOf, qint64 stageMs,
                                            const QString &failover)
{
    const qint64 epochMs = m_epochBaseMs + stageMs;
    const qint64 steadyMs = kSteadyOffsetMs + stageMs;
    QVector<LockEvent> batch;
    if (!failover.isEmpty()) {
        // The locks as they were on the old master: what the new one must still have.
        const QHash<QString, LockSnapshot> before = m_last;
        m_tracker.setLocks([before] { return before; });
        LockEvent f;
        f.timeMs = epochMs;
        f.type = QStringLiteral("failover");
        f.detail = failover;
        batch << f;
    }
    for (const QString &lock : locks) {
        const LockSnapshot now = snapshotOf(keys, lock, keyOf(lock), stageMs, m_epochBaseMs);
        const auto last = m_last.constFind(lock);
        const LockSnapshot *before = last == m_last.cend() ? nullptr : &*last;
        if (before || now.exists) {
            QVector<LockEvent> events = LockEvent::diff(before, now, QString(), false);
            for (LockEvent &e : events)
                e.timeMs = epochMs; // stage time, not the wall clock
            batch << events;
        }
        m_tracker.observe(now);
        m_last.insert(lock, now);
    }
    const QVector<LockEvent> out = m_tracker.process(batch, steadyMs);
    m_tracker.setLocks({});
    return out;
}

} // namespace lockscope
