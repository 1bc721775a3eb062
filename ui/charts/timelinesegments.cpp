#include "charts/timelinesegments.h"

#include <QApplication>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace lockscope
{

TimelineSegments::TimelineSegments(QCPAxis *keyAxis, QCPAxis *valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stNone);
    setAntialiasedFill(false);
}

void TimelineSegments::setSegments(QVector<Segment> segments)
{
    std::sort(segments.begin(), segments.end(), [](const Segment &a, const Segment &b) {
        if (a.lane != b.lane)
            return a.lane < b.lane;
        if (a.top != b.top)
            return a.top < b.top;
        return a.startKey < b.startKey;
    });
    m_segments = std::move(segments);
}

double TimelineSegments::selectTest(const QPointF &pos, bool onlySelectable, QVariant *details) const
{
    Q_UNUSED(pos);
    Q_UNUSED(onlySelectable);
    Q_UNUSED(details);
    return -1;
}

QCPRange TimelineSegments::getKeyRange(bool &foundRange, QCP::SignDomain inSignDomain) const
{
    Q_UNUSED(inSignDomain);
    foundRange = !m_segments.isEmpty();
    QCPRange r(m_nowKey, m_nowKey);
    for (const Segment &s : m_segments) {
        r.lower = std::min(r.lower, s.startKey);
        r.upper = std::max(r.upper, std::isnan(s.endKey) ? m_nowKey : s.endKey);
    }
    return r;
}

QCPRange TimelineSegments::getValueRange(bool &foundRange, QCP::SignDomain inSignDomain,
                                         const QCPRange &inKeyRange) const
{
    Q_UNUSED(inSignDomain);
    Q_UNUSED(inKeyRange);
    foundRange = m_lanes > 0;
    return QCPRange(-0.5, m_lanes - 0.5);
}

void TimelineSegments::draw(QCPPainter *painter)
{
    QCPAxis *keyAxis = mKeyAxis.data();
    QCPAxis *valueAxis = mValueAxis.data();
    if (!keyAxis || !valueAxis)
        return;
    const QRect clip = clipRect();
    const QCPRange keys = keyAxis->range();
    const QCPRange values = valueAxis->range();
    const int firstLane = std::max(0, int(std::floor(values.lower + 0.5)));
    const int lastLane = std::min(m_lanes - 1, int(std::ceil(values.upper - 0.5)));
    auto yOf = [valueAxis](double v) { return valueAxis->coordToPixel(v); };

    // Lane backgrounds: zebra stripes, the selected lock's lane highlighted.
    painter->setPen(Qt::NoPen);
    // From the palette, so a dark theme gets dark stripes (fixed light ones were white lanes).
    const QPalette palette = QApplication::palette();
    const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
    const QColor stripe = dark ? palette.color(QPalette::Base).lighter(135) : QColor(0xf4, 0xf6, 0xf8);
    const QColor highlight = dark ? QColor(0x5a, 0x4a, 0x10) : QColor(0xff, 0xf3, 0xc4);
    for (int lane = firstLane; lane <= lastLane; ++lane) {
        const QColor bg = lane == m_highlight ? highlight : lane % 2 ? stripe : QColor();
        if (!bg.isValid())
            continue;
        const double y0 = yOf(lane - 0.5);
        const double y1 = yOf(lane + 0.5);
        painter->fillRect(QRectF(clip.left(), std::min(y0, y1), clip.width(), std::abs(y1 - y0)), bg);
    }

    struct Label {
        QRectF rect;
        QString text;
    };
    QVector<Label> labels;
    QVector<QPointF> expiredMarks;
    QVector<QPointF> forcedMarks;
    int rowLane = -1;
    float rowTop = 0;
    double rowPaintedTo = -1e9;
    const QFontMetrics fm(mParentPlot->font());
    for (const Segment &s : m_segments) {
        if (s.lane < firstLane || s.lane > lastLane)
            continue;
        const double endKey = std::isnan(s.endKey) ? m_nowKey : s.endKey;
        if (endKey < keys.lower || s.startKey > keys.upper)
            continue;
        double x0 = keyAxis->coordToPixel(s.startKey);
        double x1 = keyAxis->coordToPixel(endKey);
        if (x0 > x1)
            std::swap(x0, x1);
        x0 = std::max(x0, double(clip.left() - 2));
        x1 = std::min(x1, double(clip.right() + 2));
        x1 = std::max(x1, x0 + 1.0); // even an instant is a visible pixel
        if (s.lane != rowLane || s.top != rowTop) {
            rowLane = s.lane;
            rowTop = s.top;
            rowPaintedTo = -1e9;
        }
        if (x1 <= rowPaintedTo)
            continue; // entirely in pixels this row already painted
        rowPaintedTo = std::max(rowPaintedTo, x1);
        const double y0 = yOf(s.lane + s.top);
        const double y1 = yOf(s.lane + s.bottom);
        const QRectF r(x0, std::min(y0, y1), x1 - x0, std::abs(y1 - y0));
        painter->fillRect(r, s.color);
        if (r.width() >= 6 && s.isHold) {
            painter->setPen(QPen(s.color.darker(135), 1));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
            painter->setPen(Qt::NoPen);
        }
        if (!s.label.isEmpty() && r.width() > fm.horizontalAdvance(s.label) + 8 && r.height() >= fm.height() - 2)
            labels << Label{r, s.label};
        if (s.endMark && !std::isnan(s.endKey) && s.endKey <= keys.upper)
            (s.endMark == 1 ? expiredMarks : forcedMarks) << QPointF(x1, (y0 + y1) / 2);
    }
    painter->setPen(Qt::white);
    for (const Label &l : std::as_const(labels))
        painter->drawText(l.rect, Qt::AlignCenter, l.text);
    // The end of a hold that expired (red) or was force-unlocked (dark red): a small cross.
    for (int kind = 0; kind < 2; ++kind) {
        painter->setPen(QPen(kind == 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x88, 0x0e, 0x4f), 2));
        for (const QPointF &p : kind == 0 ? expiredMarks : forcedMarks) {
            painter->drawLine(QPointF(p.x() - 4, p.y() - 4), QPointF(p.x() + 4, p.y() + 4));
            painter->drawLine(QPointF(p.x() - 4, p.y() + 4), QPointF(p.x() + 4, p.y() - 4));
        }
    }
    drawLeaseMarks(painter, firstLane, lastLane);
}

