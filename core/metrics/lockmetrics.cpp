#include "lockmetrics.h"

#include "redis/redisconnection.h"
#include "session/locksession.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace lockscope
{

const std::array<const char *, 11> LockMetrics::kEventTypes = {
    "acquired",     "released",   "expired",         "force_unlocked",   "renewed",        "renewal_lost",
    "renewal_late", "lease_lost", "holder_returned", "lost_in_failover", "token_regressed"};
const std::array<const char *, 5> LockMetrics::kLeaseCounters = {"lease_lost", "renewal_late", "holder_returned",
                                                                 "lost_in_failover", "token_regressed"};
const QVector<double> LockMetrics::kHoldBuckets = {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600};
const QVector<double> LockMetrics::kWaitBuckets = {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300};
const QVector<double> LockMetrics::kMarginBuckets = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 30};
const QStringList LockMetrics::kFindingCodes = {QStringLiteral("no_ttl"),
                                                QStringLiteral("watchdog_long"),
                                                QStringLiteral("fair_head_expired"),
                                                QStringLiteral("fair_companions_disagree"),
                                                QStringLiteral("waiters_without_holder"),
                                                QStringLiteral("several_holders"),
                                                QStringLiteral("dead_readers"),
                                                QStringLiteral("lingering_latch"),
                                                QStringLiteral("free_with_queue"),
                                                QStringLiteral("deadlock"),
                                                QStringLiteral("malformed_data"),
                                                QStringLiteral("renewal_late"),
                                                QStringLiteral("lease_lost"),
                                                QStringLiteral("waiters_behind_silent_holder"),
                                                QStringLiteral("lost_in_failover"),
                                                QStringLiteral("token_regressed"),
                                                QStringLiteral("holder_disconnected"),
                                                QStringLiteral("not_replicated")};

namespace
{

constexpr int kTypeRenewalLost = 5;

template <size_t N> int indexIn(const std::array<const char *, N> &names, const QString &type)
{
    for (size_t i = 0; i < N; ++i)
        if (type == QLatin1String(names[i]))
            return int(i);
    return -1;
}

/** Events that end a hold (the holder is gone from the lock). */
bool endsHold(const QString &type)
{
    return type == QLatin1String("released") || type == QLatin1String("expired") ||
           type == QLatin1String("force_unlocked") || type == QLatin1String("lease_lost") ||
           type == QLatin1String("lost_in_failover");
}

QString key(const QString &lock, const QString &field)
{
    return lock + QLatin1Char('\n') + field;
}

const char *severityLabel(LockFinding::Severity s)
{
    return s == LockFinding::Severity::Critical ? "critical" : s == LockFinding::Severity::Warning ? "warning" : "info";
}

} // namespace

void LockMetrics::Histogram::observe(const QVector<double> &bounds, double value)
{
    if (buckets.isEmpty())
        buckets.resize(bounds.size() + 1);
    int i = 0;
    while (i < bounds.size() && value > bounds.at(i))
        ++i;
    ++buckets[i];
    sum += value;
}

LockMetrics::LockMetrics(const LockGrouper &grouper, int maxNamedFindings, QObject *parent)
    : QObject(parent), m_grouper(grouper), m_maxNamedFindings(qMax(0, maxNamedFindings))
{
}

void LockMetrics::attach(LockSession *session)
{
    m_session = session;
    connect(session, &LockSession::locksUpdated, this, &LockMetrics::updateLocks);
    connect(session, &LockSession::eventsOccurred, this, &LockMetrics::addEvents);
    connect(session, &LockSession::findingsUpdated, this, &LockMetrics::setFindings);
    connect(session, &LockSession::discoveryProgress, this, &LockMetrics::setDiscoveryProgress);
    connect(session, &LockSession::replicationRead, this, &LockMetrics::setReplication);
    connect(session, &LockSession::connectionLost, this, [this](const QString &reason) { m_lastError = reason; });
    connect(session, &LockSession::errorOccurred, this, [this](const QString &error) { m_lastError = error; });
    connect(session, &LockSession::connectionReady, this, [this] { m_lastError.clear(); });
}

