#pragma once

#include "charts/historychart.h"

#include <QHash>
#include <QVector>

class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;

namespace lockscope
{

/**
 * PTTL of one lock over time (HistoryStore samples), in seconds. Between two readings the TTL is
 * drawn counting down from the earlier one (as Redis does), so a watchdog lock shows its
 * saw-tooth: 30 s down to 20 s, back to 30 s at each renewal (every lease/3, protocol §2.6). The
 * end from the last reading to now is extrapolated live at every frame.
 *
 * Markers (from the lock's events): acquired, reentered, renewed, released, expired,
 * force_unlocked, and the lease-safety ones (in the legend only while one is in view): an orange
 * ring around a late renewal (renewal_late), a red crossed circle where a lease was lost
 * (lease_lost, at 0 like an expiry), a red plus-square where its old holder came back
 * (holder_returned) and a purple crossed square for a lock lost in a failover. The window in which
 * the old and the next holder may both have run the critical section (holder_returned's overlap)
 * is hatched red. A lock without expiry (PTTL -1) and an absent lock (PTTL -2) leave gaps.
 *
 * Missing-renewal warning: once a hold has been seen renewed (a TTL jump with the same holders
 * and hold count, or a `renewed` event), a renewal every lease/3 keeps its TTL above 2/3 of the
 * largest TTL seen in that hold (the lease). When the TTL falls below that level minus a margin
 * (max(1 s, lease/10)), the time from there on is banded (red while it lasts and when it ended
 * in expiry, orange when the renewal came late) and, while the lock is still held, a red label
 * says the expected renewal did not come and when the lock will expire.
 *
 * The curve, the renewal level and the overdue stretches are computed by TtlSeries; this class
 * draws them and counts the last reading down live.
 */
class TtlChart : public HistoryChart
{
    Q_OBJECT
public:
    explicit TtlChart(QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    /** The PTTL curve (key epoch s, value s; NaN = gap), history part, downsampled. */
    QCPGraph *ttlGraph() const { return m_ttl; }
    /** The live part: last reading counted down to now (two points, or none). */
    QCPGraph *liveGraph() const { return m_live; }
    /** Markers of one event type ("renewed", ...); nullptr for a type not drawn. */
    QCPGraph *markerGraph(const QString &eventType) const { return m_markers.value(eventType); }
    /** True while the missing-renewal warning is shown for the current hold. */
    bool renewalOverdue() const { return m_overdue; }
    /** The warning's sentence, empty when there is none. */
    QString warningText() const;
    /** Bands drawn where the TTL fell below the renewal level (late renewals, expiries, live). */
    int overdueBandCount() const { return int(m_bands.size()) - m_overlapBands + (m_liveBand ? 1 : 0); }
    /** Hatched bands drawn where an old and a next holder may both have run (holder_returned). */
    int overlapBandCount() const { return m_overlapBands; }
    /** Level a renewal every lease/3 keeps the TTL above, minus the margin, ms; -1 when the
     *  current hold has not been seen renewed. */
    qint64 renewalLevelMs() const { return m_levelMs; }

protected:
    void rebuild() override;
    void tick() override;

private:
    void clearItems();
    void updateLive();

    QCustomPlot *m_plot = nullptr;
    QCPGraph *m_ttl = nullptr;
    QCPGraph *m_fill = nullptr; ///< the area under m_ttl, gaps filled with 0
    QCPGraph *m_live = nullptr;
    QHash<QString, QCPGraph *> m_markers;
    QVector<QCPItemRect *> m_bands;
    QCPItemRect *m_liveBand = nullptr;
    int m_overlapBands = 0; ///< of m_bands, the overlap windows (drawn after the overdue bands)
    QCPItemStraightLine *m_levelLine = nullptr;
    QCPItemText *m_levelText = nullptr;
    QCPItemText *m_warning = nullptr;
    QCPItemText *m_note = nullptr;

    // State of the last reading, for the live countdown and the warning between rebuilds.
    bool m_haveLast = false;
    qint64 m_lastTimeMs = 0;
    qint64 m_lastPttlMs = -2;
    qint64 m_lastHoldCount = 0;
    QString m_lastHolders;
    qint64 m_levelMs = -1; ///< renewal level of the current hold, -1 = not a renewed hold
    qint64 m_leaseMs = 0;  ///< largest TTL seen in the current hold
    qint64 m_lastRenewalMs = -1;
    qint64 m_overdueSinceMs = -1; ///< the renewal missing at the last reading was due then, -1 = none
    bool m_overdue = false;
};

} // namespace lockscope
