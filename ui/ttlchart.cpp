#include "ttlchart.h"

#include "holderpalette.h"
#include "plottheme.h"
#include "seriesdownsampler.h"

#include "history/historystore.h"
#include "protocol/durationtext.h"

#include <QDateTime>
#include <QLabel>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace lockscope
{

namespace
{

struct MarkerStyle {
    const char *type;
    const char *label;
    QCPScatterStyle::ScatterShape shape;
    QColor color;
    double size;
};

const MarkerStyle kMarkers[] = {
    {"acquired", QT_TRANSLATE_NOOP("TtlChart", "acquired"), QCPScatterStyle::ssTriangle, QColor(0x2e, 0x7d, 0x32), 10},
    {"reentered", QT_TRANSLATE_NOOP("TtlChart", "re-entered"), QCPScatterStyle::ssDiamond, QColor(0x8e, 0x24, 0xaa), 9},
    {"renewed", QT_TRANSLATE_NOOP("TtlChart", "renewed"), QCPScatterStyle::ssDisc, QColor(0x0d, 0x47, 0xa1), 8},
    {"released", QT_TRANSLATE_NOOP("TtlChart", "released"), QCPScatterStyle::ssTriangleInverted,
     QColor(0x61, 0x61, 0x61), 10},
    {"expired", QT_TRANSLATE_NOOP("TtlChart", "expired"), QCPScatterStyle::ssCross, QColor(0xc6, 0x28, 0x28), 12},
    {"force_unlocked", QT_TRANSLATE_NOOP("TtlChart", "force-unlocked"), QCPScatterStyle::ssStar,
     QColor(0x88, 0x0e, 0x4f), 13},
};

/** A reading above what the previous one's countdown predicts by more than this: TTL pushed back. */
constexpr qint64 kJumpMs = 1000;
/** An event and the reading it came from may be stamped a few ms apart. */
constexpr qint64 kEventSlackMs = 500;

const QColor kTtlColor(0x1e, 0x88, 0xe5);
const QColor kWarnColor(0xc6, 0x28, 0x28);
const QColor kLateColor(0xef, 0x6c, 0x00);

/** Where a watchdog renewing every lease/3 keeps the TTL (2/3 of the lease). */
qint64 renewalLevel(qint64 leaseMs)
{
    return leaseMs * 2 / 3;
}
/** Below this the expected renewal is overdue: the level minus max(1 s, lease/10). */
qint64 overdueLevel(qint64 leaseMs)
{
    return renewalLevel(leaseMs) - std::max<qint64>(1000, leaseMs / 10);
}

/**
 * The store keeps a reading only when something changed, so a renewal that reads the same PTTL
 * as the previous reading (29999 ms twice, say: likely when a snapshot follows each renewal within
 * a millisecond or two) leaves no sample, and the countdown would run on through it. Its
 * `renewed` event still tells: put a reading back at the event ("TTL a ms -> b ms": b, else the
 * largest TTL of that hold), unless a reading within the slack already shows it.
 */
QVector<HistoryStore::Sample> withRenewals(QVector<HistoryStore::Sample> samples, const QVector<LockEvent> &events)
{
    static const QRegularExpression newTtl(QStringLiteral("->\\s*(\\d+)\\s*ms"));
    QVector<HistoryStore::Sample> added;
    for (const LockEvent &e : events) {
        if (e.type != QLatin1String("renewed"))
            continue;
        const auto near = std::lower_bound(samples.cbegin(), samples.cend(), e.timeMs - kEventSlackMs,
                                           [](const HistoryStore::Sample &s, qint64 t) { return s.timeMs < t; });
        if (near != samples.cend() && near->timeMs <= e.timeMs + kEventSlackMs)
            continue; // a reading shows this renewal
        if (near == samples.cbegin())
            continue;
        const HistoryStore::Sample &prev = *std::prev(near);
        if (prev.pttlMs < 0 || prev.holders.isEmpty())
            continue;
        HistoryStore::Sample s = prev;
        s.timeMs = e.timeMs;
        const QRegularExpressionMatch m = newTtl.match(e.detail);
        if (m.hasMatch()) {
            s.pttlMs = m.captured(1).toLongLong();
        } else {
            for (auto it = std::make_reverse_iterator(near); it != samples.crend() && it->holders == prev.holders; ++it)
                s.pttlMs = std::max(s.pttlMs, it->pttlMs);
        }
        added << s;
    }
    if (added.isEmpty())
        return samples;
    QVector<HistoryStore::Sample> merged;
    merged.reserve(samples.size() + added.size());
    std::sort(added.begin(), added.end(), [](const auto &a, const auto &b) { return a.timeMs < b.timeMs; });
    std::merge(samples.cbegin(), samples.cend(), added.cbegin(), added.cend(), std::back_inserter(merged),
               [](const auto &a, const auto &b) { return a.timeMs < b.timeMs; });
    return merged;
}

} // namespace

TtlChart::TtlChart(QWidget *parent) : HistoryChart(parent)
{
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(160);
    contentLayout()->addWidget(m_plot);
    registerPlot(m_plot, tr("TTL chart"), true);
    m_plot->yAxis->setLabel(tr("TTL (s)"));
    m_plot->yAxis->setRange(0, 33);
    m_plot->yAxis->grid()->setSubGridVisible(false);

    // The area under the curve is its own graph without gaps (0 where the curve has one): one
    // polygon to fill instead of one per gap, which costs hundreds of ms with an hour of holds.
    m_fill = m_plot->addGraph();
    m_fill->setPen(Qt::NoPen);
    m_fill->setBrush(QColor(kTtlColor.red(), kTtlColor.green(), kTtlColor.blue(), 36));
    m_fill->removeFromLegend();
    m_ttl = m_plot->addGraph();
    m_ttl->setName(tr("PTTL (counting down between readings)"));
    m_ttl->setPen(QPen(kTtlColor, 2));
    m_live = m_plot->addGraph();
    m_live->setPen(QPen(kTtlColor, 2));
    m_live->setBrush(QColor(kTtlColor.red(), kTtlColor.green(), kTtlColor.blue(), 36));
    m_live->removeFromLegend();
    for (const MarkerStyle &m : kMarkers) {
        QCPGraph *g = m_plot->addGraph();
        g->setName(tr(m.label));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(m.shape, m.color,
                                           m.shape == QCPScatterStyle::ssDisc ? m.color : QColor(Qt::white), m.size));
        QPen pen(m.color, 2);
        g->setPen(pen);
        m_markers.insert(QString::fromLatin1(m.type), g);
    }

    // Legend in one row under the plot, not over the saw-tooth.
    m_plot->legend->setVisible(true);
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.9);
    m_plot->legend->setFont(legendFont);
    PlotTheme::apply(m_plot, palette()); // the legend too, in the palette's colours
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(8);
    m_plot->legend->setRowSpacing(0);
    m_plot->legend->setColumnSpacing(12);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->plotLayout()->setRowSpacing(0);

    m_levelLine = new QCPItemStraightLine(m_plot);
    m_levelLine->setPen(QPen(kLateColor, 1, Qt::DashLine));
    m_levelLine->setVisible(false);
    m_levelText = new QCPItemText(m_plot);
    m_levelText->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_levelText->position->setTypeY(QCPItemPosition::ptPlotCoords);
    m_levelText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_levelText->setColor(kLateColor);
    m_levelText->setVisible(false);

    m_warning = new QCPItemText(m_plot);
    m_warning->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_warning->position->setCoords(0.01, 0.97); // bottom left: the saw-tooth and its markers stay visible
    m_warning->setPositionAlignment(Qt::AlignBottom | Qt::AlignLeft);
    m_warning->setTextAlignment(Qt::AlignLeft);
    m_warning->setColor(Qt::white);
    m_warning->setBrush(kWarnColor);
    m_warning->setPadding(QMargins(8, 4, 8, 4));
    QFont bold = font();
    bold.setBold(true);
    m_warning->setFont(bold);
    m_warning->setLayer(QStringLiteral("legend"));
    m_warning->setVisible(false);

    m_note = new QCPItemText(m_plot);
    m_note->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_note->position->setCoords(0.5, 0.5);
    m_note->setColor(palette().color(QPalette::PlaceholderText));
    m_note->setVisible(false);

    titleLabel()->setText(tr("Select a lock to see its TTL over time"));
}

