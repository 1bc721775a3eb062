#include "diagnose/exposuretracker.h"

#include <algorithm>

namespace lockscope
{

bool ExposureTracker::withoutReplicas(const QString &master) const
{
    const auto it = m_masters.constFind(master);
    return it != m_masters.cend() && it->replicas.isEmpty() && !m_lastWithReplicasMs.contains(master);
}

void ExposureTracker::wrote(const QString &master, const QString &lock, qint64 steadyMs)
{
    if (withoutReplicas(master))
        return;
    Exposure &e = m_locks[lock];
    e.master = master;
    e.writeSteadyMs = steadyMs;
    e.writeSeen = true;
    e.offset = -1; // the offset of the next reading
    m_pending.insert(lock);
}

void ExposureTracker::seen(const QString &master, const QString &lock, qint64 steadyMs, qint64 pttlMs)
{
    if (withoutReplicas(master))
        return;
    auto it = m_locks.find(lock);
    if (it == m_locks.end()) {
        it = m_locks.insert(lock, Exposure());
        it->master = master;
        it->writeSteadyMs = steadyMs;
        m_pending.insert(lock);
    }
    it->leaseMs = qMax(it->leaseMs, pttlMs);
}

void ExposureTracker::forget(const QString &lock)
{
    m_locks.remove(lock);
    m_pending.remove(lock);
}

QStringList ExposureTracker::exposed() const
{
    QStringList out;
    for (const QString &name : m_pending) {
        const auto it = m_locks.constFind(name);
        if (it != m_locks.cend() && it->verdict == LockSnapshot::Replication::NotReplicated)
            out << name;
    }
    return out;
}

void ExposureTracker::clear()
{
    m_locks.clear();
    m_pending.clear();
    m_masters.clear();
    m_lastWithReplicasMs.clear();
}

QString ExposureTracker::laggingText(const ReplicationInfo &info)
{
    QStringList parts;
    for (const ReplicationInfo::Replica &r : info.replicas)
        parts << QStringLiteral("%1 %2 bytes behind, last acknowledged %3 s ago")
                     .arg(r.address)
                     .arg(qMax<qint64>(0, info.masterOffset - r.offset))
                     .arg(r.lagS);
    return parts.join(QLatin1String("; "));
}

bool ExposureTracker::judge(Exposure &e, const ReplicationInfo &info) const
{
    using R = LockSnapshot::Replication;
    if (e.offset < 0 && e.writeSteadyMs <= info.readAtSteadyMs) {
        e.offset = info.masterOffset;
        e.offsetSteadyMs = info.readAtSteadyMs;
    }
    R verdict = e.verdict;
    QStringList on = e.replicatedOn;
    QString note = e.note;
    const bool hadReplicas = m_lastWithReplicasMs.contains(e.master);
    if (info.replicas.isEmpty() && !hadReplicas) {
        verdict = R::Unknown;
        note = QStringLiteral("the master has no replica: a failover has nothing to promote");
    } else if (info.replicas.isEmpty()) {
        // Its replicas disconnected: what was written since is on none of them (what they had
        // before, they keep).
        if (e.writeSeen && e.writeSteadyMs > m_lastWithReplicasMs.value(e.master)) {
            on.clear();
            verdict = R::NotReplicated;
            note = QStringLiteral("the master %1 has no replica connected any more: writes since are on none")
                       .arg(e.master);
        } else if (!e.writeSeen && e.verdict != R::Replicated) {
            verdict = R::Unknown;
            note = QStringLiteral("the master %1 has no replica connected any more").arg(e.master);
        }
    } else if (e.offset >= 0) {
        on.clear();
        for (const ReplicationInfo::Replica &r : info.replicas)
            if (r.offset >= e.offset)
                on << r.address;
        const bool allSilent = std::all_of(info.replicas.cbegin(), info.replicas.cend(), [](const auto &r) {
            return r.lagS >= kSilentReplicaS || r.state != QLatin1String("online");
        });
        if (!on.isEmpty()) {
            verdict = R::Replicated;
            note.clear();
        } else if (!e.writeSeen) {
            verdict = R::Unknown;
            note = QStringLiteral("written before LockScope watched, and no replica has acknowledged the master's "
                                  "offset since (%1): it may or may not be there")
                       .arg(laggingText(info));
        } else if (allSilent || info.readAtSteadyMs - e.offsetSteadyMs > kAckIntervalMs + kMarginMs) {
            verdict = R::NotReplicated;
            note =
                QStringLiteral("no replica has acknowledged it (master %1 at offset %2, the write at or before %3): %4")
                    .arg(e.master)
                    .arg(info.masterOffset)
                    .arg(e.offset)
                    .arg(laggingText(info));
        } // else: the replicas have not had their second yet; the last verdict stands
    }
    std::sort(on.begin(), on.end());
    const bool changed = verdict != e.verdict || on != e.replicatedOn || (verdict != R::Replicated && note != e.note);
    e.verdict = verdict;
    e.replicatedOn = on;
    e.note = note;
    return changed;
}

QStringList ExposureTracker::absorb(const QString &master, const ReplicationInfo &info)
{
    QStringList changed;
    if (!info.valid)
        return changed;
    m_masters.insert(master, info);
    if (!info.replicas.isEmpty())
        m_lastWithReplicasMs.insert(master, info.readAtSteadyMs);
    else if (!m_lastWithReplicasMs.contains(master)) {
        // Never had a replica: nothing to judge, nothing to keep (200k locks cost nothing here);
        // apply() says "no replica" for its locks.
        const qsizetype before = m_locks.size();
        for (auto it = m_locks.begin(); it != m_locks.end();) {
            if (it->master == master) {
                m_pending.remove(it.key());
                it = m_locks.erase(it);
            } else {
                ++it;
            }
        }
        // The locks seen before this first reading can be 200k: give their table back too (a
        // QHash keeps its capacity after erase()).
        if (m_locks.size() < before) {
            m_locks.squeeze();
            m_pending.squeeze();
        }
        return changed;
    }
    // Only what can change: a lock replicated with no write since stays replicated (200k locks
    // must not cost 200k verdicts a second).
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        const auto e = m_locks.find(*it);
        if (e == m_locks.end()) {
            it = m_pending.erase(it);
            continue;
        }
        if (e->master == master) {
            if (judge(*e, info))
                changed << e.key();
            if (e->verdict == LockSnapshot::Replication::Replicated && e->offset >= 0) {
                it = m_pending.erase(it);
                continue;
            }
        }
        ++it;
    }
    return changed;
}

void ExposureTracker::apply(LockSnapshot &s, const QString &master, qint64 nowSteadyMs) const
{
    if (withoutReplicas(master)) {
        s.replication = LockSnapshot::Replication::Unknown;
        s.replicationNote = QStringLiteral("the master has no replica: a failover has nothing to promote");
        return;
    }
    const auto it = m_locks.constFind(s.name);
    if (it == m_locks.cend() || !s.exists) {
        s.replication = LockSnapshot::Replication::Unknown;
        return;
    }
    s.replication = it->verdict;
    s.replicatedOn = it->replicatedOn;
    s.replicationNote = it->note;
    s.exposureLimitMs = it->leaseMs > 0 ? it->leaseMs / 3 : -1;
    if (it->verdict == LockSnapshot::Replication::NotReplicated) {
        s.exposedSinceSteadyMs = it->writeSteadyMs;
        s.exposedMs = qMax<qint64>(0, nowSteadyMs - it->writeSteadyMs);
    }
}

} // namespace lockscope
