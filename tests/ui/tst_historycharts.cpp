// Offscreen tests of the history charts (TTL chart, timeline, contention) on a HistoryStore fed
// with synthetic data, with the charts' clock set by the test: a watchdog lock renewed every 10 s
// whose renewals then stop, contended locks with several holders, a fair lock with a queue.
// Set LOCKSCOPE_CHART_SHOTS=DIR to keep the rendered charts as PNGs for a look.
#include "charts/contentionview.h"
#include "charts/seriesdownsampler.h"
#include "charts/timelinewidget.h"
#include "charts/ttlchart.h"
#include "common/holderpalette.h"

#include "recording/historystore.h"

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>

using namespace lockscope;

namespace
{

constexpr qint64 kT0 = 1700000000000; // epoch ms
const QString kOrders = QStringLiteral("orders:42");
const QString kPayments = QStringLiteral("payments:batch");
const QString kJobs = QStringLiteral("jobs:nightly");
const QString kBilling = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
const QString kWorkerA = QStringLiteral("5f1e0c2a-0000-4000-8000-00000000000a:31");
const QString kWorkerB = QStringLiteral("7c9d4e11-0000-4000-8000-00000000000b:44");
const QString kWorkerC = QStringLiteral("2a6b8f93-0000-4000-8000-00000000000c:12");

LockSnapshot held(const QString &name, const QStringList &fields, qint64 pttlMs, qint64 holdCount = 1,
                  qint64 subscribers = 0)
{
    LockSnapshot s;
    s.name = name;
    s.isLock = true;
    s.exists = !fields.isEmpty();
    s.pttlMs = fields.isEmpty() ? -2 : pttlMs;
    for (const QString &f : fields) {
        LockHolder h;
        h.field = f;
        h.clientId = f.section(QLatin1Char(':'), 0, 0);
        h.threadId = f.section(QLatin1Char(':'), 1);
        h.holdCount = holdCount;
        s.holders << h;
    }
    s.subscribers = subscribers;
    return s;
}

LockEvent lockEvent(qint64 timeMs, const QString &lock, const QString &type, const QString &holder)
{
    LockEvent e;
    e.timeMs = timeMs;
    e.lock = lock;
    e.type = type;
    e.holder = holder;
    return e;
}

/** orders:42: acquired and re-entered at kT0 under a 30 s watchdog lease, renewed every 10 s
 *  six times (last at kT0 + 60 s); then the renewals stop. With `sameReadings`, every renewal
 *  reads exactly 30000 ms, so the store keeps no sample for them (nothing "changed") and only the
 *  `renewed` events tell; otherwise the readings differ by a millisecond or two, as live. */
void feedWatchdog(HistoryStore &store, bool sameReadings = false)
{
    store.addSnapshot(held(kOrders, {kBilling}, 30000, 1), kT0);
    store.addEvents({lockEvent(kT0, kOrders, QStringLiteral("acquired"), kBilling)});
    store.addSnapshot(held(kOrders, {kBilling}, 30000, 2), kT0 + 50);
    store.addEvents({lockEvent(kT0 + 50, kOrders, QStringLiteral("reentered"), kBilling)});
    for (int k = 1; k <= 6; ++k) {
        const qint64 t = kT0 + 50 + k * 10000;
        store.addSnapshot(held(kOrders, {kBilling}, sameReadings ? 30000 : 30000 - k % 3, 2), t);
        store.addEvents({lockEvent(t, kOrders, QStringLiteral("renewed"), kBilling)});
    }
}

/** payments:batch: A, B, C, A, B, C hold in turn for 4 s each with a 1 s gap, two clients
 *  waiting on the unlock channel while held; the last hold is still going. */
void feedContention(HistoryStore &store)
{
    const QStringList order{kWorkerA, kWorkerB, kWorkerC, kWorkerA, kWorkerB, kWorkerC};
    for (int i = 0; i < order.size(); ++i) {
        const qint64 t = kT0 + 2000 + i * 5000;
        store.addSnapshot(held(kPayments, {order.at(i)}, 30000, 1, 2), t);
        store.addEvents({lockEvent(t, kPayments, QStringLiteral("acquired"), order.at(i))});
        if (i + 1 < order.size()) {
            store.addSnapshot(held(kPayments, {}, -2), t + 4000);
            store.addEvents({lockEvent(t + 4000, kPayments, QStringLiteral("released"), order.at(i))});
        }
    }
}

/** jobs:nightly (fair): A holds; B then C queue; B takes over at +8 s (waited 6 s), C at +14 s. */
void feedFairQueue(HistoryStore &store)
{
    auto fair = [](const QStringList &holders, const QStringList &queue) {
        LockSnapshot s = held(kJobs, holders, 30000);
        s.kind = LockKind::FairLock;
        int position = 0;
        for (const QString &f : queue) {
            LockWaiter w;
            w.field = f;
            w.position = ++position;
            s.waiters << w;
        }
        s.queueLength = queue.size();
        return s;
    };
    store.addSnapshot(fair({kWorkerA}, {}), kT0 + 1000);
    store.addSnapshot(fair({kWorkerA}, {kWorkerB}), kT0 + 2000);
    store.addSnapshot(fair({kWorkerA}, {kWorkerB, kWorkerC}), kT0 + 3000);
    store.addSnapshot(fair({kWorkerB}, {kWorkerC}), kT0 + 8000);
    store.addSnapshot(fair({kWorkerC}, {}), kT0 + 14000);
}

QVector<double> values(QCPGraph *graph)
{
    QVector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out << it->value;
    return out;
}

} // namespace