QString TtlChart::warningText() const
{
    return m_overdue ? m_warning->text() : QString();
}

void TtlChart::clearItems()
{
    for (QCPItemRect *band : std::as_const(m_bands))
        m_plot->removeItem(band);
    m_bands.clear();
    if (m_liveBand)
        m_plot->removeItem(m_liveBand);
    m_liveBand = nullptr;
}

void TtlChart::rebuild()
{
    clearItems();
    m_ttl->data()->clear();
    m_fill->data()->clear();
    m_live->data()->clear();
    for (QCPGraph *g : std::as_const(m_markers))
        g->data()->clear();
    m_haveLast = false;
    m_overdue = false;
    m_levelMs = -1;
    m_leaseMs = 0;
    m_lastRenewalMs = -1;
    m_overdueSinceMs = -1;
    m_levelLine->setVisible(false);
    m_levelText->setVisible(false);
    m_warning->setVisible(false);
    m_note->setVisible(false);

    const HistoryStore *h = history();
    if (!h || lock().isEmpty()) {
        m_note->setText(tr("Select a lock in the table to see its TTL over time"));
        m_note->setVisible(true);
        return;
    }
    const QVector<LockEvent> events = h->events(lock());
    const QVector<HistoryStore::Sample> samples = withRenewals(h->samples(lock()), events);
    if (samples.isEmpty()) {
        m_note->setText(tr("No readings of %1 yet").arg(lock()));
        m_note->setVisible(true);
        return;
    }

    double fromKey = 0;
    double toKey = 0;
    timeRange(&fromKey, &toKey);
    const qint64 now = nowMs();
    QVector<qint64> renewedAt;
    for (const LockEvent &e : events)
        if (e.type == QLatin1String("renewed"))
            renewedAt << e.timeMs;
    std::sort(renewedAt.begin(), renewedAt.end());

    struct Span {
        qint64 fromMs, toMs;
        bool expired;
    };
    QVector<Span> spans;
    QVector<QCPGraphData> raw;
    raw.reserve(samples.size() * 3);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QString holders;
    qint64 holdStartMs = 0;
    qint64 lease = 0;
    bool renewed = false;
    qint64 lastRenewal = -1;
    qint64 overdueSince = -1; // when a renewal still missing at this reading was due
    qint64 maxVisibleMs = 0;
    int nextEvent = 0;
    const int n = samples.size();
    for (int i = 0; i < n; ++i) {
        const HistoryStore::Sample &s = samples.at(i);
        const bool held = s.pttlMs >= 0 && !s.holders.isEmpty();
        if (i == 0 || s.holders != holders) { // a new hold (or none): its own lease and renewals
            holders = s.holders;
            holdStartMs = s.timeMs;
            lease = 0;
            renewed = false;
            lastRenewal = -1;
            overdueSince = -1;
        } else if (held) {
            const HistoryStore::Sample &prev = samples.at(i - 1);
            if (prev.pttlMs >= 0 && prev.holdCount == s.holdCount &&
                s.pttlMs > prev.pttlMs - (s.timeMs - prev.timeMs) + kJumpMs) {
                renewed = true; // pushed back with the same holders and count: a renewal (§2.6)
                lastRenewal = s.timeMs;
            }
        }
        for (; nextEvent < renewedAt.size() && renewedAt.at(nextEvent) <= s.timeMs + kEventSlackMs; ++nextEvent) {
            if (held && renewedAt.at(nextEvent) >= holdStartMs - kEventSlackMs) {
                renewed = true;
                lastRenewal = std::max(lastRenewal, renewedAt.at(nextEvent));
            }
        }
        if (!held) {
            raw << QCPGraphData(keyOf(s.timeMs), nan); // absent or no expiry: a gap
            continue;
        }
        // The lease is the largest TTL read in this hold, rounded to whole seconds once it is over
        // 2 s: a reading comes a few ms after the PEXPIRE (29 987 ms for a 30 s lease).
        lease = std::max(lease, s.pttlMs >= 2000 ? (s.pttlMs + 500) / 1000 * 1000 : s.pttlMs);
        const bool last = i + 1 == n;
        const qint64 segEnd = last ? now : samples.at(i + 1).timeMs;
        const qint64 expireAt = s.timeMs + s.pttlMs;
        const qint64 end = std::min(segEnd, expireAt);
        if (keyOf(s.timeMs) <= toKey && keyOf(segEnd) >= fromKey)
            maxVisibleMs = std::max(maxVisibleMs, s.pttlMs);
        raw << QCPGraphData(keyOf(s.timeMs), s.pttlMs / 1000.0);
        if (!last) {
            raw << QCPGraphData(keyOf(end), (s.pttlMs - (end - s.timeMs)) / 1000.0);
            if (end < segEnd)
                raw << QCPGraphData(keyOf(end + 1), nan); // expired before the next reading
        }
        if (renewed && !last) {
            // Overdue once below the level minus the margin; banded from when the renewal was due
            // until the TTL is pushed back (late: orange) or the hold ends (red). A reading that only
            // confirms the countdown continues the band.
            const qint64 due = s.timeMs + std::max<qint64>(0, s.pttlMs - renewalLevel(lease));
            const qint64 cross = s.timeMs + std::max<qint64>(0, s.pttlMs - overdueLevel(lease));
            const HistoryStore::Sample &next = samples.at(i + 1);
            if (overdueSince >= 0 || cross < end) {
                const qint64 from = overdueSince >= 0 ? overdueSince : due;
                const bool pushedBack = next.pttlMs >= 0 && !next.holders.isEmpty() &&
                                        next.pttlMs > s.pttlMs - (next.timeMs - s.timeMs) + kJumpMs;
                const bool continues = !pushedBack && end < expireAt && next.pttlMs >= 0 && next.holders == s.holders;
                overdueSince = continues ? from : -1;
                if (!continues)
                    spans << Span{from, end, !pushedBack};
            }
        }
        if (last) {
            m_haveLast = true;
            m_lastTimeMs = s.timeMs;
            m_lastPttlMs = s.pttlMs;
            m_lastHolders = s.holders;
            m_lastHoldCount = s.holdCount;
            m_leaseMs = lease;
            m_levelMs = renewed ? overdueLevel(lease) : -1;
            m_lastRenewalMs = lastRenewal;
            m_overdueSinceMs = overdueSince;
        }
    }
    const HistoryStore::Sample &lastSample = samples.last();
    if (lastSample.pttlMs == -1) {
        m_note->setText(tr("%1 has no expiry (PTTL -1): it never frees itself").arg(lock()));
        m_note->setVisible(true);
    } else if (!m_haveLast) {
        m_lastHolders.clear();
        m_lastPttlMs = lastSample.pttlMs;
    }

    const int buckets = std::max(100, m_plot->axisRect()->width());
    const QVector<QCPGraphData> curve = SeriesDownsampler::minMax(raw, fromKey, toKey, buckets);
    m_ttl->data()->set(curve, true);
    // Past a few hundred points (long windows, busy locks) the filled polygon costs more to
    // rasterise than it tells: the line alone then.
    QVector<QCPGraphData> area;
    area.reserve(curve.size() + curve.size() / 2);
    for (int i = 0; i < curve.size() && curve.size() <= 600; ++i) {
        if (!std::isnan(curve.at(i).value)) {
            area << curve.at(i);
            continue;
        }
        area << QCPGraphData(curve.at(i).key, 0); // down to 0 at the gap, and up again only at its end
        if (i + 1 < curve.size() && !std::isnan(curve.at(i + 1).value))
            area << QCPGraphData(curve.at(i + 1).key, 0);
    }
    m_fill->data()->set(area, true);

    // Markers: at the TTL the lock had at that moment (0 once it is gone), one per pixel column.
    const double keysPerPixel = (toKey - fromKey) / buckets;
    QHash<QString, QVector<QCPGraphData>> markerData;
    QHash<QString, double> lastKey;
    for (const LockEvent &e : events) {
        QCPGraph *g = m_markers.value(e.type);
        const double key = keyOf(e.timeMs);
        if (!g || key < fromKey || key > toKey)
            continue;
        if (lastKey.contains(e.type) && key - lastKey.value(e.type) < keysPerPixel)
            continue;
        lastKey.insert(e.type, key);
        double value = 0;
        if (e.type != QLatin1String("released") && e.type != QLatin1String("expired") &&
            e.type != QLatin1String("force_unlocked")) {
            const auto after = std::upper_bound(samples.cbegin(), samples.cend(), e.timeMs + kEventSlackMs,
                                                [](qint64 t, const HistoryStore::Sample &s) { return t < s.timeMs; });
            if (after != samples.cbegin()) {
                const HistoryStore::Sample &s = *std::prev(after);
                if (s.pttlMs >= 0)
                    value = std::max<qint64>(0, s.pttlMs - std::max<qint64>(0, e.timeMs - s.timeMs)) / 1000.0;
            }
        }
        markerData[e.type] << QCPGraphData(key, value);
    }
    for (auto it = markerData.begin(); it != markerData.end(); ++it)
        m_markers.value(it.key())->data()->set(it.value(), false);

    // Where the TTL fell below the renewal level: orange when the renewal came late, red when the
    // lock expired instead. The newest 50 in view.
    int drawn = 0;
    for (auto it = spans.crbegin(); it != spans.crend() && drawn < 50; ++it) {
        if (keyOf(it->toMs) < fromKey || keyOf(it->fromMs) > toKey)
            continue;
        auto *band = new QCPItemRect(m_plot);
        band->setLayer(QStringLiteral("grid"));
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(keyOf(it->fromMs), 0);
        band->bottomRight->setCoords(keyOf(it->toMs), 1);
        const QColor c = it->expired ? kWarnColor : kLateColor;
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(c.red(), c.green(), c.blue(), 50));
        m_bands << band;
        ++drawn;
    }

    if (m_levelMs >= 0) {
        const double level = renewalLevel(m_leaseMs) / 1000.0;
        m_levelLine->point1->setCoords(0, level);
        m_levelLine->point2->setCoords(1, level);
        m_levelLine->setVisible(true);
        m_levelText->position->setCoords(0.005, level);
        m_levelText->setText(tr("renewed every lease/3 (%1): TTL stays above %2")
                                 .arg(DurationText::ttl(m_leaseMs / 3), DurationText::ttl(renewalLevel(m_leaseMs))));
        m_levelText->setVisible(true);
    }
    const qint64 top = std::max<qint64>({maxVisibleMs, m_haveLast ? m_lastPttlMs : 0, 1000});
    m_plot->yAxis->setRange(0, top / 1000.0 * 1.15);
}