void LockMetrics::setReplication(const QString &master, const ReplicationInfo &info)
{
    m_replicas.remove(master);
    if (info.replicas.isEmpty())
        return;
    int total = 0;
    for (const auto &replicas : std::as_const(m_replicas))
        total += int(replicas.size());
    QVector<ReplicationInfo::Replica> kept = info.replicas;
    kept.resize(qMin<qsizetype>(kept.size(), qMax(0, kMaxReplicas - total))); // bounded series
    for (ReplicationInfo::Replica &r : kept)                                  // lag in bytes, from the master's offset
        r.offset = info.masterOffset >= 0 && r.offset >= 0 ? qMax<qint64>(0, info.masterOffset - r.offset) : -1;
    m_replicas.insert(master, kept);
}

LockMetrics::GroupData &LockMetrics::groupData(int group)
{
    if (group >= m_groups.size())
        m_groups.resize(group + 1);
    return m_groups[group];
}

void LockMetrics::countEvent(int group, int type)
{
    ++groupData(group).events[size_t(type)];
}

void LockMetrics::updateLocks(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    const qint64 now = LockSnapshot::steadyNowMs();
    for (const QString &name : removed)
        m_locks.remove(name);
    for (const LockSnapshot &s : changed) {
        if (!s.isLock || (!s.exists && s.queueLength == 0 && s.subscribers == 0)) {
            m_locks.remove(s.name);
            continue;
        }
        auto it = m_locks.find(s.name);
        if (it == m_locks.end()) {
            LockState st;
            st.group = m_grouper.groupOf(s.name);
            groupData(st.group);
            it = m_locks.insert(s.name, st);
        }
        LockState &st = it.value();
        st.kind = s.kind;
        st.held = s.isHeld();
        st.unreplicated = st.held && s.replication == LockSnapshot::Replication::NotReplicated;
        const size_t holders = st.held ? qHash(s.holderSummary()) : 0;
        if (!st.held)
            st.heldSinceMs = -1;
        else if (holders != st.holdersHash || st.heldSinceMs < 0)
            st.heldSinceMs = now;
        st.holdersHash = holders;
        // Fair locks: the queue; the others: clients subscribed to the unlock (or rwlock) channel.
        st.waiters = s.kind == LockKind::FairLock || s.queueLength > 0 ? s.queueLength : s.subscribers;
        size_t waitKey = 0;
        if (st.waiters > 0)
            waitKey = s.waiters.isEmpty() ? 1 : qHash(s.waiters.first().field) | 1;
        if (waitKey == 0)
            st.waitSinceMs = -1;
        else if (waitKey != st.waitKey || st.waitSinceMs < 0)
            st.waitSinceMs = now;
        st.waitKey = waitKey;
    }
}

