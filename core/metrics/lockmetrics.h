#pragma once

#include "lockgrouper.h"
#include "prometheuswriter.h"

#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"
#include "protocol/replicationinfo.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QVector>

#include <array>

namespace lockscope
{

class LockSession;

/**
 * What `lockscope-cli serve` exports: the watcher's locks, events and doctor findings turned
 * into Prometheus metric families (all `lockscope_`, base units, counters `_total`), rendered by
 * PrometheusWriter. No I/O of its own: feed it with the update functions, or attach() a
 * LockSession (read-only) whose signals feed it and whose monitors report the watch state.
 *
 * Families (README "Monitoring" has the table):
 *   lockscope_build_info{version}, lockscope_up, lockscope_masters{mode}, lockscope_masters_live,
 *   lockscope_locks{kind}, lockscope_held_locks{group}, lockscope_waiters{group},
 *   lockscope_oldest_hold_seconds{group}, lockscope_locks_unreplicated{group} (held locks no replica has:
 *   ExposureTracker), lockscope_replica_lag_seconds{master,replica} and _bytes, lockscope_longest_wait_seconds{group},
 *   lockscope_hold_duration_seconds{group} (histogram), lockscope_wait_duration_seconds{group}
 *   (histogram), lockscope_events_total{group,type}, the lease-safety counters
 *   lockscope_{lease_lost,renewal_late,holder_returned,lost_in_failover,token_regressed}_total{group}
 *   and lockscope_renewal_margin_seconds{group} (histogram), lockscope_findings{code,severity},
 *   lockscope_finding_info{lock,group,code,severity}, lockscope_redis_commands_sent_total,
 *   lockscope_scan_*, lockscope_lock_groups.
 *
 * Cardinality: groups come from LockGrouper (at most maxGroups + 1 with "(other)"); per group
 * 5 gauges, kEventTypes.size() event types, kLeaseCounters.size() lease-safety counters and three
 * histograms (kHoldBuckets, kWaitBuckets, kMarginBuckets); individual lock names only in
 * lockscope_finding_info, at most maxNamedFindings of them (critical first). seriesBound() gives
 * the exact upper bound: render() writes that many lines once every group and named finding is
 * in use.
 *
 * Times: hold and wait ages are measured from when LockScope first saw the current holders (or
 * head waiter / subscribed waiters): a hold older than the exporter counts from its start. The
 * duration histograms observe holds whose `acquired` event LockScope saw (released, expired,
 * force_unlocked, lease_lost or lost_in_failover after it), and fair-lock waiters from `enqueued`
 * to `dequeued`; plain-lock waiters are only counted (Redis has no per-waiter record of them).
 *
 * Lease safety (the session's LeaseTracker events): each of lease_lost, renewal_late,
 * holder_returned, lost_in_failover and token_regressed counts in its own counter and in
 * lockscope_events_total; the margin_ms of every `renewed` event (the TTL left when the renewal
 * came) is observed by lockscope_renewal_margin_seconds.
 */
class LockMetrics : public QObject
{
    Q_OBJECT
public:
    /** Event types counted in lockscope_events_total: the monitor's (acquired ... renewed), the
     *  lease-safety events (renewal_late ... token_regressed), and `renewal_lost`, which is no
     *  event of its own: a hold that LockScope had seen renewed (a watchdog) ran out after all,
     *  that is every `lease_lost`, plus an `expired` of a renewed hold while LockScope was
     *  disconnected (the tracker then cannot tell and leaves it `expired`). */
    static const std::array<const char *, 11> kEventTypes;
    /** The lease-safety events that also have a counter of their own, lockscope_<type>_total. */
    static const std::array<const char *, 5> kLeaseCounters;
    /** Bucket upper bounds (seconds) of the histograms. */
    static const QVector<double> kHoldBuckets;
    static const QVector<double> kWaitBuckets;
    /** Of lockscope_renewal_margin_seconds, for watchdog leases of 1 to 60 s (the watchdog renews
     *  at lease/3, so an on-time renewal leaves 2/3 of the lease; the tracker calls it late below
     *  lease/2 and the doctor warns below lease/3): 0.5, 5, 15, 30 are half of a 1, 10, 30 (Redisson's
     *  default) and 60 s lease, 0.25, 2.5, 10, 20 about a third of them; 0.1 is a renewal that came
     *  with almost nothing left whatever the lease. */
    static const QVector<double> kMarginBuckets;
    /** Replicas with lag series (lockscope_replica_lag_seconds, _bytes), over every master. */
    static constexpr int kMaxReplicas = 64;
    /** Series of the server's state on top of seriesBound(): two per replica, one last error. */
    static constexpr int kStateSeries = 2 * kMaxReplicas + 1;
    /** Finding codes always exported (zero when absent), LockDoctor's list. */
    static const QStringList kFindingCodes;
    static constexpr int kDefaultMaxNamedFindings = 20;