void TtlChart::updateLive()
{
    m_live->data()->clear();
    m_overdue = false;
    if (m_liveBand)
        m_plot->removeItem(m_liveBand);
    m_liveBand = nullptr;
    m_warning->setVisible(false);
    if (!m_haveLast)
        return;
    const qint64 now = nowMs();
    const qint64 expireAt = m_lastTimeMs + m_lastPttlMs;
    const qint64 end = std::max(m_lastTimeMs, std::min(now, expireAt));
    const qint64 ttlNow = std::max<qint64>(0, m_lastPttlMs - (now - m_lastTimeMs));
    m_live->addData(keyOf(m_lastTimeMs), m_lastPttlMs / 1000.0);
    m_live->addData(keyOf(end), (m_lastPttlMs - (end - m_lastTimeMs)) / 1000.0);
    if (m_levelMs < 0)
        return;
    const qint64 cross = m_lastTimeMs + std::max<qint64>(0, m_lastPttlMs - m_levelMs);
    if (now < cross)
        return;
    m_liveBand = new QCPItemRect(m_plot);
    m_liveBand->setLayer(QStringLiteral("grid"));
    m_liveBand->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_liveBand->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    const qint64 due = m_overdueSinceMs >= 0
                           ? m_overdueSinceMs
                           : m_lastTimeMs + std::max<qint64>(0, m_lastPttlMs - renewalLevel(m_leaseMs));
    m_liveBand->topLeft->setCoords(keyOf(due), 0);
    m_liveBand->bottomRight->setCoords(keyOf(end), 1);
    m_liveBand->setPen(Qt::NoPen);
    m_liveBand->setBrush(QColor(kWarnColor.red(), kWarnColor.green(), kWarnColor.blue(), 60));
    if (ttlNow <= 0)
        return; // past its expiry by our countdown: the next reading will show it gone
    m_overdue = true;
    const QString last =
        m_lastRenewalMs > 0 ? tr(", last one %1 ago").arg(DurationText::ttl(now - m_lastRenewalMs)) : QString();
    m_warning->setText(tr("⚠ Expected renewal did not come: TTL %1 is below %2 (renewals every %3%4).\n"
                          "The lock expires in %1 unless renewed: is its owner's watchdog still running?")
                           .arg(DurationText::ttl(ttlNow), DurationText::ttl(renewalLevel(m_leaseMs)),
                                DurationText::ttl(m_leaseMs / 3), last));
    m_warning->setVisible(true);
}