void LockMetrics::addEvents(const QVector<LockEvent> &events)
{
    for (const LockEvent &e : events) {
        if (e.lock.isEmpty())
            continue; // failover: not about one lock
        const int type = indexIn(kEventTypes, e.type);
        const bool waitEvent = e.type == QLatin1String("enqueued") || e.type == QLatin1String("dequeued");
        if (type < 0 && !waitEvent)
            continue;
        const auto known = m_locks.constFind(e.lock);
        const int group = known != m_locks.cend() ? known.value().group : m_grouper.groupOf(e.lock);
        if (e.type == QLatin1String("enqueued")) {
            m_waits[key(e.lock, e.holder)].startMs = e.timeMs;
            continue;
        }
        if (e.type == QLatin1String("dequeued")) {
            const auto w = m_waits.constFind(key(e.lock, e.holder));
            if (w != m_waits.cend()) {
                if (w.value().startMs >= 0)
                    groupData(group).wait.observe(kWaitBuckets, qMax<qint64>(0, e.timeMs - w.value().startMs) / 1000.0);
                m_waits.erase(w);
            }
            continue;
        }
        countEvent(group, type);
        const int lease = indexIn(kLeaseCounters, e.type);
        if (lease >= 0)
            ++groupData(group).lease[size_t(lease)];
        if (e.type == QLatin1String("lease_lost"))
            countEvent(group, kTypeRenewalLost); // the tracker saw it renewed, whether or not we did
        if (e.type == QLatin1String("renewed")) {
            // The TTL left when the renewal came; absent (-1) when the monitor could not tell.
            const qint64 marginMs = e.extra.value(QStringLiteral("margin_ms")).toInteger(-1);
            if (marginMs >= 0)
                groupData(group).margin.observe(kMarginBuckets, marginMs / 1000.0);
        }
        if (e.holder.isEmpty())
            continue;
        const QString k = key(e.lock, e.holder);
        if (e.type == QLatin1String("acquired")) {
            m_holds.insert(k, Start{e.timeMs, false});
        } else if (e.type == QLatin1String("renewed")) {
            m_holds[k].renewed = true;
        } else if (endsHold(e.type)) {
            if (e.detail.endsWith(QLatin1String("still held")))
                continue; // a partial release (hold count down): the hold goes on
            const auto h = m_holds.constFind(k);
            if (h == m_holds.cend())
                continue;
            if (h.value().startMs >= 0)
                groupData(group).hold.observe(kHoldBuckets, qMax<qint64>(0, e.timeMs - h.value().startMs) / 1000.0);
            // An `expired` of a renewed hold that the tracker left as it was: it was blind then.
            if (e.type == QLatin1String("expired") && h.value().renewed)
                countEvent(group, kTypeRenewalLost);
            m_holds.erase(h);
        }
    }
    if (m_holds.size() + m_waits.size() > 2 * m_locks.size() + 10000)
        pruneStarts();
}

void LockMetrics::pruneStarts()
{
    for (QHash<QString, Start> *starts : {&m_holds, &m_waits})
        for (auto it = starts->begin(); it != starts->end();) {
            const QString lock = it.key().left(it.key().lastIndexOf(QLatin1Char('\n')));
            it = m_locks.contains(lock) ? std::next(it) : starts->erase(it);
        }
}

void LockMetrics::setFindings(const QVector<LockFinding> &findings)
{
    m_findings = findings;
}

void LockMetrics::setDiscoveryProgress(qint64 scannedKeys, qint64 locksFound, bool finished, qint64 approxTotalKeys)
{
    if (finished && m_scanRunning)
        ++m_scanPasses;
    m_scanned = scannedKeys;
    m_found = locksFound;
    m_totalKeys = approxTotalKeys;
    m_scanRunning = !finished;
}

int LockMetrics::seriesBound(int maxGroups, int maxNamedFindings)
{
    const int groups = maxGroups + 1; // "(other)"
    const int perGroup = 5 + int(kEventTypes.size()) + int(kLeaseCounters.size()) + (int(kHoldBuckets.size()) + 3) +
                         (int(kWaitBuckets.size()) + 3) + (int(kMarginBuckets.size()) + 3);
    const int fixed = 1 /*build_info*/ + 1 /*up*/ + 4 /*masters{mode}*/ + 1 /*masters_live*/ + 5 /*locks{kind}*/
                      + int(kFindingCodes.size()) * 3 + 1 /*commands*/ + 5 /*scan*/ + 2          /*groups*/
        ;
    return groups * perGroup + fixed + maxNamedFindings;
}

