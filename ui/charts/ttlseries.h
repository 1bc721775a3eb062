#pragma once

#include "protocol/lockevent.h"
#include "recording/historystore.h"

#include <QString>
#include <QVector>

#include <qcustomplot.h>

namespace lockscope
{

/**
 * The TTL of one lock over time as TtlChart draws it, computed from HistoryStore readings and the
 * lock's events, without drawing anything (a value type; any thread).
 *
 * Between two readings the TTL counts down from the earlier one (as Redis does); a lock without
 * expiry (PTTL -1) or absent (PTTL -2) is a gap. A hold is "renewed" once its TTL jumps back up
 * by more than kJumpMs with the same holders and hold count, or a `renewed` event falls in it;
 * from then on a watchdog renewing every lease/3 keeps the TTL above renewalLevel() (2/3 of the
 * lease, the largest TTL seen in the hold, protocol §2.6), and a TTL under overdueLevel() means
 * the renewal is overdue: spans records each such stretch.
 */
class TtlSeries
{
public:
    /** A reading above what the previous one's countdown predicts by more than this: TTL pushed back. */
    static constexpr qint64 kJumpMs = 1000;
    /** An event and the reading it came from may be stamped a few ms apart. */
    static constexpr qint64 kEventSlackMs = 500;

    /** Where the TTL fell below the overdue level: from when the renewal was due (epoch ms) until
     *  it came (late) or the hold ended (`expired`). */
    struct Span {
        qint64 fromMs, toMs;
        bool expired;
    };

    /** Where a watchdog renewing every lease/3 keeps the TTL (2/3 of the lease), ms. */
    static qint64 renewalLevel(qint64 leaseMs);
    /** Below this the expected renewal is overdue: the level minus max(1 s, lease/10), ms. */
    static qint64 overdueLevel(qint64 leaseMs);
    /**
     * The store keeps a reading only when something changed, so a renewal that reads the same
     * PTTL as the previous reading leaves no sample: `samples` with a reading put back at each
     * `renewed` event no reading within kEventSlackMs shows ("TTL a ms -> b ms": b, else the
     * largest TTL of that hold). Oldest first, as given.
     */
    static QVector<HistoryStore::Sample> withRenewals(QVector<HistoryStore::Sample> samples,
                                                      const QVector<LockEvent> &events);
    /** The series of `samples` (oldest first, not empty) and the lock's `events` up to `nowMs`
     *  (epoch ms); [fromKey, toKey] (epoch s) is the visible window, for maxVisibleMs. */
    static TtlSeries compute(const QVector<HistoryStore::Sample> &samples, const QVector<LockEvent> &events,
                             qint64 nowMs, double fromKey, double toKey);

    /** The curve: key epoch s, value TTL s, NaN = gap; the last reading's countdown is not in it. */
    QVector<QCPGraphData> points;
    QVector<Span> spans;
    /** The largest TTL read in a segment that is in the visible window, ms. */
    qint64 maxVisibleMs = 0;

    /** The last reading, when the lock was held with a TTL then (for the live countdown). */
    bool haveLast = false;
    qint64 lastTimeMs = 0;
    qint64 lastPttlMs = -2;
    qint64 lastHoldCount = 0;
    QString lastHolders;
    qint64 leaseMs = 0;         ///< largest TTL seen in the last hold
    qint64 levelMs = -1;        ///< overdue level of the last hold, -1 = not a renewed hold
    qint64 lastRenewalMs = -1;  ///< epoch ms of its last renewal, -1 = none seen
    qint64 overdueSinceMs = -1; ///< the renewal missing at the last reading was due then, -1 = none
};

} // namespace lockscope
