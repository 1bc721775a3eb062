#include "charts/ttlchart.h"

#include "charts/seriesdownsampler.h"
#include "charts/ttlseries.h"
#include "common/holderpalette.h"
#include "common/plottheme.h"

#include "recording/historystore.h"
#include "text/durationtext.h"

#include <QDateTime>
#include <QLabel>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <iterator>

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
    // Lease safety: in the legend only while one is in view.
    {"renewal_late", QT_TRANSLATE_NOOP("TtlChart", "late renewal"), QCPScatterStyle::ssCircle, QColor(0xef, 0x6c, 0x00),
     17},
    {"lease_lost", QT_TRANSLATE_NOOP("TtlChart", "lease lost"), QCPScatterStyle::ssCrossCircle,
     QColor(0xc6, 0x28, 0x28), 17},
    {"holder_returned", QT_TRANSLATE_NOOP("TtlChart", "old holder back"), QCPScatterStyle::ssPlusSquare,
     QColor(0xb7, 0x1c, 0x1c), 15},
    {"lost_in_failover", QT_TRANSLATE_NOOP("TtlChart", "lost in failover"), QCPScatterStyle::ssCrossSquare,
     QColor(0x6a, 0x1b, 0x9a), 15},
};

/** Marker types shown in the legend only while the chart has one in view. */
bool rareMarker(const QString &type)
{
    return type == QLatin1String("renewal_late") || type == QLatin1String("lease_lost") ||
           type == QLatin1String("holder_returned") || type == QLatin1String("lost_in_failover");
}

/** Events after which the lock is gone (marked at TTL 0). */
bool goneAt(const QString &type)
{
    return type == QLatin1String("released") || type == QLatin1String("expired") ||
           type == QLatin1String("force_unlocked") || type == QLatin1String("lease_lost") ||
           type == QLatin1String("lost_in_failover");
}