void TtlChart::tick()
{
    updateLive();
    if (lock().isEmpty()) {
        titleLabel()->setText(tr("Select a lock to see its TTL over time"));
        return;
    }
    const qint64 now = nowMs();
    QString text = QStringLiteral("<b>%1</b>").arg(lock().toHtmlEscaped());
    if (m_haveLast) {
        const qint64 ttlNow = std::max<qint64>(0, m_lastPttlMs - (now - m_lastTimeMs));
        QStringList who;
        for (const QString &f : HolderPalette::split(m_lastHolders))
            who << QStringLiteral("<span style='color:%1'>■</span> %2")
                       .arg(HolderPalette::colorFor(f).name(), holderLabel(f).toHtmlEscaped());
        text += tr(" · held by %1 (hold count %2) · TTL %3")
                    .arg(who.join(QStringLiteral(", ")))
                    .arg(m_lastHoldCount)
                    .arg(DurationText::ttl(ttlNow));
        if (m_levelMs >= 0)
            text += tr(" · watchdog: renewed every %1, last %2 ago")
                        .arg(DurationText::ttl(m_leaseMs / 3),
                             DurationText::ttl(std::max<qint64>(0, now - m_lastRenewalMs)));
    } else if (m_lastPttlMs == -1) {
        text += tr(" · no expiry (PTTL -1)");
    } else {
        text += tr(" · free");
    }
    if (m_overdue)
        text += QStringLiteral(" · <span style='color:%1'><b>%2</b></span>")
                    .arg(kWarnColor.name(), tr("⚠ renewal overdue"));
    titleLabel()->setText(text);
}

} // namespace lockscope