void TimelineSegments::drawLeaseMarks(QCPPainter *painter, int firstLane, int lastLane) const
{
    QCPAxis *keyAxis = mKeyAxis.data();
    QCPAxis *valueAxis = mValueAxis.data();
    const QRect clip = clipRect();
    const QCPRange keys = keyAxis->range();
    const QColor red(0xc6, 0x28, 0x28);
    // The overlap windows: hatched over the whole lane, framed, behind the marks.
    for (const Overlap &o : m_overlaps) {
        if (o.lane < firstLane || o.lane > lastLane || o.toKey < keys.lower || o.fromKey > keys.upper)
            continue;
        const double x0 = std::max(keyAxis->coordToPixel(o.fromKey), double(clip.left() - 2));
        const double x1 = std::max(std::min(keyAxis->coordToPixel(o.toKey), double(clip.right() + 2)), x0 + 2);
        const double y0 = valueAxis->coordToPixel(o.lane - 0.48);
        const double y1 = valueAxis->coordToPixel(o.lane + 0.48);
        const QRectF r(x0, std::min(y0, y1), x1 - x0, std::abs(y1 - y0));
        painter->setPen(QPen(red, 1.5));
        painter->setBrush(QBrush(red, Qt::BDiagPattern));
        painter->drawRect(r);
    }
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    for (const Mark &m : m_marks) {
        if (m.lane < firstLane || m.lane > lastLane || m.key < keys.lower || m.key > keys.upper)
            continue;
        const QPointF p(keyAxis->coordToPixel(m.key), valueAxis->coordToPixel(m.lane + (-0.42 + 0.10) / 2));
        const double r = 6.5;
        painter->setPen(QPen(Qt::white, 1.5));
        switch (m.kind) {
        case Mark::LeaseLost:
            painter->setBrush(red);
            painter->drawEllipse(p, r, r);
            break;
        case Mark::HolderReturned:
            painter->setBrush(QColor(0xb7, 0x1c, 0x1c));
            painter->drawRect(QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r));
            break;
        case Mark::LostInFailover:
            painter->setBrush(QColor(0x6a, 0x1b, 0x9a));
            painter->drawRect(QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r));
            break;
        }
        painter->setPen(QPen(Qt::white, 2));
        const double d = 3.2;
        if (m.kind == Mark::HolderReturned) {
            painter->drawLine(QPointF(p.x() - d, p.y()), QPointF(p.x() + d, p.y()));
            painter->drawLine(QPointF(p.x(), p.y() - d), QPointF(p.x(), p.y() + d));
        } else {
            painter->drawLine(QPointF(p.x() - d, p.y() - d), QPointF(p.x() + d, p.y() + d));
            painter->drawLine(QPointF(p.x() - d, p.y() + d), QPointF(p.x() + d, p.y() - d));
        }
    }
    painter->restore();
}

void TimelineSegments::drawLegendIcon(QCPPainter *painter, const QRectF &rect) const
{
    painter->fillRect(rect, m_segments.isEmpty() ? QColor(Qt::gray) : m_segments.first().color);
}

} // namespace lockscope