const QColor kTtlColor(0x1e, 0x88, 0xe5);
const QColor kWarnColor(0xc6, 0x28, 0x28);
const QColor kLateColor(0xef, 0x6c, 0x00);

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
        // On a dark palette the markers' dark tones vanish: lighter tones, filled with the
        // background instead of white.
        const bool dark = palette().color(QPalette::Base).lightnessF() < 0.5;
        const QColor color = dark ? m.color.lighter(190) : m.color;
        const QColor fill = m.shape == QCPScatterStyle::ssDisc ? color
                            : dark                             ? palette().color(QPalette::Base)
                                                               : QColor(Qt::white);
        g->setScatterStyle(QCPScatterStyle(m.shape, color, fill, m.size));
        QPen pen(color, 2);
        g->setPen(pen);
        if (m.shape == QCPScatterStyle::ssCircle) // a ring around the renewal's own disc
            g->setScatterStyle(QCPScatterStyle(m.shape, QPen(m.color, 2.5), Qt::NoBrush, m.size));
        if (rareMarker(QString::fromLatin1(m.type)))
            g->removeFromLegend();
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
    m_overlapBands = 0;
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
    const QVector<HistoryStore::Sample> samples = TtlSeries::withRenewals(h->samples(lock()), events);
    if (samples.isEmpty()) {
        m_note->setText(tr("No readings of %1 yet").arg(lock()));
        m_note->setVisible(true);
        return;
    }

    double fromKey = 0;
    double toKey = 0;
    timeRange(&fromKey, &toKey);
    const qint64 now = nowMs();
    const TtlSeries series = TtlSeries::compute(samples, events, now, fromKey, toKey);
    if (series.haveLast) {
        m_haveLast = true;
        m_lastTimeMs = series.lastTimeMs;
        m_lastPttlMs = series.lastPttlMs;
        m_lastHolders = series.lastHolders;
        m_lastHoldCount = series.lastHoldCount;
        m_leaseMs = series.leaseMs;
        m_levelMs = series.levelMs;
        m_lastRenewalMs = series.lastRenewalMs;
        m_overdueSinceMs = series.overdueSinceMs;
    }
    const HistoryStore::Sample &lastSample = samples.last();
    if (lastSample.pttlMs == -1) {
        m_note->setText(tr("%1 has no expiry (PTTL -1): it never frees itself").arg(lock()));
        m_note->setVisible(true);
        m_lastPttlMs = -1; // the title says "no expiry", never "free"
    } else if (!m_haveLast) {
        m_lastHolders.clear();
        m_lastPttlMs = lastSample.pttlMs;
    }

    const int buckets = std::max(100, m_plot->axisRect()->width());
    const QVector<QCPGraphData> curve = SeriesDownsampler::minMax(series.points, fromKey, toKey, buckets);
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
        if (!goneAt(e.type)) {
            const auto after = std::upper_bound(samples.cbegin(), samples.cend(), e.timeMs + TtlSeries::kEventSlackMs,
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
    for (auto it = m_markers.cbegin(); it != m_markers.cend(); ++it) {
        if (!rareMarker(it.key()))
            continue;
        if (markerData.contains(it.key()))
            it.value()->addToLegend();
        else
            it.value()->removeFromLegend();
    }

    // After a lost lease whose holder came back: the window in which both holders may have run
    // the critical section, hatched red over the whole height.
    for (const LockEvent &e : events) {
        if (e.type != QLatin1String("holder_returned"))
            continue;
        const qint64 from = e.extra.value(QStringLiteral("overlap_from_ms")).toInteger();
        qint64 to = e.extra.value(QStringLiteral("overlap_to_ms")).toInteger(e.timeMs);
        // Both may have run only while the next holder held it: the band ends at its release.
        const QString next = e.extra.value(QStringLiteral("next_holder")).toString();
        for (const LockEvent &r : events)
            if (!next.isEmpty() && r.lock == e.lock && r.holder == next && r.timeMs >= from && r.timeMs < to &&
                (r.type == QLatin1String("released") || r.type == QLatin1String("expired") ||
                 r.type == QLatin1String("force_unlocked") || r.type == QLatin1String("lease_lost")))
                to = r.timeMs;
        if (from <= 0 || to < from || keyOf(to) < fromKey || keyOf(from) > toKey)
            continue;
        auto *band = new QCPItemRect(m_plot);
        band->setLayer(QStringLiteral("grid"));
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(keyOf(from), 0);
        band->bottomRight->setCoords(keyOf(to), 1);
        band->setPen(QPen(kWarnColor, 1, Qt::DotLine));
        band->setBrush(QBrush(QColor(kWarnColor.red(), kWarnColor.green(), kWarnColor.blue(), 110), Qt::BDiagPattern));
        m_bands << band;
        ++m_overlapBands;
    }

    // Where the TTL fell below the renewal level: orange when the renewal came late, red when the
    // lock expired instead. The newest 50 in view.
    int drawn = 0;
    for (auto it = series.spans.crbegin(); it != series.spans.crend() && drawn < 50; ++it) {
        if (keyOf(it->toMs) < fromKey || keyOf(it->fromMs) > toKey)
            continue;
        auto *band = new QCPItemRect(m_plot);
        band->setLayer(QStringLiteral("grid"));
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(keyOf(it->fromMs), 0);
        band->bottomRight->setCoords(keyOf(it->toMs), 1);
        // Orange is the README's late renewal (under half the lease left when it came); a renewal
        // merely overdue that came before that is grey, an expiry red.
        const qint64 leftAtRenewalMs = TtlSeries::overdueLevel(m_leaseMs) - (it->toMs - it->fromMs);
        const QColor c = it->expired                                        ? kWarnColor
                         : m_leaseMs > 0 && leftAtRenewalMs < m_leaseMs / 2 ? kLateColor
                                                                            : QColor(0x9e, 0x9e, 0x9e);
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(c.red(), c.green(), c.blue(), 50));
        m_bands << band;
        ++drawn;
    }

    if (m_levelMs >= 0) {
        const double level = TtlSeries::renewalLevel(m_leaseMs) / 1000.0;
        m_levelLine->point1->setCoords(0, level);
        m_levelLine->point2->setCoords(1, level);
        m_levelLine->setVisible(true);
        m_levelText->position->setCoords(0.005, level);
        m_levelText->setText(
            tr("renewed every lease/3 (%1): TTL stays above %2")
                .arg(DurationText::ttl(m_leaseMs / 3), DurationText::ttl(TtlSeries::renewalLevel(m_leaseMs))));
        m_levelText->setVisible(true);
    }
    const qint64 top = std::max<qint64>({series.maxVisibleMs, m_haveLast ? m_lastPttlMs : 0, 1000});
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
                           : m_lastTimeMs + std::max<qint64>(0, m_lastPttlMs - TtlSeries::renewalLevel(m_leaseMs));
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
                           .arg(DurationText::ttl(ttlNow), DurationText::ttl(TtlSeries::renewalLevel(m_leaseMs)),
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