class TestHistoryCharts : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void paletteIsStableAndShared();
    void downsamplerBoundsPointsAndKeepsExtremes();
    void ttlChartShowsSawToothAndMarkers_data();
    void ttlChartShowsSawToothAndMarkers();
    void ttlChartWarnsWhenAnExpectedRenewalDoesNotCome_data();
    void ttlChartWarnsWhenAnExpectedRenewalDoesNotCome();
    void ttlChartDoesNotWarnForALeaseThatWasNeverRenewed();
    void timelineHasOneLanePerLockAndASegmentPerHold();
    void handOverBetweenSameColouredHoldersIsVisible();
    void timelineFollowsTheFilterAndShowsStateUnderTheCursor();
    void timelineZoomsPansAndSelectsWithTheMouse();
    void contentionCountsHoldsAndWaits();
    void chartsRenderAndSave();
    void updatesAreCoalescedIntoFrames();
    void chartsFollowADarkPalette();
    void leaseSafetyEventsAreMarkedOnTheTtlChartAndTimeline();

private:
    void keepShot(QCustomPlot *plot, const QString &name);
    HistoryStore m_store;
    qint64 m_now = kT0;
};

void TestHistoryCharts::init()
{
    m_store.clear();
    m_now = kT0;
}

void TestHistoryCharts::keepShot(QCustomPlot *plot, const QString &name)
{
    const QString dir = qEnvironmentVariable("LOCKSCOPE_CHART_SHOTS");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QVERIFY(HistoryChart::saveChart(plot, QDir(dir).filePath(name)));
}

void TestHistoryCharts::paletteIsStableAndShared()
{
    // Fixed values: the colour of a holder must not change between runs (no seeded qHash).
    QCOMPARE(HolderPalette::colorFor(kBilling), HolderPalette::colorFor(QString(kBilling)));
    QVERIFY(HolderPalette::colors().contains(HolderPalette::colorFor(kWorkerA)));
    QCOMPARE(HolderPalette::split(kWorkerA + QStringLiteral(", ") + kWorkerB), (QStringList{kWorkerA, kWorkerB}));
    QCOMPARE(HolderPalette::shortLabel(kBilling), QStringLiteral("b983c153…:1"));
    QSet<QRgb> seen;
    for (int i = 0; i < 64; ++i)
        seen.insert(HolderPalette::colorFor(QStringLiteral("client-%1:1").arg(i)).rgb());
    QVERIFY2(seen.size() >= 8, "holders spread over the palette");
}

void TestHistoryCharts::downsamplerBoundsPointsAndKeepsExtremes()
{
    // A saw-tooth over an hour, one reading a second: 3600 teeth, 7200 points.
    QVector<QCPGraphData> data;
    for (int s = 0; s < 3600; ++s) {
        data << QCPGraphData(s, 30.0) << QCPGraphData(s + 0.999, 20.0);
        if (s == 1800)
            data << QCPGraphData(s + 0.9995, std::nan(""));
    }
    const QVector<QCPGraphData> out = SeriesDownsampler::minMax(data, 0, 3600, 300);
    QVERIFY2(out.size() <= 5 * 300 + 2, qPrintable(QString::number(out.size())));
    double lo = 1e9;
    double hi = -1e9;
    bool gap = false;
    for (const auto &d : out) {
        if (std::isnan(d.value)) {
            gap = true;
            continue;
        }
        lo = std::min(lo, d.value);
        hi = std::max(hi, d.value);
    }
    QCOMPARE(lo, 20.0);
    QCOMPARE(hi, 30.0);
    QVERIFY2(gap, "a NaN gap survives downsampling");
    for (int i = 1; i < out.size(); ++i)
        QVERIFY(out.at(i - 1).key <= out.at(i).key);
    // Small inputs come back unchanged.
    QCOMPARE(SeriesDownsampler::minMax(data.mid(0, 10), 0, 10, 300).size(), 10);
}