QByteArray LockMetrics::render(PrometheusWriter::Format format, qint64 nowSteadyMs, int *series) const
{
    using Type = PrometheusWriter::Type;
    PrometheusWriter w(format);
    w.setConstantLabels(m_constantLabels);

    w.family("lockscope_build_info", Type::Gauge, "LockScope's version (always 1).");
    w.sample({{"version", QCoreApplication::applicationVersion()}}, 1);

    // The watch state: how many masters are read from, and how.
    int modes[4] = {0, 0, 0, 0}; // WatchMode order: connecting, live, polling, disconnected
    if (m_session) {
        for (const WatchMode mode : m_session->serverModes())
            ++modes[int(mode)];
    }
    const int masters = modes[0] + modes[1] + modes[2] + modes[3];
    const int live = modes[int(WatchMode::Live)] + modes[int(WatchMode::Polling)];
    w.family("lockscope_up", Type::Gauge,
             "1 when LockScope reads every Redis master it watches (live or polling), else 0.");
    const bool up = masters > 0 && live == masters;
    w.sample({}, up ? 1 : 0);
    // Why not: the session's last connection error, while it is not up (one series at most).
    w.family("lockscope_last_error_info", Type::Gauge,
             "1 while lockscope_up is 0, with the last connection error LockScope saw as its reason.");
    if (!up && !m_lastError.isEmpty())
        w.sample({{"reason", m_lastError.left(200)}}, 1);
    w.family("lockscope_masters", Type::Gauge,
             "Redis masters watched, by watch mode (live: keyspace notifications; polling; connecting; disconnected).");
    static const char *const modeNames[4] = {"connecting", "live", "polling", "disconnected"};
    for (int i = 0; i < 4; ++i)
        w.sample({{"mode", QString::fromLatin1(modeNames[i])}}, modes[i]);
    w.family("lockscope_masters_live", Type::Gauge, "Redis masters LockScope reads from now (live or polling).");
    w.sample({}, live);

    // Per lock, then per group.
    struct GroupNow {
        qint64 held = 0;
        qint64 waiters = 0;
        qint64 oldestHoldMs = 0;
        qint64 longestWaitMs = 0;
        qint64 unreplicated = 0;
    };
    QVector<GroupNow> now(m_grouper.groups().size());
    qint64 kinds[5] = {0, 0, 0, 0, 0};
    for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it) {
        const LockState &st = it.value();
        ++kinds[int(st.kind)];
        GroupNow &g = now[st.group];
        if (st.unreplicated)
            ++g.unreplicated;
        if (st.held) {
            ++g.held;
            g.oldestHoldMs = qMax(g.oldestHoldMs, nowSteadyMs - st.heldSinceMs);
        }
        g.waiters += st.waiters;
        if (st.waitSinceMs >= 0)
            g.longestWaitMs = qMax(g.longestWaitMs, nowSteadyMs - st.waitSinceMs);
    }
    w.family("lockscope_locks", Type::Gauge, "Locks LockScope sees, by kind (held or free with waiters).");
    for (LockKind k :
         {LockKind::Lock, LockKind::FairLock, LockKind::ReadWriteLock, LockKind::FencedLock, LockKind::FasterMultiLock})
        w.sample({{"kind", lockKindName(k)}}, double(kinds[int(k)]));

    const QVector<QString> &groups = m_grouper.groups();
    auto perGroup = [&](const char *name, const char *help, const char *unit, auto value) {
        w.family(name, Type::Gauge, help, unit);
        for (int i = 0; i < groups.size(); ++i)
            w.sample({{"group", groups.at(i)}}, value(now.at(i)));
    };
    perGroup("lockscope_held_locks", "Locks held now, by lock group.", nullptr,
             [](const GroupNow &g) { return double(g.held); });
    perGroup("lockscope_locks_unreplicated",
             "Held locks whose last write no replica has acknowledged: a failover now would lose them.", nullptr,
             [](const GroupNow &g) { return double(g.unreplicated); });
    w.family("lockscope_replica_lag_seconds", Type::Gauge,
             "Seconds since each replica last acknowledged its master's replication stream (INFO replication lag).",
             "seconds");
    for (auto it = m_replicas.cbegin(); it != m_replicas.cend(); ++it)
        for (const ReplicationInfo::Replica &r : it.value())
            if (r.lagS >= 0)
                w.sample({{"master", it.key()}, {"replica", r.address}}, double(r.lagS));
    w.family("lockscope_replica_lag_bytes", Type::Gauge,
             "Bytes of the master's replication stream each replica has not acknowledged yet.", "bytes");
    for (auto it = m_replicas.cbegin(); it != m_replicas.cend(); ++it)
        for (const ReplicationInfo::Replica &r : it.value())
            if (r.offset >= 0)
                w.sample({{"master", it.key()}, {"replica", r.address}}, double(r.offset));
    perGroup("lockscope_waiters",
             "Clients waiting now (fair-queue entries, or clients subscribed to the unlock channel).", nullptr,
             [](const GroupNow &g) { return double(g.waiters); });
    perGroup("lockscope_oldest_hold_seconds",
             "Age of the oldest hold in the group: since LockScope first saw its current holders.", "seconds",
             [](const GroupNow &g) { return g.oldestHoldMs / 1000.0; });
    perGroup("lockscope_longest_wait_seconds",
             "Longest wait in the group: since LockScope first saw the head waiter (fair) or subscribed waiters.",
             "seconds", [](const GroupNow &g) { return g.longestWaitMs / 1000.0; });

    // One histogram per group, in seconds; a group with nothing observed yet has all-zero buckets.
    auto histograms = [&](const char *name, const char *help, const QVector<double> &bounds,
                          Histogram GroupData::*member) {
        w.family(name, Type::Histogram, help, "seconds");
        const Histogram empty{QVector<quint64>(bounds.size() + 1), 0};
        for (int i = 0; i < groups.size(); ++i) {
            const Histogram *h = i < m_groups.size() ? &(m_groups.at(i).*member) : &empty;
            if (h->buckets.isEmpty())
                h = &empty;
            w.histogram({{"group", groups.at(i)}}, bounds, h->buckets, h->sum);
        }
    };
    histograms("lockscope_hold_duration_seconds",
               "Duration of holds that ended (released, expired, force-unlocked, lease lost, lost in a failover) "
               "and whose acquire LockScope saw.",
               kHoldBuckets, &GroupData::hold);
    histograms("lockscope_wait_duration_seconds", "Time fair-lock waiters spent queued (enqueued to dequeued).",
               kWaitBuckets, &GroupData::wait);
    w.family(
        "lockscope_events_total", Type::Counter,
        "Lock events seen, by group and type (acquired, released, expired: a lease ran out (a lost one is lease_lost), "
        "force_unlocked, renewed: a watchdog or renew pushed the TTL back, renewal_lost: a renewed hold ran out "
        "after all, renewal_late, lease_lost, holder_returned, lost_in_failover, token_regressed: see their own "
        "counters).");
    for (int i = 0; i < groups.size(); ++i)
        for (size_t t = 0; t < kEventTypes.size(); ++t)
            w.sample({{"group", groups.at(i)}, {"type", QString::fromLatin1(kEventTypes[t])}},
                     i < m_groups.size() ? double(m_groups.at(i).events[t]) : 0);

    // Lease safety: when mutual exclusion was at risk.
    static const char *const leaseHelp[kLeaseCounters.size()] = {
        "Leases lost: a lock LockScope saw renewed by a watchdog ran out; its holder stalled (GC pause, frozen "
        "host, partition) and may still run its critical section, or died.",
        "Late renewals: a watchdog renewal came with less than half of the lease left (the watchdog renews "
        "at lease/3).",
        "Holders of a lost lease seen again (renewing, acquiring, waiting): they were stalled, not dead, and may "
        "have run their critical section while the next holder ran its own.",
        "Locks held on a Redis master before a failover (Sentinel, cluster) and missing on the new master with no "
        "release seen: asynchronous replication lost them.",
        "Fenced locks whose token went down: a holder can get a token lower than one already handed out."};
    for (size_t c = 0; c < kLeaseCounters.size(); ++c) {
        const QByteArray name = QByteArray("lockscope_") + kLeaseCounters[c] + "_total";
        w.family(name.constData(), Type::Counter, leaseHelp[c]);
        for (int i = 0; i < groups.size(); ++i)
            w.sample({{"group", groups.at(i)}}, i < m_groups.size() ? double(m_groups.at(i).lease[c]) : 0);
    }
    histograms("lockscope_renewal_margin_seconds",
               "TTL a lock had left when its renewal (watchdog) came: about 2/3 of the lease when on time; near 0, "
               "the lease almost ran out.",
               kMarginBuckets, &GroupData::margin);

    // Doctor findings: counts for every code and severity, names for the worst few.
    QHash<QString, std::array<int, 3>> findingCounts;
    for (const QString &code : kFindingCodes)
        findingCounts.insert(code, {0, 0, 0});
    for (const LockFinding &f : m_findings)
        ++findingCounts[f.code][size_t(f.severity)];
    QStringList codes = findingCounts.keys();
    std::sort(codes.begin(), codes.end());
    w.family("lockscope_findings", Type::Gauge, "Current findings of the stuck-lock doctor, by code and severity.");
    for (const QString &code : codes)
        for (int s = 0; s < 3; ++s)
            w.sample({{"code", code}, {"severity", QString::fromLatin1(severityLabel(LockFinding::Severity(s)))}},
                     findingCounts.value(code)[size_t(s)]);
    w.family("lockscope_finding_info", Type::Gauge,
             "Locks with a doctor finding (1), the most severe first, at most --max-named-findings of them.");
    // diagnose() sorts by severity (critical first), then lock name.
    for (int i = 0; i < qMin(int(m_findings.size()), m_maxNamedFindings); ++i) {
        const LockFinding &f = m_findings.at(i);
        const auto known = m_locks.constFind(f.lock);
        const QString group = known != m_locks.cend() ? groups.at(known.value().group) : m_grouper.ruleGroup(f.lock);
        w.sample({{"lock", f.lock},
                  {"group", group},
                  {"code", f.code},
                  {"severity", QString::fromLatin1(severityLabel(f.severity))}},
                 1);
    }

    // LockScope's own load and progress.
    w.family("lockscope_redis_commands_sent_total", Type::Counter,
             "Commands this process sent to Redis (a script call counts once); rate() gives its commands/s.");
    w.sample({}, double(RedisConnection::totalCommandsSent()));
    w.family("lockscope_scan_scanned_keys", Type::Gauge, "Keys the current (or last) discovery pass has scanned.");
    w.sample({}, double(m_scanned));
    w.family("lockscope_scan_keys", Type::Gauge, "Keys in the database(s) when the pass started (DBSIZE; -1 unknown).");
    w.sample({}, double(m_totalKeys));
    w.family("lockscope_scan_locks_found", Type::Gauge, "Locks the current (or last) discovery pass found.");
    w.sample({}, double(m_found));
    w.family("lockscope_scan_running", Type::Gauge, "1 while a discovery pass (SCAN) runs.");
    w.sample({}, m_scanRunning ? 1 : 0);
    w.family("lockscope_scan_passes_total", Type::Counter, "Discovery passes completed.");
    w.sample({}, double(m_scanPasses));
    w.family("lockscope_lock_groups", Type::Gauge, "Lock groups in use (the group label's values).");
    w.sample({}, double(groups.size()));
    w.family("lockscope_lock_groups_max", Type::Gauge,
             "--max-groups: groups beyond it are merged into the group \"(other)\".");
    w.sample({}, m_grouper.maxGroups());

    if (series)
        *series = w.sampleCount();
    return w.finish();
}

} // namespace lockscope
