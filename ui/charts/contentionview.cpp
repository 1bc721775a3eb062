#include "charts/contentionview.h"

#include "charts/seriesdownsampler.h"
#include "common/holderpalette.h"
#include "common/plottheme.h"

#include "recording/historystore.h"
#include "text/durationtext.h"
#include "watch/lockdiscovery.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace lockscope
{

namespace
{

const QColor kHeldColor(0x1e, 0x88, 0xe5);
const QColor kWaitColor(0xef, 0x6c, 0x00);

qint64 percentile(QVector<qint64> v, double p)
{
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.at(std::clamp(int(p * (v.size() - 1) + 0.5), 0, int(v.size()) - 1));
}

QTableWidget *makeTable(QWidget *parent, const QStringList &headers)
{
    auto *t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(20);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setWordWrap(false);
    t->setColumnWidth(0, 110);
    t->setColumnWidth(1, 64);
    t->setColumnWidth(2, 100);
    return t;
}

QCPTextElement *addTitle(QCustomPlot *plot)
{
    plot->plotLayout()->insertRow(0);
    auto *title = new QCPTextElement(plot, QString(), plot->font());
    // In the palette's text colour from the start (PlotTheme recolours it on a palette change):
    // a dark theme set before the chart existed left the titles black on dark grey.
    title->setTextColor(plot->palette().color(QPalette::Text));
    plot->plotLayout()->addElement(0, 0, title);
    return title;
}

} // namespace

ContentionView::ContentionView(QWidget *parent) : HistoryChart(parent)
{
    setFrameInterval(500); // heavier than the other charts, and less urgent
    setWindowMs(600000);

    m_pattern = new QLineEdit(this);
    m_pattern->setPlaceholderText(tr("Selected lock, or a glob: payments:*"));
    m_pattern->setClearButtonEnabled(true);
    m_pattern->setMinimumWidth(260);
    m_pattern->setToolTip(tr("Empty: histograms of the selected lock, lines and lists of all locks.\n"
                             "A Redis glob (orders:* ?  [abc]) or a word: everything covers the matching locks."));
    connect(m_pattern, &QLineEdit::textChanged, this, [this] {
        markDirty();
        if (isVisible())
            refreshNow();
    });
    addHeaderWidget(m_pattern);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_timePlot = new QCustomPlot(split);
    registerPlot(m_timePlot, tr("Held locks and waiters"), true);
    m_held = m_timePlot->addGraph();
    m_held->setName(tr("held locks"));
    m_held->setLineStyle(QCPGraph::lsStepLeft);
    m_held->setPen(QPen(kHeldColor, 2));
    m_held->setBrush(QColor(kHeldColor.red(), kHeldColor.green(), kHeldColor.blue(), 30));
    m_waiters = m_timePlot->addGraph();
    m_waiters->setName(tr("waiting clients"));
    m_waiters->setLineStyle(QCPGraph::lsStepLeft);
    m_waiters->setPen(QPen(kWaitColor, 2));
    m_timePlot->yAxis->setLabel(tr("count"));
    m_timePlot->legend->setVisible(true);
    PlotTheme::apply(m_timePlot, palette()); // the legend too, in the palette's colours
    m_timePlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    addTitle(m_timePlot)->setText(tr("Held locks and waiting clients"));

    m_holdPlot = new QCustomPlot(split);
    m_waitPlot = new QCustomPlot(split);
    registerPlot(m_holdPlot, tr("Hold-time histogram"), false);
    registerPlot(m_waitPlot, tr("Wait-time histogram"), false);
    m_holdTitle = addTitle(m_holdPlot);
    m_waitTitle = addTitle(m_waitPlot);
    m_holdBars = new QCPBars(m_holdPlot->xAxis, m_holdPlot->yAxis);
    m_holdBars->setPen(QPen(kHeldColor.darker(130)));
    m_holdBars->setBrush(kHeldColor);
    m_waitBars = new QCPBars(m_waitPlot->xAxis, m_waitPlot->yAxis);
    m_waitBars->setPen(QPen(kWaitColor.darker(130)));
    m_waitBars->setBrush(kWaitColor);
    m_holdPlot->xAxis->setLabel(tr("hold time (s)"));
    m_waitPlot->xAxis->setLabel(tr("wait time (s): fair queue, or unlock-channel subscription"));
    for (QCustomPlot *p : {m_holdPlot, m_waitPlot}) {
        p->yAxis->setLabel(tr("count"));
        p->yAxis->grid()->setSubGridVisible(false);
        QSharedPointer<QCPAxisTickerFixed> ints(new QCPAxisTickerFixed);
        ints->setTickStep(1);
        ints->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        p->yAxis->setTicker(ints);
    }

    auto *lists = new QWidget(split);
    auto *listLayout = new QVBoxLayout(lists);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->setSpacing(2);
    listLayout->addWidget(new QLabel(tr("<b>Longest held</b> (a hold still going counts up to now)"), lists));
    m_longest = makeTable(lists, {tr("Lock"), tr("Held for"), tr("Holder"), tr("Ended")});
    listLayout->addWidget(m_longest);
    listLayout->addWidget(new QLabel(tr("<b>Most contended</b> (clients waiting)"), lists));
    m_contended = makeTable(lists, {tr("Lock"), tr("Average"), tr("Peak"), tr("Queue waits")});
    listLayout->addWidget(m_contended);
    for (QTableWidget *t : {m_longest, m_contended})
        connect(t, &QTableWidget::cellDoubleClicked, this, [this, t](int row, int) {
            if (QTableWidgetItem *item = t->item(row, 0))
                emit lockActivated(item->text());
        });

    split->addWidget(m_timePlot);
    split->addWidget(m_holdPlot);
    split->addWidget(m_waitPlot);
    split->addWidget(lists);
    const int stretch[] = {5, 3, 3, 4};
    for (int i = 0; i < 4; ++i)
        split->setStretchFactor(i, stretch[i]);
    split->setSizes({460, 290, 290, 440}); // proportions: the plots' own size hints are tiny
    contentLayout()->addWidget(split, 1);
    titleLabel()->setText(tr("<b>Contention</b>"));
}

void ContentionView::setPattern(const QString &pattern)
{
    m_pattern->setText(pattern);
}

QString ContentionView::pattern() const
{
    return m_pattern->text().trimmed();
}

void ContentionView::lockChanged()
{
    markDirty();
}

ContentionView::Histogram ContentionView::bin(const QVector<qint64> &durationsMs, int maxBins)
{
    static const qint64 widths[] = {10,    20,    50,    100,   200,    250,    500,    1000,   2000,    5000,
                                    10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000};
    Histogram h;
    if (durationsMs.isEmpty())
        return h;
    const qint64 longest = std::max<qint64>(0, *std::max_element(durationsMs.cbegin(), durationsMs.cend()));
    h.binMs = widths[std::size(widths) - 1];
    for (qint64 w : widths) {
        if (longest / w + 1 <= maxBins) {
            h.binMs = w;
            break;
        }
    }
    h.counts.fill(0, int(longest / h.binMs + 1));
    for (qint64 d : durationsMs)
        ++h.counts[int(std::clamp<qint64>(d / h.binMs, 0, h.counts.size() - 1))];
    h.total = int(durationsMs.size());
    return h;
}

void ContentionView::drawHistogram(QCustomPlot *plot, QCPBars *bars, QCPTextElement *title, const Histogram &hist,
                                   const QVector<qint64> &durations, const QString &what, const QString &scope)
{
    QVector<double> keys;
    QVector<double> values;
    for (int i = 0; i < hist.counts.size(); ++i) {
        keys << (i + 0.5) * hist.binMs / 1000.0;
        values << hist.counts.at(i);
    }
    bars->setData(keys, values, true);
    bars->setWidth(hist.binMs / 1000.0 * 0.9);
    const int peak = values.isEmpty() ? 0 : int(*std::max_element(values.cbegin(), values.cend()));
    plot->xAxis->setRange(0, std::max<double>(1.0, hist.counts.size() * hist.binMs / 1000.0));
    plot->yAxis->setRange(0, std::max(1.0, peak * 1.15));
    if (durations.isEmpty()) {
        title->setText(tr("%1: %2\nnone completed in view").arg(what, scope));
        return;
    }
    title->setText(tr("%1: %2\nn=%3, median %4, p95 %5, max %6")
                       .arg(what, scope)
                       .arg(durations.size())
                       .arg(DurationText::ttl(percentile(durations, 0.5)),
                            DurationText::ttl(percentile(durations, 0.95)),
                            DurationText::ttl(*std::max_element(durations.cbegin(), durations.cend()))));
}

void ContentionView::rebuild()
{
    const HistoryStore *h = history();
    const qint64 now = nowMs();
    m_lastRebuildMs = now;
    double fromKey = 0;
    double toKey = 0;
    timeRange(&fromKey, &toKey);
    const qint64 fromMs = msOf(fromKey);
    const qint64 toMs = std::min(msOf(toKey), now);

    QRegularExpression re;
    const QString glob = pattern();
    if (!glob.isEmpty()) {
        const bool isGlob =
            glob.contains(QLatin1Char('*')) || glob.contains(QLatin1Char('?')) || glob.contains(QLatin1Char('['));
        re = LockDiscovery::globToRegex(isGlob ? glob : QLatin1Char('*') + glob + QLatin1Char('*'));
    }
    auto matches = [&](const QString &name) { return glob.isEmpty() || re.match(name).hasMatch(); };
    const QString linesScope = glob.isEmpty() ? tr("all locks") : tr("locks matching %1").arg(glob);
    const QString histScope = !glob.isEmpty() ? linesScope : lock().isEmpty() ? tr("no lock selected") : lock();
    auto inHistogram = [&](const QString &name) { return glob.isEmpty() ? name == lock() : matches(name); };

    QVector<HistoryStore::Interval> holds;
    QVector<HistoryStore::Interval> waits;
    QStringList names;
    if (h) {
        holds = h->holds(QString(), fromMs, toMs);
        waits = h->waits(QString(), fromMs, toMs);
        for (const QString &name : h->lockNames())
            if (matches(name))
                names << name;
    }

    // Held locks over time: +1 at each hold start, -1 at its end; sorted by (time, delta), so at
    // equal times ends come first and a hand-over is not two holders for a moment. The store
    // returns each lock's intervals together: match names once per lock, not once per interval.
    std::vector<std::pair<qint64, qint64>> heldDeltas;
    heldDeltas.reserve(size_t(holds.size()) * 2);
    QVector<qint64> holdMs;
    QHash<QString, HistoryStore::Interval> longest;
    QString group;
    bool groupMatches = false;
    bool groupInHistogram = false;
    HistoryStore::Interval best;
    bool haveBest = false;
    auto keepBest = [&] {
        if (!haveBest)
            return;
        const auto it = longest.constFind(best.lock);
        if (it == longest.cend() || best.durationMs(now) > it->durationMs(now))
            longest.insert(best.lock, best);
        haveBest = false;
    };
    for (const auto &i : std::as_const(holds)) {
        if (i.lock != group) {
            keepBest();
            group = i.lock;
            groupMatches = matches(group);
            groupInHistogram = inHistogram(group);
        }
        if (groupMatches) {
            heldDeltas.emplace_back(i.startMs, +1);
            if (i.endMs >= 0)
                heldDeltas.emplace_back(i.endMs, -1);
            if (!haveBest || i.durationMs(now) > best.durationMs(now)) {
                best = i;
                haveBest = true;
            }
        }
        if (groupInHistogram && i.endMs >= fromMs && i.endMs <= toMs)
            holdMs << i.durationMs(i.endMs);
    }
    keepBest();
    QVector<qint64> waitMs;
    QHash<QString, int> queueWaits;
    group.clear();
    int *groupWaits = nullptr;
    for (const auto &i : std::as_const(waits)) {
        if (i.lock != group) {
            group = i.lock;
            groupMatches = matches(group);
            groupInHistogram = inHistogram(group);
            groupWaits = groupMatches ? &queueWaits[group] : nullptr;
        }
        if (groupInHistogram && i.endMs >= fromMs && i.endMs <= toMs)
            waitMs << i.durationMs(i.endMs);
        if (groupWaits)
            ++*groupWaits;
    }

    // Waiting clients over time, and per lock the average and peak, from the samples.
    std::vector<std::pair<qint64, qint64>> waitDeltas;
    struct Contention {
        double clientMs = 0;
        qint64 peak = 0;
    };
    QHash<QString, Contention> contention;
    if (h) {
        for (const QString &name : std::as_const(names)) {
            const HistoryStore::Sample first = h->sampleAt(name, fromMs);
            qint64 level = first.timeMs > 0 ? first.waiters : 0;
            qint64 since = fromMs;
            if (level)
                waitDeltas.emplace_back(fromMs, level);
            Contention c;
            c.peak = level;
            for (const auto &s : h->samples(name, fromMs + 1, toMs)) {
                c.clientMs += double(level) * double(s.timeMs - since);
                if (s.waiters != level)
                    waitDeltas.emplace_back(s.timeMs, s.waiters - level);
                level = s.waiters;
                since = s.timeMs;
                c.peak = std::max(c.peak, level);
            }
            c.clientMs += double(level) * double(toMs - since);
            if (c.peak > 0)
                contention.insert(name, c);
        }
    }

    auto steps = [](std::vector<std::pair<qint64, qint64>> &deltas, qint64 endMs) {
        std::sort(deltas.begin(), deltas.end());
        QVector<QCPGraphData> out;
        qint64 level = 0;
        for (size_t k = 0; k < deltas.size();) {
            const qint64 t = deltas[k].first;
            for (; k < deltas.size() && deltas[k].first == t; ++k)
                level += deltas[k].second;
            out << QCPGraphData(keyOf(t), double(level));
        }
        if (!out.isEmpty())
            out << QCPGraphData(keyOf(std::max(endMs, msOf(out.last().key))), double(level));
        return out;
    };
    const int buckets = std::max(100, m_timePlot->axisRect()->width());
    const QVector<QCPGraphData> held = steps(heldDeltas, now);
    const QVector<QCPGraphData> waiting = steps(waitDeltas, now);
    m_held->data()->set(SeriesDownsampler::minMax(held, fromKey, toKey, buckets), true);
    m_waiters->data()->set(SeriesDownsampler::minMax(waiting, fromKey, toKey, buckets), true);
    double top = 1;
    for (const auto &d : held)
        top = std::max(top, d.value);
    for (const auto &d : waiting)
        top = std::max(top, d.value);
    m_timePlot->yAxis->setRange(0, top * 1.2 + 0.5);

    m_holdHist = bin(holdMs);
    m_waitHist = bin(waitMs);
    drawHistogram(m_holdPlot, m_holdBars, m_holdTitle, m_holdHist, holdMs, tr("Hold times"), histScope);
    drawHistogram(m_waitPlot, m_waitBars, m_waitTitle, m_waitHist, waitMs, tr("Fair-queue wait times"), histScope);

    // Longest held: each lock's longest hold in view.
    QVector<HistoryStore::Interval> top10 = longest.values();
    std::sort(top10.begin(), top10.end(), [now](const auto &a, const auto &b) {
        return a.durationMs(now) != b.durationMs(now) ? a.durationMs(now) > b.durationMs(now) : a.lock < b.lock;
    });
    if (top10.size() > kTopN)
        top10.resize(kTopN);
    m_longest->setRowCount(int(top10.size()));
    for (int row = 0; row < top10.size(); ++row) {
        const auto &i = top10.at(row);
        const QStringList fields = HolderPalette::split(i.who);
        auto *holder = new QTableWidgetItem(HolderPalette::shortLabel(fields.value(0)) +
                                            (fields.size() > 1 ? tr(" +%1").arg(fields.size() - 1) : QString()));
        holder->setForeground(HolderPalette::colorFor(fields.value(0)));
        holder->setToolTip(i.who);
        m_longest->setItem(row, 0, new QTableWidgetItem(i.lock));
        m_longest->setItem(row, 1, new QTableWidgetItem(DurationText::ttl(i.durationMs(now))));
        m_longest->setItem(row, 2, holder);
        m_longest->setItem(row, 3, new QTableWidgetItem(i.endMs < 0 ? tr("still held") : i.endReason));
    }

    // Most contended: average waiting clients over the range, then the peak.
    const double spanMs = std::max<double>(1.0, double(toMs - fromMs));
    QStringList order = contention.keys();
    std::sort(order.begin(), order.end(), [&](const QString &a, const QString &b) {
        const Contention &ca = contention[a];
        const Contention &cb = contention[b];
        if (ca.clientMs != cb.clientMs)
            return ca.clientMs > cb.clientMs;
        return ca.peak != cb.peak ? ca.peak > cb.peak : a < b;
    });
    if (order.size() > kTopN)
        order.resize(kTopN);
    m_contended->setRowCount(int(order.size()));
    for (int row = 0; row < order.size(); ++row) {
        const Contention &c = contention[order.at(row)];
        m_contended->setItem(row, 0, new QTableWidgetItem(order.at(row)));
        m_contended->setItem(row, 1, new QTableWidgetItem(QString::number(c.clientMs / spanMs, 'f', 2)));
        m_contended->setItem(row, 2, new QTableWidgetItem(QString::number(c.peak)));
        m_contended->setItem(row, 3, new QTableWidgetItem(QString::number(queueWaits.value(order.at(row)))));
    }

    titleLabel()->setText(tr("<b>Contention</b> · lines and lists: %1 · histograms: %2")
                              .arg(linesScope.toHtmlEscaped(), histScope.toHtmlEscaped()));
}

void ContentionView::tick()
{
    // Nothing moves between rebuilds but "now": refresh the lines' live end about once a second.
    if (isFollowingNow() && nowMs() - m_lastRebuildMs >= 1000)
        markDirty();
}

QStringList ContentionView::longestHeld() const
{
    QStringList out;
    for (int row = 0; row < m_longest->rowCount(); ++row)
        out << m_longest->item(row, 0)->text();
    return out;
}

QStringList ContentionView::mostContended() const
{
    QStringList out;
    for (int row = 0; row < m_contended->rowCount(); ++row)
        out << m_contended->item(row, 0)->text();
    return out;
}

} // namespace lockscope