void TestHistoryCharts::ttlChartShowsSawToothAndMarkers_data()
{
    QTest::addColumn<bool>("sameReadings");
    QTest::newRow("readings differ") << false;
    QTest::newRow("renewals read the same PTTL") << true;
}

void TestHistoryCharts::ttlChartShowsSawToothAndMarkers()
{
    QFETCH(bool, sameReadings);
    feedWatchdog(m_store, sameReadings);
    m_now = kT0 + 65050; // 5 s after the last renewal: TTL 25 s, all well
    TtlChart chart;
    chart.setClock([this] { return m_now; });
    chart.setHistory(&m_store);
    chart.setLock(kOrders);
    chart.resize(1100, 380);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.refreshNow();

    // The saw-tooth: back to 30 s at each renewal, down to 20 s just before the next one.
    const QVector<double> v = values(chart.ttlGraph());
    const auto count = [&v](double lo, double hi) {
        return std::count_if(v.cbegin(), v.cend(), [lo, hi](double x) { return x >= lo && x <= hi; });
    };
    QVERIFY2(count(29.9, 30.0) >= 7, qPrintable(QString::number(count(29.9, 30.0))));
    QVERIFY2(count(19.9, 20.1) >= 6, qPrintable(QString::number(count(19.9, 20.1))));
    // The live end counts down from the last reading to now: 30 s -> 25 s.
    QCOMPARE(chart.liveGraph()->dataCount(), 2);
    QCOMPARE(std::round((chart.liveGraph()->data()->constEnd() - 1)->value), 25.0);

    QCOMPARE(chart.markerGraph(QStringLiteral("renewed"))->dataCount(), 6);
    QCOMPARE(chart.markerGraph(QStringLiteral("acquired"))->dataCount(), 1);
    QCOMPARE(chart.markerGraph(QStringLiteral("reentered"))->dataCount(), 1);
    for (double y : values(chart.markerGraph(QStringLiteral("renewed"))))
        QVERIFY2(y >= 29.99, qPrintable(QString::number(y))); // on top of each tooth
    QVERIFY(!chart.renewalOverdue());
    QVERIFY(chart.warningText().isEmpty());
    QCOMPARE(chart.overdueBandCount(), 0);
    QCOMPARE(chart.renewalLevelMs(), qint64(17000)); // 2/3 of 30 s, minus 3 s
    if (!sameReadings)
        keepShot(chart.plot(), QStringLiteral("ttl-sawtooth.png"));
}

void TestHistoryCharts::ttlChartWarnsWhenAnExpectedRenewalDoesNotCome_data()
{
    ttlChartShowsSawToothAndMarkers_data();
}

void TestHistoryCharts::ttlChartWarnsWhenAnExpectedRenewalDoesNotCome()
{
    QFETCH(bool, sameReadings);
    feedWatchdog(m_store, sameReadings);
    const qint64 lastRenewal = kT0 + 60050;
    TtlChart chart;
    chart.setClock([this] { return m_now; });
    chart.setHistory(&m_store);
    chart.setLock(kOrders);
    chart.resize(1100, 380);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));

    m_now = lastRenewal + 12000; // TTL 18 s: the renewal is 2 s late, within the margin
    chart.refreshNow();
    QVERIFY(!chart.renewalOverdue());

    // A reading that only confirms the countdown (TTL 16.5 s) does not end the overdue time.
    m_store.addSnapshot(held(kOrders, {kBilling}, 16500, 2), lastRenewal + 13500);
    m_now = lastRenewal + 14000; // TTL 16 s: below 17 s, the expected renewal did not come
    chart.refreshNow();
    QVERIFY(chart.renewalOverdue());
    QVERIFY2(chart.warningText().contains(QStringLiteral("did not come")), qPrintable(chart.warningText()));
    QVERIFY2(chart.warningText().contains(QStringLiteral("TTL 16.0 s")) ||
                 chart.warningText().contains(QStringLiteral("TTL 15.9 s")),
             qPrintable(chart.warningText()));
    QCOMPARE(chart.overdueBandCount(), 1); // the live band, from when the renewal was due
    if (!sameReadings)
        keepShot(chart.plot(), QStringLiteral("ttl-missed-renewal.png"));

    // It expires: the warning goes, a red band and an expiry marker stay for the post-mortem.
    m_store.addSnapshot(held(kOrders, {}, -2), lastRenewal + 30200);
    m_store.addEvents({lockEvent(lastRenewal + 30200, kOrders, QStringLiteral("expired"), kBilling)});
    m_now = lastRenewal + 32000;
    chart.refreshNow();
    QVERIFY(!chart.renewalOverdue());
    QCOMPARE(chart.overdueBandCount(), 1);
    QCOMPARE(chart.markerGraph(QStringLiteral("expired"))->dataCount(), 1);
    QCOMPARE(chart.liveGraph()->dataCount(), 0);
}