    LockMetrics(const LockGrouper &grouper, int maxNamedFindings = kDefaultMaxNamedFindings, QObject *parent = nullptr);

    /** Feeds from `session` (locksUpdated, eventsOccurred, findingsUpdated, discoveryProgress)
     *  and reads its watch state at render time. The session is only read. */
    void attach(LockSession *session);

    void updateLocks(const QVector<LockSnapshot> &changed, const QStringList &removed);
    void addEvents(const QVector<LockEvent> &events);
    void setFindings(const QVector<LockFinding> &findings);
    void setDiscoveryProgress(qint64 scannedKeys, qint64 locksFound, bool finished, qint64 approxTotalKeys);
    /** Labels written on every series (a fleet target's labels from the targets file). */
    void setConstantLabels(const QVector<QPair<QByteArray, QString>> &labels) { m_constantLabels = labels; }
    /** A master's INFO replication (LockSession::replicationRead): its replicas' lag gauges, at
     *  most kMaxReplicas replicas in all. */
    void setReplication(const QString &master, const ReplicationInfo &info);

    /** The exposition at `nowSteadyMs` (LockSnapshot::steadyNowMs()). `*series` (optional):
     *  the number of sample lines. */
    QByteArray render(PrometheusWriter::Format format, qint64 nowSteadyMs, int *series = nullptr) const;

    /** Upper bound of the sample lines render() writes with `maxGroups` and `maxNamedFindings`
     *  for the locks (reached once every group and named finding is in use); the server's state
     *  adds at most kStateSeries (replica lag series and lockscope_last_error_info). */
    static int seriesBound(int maxGroups, int maxNamedFindings);

    int lockCount() const { return int(m_locks.size()); }
    const LockGrouper &grouper() const { return m_grouper; }

private:
    struct LockState {
        int group = 0;
        LockKind kind = LockKind::Lock;
        bool held = false;
        bool unreplicated = false; ///< held, and no replica has its last write
        qint64 waiters = 0;
        size_t holdersHash = 0;
        qint64 heldSinceMs = -1; ///< steady ms
        size_t waitKey = 0;      ///< head waiter (fair) or "subscribers > 0"
        qint64 waitSinceMs = -1; ///< steady ms, -1 = nobody waits
    };
    struct Histogram {
        QVector<quint64> buckets;
        double sum = 0;
        void observe(const QVector<double> &bounds, double value);
    };
    struct GroupData {
        std::array<quint64, kEventTypes.size()> events{};
        std::array<quint64, kLeaseCounters.size()> lease{};
        Histogram hold;
        Histogram wait;
        Histogram margin;
    };
    struct Start {
        qint64 startMs = -1; ///< wall ms of `acquired` / `enqueued`; -1 unknown
        bool renewed = false;
    };

    GroupData &groupData(int group);
    void countEvent(int group, int type);
    /** Drops hold and wait starts of locks no longer known (bounded memory). */
    void pruneStarts();

    LockGrouper m_grouper;
    int m_maxNamedFindings;
    QPointer<LockSession> m_session;
    QHash<QString, LockState> m_locks;
    QVector<GroupData> m_groups;
    QHash<QString, Start> m_holds; ///< "lock\nholder"
    QHash<QString, Start> m_waits; ///< "lock\nwaiter field"
    QVector<LockFinding> m_findings;
    /** By master: its replicas, `offset` holding the lag in bytes (-1 unknown). */
    QHash<QString, QVector<ReplicationInfo::Replica>> m_replicas;
    QVector<QPair<QByteArray, QString>> m_constantLabels;
    QString m_lastError; ///< the session's last connection error (lockscope_last_error_info)
    qint64 m_scanned = 0;
    qint64 m_found = 0;
    qint64 m_totalKeys = -1;
    bool m_scanRunning = false;
    qint64 m_scanPasses = 0;
};

} // namespace lockscope
