#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include <qcustomplot.h>

namespace lockscope
{

/**
 * A QCustomPlot plottable for the timeline: coloured horizontal bars in lanes (lane i is centred
 * on value i of the value axis). One plottable draws every bar, instead of one QCPItemRect per
 * hold, so 100 lanes with thousands of holds stay cheap: bars outside the visible key range or
 * lanes are skipped, and per lane row at most one bar per pixel column is painted (a bar fully
 * inside pixels already painted in its row is dropped). Over the bars, the lease-safety marks
 * and overlap windows (setLeaseMarks). Not selectable.
 */
class TimelineSegments : public QCPAbstractPlottable
{
public:
    struct Segment {
        int lane = 0;
        double startKey = 0;
        double endKey = 0; ///< NaN: still going, drawn up to nowKey()
        float top = -0.4f; ///< offsets from the lane centre in lane units (value axis)
        float bottom = 0.1f;
        QColor color;
        QString who;        ///< holder or waiter field (for tests and tooltips)
        QString label;      ///< drawn inside the bar when it is wide enough
        quint8 endMark = 0; ///< 1 = expired, 2 = force-unlocked: a mark at the end
        bool isHold = true; ///< false: a waiter bar
    };

    /** A lease-safety mark on a lane, at an instant. */
    struct Mark {
        enum Kind : quint8 {
            LeaseLost = 1,      ///< red disc with a white cross: the holder stopped renewing, the lease ran out
            HolderReturned = 2, ///< dark red square with a white plus: the old holder was seen again
            LostInFailover = 3, ///< purple square with a white cross: a failover lost the lock
        };
        int lane = 0;
        double key = 0;
        Kind kind = LeaseLost;
    };
    /** Where the old and the next holder of a lost lease may both have run (hatched red). */
    struct Overlap {
        int lane = 0;
        double fromKey = 0;
        double toKey = 0;
    };

    TimelineSegments(QCPAxis *keyAxis, QCPAxis *valueAxis);

    /** Replaces the bars (sorted here by lane, row and start). */
    void setSegments(QVector<Segment> segments);
    const QVector<Segment> &segments() const { return m_segments; }
    void setLaneCount(int lanes) { m_lanes = lanes; }
    /** Lease-safety marks and overlap windows, drawn over the bars. */
    void setLeaseMarks(QVector<Mark> marks, QVector<Overlap> overlaps)
    {
        m_marks = std::move(marks);
        m_overlaps = std::move(overlaps);
    }
    const QVector<Mark> &marks() const { return m_marks; }
    const QVector<Overlap> &overlaps() const { return m_overlaps; }
    /** Where open bars end (epoch s), moved every frame. */
    void setNowKey(double key) { m_nowKey = key; }
    double nowKey() const { return m_nowKey; }
    /** Lane drawn with a highlighted background (the selected lock); -1 = none. */
    void setHighlightedLane(int lane) { m_highlight = lane; }

    double selectTest(const QPointF &pos, bool onlySelectable, QVariant *details = nullptr) const override;
    QCPRange getKeyRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange &inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter *painter) override;
    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override;

private:
    void drawLeaseMarks(QCPPainter *painter, int firstLane, int lastLane) const;

    QVector<Segment> m_segments;
    QVector<Mark> m_marks;
    QVector<Overlap> m_overlaps;
    int m_lanes = 0;
    int m_highlight = -1;
    double m_nowKey = 0;
};

} // namespace lockscope