void TestHistoryCharts::ttlChartDoesNotWarnForALeaseThatWasNeverRenewed()
{
    // inventory:7 style: a 20 s lease taken once and left to expire is not a missed renewal.
    const QString name = QStringLiteral("inventory:7");
    m_store.addSnapshot(held(name, {kWorkerC}, 20000), kT0);
    m_store.addEvents({lockEvent(kT0, name, QStringLiteral("acquired"), kWorkerC)});
    m_now = kT0 + 19000;
    TtlChart chart;
    chart.setClock([this] { return m_now; });
    chart.setHistory(&m_store);
    chart.setLock(name);
    chart.refreshNow();
    QVERIFY(!chart.renewalOverdue());
    QCOMPARE(chart.renewalLevelMs(), qint64(-1));
    QCOMPARE(chart.overdueBandCount(), 0);
}

void TestHistoryCharts::timelineHasOneLanePerLockAndASegmentPerHold()
{
    feedWatchdog(m_store);
    feedContention(m_store);
    feedFairQueue(m_store);
    m_now = kT0 + 70000;
    TimelineWidget timeline;
    timeline.setClock([this] { return m_now; });
    timeline.setHistory(&m_store);
    timeline.resize(1100, 400);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    timeline.refreshNow();

    // Most active first: payments:batch (6 holds), jobs:nightly (3 holds + 2 waits), orders:42.
    QCOMPARE(timeline.lanes(), (QStringList{kPayments, kJobs, kOrders}));

    const auto payments = timeline.segmentsOf(kPayments);
    QCOMPARE(payments.size(), 6);
    const QStringList order{kWorkerA, kWorkerB, kWorkerC, kWorkerA, kWorkerB, kWorkerC};
    for (int i = 0; i < payments.size(); ++i) {
        QCOMPARE(payments.at(i).who, order.at(i));
        QCOMPARE(payments.at(i).color, HolderPalette::colorFor(order.at(i)));
    }
    QCOMPARE(payments.at(0).color, payments.at(3).color); // same holder, same colour
    QVERIFY(std::isnan(payments.last().endKey));          // still held: drawn up to now
    // The same holder has the same colour on another lock.
    const auto jobs = timeline.segmentsOf(kJobs);
    QCOMPARE(jobs.size(), 3);
    QCOMPARE(jobs.at(0).color, payments.at(0).color);
    QCOMPARE(timeline.segmentsOf(kOrders).size(), 1);

    // Waiters under the lanes: the fair queue's two waiters in their own colours, the unlock
    // channel's counted clients of payments:batch in grey with their count.
    const auto queued = timeline.segmentsOf(kJobs, false);
    QCOMPARE(queued.size(), 2);
    QCOMPARE(queued.at(0).who, kWorkerB);
    QCOMPARE(queued.at(0).color.rgb(), HolderPalette::colorFor(kWorkerB).rgb());
    QCOMPARE(queued.at(0).endKey, HistoryChart::keyOf(kT0 + 8000));
    const auto counted = timeline.segmentsOf(kPayments, false);
    QVERIFY(!counted.isEmpty());
    QCOMPARE(counted.first().label, QStringLiteral("2 waiting"));

    timeline.setMaxLanes(2);
    timeline.refreshNow();
    QCOMPARE(timeline.lanes().size(), 2);
}

