#pragma once

#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"

#include <QHash>
#include <QString>
#include <QVector>

#include <deque>
#include <limits>

namespace lockscope
{

/**
 * Bounded history of what the monitor saw, for charts, statistics, post-mortems and replay.
 * No I/O; fed with addSnapshot()/addRemoval()/addEvents() in time order (epoch ms, LockScope's
 * wall clock when the data arrived, or the recorded time when replaying).
 *
 * Memory stays flat: per lock a ring of samples (PTTL, holders, waiters) and of hold/wait
 * intervals, globally a ring of events; everything older than maxAgeMs or beyond the counts is
 * dropped, and locks not seen for maxAgeMs are forgotten (prune(), called by every add*).
 */
class HistoryStore
{
public:
    struct Retention {
        qint64 maxAgeMs = 2 * 3600 * 1000; ///< keep at most two hours
        int maxSamplesPerLock = 3600;      ///< about one per second for an hour
        int maxIntervalsPerLock = 2000;
        int maxEvents = 50000;
        int maxLocks = 5000; ///< beyond this, the least recently seen lock is dropped
    };

    /** One reading of a lock. */
    struct Sample {
        qint64 timeMs = 0;
        qint64 pttlMs = -2; ///< -2 = absent, -1 = no expiry
        QString holders;    ///< LockSnapshot::holderSummary(), empty = free
        qint64 holdCount = 0;
        qint64 waiters = 0; ///< fair: queue length; others: unlock-channel subscribers
    };

    /** A holder holding a lock, or a waiter waiting for one, from startMs to endMs (-1 = still). */
    struct Interval {
        QString lock;
        QString who; ///< holder or waiter field(s)
        qint64 startMs = 0;
        qint64 endMs = -1;
        QString endReason; ///< released, expired, force_unlocked, acquired, gave_up, ...
        qint64 durationMs(qint64 nowMs) const { return (endMs < 0 ? nowMs : endMs) - startMs; }
    };

    struct Stats {
        int holds = 0; ///< completed hold intervals
        qint64 holdMsMedian = 0, holdMsP95 = 0, holdMsMax = 0;
        int waits = 0; ///< completed waits (fair queue and unlock-channel subscribers)
        qint64 waitMsMedian = 0, waitMsP95 = 0, waitMsMax = 0;
        double acquisitionsPerSecond = 0;
        double releasesPerSecond = 0;
        int renewals = 0;
        int expiries = 0;
    };

    /** `Interval::who` of a non-fair waiter known only as an unlock-channel subscriber. */
    static const QString kSubscriberWaiter;

    HistoryStore() = default;
    explicit HistoryStore(const Retention &retention) : m_retention(retention) {}
    void setRetention(const Retention &r) { m_retention = r; }
    const Retention &retention() const { return m_retention; }

    void addSnapshot(const LockSnapshot &snapshot, qint64 timeMs);
    void addRemoval(const QString &name, qint64 timeMs);
    void addEvents(const QVector<LockEvent> &events);
    void clear();

    QStringList lockNames() const;
    /** Samples of `lock` with timeMs in [fromMs, toMs]. */
    QVector<Sample> samples(const QString &lock, qint64 fromMs = 0,
                            qint64 toMs = std::numeric_limits<qint64>::max()) const;
    /** Events of `lock` (all locks when empty) with timeMs in [fromMs, toMs]. */
    QVector<LockEvent> events(const QString &lock = QString(), qint64 fromMs = 0,
                              qint64 toMs = std::numeric_limits<qint64>::max()) const;
    /** Hold intervals overlapping [fromMs, toMs] (all locks when `lock` is empty). */
    QVector<Interval> holds(const QString &lock = QString(), qint64 fromMs = 0,
                            qint64 toMs = std::numeric_limits<qint64>::max()) const;
    /**
     * Wait intervals overlapping [fromMs, toMs]: fair-queue waiters by their field (exact), and
     * for other kinds one interval per unlock-channel subscriber, `who` = kSubscriberWaiter
     * (anonymous, first-come-first-served pairing; see trackSubscriberWaits in the .cpp).
     */
    QVector<Interval> waits(const QString &lock = QString(), qint64 fromMs = 0,
                            qint64 toMs = std::numeric_limits<qint64>::max()) const;
    /** Statistics over locks whose name matches `nameRegex` (all when empty), in [fromMs, toMs]. */
    Stats stats(const QString &nameRegex, qint64 fromMs, qint64 toMs) const;
    /** The last sample of `lock` at or before `timeMs` (state at an instant), timeMs 0 if none. */
    Sample sampleAt(const QString &lock, qint64 timeMs) const;

    qint64 firstTimeMs() const;
    qint64 lastTimeMs() const { return m_lastTimeMs; }
    /** Rough bytes held (strings included): for the memory measurements. */
    qint64 approximateBytes() const;
    int sampleCount() const;
    /** Hold plus wait intervals kept for `lock` (0 when unknown), without copying them: O(1), for
     *  ranking locks by how busy they have been (the timeline's lane order). */
    int intervalCount(const QString &lock) const;
    int eventCount() const { return int(m_events.size()); }

private:
    struct LockHistory {
        std::deque<Sample> samples;
        std::deque<Interval> holds;
        std::deque<Interval> waits;
        QStringList lastWaiters;    ///< fair-queue fields in the previous snapshot
        qint64 lastSubscribers = 0; ///< unlock-channel subscribers in the previous snapshot
        qint64 lastSeenMs = 0;
    };

    void prune(qint64 nowMs);
    QVector<Interval> intervals(const QString &lock, qint64 fromMs, qint64 toMs, bool holdsNotWaits) const;
    void evictLeastRecentlySeen();
    void closeHold(LockHistory &h, qint64 timeMs, const QString &reason);
    static void trackSubscriberWaits(LockHistory &h, const LockSnapshot &s, qint64 timeMs, bool newHolder);

    Retention m_retention;
    QHash<QString, LockHistory> m_locks;
    std::deque<LockEvent> m_events;
    qint64 m_lastTimeMs = 0;
    qint64 m_lastPruneMs = 0;
};

} // namespace lockscope
