#pragma once

#include "lockgrouper.h"
#include "prometheuswriter.h"

#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"

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
 *   lockscope_oldest_hold_seconds{group}, lockscope_longest_wait_seconds{group},
 *   lockscope_hold_duration_seconds{group} (histogram), lockscope_wait_duration_seconds{group}
 *   (histogram), lockscope_events_total{group,type}, lockscope_findings{code,severity},
 *   lockscope_finding_info{lock,group,code,severity}, lockscope_redis_commands_sent_total,
 *   lockscope_scan_*, lockscope_lock_groups.
 *
 * Cardinality: groups come from LockGrouper (at most maxGroups + 1 with "(other)"); per group
 * 4 gauges, 6 event types and two histograms (kHoldBuckets, kWaitBuckets); individual lock names
 * only in lockscope_finding_info, at most maxNamedFindings of them (critical first). seriesBound()
 * gives the exact upper bound.
 *
 * Times: hold and wait ages are measured from when LockScope first saw the current holders (or
 * head waiter / subscribed waiters): a hold older than the exporter counts from its start. The
 * duration histograms observe holds whose `acquired` event LockScope saw (released, expired or
 * force_unlocked after it), and fair-lock waiters from `enqueued` to `dequeued`; plain-lock
 * waiters are only counted (Redis has no per-waiter record of them).
 */
class LockMetrics : public QObject
{
    Q_OBJECT
public:
    /** Event types counted in lockscope_events_total. `renewal_lost`: a hold that LockScope had
     *  seen renewed (a watchdog) expired after all: its holder died, paused or lost Redis. */
    static const std::array<const char *, 6> kEventTypes;
    /** Bucket upper bounds (seconds) of the two histograms. */
    static const QVector<double> kHoldBuckets;
    static const QVector<double> kWaitBuckets;
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

    /** The exposition at `nowSteadyMs` (LockSnapshot::steadyNowMs()). `*series` (optional):
     *  the number of sample lines. */
    QByteArray render(PrometheusWriter::Format format, qint64 nowSteadyMs, int *series = nullptr) const;

    /** Upper bound of the sample lines render() writes with `maxGroups` and `maxNamedFindings`. */
    static int seriesBound(int maxGroups, int maxNamedFindings);

    int lockCount() const { return int(m_locks.size()); }
    const LockGrouper &grouper() const { return m_grouper; }

private:
    struct LockState {
        int group = 0;
        LockKind kind = LockKind::Lock;
        bool held = false;
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
        std::array<quint64, 6> events{};
        Histogram hold;
        Histogram wait;
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
    qint64 m_scanned = 0;
    qint64 m_found = 0;
    qint64 m_totalKeys = -1;
    bool m_scanRunning = false;
    qint64 m_scanPasses = 0;
};

} // namespace lockscope