void TestHistoryCharts::timelineFollowsTheFilterAndShowsStateUnderTheCursor()
{
    feedWatchdog(m_store);
    feedContention(m_store);
    feedFairQueue(m_store);
    m_now = kT0 + 70000;
    QStandardItemModel source;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&source);
    TimelineWidget timeline;
    timeline.setClock([this] { return m_now; });
    timeline.setHistory(&m_store);
    timeline.setFilterModel(&proxy);
    timeline.resize(1100, 400);
    timeline.refreshNow();
    QCOMPARE(timeline.lanes().size(), 3);
    proxy.setFilterRegularExpression(QRegularExpression(QStringLiteral("^payments")));
    timeline.refreshNow();
    QCOMPARE(timeline.lanes(), QStringList{kPayments});

    // payments:batch: A holds from +2 s to +6 s, B from +7 s to +11 s, so at +8 s it is B.
    const QString text = timeline.showCursorAt(kT0 + 8000, kPayments);
    QVERIFY2(text.contains(QStringLiteral("held by 7c9d4e11…:44")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("TTL 29.0 s")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2 client(s) waiting")), qPrintable(text));
    QVERIFY2(timeline.stateAt(kPayments, kT0 + 6500).contains(QStringLiteral("free")),
             qPrintable(timeline.stateAt(kPayments, kT0 + 6500)));
    const QString queued = timeline.stateAt(kJobs, kT0 + 4000);
    QVERIFY2(queued.contains(QStringLiteral("queued: 7c9d4e11…:44, 2a6b8f93…:12")), qPrintable(queued));
    QVERIFY(timeline.stateAt(kOrders, kT0 - 1000).contains(QStringLiteral("not seen yet")));
}

void TestHistoryCharts::timelineZoomsPansAndSelectsWithTheMouse()
{
    feedWatchdog(m_store);
    feedContention(m_store);
    feedFairQueue(m_store);
    m_now = kT0 + 70000;
    TimelineWidget timeline;
    timeline.setClock([this] { return m_now; });
    timeline.setHistory(&m_store);
    timeline.resize(1100, 400);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    timeline.refreshNow();
    QCustomPlot *plot = timeline.plot();
    QVERIFY(timeline.isFollowingNow());

    // The mouse over the payments:batch lane at +8 s: the cursor tells who held it then.
    const int lane = int(timeline.lanes().indexOf(kPayments));
    const QPoint at(int(plot->xAxis->coordToPixel(HistoryChart::keyOf(kT0 + 8000))),
                    int(plot->yAxis->coordToPixel(lane)));
    QTest::mouseMove(plot, at);
    QTRY_VERIFY(timeline.cursorText().contains(QStringLiteral("payments:batch: held by 7c9d4e11…:44")));

    // Double-click: that lane's lock is asked for.
    QSignalSpy activated(&timeline, &HistoryChart::lockActivated);
    QTest::mouseDClick(plot, Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.first().first().toString(), kPayments);

    // The wheel zooms time around the mouse and stops following now; Follow now comes back.
    const double span = plot->xAxis->range().size();
    QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    QVERIFY2(plot->xAxis->range().size() < span, qPrintable(QString::number(plot->xAxis->range().size())));
    QVERIFY(!timeline.isFollowingNow());
    timeline.setFollowingNow(true);
    timeline.refreshNow();
    QCOMPARE(plot->xAxis->range().size(), span);
}

void TestHistoryCharts::contentionCountsHoldsAndWaits()
{
    feedWatchdog(m_store);
    feedContention(m_store);
    feedFairQueue(m_store);
    m_now = kT0 + 70000;
    ContentionView view;
    view.setClock([this] { return m_now; });
    view.setHistory(&m_store);
    view.setLock(kPayments);
    view.resize(1300, 420);
    view.refreshNow();

    // The selected lock: five completed holds of 4 s (the sixth is still going).
    ContentionView::Histogram hold = view.holdHistogram();
    QCOMPARE(hold.total, 5);
    int sum = 0;
    for (int c : hold.counts)
        sum += c;
    QCOMPARE(sum, 5);
    QCOMPARE(hold.counts.at(int(4000 / hold.binMs)), 5);
    QCOMPARE(view.waitHistogram().total, 0); // not a fair lock: no queue waits

    // A pattern: every lock matching it. jobs:nightly: holds of A (7 s) and B (6 s); waits of
    // B (6 s) and C (11 s).
    view.setPattern(QStringLiteral("jobs:*"));
    view.refreshNow();
    QCOMPARE(view.holdHistogram().total, 2);
    QCOMPARE(view.waitHistogram().total, 2);
    view.setPattern(QStringLiteral("*"));
    view.refreshNow();
    QCOMPARE(view.holdHistogram().total, 5 + 2); // orders:42 is still held
    QCOMPARE(view.waitHistogram().total, 2);

    // Lists: orders:42 has been held for 70 s; payments:batch has two clients waiting most of
    // the time, jobs:nightly one or two for 12 s.
    QCOMPARE(view.longestHeld().first(), kOrders);
    QCOMPARE(view.mostContended().first(), kPayments);
    QVERIFY(view.mostContended().contains(kJobs));
    QVERIFY(!view.mostContended().contains(kOrders));

    // Lines: at most 3 locks held at once, 2 + 2 waiting clients at the peak.
    double heldPeak = 0;
    for (double v : values(view.heldGraph()))
        heldPeak = std::max(heldPeak, v);
    double waitPeak = 0;
    for (double v : values(view.waitersGraph()))
        waitPeak = std::max(waitPeak, v);
    QCOMPARE(heldPeak, 3.0);
    QCOMPARE(waitPeak, 4.0);

    // Bins are round: 10 ms … 1 h, at most 24.
    const ContentionView::Histogram h = ContentionView::bin({100, 900, 4000, 4100, 59000});
    QCOMPARE(h.binMs, qint64(5000));
    QCOMPARE(h.total, 5);
    QCOMPARE(h.counts.at(0), 4);
    QCOMPARE(h.counts.last(), 1);
}

void TestHistoryCharts::chartsRenderAndSave()
{
    feedWatchdog(m_store);
    feedContention(m_store);
    feedFairQueue(m_store);
    m_now = kT0 + 70000;
    TtlChart ttl;
    TimelineWidget timeline;
    ContentionView contention;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (HistoryChart *chart : std::initializer_list<HistoryChart *>{&ttl, &timeline, &contention}) {
        chart->setClock([this] { return m_now; });
        chart->setHistory(&m_store);
        chart->setLock(kPayments);
        chart->resize(1200, 420);
        chart->show();
        QVERIFY(QTest::qWaitForWindowExposed(chart));
        chart->refreshNow();
        const QPixmap pixmap = chart->grab();
        QVERIFY(!pixmap.isNull());
        QCOMPARE(pixmap.size(), chart->size());
    }
    timeline.showCursorAt(kT0 + 8000, kPayments);
    keepShot(timeline.plot(), QStringLiteral("timeline.png"));
    keepShot(contention.timePlot(), QStringLiteral("contention-lines.png"));
    keepShot(contention.holdPlot(), QStringLiteral("contention-holds.png"));

    const QString png = dir.filePath(QStringLiteral("ttl.png"));
    QVERIFY(HistoryChart::saveChart(ttl.plot(), png));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= ttl.plot()->width()); // twice the screen resolution
    const QString pdf = dir.filePath(QStringLiteral("timeline.pdf"));
    QVERIFY(HistoryChart::saveChart(timeline.plot(), pdf));
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.read(5) == "%PDF-");
    QString error;
    QVERIFY(!HistoryChart::saveChart(contention.holdPlot(), dir.filePath(QStringLiteral("missing/dir/x.png")), &error));
    QVERIFY(error.contains(QStringLiteral("Could not write")));
}

