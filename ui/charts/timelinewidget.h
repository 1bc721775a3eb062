#pragma once

#include "charts/historychart.h"
#include "charts/timelinesegments.h"

#include <QPoint>
#include <QPointer>
#include <QStringList>

class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QScrollBar;
class QSortFilterProxyModel;

namespace lockscope
{

/**
 * One swimlane per lock, over time: a bar per hold interval in the holder's colour (the same
 * holder has the same colour in every lane and every run, HolderPalette), split in thinner bars
 * when several holders share a lock (read-write readers), with a cross where a hold expired or
 * was force-unlocked, and the lease-safety marks (TimelineSegments::Mark: lease lost, old holder
 * back with the hatched window in which both holders may have run, lost in a failover); under it, thinner bars for
 * waiters (fair-queue waiters in their own colour, so a waiter that acquires keeps it; other locks' waiting clients,
 * counted from the unlock channel, in grey).
 *
 * Lanes are the locks of the history whose names pass the dashboard's filter, most active first
 * (most holds and waits), at most maxLanes() (100). Mouse: wheel zooms time, drag pans time
 * (and lanes vertically), the scroll bar scrolls lanes; a vertical cursor follows the mouse and
 * says what the lock under it was doing at that instant (HistoryStore::sampleAt); double-click a
 * lane to select its lock.
 */
class TimelineWidget : public HistoryChart
{
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    /** Lanes follow `proxy`'s filter (its filterRegularExpression on lock names); none = all. */
    void setFilterModel(const QSortFilterProxyModel *proxy);
    void setMaxLanes(int lanes);
    int maxLanes() const { return m_maxLanes; }
    /** The lock of each lane, top to bottom. */
    QStringList lanes() const { return m_lanes; }
    /** The bars drawn for `lock`: holds (one per holder per hold interval) or waiters. */
    QVector<TimelineSegments::Segment> segmentsOf(const QString &lock, bool holds = true) const;
    /** The lease-safety marks on `lock`'s lane (lease lost, old holder back, lost in failover). */
    QVector<TimelineSegments::Mark> leaseMarksOf(const QString &lock) const;
    /** The hatched windows on `lock`'s lane where an old and a next holder may both have run. */
    QVector<TimelineSegments::Overlap> overlapsOf(const QString &lock) const;
    /** What `lock` looked like at `timeMs`: holders and hold count, TTL then, waiters. */
    QString stateAt(const QString &lock, qint64 timeMs) const;
    /** Puts the cursor at `timeMs` on the lane of `lock` (as the mouse does); returns its text. */
    QString showCursorAt(qint64 timeMs, const QString &lock);
    /** The text under the chart for the cursor's position, empty when the cursor is hidden. */
    QString cursorText() const;

protected:
    void rebuild() override;
    void tick() override;
    void lockChanged() override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateLaneRange();
    void moveCursor(const QPoint &pixel);
    void placeCursor(double key, int lane, const QPoint *pixel);
    void hideCursor();
    int laneAt(double value) const;

    QCustomPlot *m_plot = nullptr;
    TimelineSegments *m_segments = nullptr;
    QCPItemStraightLine *m_cursor = nullptr;
    QCPItemText *m_cursorTime = nullptr;
    QLabel *m_cursorLabel = nullptr;
    QScrollBar *m_laneScroll = nullptr;
    QPointer<const QSortFilterProxyModel> m_proxy;
    QStringList m_lanes;
    int m_maxLanes = 100;
    int m_matching = 0;  ///< locks passing the filter (may exceed the lanes shown)
    int m_firstLane = 0; ///< top lane shown
    bool m_settingLanes = false;
    bool m_revealLock = false; ///< scroll the selected lock's lane into view at the next rebuild
    bool m_cursorShown = false;
    QPoint m_mouse; ///< last mouse position over the plot, for the cursor while following
};

} // namespace lockscope
