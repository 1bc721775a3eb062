#include "charts/timelinewidget.h"

#include "common/holderpalette.h"

#include "recording/historystore.h"
#include "text/durationtext.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace lockscope
{

namespace
{
constexpr int kLanePx = 26;        ///< lane height the view aims for
constexpr float kHoldTop = -0.42f; ///< hold bars: upper part of the lane
constexpr float kHoldBottom = 0.10f;
constexpr float kWaitTop = 0.16f; ///< waiter bars: thinner, under the holds
constexpr float kWaitBottom = 0.44f;
constexpr int kWaitRows = 3;
const QColor kCountedWaiters(0x90, 0xa4, 0xae);

QString elided(const QString &name, int chars)
{
    return name.size() > chars ? name.left(chars - 1) + QChar(0x2026) : name;
}
} // namespace

TimelineWidget::TimelineWidget(QWidget *parent) : HistoryChart(parent)
{
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(140);
    m_laneScroll = new QScrollBar(Qt::Vertical, this);
    m_laneScroll->setToolTip(tr("Scroll through the lanes (most active locks first)"));
    m_laneScroll->hide();
    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(0);
    row->addWidget(m_plot, 1);
    row->addWidget(m_laneScroll);
    contentLayout()->addLayout(row, 1);
    m_cursorLabel = new QLabel(this);
    m_cursorLabel->setTextFormat(Qt::PlainText);
    m_cursorLabel->setText(tr("Move the mouse over the timeline to see the state of a lock at that instant; "
                              "wheel: zoom, drag: pan, double-click a lane: select its lock"));
    m_cursorLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    contentLayout()->addWidget(m_cursorLabel);

    registerPlot(m_plot, tr("Timeline"), true);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical); // time, and lanes when they do not fit
    m_segments = new TimelineSegments(m_plot->xAxis, m_plot->yAxis);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->yAxis->setTickLength(0, 0);
    m_plot->yAxis->setSubTicks(false);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    m_plot->yAxis->setRange(-0.5, 0.5);

    // The cursor lives on its own buffered layer: moving it repaints that layer only.
    m_plot->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmBuffered);
    m_cursor = new QCPItemStraightLine(m_plot);
    m_cursor->setLayer(QStringLiteral("overlay"));
    m_cursor->setPen(QPen(QColor(0x37, 0x47, 0x4f), 1));
    m_cursor->setVisible(false);
    m_cursorTime = new QCPItemText(m_plot);
    m_cursorTime->setLayer(QStringLiteral("overlay"));
    m_cursorTime->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_cursorTime->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_cursorTime->setBrush(QColor(0x37, 0x47, 0x4f));
    m_cursorTime->setColor(Qt::white);
    m_cursorTime->setPadding(QMargins(4, 1, 4, 1));
    m_cursorTime->setVisible(false);

    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) {
        m_mouse = e->position().toPoint();
        moveCursor(m_mouse);
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent *e) {
        const int lane = laneAt(m_plot->yAxis->pixelToCoord(e->position().y()));
        if (lane >= 0)
            emit lockActivated(m_lanes.at(lane));
    });
    connect(m_plot->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this](const QCPRange &r) {
        if (m_settingLanes)
            return;
        m_firstLane = int(std::lround(r.lower + 0.5)); // dragged vertically: keep whole lanes
        updateLaneRange();
    });
    connect(m_laneScroll, &QScrollBar::valueChanged, this, [this](int value) {
        if (m_settingLanes)
            return;
        m_firstLane = value;
        updateLaneRange();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    titleLabel()->setText(tr("<b>Timeline</b>"));
}

void TimelineWidget::setFilterModel(const QSortFilterProxyModel *proxy)
{
    if (m_proxy)
        disconnect(m_proxy, nullptr, this, nullptr);
    m_proxy = proxy;
    markDirty();
    if (!proxy)
        return;
    // A new filter shows up as rows leaving or entering the proxy: redraw the lanes at the next frame.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(proxy, signal, this, [this] { markDirty(); });
    connect(proxy, &QAbstractItemModel::modelReset, this, [this] { markDirty(); });
    connect(proxy, &QAbstractItemModel::layoutChanged, this, [this] { markDirty(); });
}

void TimelineWidget::setMaxLanes(int lanes)
{
    m_maxLanes = std::max(1, lanes);
    markDirty();
}

void TimelineWidget::lockChanged()
{
    m_revealLock = true;
    markDirty();
}

int TimelineWidget::laneAt(double value) const
{
    const int lane = int(std::lround(value));
    return lane >= 0 && lane < m_lanes.size() ? lane : -1;
}

void TimelineWidget::rebuild()
{
    m_lanes.clear();
    m_matching = 0;
    const HistoryStore *h = history();
    QVector<TimelineSegments::Segment> segments;
    if (!h) {
        m_segments->setSegments(segments);
        m_segments->setLaneCount(0);
        updateLaneRange();
        return;
    }
    QRegularExpression filter;
    if (m_proxy && !m_proxy->filterRegularExpression().pattern().isEmpty() &&
        m_proxy->filterRegularExpression().isValid())
        filter = m_proxy->filterRegularExpression();
    QStringList names;
    for (const QString &name : h->lockNames())
        if (filter.pattern().isEmpty() || filter.match(name).hasMatch())
            names << name;

    // Most active first: holds and waits kept over the whole history (a stable order), counted
    // without copying them.
    QVector<QPair<int, QString>> ranked;
    ranked.reserve(names.size());
    for (const QString &name : std::as_const(names))
        ranked.append({h->intervalCount(name), name});
    std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    m_matching = int(ranked.size());
    for (int i = 0; i < ranked.size() && i < m_maxLanes; ++i)
        m_lanes << ranked.at(i).second;

    double fromKey = 0;
    double toKey = 0;
    timeRange(&fromKey, &toKey);
    const double span = toKey - fromKey;
    const qint64 drawFromMs = msOf(fromKey - span); // one window either side: panning shows bars at once
    const qint64 drawToMs = msOf(toKey + span);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // Labels only where they can show (the plottable checks the exact fit): no strings built for
    // thousands of bars a few pixels wide.
    const int widthPx = m_plot->axisRect()->width() > 50 ? m_plot->axisRect()->width() : 1000;
    const double msPerPixel = std::max(1.0, (toKey - fromKey) * 1000.0 / widthPx);
    auto wide = [msPerPixel](qint64 startMs, qint64 endMs, qint64 nowMs) {
        return double((endMs < 0 ? nowMs : endMs) - startMs) / msPerPixel >= 30;
    };
    const qint64 now = nowMs();
    QHash<QString, int> laneOf;
    for (int lane = 0; lane < m_lanes.size(); ++lane)
        laneOf.insert(m_lanes.at(lane), lane);
    // Only the intervals in that range are copied out of the store; they come grouped by lock, so
    // the lane is looked up once per lock, not once per interval.
    QString group;
    int groupLane = -1;
    auto laneFor = [&](const QString &lock) {
        if (lock != group) {
            group = lock;
            groupLane = laneOf.value(lock, -1);
        }
        return groupLane;
    };

    // The hold drawn last in each lane: a different holder right after it in the same colour
    // (12 colours, one per holder by hash) is drawn darker, so a hand-over never looks like one hold.
    struct LastHold {
        qint64 endMs = 0;
        QString who;
        QColor color;
    };
    QHash<int, LastHold> lastHold;
    for (const auto &i : h->holds(QString(), drawFromMs, drawToMs)) {
        const int lane = laneFor(i.lock);
        if (lane < 0)
            continue;
        const QStringList fields = i.who.contains(QLatin1Char(',')) ? HolderPalette::split(i.who) : QStringList{i.who};
        QColor single = fields.size() == 1 ? HolderPalette::colorFor(fields.first()) : QColor();
        if (fields.size() == 1) {
            const auto prev = lastHold.constFind(lane);
            if (prev != lastHold.cend() && prev->who != i.who && prev->color == single && prev->endMs >= 0 &&
                i.startMs - prev->endMs < 2000)
                single = single.darker(150);
            lastHold.insert(lane, LastHold{i.endMs, i.who, single});
        }
        const float step = (kHoldBottom - kHoldTop) / float(fields.size());
        for (int k = 0; k < fields.size(); ++k) {
            TimelineSegments::Segment s;
            s.lane = lane;
            s.startKey = keyOf(i.startMs);
            s.endKey = i.endMs < 0 ? nan : keyOf(i.endMs);
            s.top = kHoldTop + step * float(k);
            s.bottom = kHoldTop + step * float(k + 1) - (fields.size() > 1 ? 0.02f : 0.0f);
            s.color = fields.size() == 1 ? single : HolderPalette::colorFor(fields.at(k));
            s.who = fields.at(k);
            if (fields.size() == 1 && wide(i.startMs, i.endMs, now))
                s.label = holderLabel(fields.at(k));
            s.endMark = i.endReason == QLatin1String("expired")          ? 1
                        : i.endReason == QLatin1String("force_unlocked") ? 2
                                                                         : 0;
            segments << s;
        }
    }

    // Fair-queue waiters, each in its own colour, on up to three rows under the lane. The
    // anonymous unlock-channel subscribers of other kinds are drawn below as counted runs.
    QVector<bool> queued(m_lanes.size(), false);
    QVector<QVector<qint64>> rowEnds(m_lanes.size());
    const float rowH = (kWaitBottom - kWaitTop) / kWaitRows;
    group.clear();
    groupLane = -1;
    for (const auto &i : h->waits(QString(), drawFromMs, drawToMs)) {
        if (i.who == HistoryStore::kSubscriberWaiter)
            continue;
        const int lane = laneFor(i.lock);
        if (lane < 0)
            continue;
        queued[lane] = true;
        QVector<qint64> &rowEnd = rowEnds[lane];
        if (rowEnd.isEmpty())
            rowEnd.fill(std::numeric_limits<qint64>::min(), kWaitRows);
        int row = 0;
        while (row < kWaitRows && rowEnd[row] > i.startMs)
            ++row;
        if (row == kWaitRows)
            row = int(std::min_element(rowEnd.cbegin(), rowEnd.cend()) - rowEnd.cbegin());
        rowEnd[row] = i.endMs < 0 ? std::numeric_limits<qint64>::max() : i.endMs;
        TimelineSegments::Segment s;
        s.lane = lane;
        s.startKey = keyOf(i.startMs);
        s.endKey = i.endMs < 0 ? nan : keyOf(i.endMs);
        s.top = kWaitTop + rowH * float(row);
        s.bottom = s.top + rowH * 0.8f;
        s.color = HolderPalette::colorFor(i.who);
        s.color.setAlpha(170);
        s.who = i.who;
        s.isHold = false;
        segments << s;
    }

    for (int lane = 0; lane < m_lanes.size(); ++lane) {
        if (queued.at(lane))
            continue;
        const QString &lock = m_lanes.at(lane);
        // Other kinds: clients waiting on the unlock channel, counted (grey, with the count). A
        // pause shorter than a pixel joins two runs ("up to N waiting").
        HistoryStore::Sample state = h->sampleAt(lock, drawFromMs);
        qint64 runStart = state.timeMs > 0 && state.waiters > 0 ? drawFromMs : -1;
        qint64 runCount = runStart >= 0 ? state.waiters : 0;
        int last = -1; // the previous run's segment, its start, end, highest count
        qint64 lastStart = 0;
        qint64 lastEnd = 0;
        qint64 lastMax = 0;
        bool merged = false;
        auto labelLast = [&] {
            if (last >= 0 && wide(lastStart, lastEnd, now))
                segments[last].label =
                    merged ? tr("up to %n waiting", nullptr, int(lastMax)) : tr("%n waiting", nullptr, int(lastMax));
        };
        auto closeRun = [&](qint64 endMs) {
            if (runStart < 0)
                return;
            if (last >= 0 && lastEnd >= 0 && double(runStart - lastEnd) < msPerPixel) {
                segments[last].endKey = endMs < 0 ? nan : keyOf(endMs);
                merged = merged || runCount != lastMax;
                lastMax = std::max(lastMax, runCount);
            } else {
                labelLast();
                TimelineSegments::Segment s;
                s.lane = lane;
                s.startKey = keyOf(runStart);
                s.endKey = endMs < 0 ? nan : keyOf(endMs);
                s.top = kWaitTop;
                s.bottom = kWaitBottom - 0.06f;
                s.color = kCountedWaiters;
                s.isHold = false;
                segments << s;
                last = int(segments.size()) - 1;
                lastStart = runStart;
                lastMax = runCount;
                merged = false;
            }
            lastEnd = endMs;
            runStart = -1;
        };
        for (const auto &sample : h->samples(lock, drawFromMs + 1, drawToMs)) {
            if (sample.waiters == runCount && (runStart >= 0 || sample.waiters == 0))
                continue;
            closeRun(sample.timeMs);
            runCount = sample.waiters;
            if (sample.waiters > 0)
                runStart = sample.timeMs;
        }
        closeRun(-1);
        labelLast();
    }
    m_segments->setSegments(segments);
    m_segments->setLaneCount(m_lanes.size());
    m_segments->setNowKey(keyOf(nowMs()));

    // Lease safety: where a lease was lost, where its old holder came back (and the window in
    // which both holders may have run the critical section), where a failover lost a lock.
    QVector<TimelineSegments::Mark> marks;
    QVector<TimelineSegments::Overlap> overlaps;
    for (const LockEvent &e : h->events(QString(), drawFromMs, drawToMs)) {
        TimelineSegments::Mark::Kind kind = TimelineSegments::Mark::LeaseLost;
        if (e.type == QLatin1String("lease_lost"))
            kind = TimelineSegments::Mark::LeaseLost;
        else if (e.type == QLatin1String("holder_returned"))
            kind = TimelineSegments::Mark::HolderReturned;
        else if (e.type == QLatin1String("lost_in_failover"))
            kind = TimelineSegments::Mark::LostInFailover;
        else
            continue;
        const int lane = laneOf.value(e.lock, -1);
        if (lane < 0)
            continue;
        marks << TimelineSegments::Mark{lane, keyOf(e.timeMs), kind};
        if (kind != TimelineSegments::Mark::HolderReturned)
            continue;
        const qint64 from = e.extra.value(QStringLiteral("overlap_from_ms")).toInteger();
        const qint64 to = e.extra.value(QStringLiteral("overlap_to_ms")).toInteger(e.timeMs);
        if (from > 0 && to >= from)
            overlaps << TimelineSegments::Overlap{lane, keyOf(from), keyOf(to)};
    }
    m_segments->setLeaseMarks(marks, overlaps);

    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (int lane = 0; lane < m_lanes.size(); ++lane)
        ticker->addTick(lane, elided(m_lanes.at(lane), 26));
    m_plot->yAxis->setTicker(ticker);
    const int highlighted = m_lanes.indexOf(lock());
    m_segments->setHighlightedLane(highlighted);
    if (m_revealLock && highlighted >= 0) {
        const int visible = std::max(1, m_plot->axisRect()->height() / kLanePx);
        if (highlighted < m_firstLane || highlighted >= m_firstLane + visible)
            m_firstLane = highlighted - visible / 2;
    }
    m_revealLock = false;
    updateLaneRange();

    QString title = tr("<b>Timeline</b> · one lane per lock, most active first");
    if (m_matching > m_lanes.size())
        title += tr(" · %1 of %2 locks shown").arg(m_lanes.size()).arg(m_matching);
    else
        title += tr(" · %n lock(s)", nullptr, int(m_lanes.size()));
    if (!filter.pattern().isEmpty())
        title += tr(" (table filter applies)");
    titleLabel()->setText(title);
}

void TimelineWidget::updateLaneRange()
{
    const int n = m_lanes.size();
    const int height = m_plot->axisRect()->height() > 0 ? m_plot->axisRect()->height() : m_plot->height() - 40;
    const int visible = std::clamp(height / kLanePx, 1, std::max(1, n));
    m_firstLane = std::clamp(m_firstLane, 0, std::max(0, n - visible));
    m_settingLanes = true;
    m_plot->yAxis->setRange(m_firstLane - 0.5, m_firstLane + visible - 0.5);
    m_laneScroll->setRange(0, std::max(0, n - visible));
    m_laneScroll->setPageStep(visible);
    m_laneScroll->setValue(m_firstLane);
    m_laneScroll->setVisible(n > visible);
    m_settingLanes = false;
}

void TimelineWidget::tick()
{
    m_segments->setNowKey(keyOf(nowMs()));
    updateLaneRange(); // follows resizes
    if (m_cursorShown && isFollowingNow())
        moveCursor(m_mouse); // the chart slid under a still mouse: the instant under it changed
}

namespace
{

/** The items of `all` (segments, marks, overlaps) in `lane` that `keep` keeps. */
template <typename Item, typename Keep = bool (*)(const Item &)>
QVector<Item> inLane(
    const QVector<Item> &all, int lane, Keep keep = [](const Item &) { return true; })
{
    QVector<Item> out;
    for (const Item &item : all)
        if (item.lane == lane && keep(item))
            out << item;
    return out;
}

} // namespace

QVector<TimelineSegments::Segment> TimelineWidget::segmentsOf(const QString &lock, bool holds) const
{
    return inLane(m_segments->segments(), m_lanes.indexOf(lock),
                  [holds](const TimelineSegments::Segment &s) { return s.isHold == holds; });
}

QVector<TimelineSegments::Mark> TimelineWidget::leaseMarksOf(const QString &lock) const
{
    return inLane(m_segments->marks(), m_lanes.indexOf(lock));
}

QVector<TimelineSegments::Overlap> TimelineWidget::overlapsOf(const QString &lock) const
{
    return inLane(m_segments->overlaps(), m_lanes.indexOf(lock));
}

QString TimelineWidget::stateAt(const QString &lock, qint64 timeMs) const
{
    const HistoryStore *h = history();
    if (!h)
        return QString();
    const HistoryStore::Sample s = h->sampleAt(lock, timeMs);
    if (s.timeMs == 0)
        return tr("%1: not seen yet").arg(lock);
    QString text = lock + QStringLiteral(": ");
    if (s.holders.isEmpty() || s.pttlMs == -2) {
        text += tr("free");
    } else {
        QStringList who;
        for (const QString &f : HolderPalette::split(s.holders))
            who << holderLabel(f);
        text += tr("held by %1 (hold count %2), TTL %3")
                    .arg(who.join(QStringLiteral(", ")))
                    .arg(s.holdCount)
                    .arg(s.pttlMs < 0 ? DurationText::ttl(s.pttlMs)
                                      : DurationText::ttl(std::max<qint64>(0, s.pttlMs - (timeMs - s.timeMs))));
    }
    QStringList waiting;
    for (const auto &w : h->waits(lock, timeMs, timeMs))
        if (w.who != HistoryStore::kSubscriberWaiter) // anonymous: counted below from the sample
            waiting << holderLabel(w.who);
    if (!waiting.isEmpty())
        text += tr(", queued: %1").arg(waiting.join(QStringLiteral(", ")));
    else if (s.waiters > 0)
        text += tr(", %n client(s) waiting", nullptr, int(s.waiters));
    return text;
}

QString TimelineWidget::cursorText() const
{
    return m_cursorShown ? m_cursorLabel->text() : QString();
}

QString TimelineWidget::showCursorAt(qint64 timeMs, const QString &lock)
{
    placeCursor(keyOf(timeMs), m_lanes.indexOf(lock), nullptr);
    return cursorText();
}

void TimelineWidget::moveCursor(const QPoint &pixel)
{
    if (!m_plot->axisRect()->rect().contains(pixel)) {
        hideCursor();
        return;
    }
    placeCursor(m_plot->xAxis->pixelToCoord(pixel.x()), laneAt(m_plot->yAxis->pixelToCoord(pixel.y())), &pixel);
}

void TimelineWidget::placeCursor(double key, int lane, const QPoint *pixel)
{
    const qint64 t = msOf(key);
    const QString time = QDateTime::fromMSecsSinceEpoch(t).toString(QStringLiteral("hh:mm:ss.zzz"));
    m_cursor->point1->setCoords(key, 0);
    m_cursor->point2->setCoords(key, 1);
    m_cursor->setVisible(true);
    m_cursorTime->position->setCoords(key, 0);
    m_cursorTime->setText(time);
    m_cursorTime->setVisible(true);
    const QString state = lane >= 0 ? stateAt(m_lanes.at(lane), t) : QString();
    m_cursorLabel->setText(state.isEmpty() ? time : time + QStringLiteral(" · ") + state);
    m_cursorShown = true;
    if (pixel && !state.isEmpty())
        QToolTip::showText(m_plot->mapToGlobal(*pixel) + QPoint(14, 14), state, m_plot);
    m_plot->layer(QStringLiteral("overlay"))->replot();
}

void TimelineWidget::hideCursor()
{
    if (!m_cursorShown)
        return;
    m_cursorShown = false;
    m_cursor->setVisible(false);
    m_cursorTime->setVisible(false);
    QToolTip::hideText();
    m_plot->layer(QStringLiteral("overlay"))->replot();
}

bool TimelineWidget::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::Leave)
        hideCursor();
    return HistoryChart::eventFilter(watched, event);
}

} // namespace lockscope