void TestHistoryCharts::updatesAreCoalescedIntoFrames()
{
    feedWatchdog(m_store);
    TtlChart chart;
    chart.setHistory(&m_store);
    chart.setLock(kOrders);
    chart.setFrameInterval(100);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QTest::qWait(150);
    const int before = chart.rebuildCount();
    for (int i = 0; i < 500; ++i)
        chart.historyUpdated(); // 500 batches arriving within one frame
    QTest::qWait(250);
    const int rebuilds = chart.rebuildCount() - before;
    QVERIFY2(rebuilds >= 1 && rebuilds <= 3, qPrintable(QString::number(rebuilds)));
    chart.hide();
    const int hidden = chart.rebuildCount();
    chart.historyUpdated();
    QTest::qWait(250);
    QCOMPARE(chart.rebuildCount(), hidden); // a hidden chart costs nothing
}

// Charts that stay white glare in a dark theme: they take the palette's colours, and follow a
// palette change.
void TestHistoryCharts::chartsFollowADarkPalette()
{
    feedWatchdog(m_store);
    m_now = kT0 + 65050;
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Mid, QColor(0x55, 0x55, 0x55));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
    TtlChart chart;
    chart.setClock([this] { return m_now; });
    chart.setHistory(&m_store);
    chart.setLock(kOrders);
    chart.resize(1100, 380);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setPalette(dark); // a theme change after the chart was built
    chart.refreshNow();
    QCOMPARE(chart.plot()->axisRect()->backgroundBrush().color(), dark.color(QPalette::Base));
    QCOMPARE(chart.plot()->xAxis->tickLabelColor(), dark.color(QPalette::Text));
    QCOMPARE(chart.plot()->legend->textColor(), dark.color(QPalette::Text));
    const QImage image = chart.plot()->toPixmap(1100, 330).toImage();
    // Mostly dark: the background is the palette's, not white.
    int darkPixels = 0;
    for (int y = 0; y < image.height(); y += 10)
        for (int x = 0; x < image.width(); x += 10)
            darkPixels += qGray(image.pixel(x, y)) < 80 ? 1 : 0;
    const int samples = (image.height() / 10 + 1) * (image.width() / 10 + 1);
    QVERIFY2(darkPixels > samples / 2, qPrintable(QStringLiteral("%1 of %2").arg(darkPixels).arg(samples)));
    const QString shots = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(shots);
    QVERIFY(chart.grab().save(QDir(shots).filePath(QStringLiteral("ttl-chart-dark.png"))));
}

// Lease safety: a late renewal is marked apart from the normal ones on the TTL chart; a lost
// lease, the old holder's return (with the window in which both may have run) and a failover
// loss are distinct marks on the timeline, and on the TTL chart.
void TestHistoryCharts::leaseSafetyEventsAreMarkedOnTheTtlChartAndTimeline()
{
    feedWatchdog(m_store); // renewed every 10 s, the last at kT0 + 60 s
    feedContention(m_store);
    const auto withExtra = [](LockEvent e, const QJsonObject &extra) {
        e.extra = extra;
        return e;
    };
    // A renewal 24 s after the previous one, with 6 s of the 30 s lease left.
    const qint64 late = kT0 + 84050;
    m_store.addSnapshot(held(kOrders, {kBilling}, 30000, 2), late);
    m_store.addEvents({lockEvent(late, kOrders, QStringLiteral("renewed"), kBilling),
                       withExtra(lockEvent(late, kOrders, QStringLiteral("renewal_late"), kBilling),
                                 {{QStringLiteral("lease_ms"), 30000},
                                  {QStringLiteral("expected_interval_ms"), 10000},
                                  {QStringLiteral("actual_interval_ms"), 24000},
                                  {QStringLiteral("margin_ms"), 6000}})});
    // Then nothing: the lease runs out and worker A, waiting, takes the lock in the same read.
    const qint64 lost = late + 30050;
    m_store.addSnapshot(held(kOrders, {kWorkerA}, 30000), lost);
    m_store.addEvents(
        {withExtra(lockEvent(lost, kOrders, QStringLiteral("lease_lost"), kBilling),
                   {{QStringLiteral("next_holder"), kWorkerA}, {QStringLiteral("overlap_from_ms"), lost}}),
         withExtra(lockEvent(lost, kOrders, QStringLiteral("acquired"), kWorkerA),
                   {{QStringLiteral("after_lease_lost"), kBilling}})});
    // The old holder comes back 20 s later.
    const qint64 back = lost + 20000;
    m_store.addEvents({withExtra(lockEvent(back, kOrders, QStringLiteral("holder_returned"), kBilling),
                                 {{QStringLiteral("next_holder"), kWorkerA},
                                  {QStringLiteral("overlap_from_ms"), lost},
                                  {QStringLiteral("overlap_to_ms"), back}})});
    // payments:batch was lost in a failover while C held it.
    m_store.addEvents({lockEvent(kT0 + 30000, kPayments, QStringLiteral("lost_in_failover"), kWorkerC)});
    m_now = back + 5000;

    TtlChart chart;
    chart.setClock([this] { return m_now; });
    chart.setHistory(&m_store);
    chart.setLock(kOrders);
    chart.resize(1100, 380);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.refreshNow();
    QCPGraph *lateMarks = chart.markerGraph(QStringLiteral("renewal_late"));
    QCPGraph *renewed = chart.markerGraph(QStringLiteral("renewed"));
    QVERIFY(lateMarks && renewed);
    QCOMPARE(lateMarks->dataCount(), 1);
    QCOMPARE(lateMarks->data()->constBegin()->key, HistoryChart::keyOf(late));
    QVERIFY2(lateMarks->data()->constBegin()->value >= 29.9, "on top of the renewal it follows");
    QVERIFY(lateMarks->scatterStyle().shape() != renewed->scatterStyle().shape());
    QVERIFY(lateMarks->scatterStyle().pen().color() != renewed->scatterStyle().pen().color());
    QVERIFY(lateMarks->scatterStyle().size() > renewed->scatterStyle().size()); // a ring around the disc
    QCOMPARE(chart.markerGraph(QStringLiteral("lease_lost"))->dataCount(), 1);
    QCOMPARE(chart.markerGraph(QStringLiteral("lease_lost"))->data()->constBegin()->value, 0.0); // gone, as expired
    QCOMPARE(chart.markerGraph(QStringLiteral("holder_returned"))->dataCount(), 1);
    QCOMPARE(chart.overlapBandCount(), 1);
    // In the legend while in view; a failover marker with nothing to show stays out of it.
    QVERIFY(chart.plot()->legend->hasItemWithPlottable(lateMarks));
    QVERIFY(chart.plot()->legend->hasItemWithPlottable(chart.markerGraph(QStringLiteral("lease_lost"))));
    QVERIFY(!chart.plot()->legend->hasItemWithPlottable(chart.markerGraph(QStringLiteral("lost_in_failover"))));
    keepShot(chart.plot(), QStringLiteral("ttl-lease-lost.png"));
    // A lock without any of them keeps the usual legend.
    chart.setLock(kPayments);
    chart.refreshNow();
    QVERIFY(!chart.plot()->legend->hasItemWithPlottable(lateMarks));

    TimelineWidget timeline;
    timeline.setClock([this] { return m_now; });
    timeline.setHistory(&m_store);
    timeline.resize(1100, 400);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    timeline.refreshNow();
    const auto marks = timeline.leaseMarksOf(kOrders);
    QCOMPARE(marks.size(), 2);
    QCOMPARE(int(marks.at(0).kind), int(TimelineSegments::Mark::LeaseLost));
    QCOMPARE(marks.at(0).key, HistoryChart::keyOf(lost));
    QCOMPARE(int(marks.at(1).kind), int(TimelineSegments::Mark::HolderReturned));
    QCOMPARE(marks.at(1).key, HistoryChart::keyOf(back));
    const auto overlaps = timeline.overlapsOf(kOrders);
    QCOMPARE(overlaps.size(), 1);
    QCOMPARE(overlaps.at(0).fromKey, HistoryChart::keyOf(lost));
    QCOMPARE(overlaps.at(0).toKey, HistoryChart::keyOf(back));
    const auto failover = timeline.leaseMarksOf(kPayments);
    QCOMPARE(failover.size(), 1);
    QCOMPARE(int(failover.at(0).kind), int(TimelineSegments::Mark::LostInFailover));

    // Drawn: the lease-lost disc is red beside its white cross, the failover square purple.
    timeline.plot()->replot();
    const QImage image = timeline.plot()->toPixmap().toImage();
    const auto colourAt = [&](const QString &lock, double key, double dx) {
        const double x = timeline.plot()->xAxis->coordToPixel(key) + dx;
        const double y = timeline.plot()->yAxis->coordToPixel(timeline.lanes().indexOf(lock) - 0.16);
        return image.pixelColor(int(std::lround(x)), int(std::lround(y)));
    };
    const QColor disc = colourAt(kOrders, HistoryChart::keyOf(lost), 5);
    QVERIFY2(disc.red() > 170 && disc.green() < 80 && disc.blue() < 80, qPrintable(disc.name()));
    const QColor square = colourAt(kPayments, HistoryChart::keyOf(kT0 + 30000), 5);
    QVERIFY2(square.blue() > 120 && square.green() < 60, qPrintable(square.name()));
    keepShot(timeline.plot(), QStringLiteral("timeline-lease-lost.png"));
}

// Issue 38: two holders whose hashes pick the same palette colour, one right after the other on a
// lock: the second is drawn darker, so the hand-over does not look like one hold.
void TestHistoryCharts::handOverBetweenSameColouredHoldersIsVisible()
{
    const QString first = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    QString second;
    for (int t = 2; t < 500 && second.isEmpty(); ++t) {
        const QString f = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:%1").arg(t);
        if (HolderPalette::colorFor(f) == HolderPalette::colorFor(first))
            second = f;
    }
    QVERIFY(!second.isEmpty());
    HistoryStore store;
    const QString lock = QStringLiteral("handover");
    store.addSnapshot(held(lock, {first}, 30000), kT0 + 1000);
    store.addEvents({lockEvent(kT0 + 1000, lock, QStringLiteral("acquired"), first)});
    store.addSnapshot(held(lock, {}, -2), kT0 + 5000);
    store.addEvents({lockEvent(kT0 + 5000, lock, QStringLiteral("released"), first)});
    store.addSnapshot(held(lock, {second}, 30000), kT0 + 5010);
    store.addEvents({lockEvent(kT0 + 5010, lock, QStringLiteral("acquired"), second)});
    m_now = kT0 + 9000;
    TimelineWidget timeline;
    timeline.setClock([this] { return m_now; });
    timeline.setHistory(&store);
    timeline.resize(900, 300);
    timeline.refreshNow();
    const auto segments = timeline.segmentsOf(lock);
    QCOMPARE(segments.size(), 2);
    QCOMPARE(segments.at(0).color, HolderPalette::colorFor(first));
    QVERIFY(segments.at(1).color != segments.at(0).color);
}

QTEST_MAIN(TestHistoryCharts)
#include "tst_historycharts.moc"
