// LockTableModel and EventLogModel alone (no I/O), under QAbstractItemModelTester.
#include "common/holderpalette.h"
#include "locks/clientsmodel.h"
#include "locks/eventlogmodel.h"
#include "locks/findingmodel.h"
#include "locks/leasebadgedelegate.h"
#include "locks/lockbatchbuffer.h"
#include "locks/lockdetailpanel.h"
#include "locks/lockfilterproxy.h"
#include "locks/locktablemodel.h"

#include "diagnose/leasetracker.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <cmath>

using namespace lockscope;

static LockSnapshot lock(const QString &name, const QString &field, qint64 count, qint64 pttl, qint64 readAt)
{
    LockSnapshot s;
    s.name = name;
    s.isLock = true;
    s.exists = true;
    s.pttlMs = pttl;
    s.readAtSteadyMs = readAt;
    LockHolder h;
    h.field = field;
    h.clientId = field.section(QLatin1Char(':'), 0, 0);
    h.threadId = field.section(QLatin1Char(':'), 1);
    h.holdCount = count;
    s.holders << h;
    return s;
}

class TestLockTableModel : public QObject
{
    Q_OBJECT
private slots:
    void insertsUpdatesAndRemovesInBatches();
    void namesSortNaturally();
    void detectsWatchdogRenewal();
    void marksOwnHolds();
    void eventLogIsNewestFirstAndCapped();
    void kindColumnSaysWhatTheDataCannotTell();
    void bulkInsertIsOneResetAndSortsOnce();
    void batchBufferKeepsWhatApplyingInOrderLeaves();
    void heldForCountsFromTheFirstSighting();
    void clientsModelFollowsTheTableOnlyWhenActive();
    void lostLeaseShowsBesideTheHolderAndInTheDetail();
    void leaseBadgesLastAsLongAsTheirFindings();
    void lateRenewalAndFailoverBadges();
    void eventLogExplainsAndColoursLeaseEvents();
    void problemsTooltipGivesEvidenceTimesAsClockTimes();
};

static const QString kA = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
static const QString kB = QStringLiteral("0c7931ed-77b4-4eba-8af7-706668f329e6:7");

void TestLockTableModel::insertsUpdatesAndRemovesInBatches()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const qint64 now = LockSnapshot::steadyNowMs();

    QVector<LockSnapshot> batch;
    for (int i = 0; i < 50; ++i)
        batch << lock(QStringLiteral("lock:%1").arg(i), kA, 1, 30000, now);
    batch << lock(QStringLiteral("lock:7"), kB, 3, 20000, now); // duplicate in one batch: last wins
    model.applyBatch(batch, {});
    QCOMPARE(model.rowCount(), 50);
    QCOMPARE(model.snapshot(QStringLiteral("lock:7"))->holders.first().field, kB);

    model.applyBatch({lock(QStringLiteral("lock:3"), kA, 2, 30000, now)},
                     {QStringLiteral("lock:10"), QStringLiteral("lock:11"), QStringLiteral("lock:12"),
                      QStringLiteral("lock:40"), QStringLiteral("nope")});
    QCOMPARE(model.rowCount(), 46);
    QVERIFY(!model.snapshot(QStringLiteral("lock:11")));
    const int row = model.rowOf(QStringLiteral("lock:3"));
    QVERIFY(row >= 0);
    QCOMPARE(model.index(row, LockTableModel::HoldCountColumn).data().toLongLong(), 2);
    QCOMPARE(model.index(row, LockTableModel::HolderColumn).data().toString(), kA);
    // The index stays right after removals.
    for (int r = 0; r < model.rowCount(); ++r)
        QCOMPARE(model.rowOf(model.index(r, 0).data().toString()), r);

    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestLockTableModel::detectsWatchdogRenewal()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const qint64 t0 = 1000000;
    model.applyBatch({lock(QStringLiteral("orders:42"), kA, 2, 30000, t0)}, {});
    const QModelIndex idx = model.index(0, LockTableModel::TtlColumn);
    QCOMPARE(idx.data(LockTableModel::LastRenewalRole).toLongLong(), 0);
    // 10 s later the TTL is back at ~30 s with the same holder: a renewal.
    model.applyBatch({lock(QStringLiteral("orders:42"), kA, 2, 29990, t0 + 10000)}, {});
    QCOMPARE(idx.data(LockTableModel::LastRenewalRole).toLongLong(), t0 + 10000);
    QCOMPARE(idx.data(LockTableModel::TtlScaleRole).toLongLong(), 30000);
    // Counting down normally is not a renewal; a new holder resets the mark.
    model.applyBatch({lock(QStringLiteral("orders:42"), kA, 2, 25000, t0 + 15000)}, {});
    QCOMPARE(idx.data(LockTableModel::LastRenewalRole).toLongLong(), t0 + 10000);
    model.applyBatch({lock(QStringLiteral("orders:42"), kB, 1, 5000, t0 + 16000)}, {});
    QCOMPARE(idx.data(LockTableModel::LastRenewalRole).toLongLong(), 0);
    QCOMPARE(idx.data(LockTableModel::TtlScaleRole).toLongLong(), 5000);
}

void TestLockTableModel::marksOwnHolds()
{
    LockTableModel model;
    model.setOwnClientId(kB.section(QLatin1Char(':'), 0, 0));
    const qint64 now = LockSnapshot::steadyNowMs();
    model.applyBatch({lock(QStringLiteral("a"), kA, 1, 1000, now), lock(QStringLiteral("b"), kB, 1, 1000, now)}, {});
    QVERIFY(!model.index(model.rowOf(QStringLiteral("a")), 0).data(LockTableModel::OwnHoldRole).toBool());
    QVERIFY(model.index(model.rowOf(QStringLiteral("b")), 0).data(LockTableModel::OwnHoldRole).toBool());
    QVERIFY(model.index(model.rowOf(QStringLiteral("b")), LockTableModel::HolderColumn)
                .data()
                .toString()
                .contains(QStringLiteral("LockScope")));
}

void TestLockTableModel::eventLogIsNewestFirstAndCapped()
{
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setCapacity(5);
    QVector<LockEvent> events;
    for (int i = 0; i < 4; ++i)
        events << LockEvent{i, QStringLiteral("l%1").arg(i), QStringLiteral("acquired"), kA, QString()};
    model.append(events);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.event(0).lock, QStringLiteral("l3"));
    model.append({LockEvent{9, QStringLiteral("l9"), QStringLiteral("expired"), kA, QString()},
                  LockEvent{10, QStringLiteral("l10"), QStringLiteral("released"), kA, QString()}});
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.event(0).lock, QStringLiteral("l10"));
    QCOMPARE(model.event(4).lock, QStringLiteral("l1"));
    QVERIFY(!model.index(0, EventLogModel::TypeColumn).data(Qt::ToolTipRole).toString().isEmpty());
}

void TestLockTableModel::kindColumnSaysWhatTheDataCannotTell()
{
    LockTableModel model;
    const qint64 now = LockSnapshot::steadyNowMs();
    LockSnapshot unsure = lock(QStringLiteral("u"), kA, 1, 1000, now);
    unsure.kindCertain = false;
    unsure.kindNote = QStringLiteral("a fair lock without waiters stores exactly what a plain lock stores");
    LockSnapshot group = lock(QStringLiteral("g"), kA, 2, 1000, now);
    group.kind = LockKind::FasterMultiLock;
    group.multiLockValues = {MultiLockValue{QStringLiteral("h1"), kA, {}, {}, 1, 0},
                             MultiLockValue{QStringLiteral("h2"), kA, {}, {}, 1, 0}};
    LockSnapshot twin = lock(QStringLiteral("x"), kA, 1, 1000, now);
    twin.holders.clear();
    twin.exists = false;
    twin.kind = LockKind::FairLock;
    twin.twinName = QStringLiteral("{x}");
    model.applyBatch({unsure, group, twin}, {});
    const QModelIndex u = model.index(model.rowOf(QStringLiteral("u")), LockTableModel::KindColumn);
    QCOMPARE(u.data().toString(), QStringLiteral("Reentrant lock")); // the doubt is in the tooltip
    QVERIFY(u.data(Qt::ToolTipRole).toString().contains(QLatin1String("stores exactly")));
    const QModelIndex g = model.index(model.rowOf(QStringLiteral("g")), LockTableModel::KindColumn);
    QCOMPARE(g.data().toString(), QStringLiteral("Multilock (2 value(s))"));
    QVERIFY(g.data(Qt::ToolTipRole).toString().contains(QLatin1String("getMultiLock")));
    QVERIFY(model.index(model.rowOf(QStringLiteral("x")), LockTableModel::NameColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("{x}")));
}

// Thousands of new rows at once reset the model (a sorting proxy then sorts once instead
// of doing O(rows) work per insertion, which froze the window for 25 s at 200k locks); smaller batches stay row
// insertions.
void TestLockTableModel::bulkInsertIsOneResetAndSortsOnce()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(LockTableModel::SortRole);
    proxy.setDynamicSortFilter(true);
    proxy.sort(LockTableModel::NameColumn);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    const qint64 now = LockSnapshot::steadyNowMs();

    QVector<LockSnapshot> small;
    for (int i = 0; i < 10; ++i)
        small << lock(QStringLiteral("lock:%1").arg(i, 6, 10, QLatin1Char('0')), kA, 1, 30000, now);
    model.applyBatch(small, {});
    QCOMPARE(inserts.size(), 1);
    QCOMPARE(resets.size(), 0);

    QVector<LockSnapshot> bulk;
    for (int i = LockTableModel::kBulkInsertRows * 2; i >= 10; --i) // reverse order: the proxy sorts
        bulk << lock(QStringLiteral("lock:%1").arg(i, 6, 10, QLatin1Char('0')), kA, 1, 30000, now);
    model.applyBatch(bulk, {});
    QCOMPARE(resets.size(), 1);
    QCOMPARE(inserts.size(), 1);
    QCOMPARE(model.rowCount(), LockTableModel::kBulkInsertRows * 2 + 1);
    for (int r = 0; r < model.rowCount(); ++r)
        QCOMPARE(model.rowOf(model.index(r, 0).data().toString()), r);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("lock:000000"));
    QCOMPARE(proxy.index(proxy.rowCount() - 1, 0).data().toString(),
             QStringLiteral("lock:%1").arg(LockTableModel::kBulkInsertRows * 2, 6, 10, QLatin1Char('0')));

    // A few more rows into a big table: insertions again.
    model.applyBatch({lock(QStringLiteral("lock:999999"), kA, 1, 30000, now)}, {});
    QCOMPARE(resets.size(), 1);
    QCOMPARE(inserts.size(), 2);
}

// The dashboard merges batches for big tables (MainWindow, so a big first discovery does not
// freeze it): the merge must leave what
// applying the batches one by one would.
void TestLockTableModel::batchBufferKeepsWhatApplyingInOrderLeaves()
{
    const qint64 now = LockSnapshot::steadyNowMs();
    const QString a = QStringLiteral("a"), b = QStringLiteral("b"), c = QStringLiteral("c"), d = QStringLiteral("d");
    const QVector<QPair<QVector<LockSnapshot>, QStringList>> batches{
        {{lock(a, kA, 1, 30000, now), lock(b, kA, 1, 30000, now), lock(c, kA, 1, 30000, now)}, {}},
        {{lock(a, kA, 2, 30000, now)}, {b}}, // a changes, b goes
        {{lock(b, kB, 1, 30000, now)}, {c}}, // b comes back, c goes
        {{lock(d, kA, 1, 30000, now), lock(a, kA, 3, 30000, now)}, {}},
        {{}, {d}}, // d goes before anyone saw it
    };
    LockTableModel oneByOne;
    LockTableModel merged;
    merged.applyBatch({lock(c, kB, 5, 30000, now)}, {}); // c existed before: its removal matters
    oneByOne.applyBatch({lock(c, kB, 5, 30000, now)}, {});
    LockBatchBuffer buffer;
    for (const auto &batch : batches) {
        oneByOne.applyBatch(batch.first, batch.second);
        buffer.merge(batch.first, batch.second);
    }
    QVector<LockSnapshot> changed;
    QStringList removed;
    buffer.take(&changed, &removed);
    QVERIFY(buffer.isEmpty());
    merged.applyBatch(changed, removed);
    QCOMPARE(merged.rowCount(), oneByOne.rowCount());
    for (const QString &name : {a, b, c, d}) {
        QCOMPARE(bool(merged.snapshot(name)), bool(oneByOne.snapshot(name)));
        if (oneByOne.snapshot(name))
            QCOMPARE(merged.snapshot(name)->holderSummary() + QString::number(merged.snapshot(name)->totalHoldCount()),
                     oneByOne.snapshot(name)->holderSummary() +
                         QString::number(oneByOne.snapshot(name)->totalHoldCount()));
    }
    QCOMPARE(merged.snapshot(a)->totalHoldCount(), 3);
    QCOMPARE(merged.snapshot(b)->holders.first().field, kB);
    QVERIFY(!merged.snapshot(c));
    QVERIFY(!merged.snapshot(d));
}

// Names sort as people number things: orders:2 before orders:10 (by code unit it came after).
// "Held for" is the column operators sort by (as in pg_activity). Redis keeps no acquire
// time, so it counts from the first sighting, marked "≥" for holders already there at the first read.
void TestLockTableModel::heldForCountsFromTheFirstSighting()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    qint64 now = 1000000;
    model.setClock([&now] { return now; });
    model.applyBatch({lock(QStringLiteral("old"), kA, 1, 30000, now)}, {}); // the first discovery
    model.setInitialReadDone();
    now += 5000;
    model.applyBatch({lock(QStringLiteral("new"), kB, 1, 30000, now)}, {});
    now += 65000;
    const QModelIndex oldHeld = model.index(model.rowOf(QStringLiteral("old")), LockTableModel::HeldForColumn);
    const QModelIndex newHeld = model.index(model.rowOf(QStringLiteral("new")), LockTableModel::HeldForColumn);
    QCOMPARE(oldHeld.data().toString(), QStringLiteral("≥ 1 min 10 s"));
    QCOMPARE(newHeld.data().toString(), QStringLiteral("1 min 05 s"));
    QVERIFY(oldHeld.data(Qt::ToolTipRole).toString().contains(QStringLiteral("at least")));
    QCOMPARE(oldHeld.data(LockTableModel::SortRole).toLongLong(), 70000);

    // Sortable: the longest hold first when sorted descending.
    LockFilterProxy proxy(&model);
    proxy.setSortRole(LockTableModel::SortRole);
    proxy.sort(LockTableModel::HeldForColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, LockTableModel::NameColumn).data().toString(), QStringLiteral("old"));

    // Re-entering keeps the hold; a hand-over restarts it (without "≥"); free shows nothing.
    LockSnapshot reentered = lock(QStringLiteral("old"), kA, 2, 30000, now);
    model.applyBatch({reentered}, {});
    QCOMPARE(oldHeld.data().toString(), QStringLiteral("≥ 1 min 10 s"));
    model.applyBatch({lock(QStringLiteral("old"), kB, 1, 30000, now)}, {});
    now += 2300;
    QCOMPARE(oldHeld.data().toString(), QStringLiteral("2.3 s"));
    LockSnapshot free = lock(QStringLiteral("old"), kB, 1, 30000, now);
    free.holders.clear();
    model.applyBatch({free}, {});
    QVERIFY(oldHeld.data().toString().isEmpty());
    QCOMPARE(oldHeld.data(LockTableModel::SortRole).toLongLong(), -1);
}

// The Clients tab's model: one row per client id, rebuilt from the lock table, and
// only while someone looks at it (a rebuild walks every lock).
void TestLockTableModel::clientsModelFollowsTheTableOnlyWhenActive()
{
    LockTableModel locks;
    ClientsModel clients(&locks);
    QAbstractItemModelTester tester(&clients, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const qint64 now = LockSnapshot::steadyNowMs();
    locks.applyBatch({lock(QStringLiteral("a"), kA, 1, 30000, now), lock(QStringLiteral("b"), kA, 3, 30000, now)}, {});
    QTRY_COMPARE(clients.rowCount(), 1);
    QCOMPARE(clients.index(0, ClientsModel::HoldsColumn).data().toString(),
             QStringLiteral("2 lock(s): a (thread 1), b (thread 1, ×3)"));
    clients.setActive(false);
    locks.applyBatch({lock(QStringLiteral("c"), kB, 1, 30000, now)}, {});
    QTest::qWait(ClientsModel::rebuildDelayMs() * 2);
    QCOMPARE(clients.rowCount(), 1); // not followed while hidden
    clients.setActive(true);
    QCOMPARE(clients.rowCount(), 2); // caught up at once
    // The label column is the only editable one, and an edit is announced.
    QSignalSpy edited(&clients, &ClientsModel::labelEdited);
    QVERIFY(!clients.setData(clients.index(0, ClientsModel::ClientIdColumn), QStringLiteral("x")));
    QVERIFY(clients.setData(clients.index(0, ClientsModel::LabelColumn), QStringLiteral(" billing ")));
    QCOMPARE(edited.size(), 1);
    QCOMPARE(edited.at(0).at(1).toString(), QStringLiteral("billing"));
}

namespace
{
constexpr qint64 kLostAt = 1764243784000; // epoch ms of the lost lease in these tests

LockEvent leaseEvent(qint64 timeMs, const QString &lock, const QString &type, const QString &holder,
                     const QJsonObject &extra = {})
{
    LockEvent e;
    e.timeMs = timeMs;
    e.lock = lock;
    e.type = type;
    e.holder = holder;
    e.extra = extra;
    return e;
}

/** The events LeaseTracker gives for orders:42: A's watchdog stopped, the lease ran out at kLostAt
 *  and B, waiting, took the lock in the same read. */
QVector<LockEvent> leaseLostToB()
{
    return {leaseEvent(kLostAt, QStringLiteral("orders:42"), QStringLiteral("lease_lost"), kA,
                       {{QStringLiteral("client_id"), kA.section(QLatin1Char(':'), 0, 0)},
                        {QStringLiteral("thread_id"), QStringLiteral("1")},
                        {QStringLiteral("lease_ms"), 30000},
                        {QStringLiteral("renewals"), 4},
                        {QStringLiteral("last_renewed_ms"), kLostAt - 30000},
                        {QStringLiteral("silent_ms"), 30000},
                        {QStringLiteral("next_holder"), kB},
                        {QStringLiteral("overlap_from_ms"), kLostAt}}),
            leaseEvent(kLostAt, QStringLiteral("orders:42"), QStringLiteral("acquired"), kB,
                       {{QStringLiteral("after_lease_lost"), kA}})};
}

/** Contrast ratio of two colours (WCAG 2). */
double contrast(const QColor &a, const QColor &b)
{
    auto lum = [](const QColor &c) {
        auto lin = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
    };
    const double la = lum(a);
    const double lb = lum(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
} // namespace

// Lease safety: a lock whose lease was lost says so beside its holder (badge, tooltip naming the
// old holder, when and the next holder), and the detail panel says what it means.
void TestLockTableModel::lostLeaseShowsBesideTheHolderAndInTheDetail()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    qint64 wall = kLostAt + 1000;
    model.setEventClock([&wall] { return wall; });
    const QString name = QStringLiteral("orders:42");
    const qint64 now = LockSnapshot::steadyNowMs();
    model.applyBatch({lock(name, kA, 1, 12000, now), lock(QStringLiteral("other"), kA, 1, 30000, now)}, {});
    const QModelIndex holder = model.index(model.rowOf(name), LockTableModel::HolderColumn);
    QVERIFY(holder.data(LockTableModel::LeaseBadgeRole).toString().isEmpty());

    // The read that shows B: the events come with it, the row changes to B.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.applyBatch({lock(name, kB, 1, 30000, now + 100)}, {});
    model.applyEvents(leaseLostToB());
    QVERIFY(changed.size() >= 2);
    QCOMPARE(holder.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lease lost"));
    QCOMPARE(holder.data(LockTableModel::LeaseBadgeColorRole).value<QColor>(), QColor(0xc0, 0x39, 0x2b));
    QCOMPARE(holder.data().toString(), kB); // the holder text is the current holder's
    const QString tip = holder.data(Qt::ToolTipRole).toString();
    const QString at = QDateTime::fromMSecsSinceEpoch(kLostAt).toString(QStringLiteral("HH:mm:ss"));
    QVERIFY2(tip.contains(QStringLiteral("Lease lost at %1: %2 stopped renewing").arg(at, kA)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Next holder: %1, since %2").arg(kB, at)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("may still be running its critical section")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("silent for 30.0 s")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Now: client id 0c7931ed")), qPrintable(tip)); // and B's line
    // Other rows and columns are untouched.
    QVERIFY(model.index(model.rowOf(QStringLiteral("other")), LockTableModel::HolderColumn)
                .data(LockTableModel::LeaseBadgeRole)
                .isNull());
    QVERIFY(model.index(model.rowOf(name), LockTableModel::NameColumn).data(LockTableModel::LeaseBadgeRole).isNull());

    LockDetailPanel detail;
    detail.setSnapshot(*model.snapshot(name));
    detail.setLeaseAlert(model.leaseAlert(name), model.actorNames());
    QVERIFY(detail.hasLeaseAlert());
    QVERIFY2(detail.leaseText().contains(QStringLiteral("the old holder may still be running its critical section")),
             qPrintable(detail.leaseText()));
    QVERIFY2(detail.leaseText().contains(HolderPalette::shortLabel(kB)), qPrintable(detail.leaseText()));
    QVERIFY2(detail.toolTip().isEmpty() &&
                 detail.findChild<QLabel *>(QStringLiteral("leaseLabel"))->toolTip().contains(kB),
             "the paragraph's tooltip has the full holder field");

    // A comes back 40 s later (it acquired another lock): the overlap window is known.
    wall = kLostAt + 41000;
    model.applyEvents({leaseEvent(kLostAt + 40000, QStringLiteral("inventory:7"), QStringLiteral("acquired"), kA),
                       leaseEvent(kLostAt + 40000, name, QStringLiteral("holder_returned"), kA,
                                  {{QStringLiteral("returned_on"), QStringLiteral("inventory:7")},
                                   {QStringLiteral("returned_by"), QStringLiteral("acquired")},
                                   {QStringLiteral("lost_at_ms"), kLostAt},
                                   {QStringLiteral("next_holder"), kB},
                                   {QStringLiteral("overlap_from_ms"), kLostAt},
                                   {QStringLiteral("overlap_to_ms"), kLostAt + 40000}})});
    QCOMPARE(holder.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lease lost · holder back"));
    const QString back = QDateTime::fromMSecsSinceEpoch(kLostAt + 40000).toString(QStringLiteral("HH:mm:ss"));
    QVERIFY2(holder.data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("Both may have run the critical section between %1 and %2").arg(at, back)),
             qPrintable(holder.data(Qt::ToolTipRole).toString()));
    detail.setLeaseAlert(model.leaseAlert(name), model.actorNames());
    QVERIFY2(detail.leaseText().contains(QStringLiteral("between %1 and %2</b> (40.0 s)").arg(at, back)),
             qPrintable(detail.leaseText()));
    QVERIFY2(!detail.leaseText().contains(QStringLiteral("may still be running")), qPrintable(detail.leaseText()));

    // The delegate draws the badge before the holder and asks for room for it.
    LeaseBadgeDelegate delegate;
    QStyleOptionViewItem option;
    option.rect = QRect(0, 0, 320, 28);
    const QRect pill = LeaseBadgeDelegate::badgeRect(option.rect, option.font, QStringLiteral("lease lost"));
    QVERIFY(pill.width() > 40 && pill.left() < 10 && pill.height() <= 22);
    QVERIFY(delegate.sizeHint(option, holder).width() >
            delegate.sizeHint(option, model.index(model.rowOf(QStringLiteral("other")), LockTableModel::HolderColumn))
                .width());

    // Workshop names reach the tooltip.
    model.setActorNames(ActorNames({{kA.section(QLatin1Char(':'), 0, 0), QStringLiteral("A")},
                                    {kB.section(QLatin1Char(':'), 0, 0), QStringLiteral("B")}}));
    QVERIFY2(holder.data(Qt::ToolTipRole).toString().contains(QStringLiteral("at %1: A stopped renewing").arg(at)),
             qPrintable(holder.data(Qt::ToolTipRole).toString()));

    // A replay's seek clears the model and its alerts with it.
    model.clear();
    QVERIFY(!model.leaseAlert(name));
}

// A badge lasts as long as the doctor keeps the finding, and also shows on a lock that leaves
// the table and comes back with its next holder.
void TestLockTableModel::leaseBadgesLastAsLongAsTheirFindings()
{
    LockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    qint64 wall = kLostAt;
    model.setEventClock([&wall] { return wall; });
    const QString name = QStringLiteral("orders:42");
    // Lost while nobody waited: the lock goes from the table.
    QVector<LockEvent> lost = leaseLostToB().mid(0, 1);
    lost[0].extra.remove(QStringLiteral("next_holder"));
    lost[0].extra.remove(QStringLiteral("overlap_from_ms"));
    model.applyEvents(lost);
    QVERIFY(model.leaseAlert(name));
    QVERIFY2(LeaseAlerts::tooltip(*model.leaseAlert(name)).contains(QStringLiteral("Nobody has taken it since")),
             qPrintable(LeaseAlerts::tooltip(*model.leaseAlert(name))));
    // B takes it 5 s later: the acquired event names A.
    wall = kLostAt + 5000;
    model.applyBatch({lock(name, kB, 1, 30000, LockSnapshot::steadyNowMs())}, {});
    model.applyEvents(
        {leaseEvent(kLostAt + 5000, name, QStringLiteral("acquired"), kB, {{QStringLiteral("after_lease_lost"), kA}})});
    const QModelIndex holder = model.index(model.rowOf(name), LockTableModel::HolderColumn);
    QCOMPARE(holder.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lease lost"));
    QCOMPARE(model.leaseAlert(name)->nextHolder, kB);
    QCOMPARE(model.leaseAlert(name)->nextFromMs, kLostAt + 5000);
    // Still there just before the doctor drops its finding, gone after.
    wall = kLostAt + LeaseTracker::kKeepMs - 1;
    QVERIFY(!holder.data(LockTableModel::LeaseBadgeRole).toString().isEmpty());
    wall = kLostAt + LeaseTracker::kKeepMs + 1;
    QVERIFY(holder.data(LockTableModel::LeaseBadgeRole).toString().isEmpty());
    QVERIFY(!model.leaseAlert(name));
    // A replay seeked before the loss does not show it yet.
    wall = kLostAt - 1000;
    QVERIFY(!model.leaseAlert(name));
}

void TestLockTableModel::lateRenewalAndFailoverBadges()
{
    LockTableModel model;
    qint64 wall = kLostAt;
    model.setEventClock([&wall] { return wall; });
    const qint64 now = LockSnapshot::steadyNowMs();
    model.applyBatch(
        {lock(QStringLiteral("slow"), kA, 1, 30000, now), lock(QStringLiteral("billing:7"), kB, 1, 30000, now)}, {});
    model.applyEvents(
        {leaseEvent(kLostAt, QStringLiteral("slow"), QStringLiteral("renewed"), kA),
         leaseEvent(kLostAt, QStringLiteral("slow"), QStringLiteral("renewal_late"), kA,
                    {{QStringLiteral("lease_ms"), 30000},
                     {QStringLiteral("expected_interval_ms"), 10000},
                     {QStringLiteral("actual_interval_ms"), 24000},
                     {QStringLiteral("margin_ms"), 6000}}),
         leaseEvent(kLostAt, QStringLiteral("billing:7"), QStringLiteral("lost_in_failover"), kA,
                    {{QStringLiteral("failover"), QStringLiteral("mymaster: 127.0.0.1:7001 -> 127.0.0.1:7002")}})});
    const QModelIndex slow = model.index(model.rowOf(QStringLiteral("slow")), LockTableModel::HolderColumn);
    QCOMPARE(slow.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("late renewal"));
    QVERIFY(slow.data(LockTableModel::LeaseBadgeColorRole).value<QColor>() != QColor(0xc0, 0x39, 0x2b));
    QVERIFY2(slow.data(Qt::ToolTipRole).toString().contains(QStringLiteral("it came 24.0 s after the previous one")),
             qPrintable(slow.data(Qt::ToolTipRole).toString()));
    QVERIFY2(slow.data(Qt::ToolTipRole).toString().contains(QStringLiteral("only 6.0 s of the 30.0 s lease left")),
             qPrintable(slow.data(Qt::ToolTipRole).toString()));
    // The failover loss names the old holder; B, who has it now, is the next holder.
    const QModelIndex billing = model.index(model.rowOf(QStringLiteral("billing:7")), LockTableModel::HolderColumn);
    QCOMPARE(billing.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lost in failover"));
    model.applyEvents({leaseEvent(kLostAt + 2000, QStringLiteral("billing:7"), QStringLiteral("acquired"), kB)});
    const QString tip = billing.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("Lost in a failover")) && tip.contains(kA) &&
                 tip.contains(QStringLiteral("Next holder: %1").arg(kB)) && tip.contains(QStringLiteral("RedLock")),
             qPrintable(tip));
    // A late renewal is about its holder: another holder of the lock does not inherit it.
    model.applyBatch({lock(QStringLiteral("slow"), kB, 1, 30000, now + 10)}, {});
    QVERIFY(slow.data(LockTableModel::LeaseBadgeRole).toString().isEmpty());
    // ... and it lasts kLateKeepMs, not kKeepMs.
    model.applyBatch({lock(QStringLiteral("slow"), kA, 1, 30000, now + 20)}, {});
    wall = kLostAt + LeaseTracker::kLateKeepMs + 1;
    QVERIFY(slow.data(LockTableModel::LeaseBadgeRole).toString().isEmpty());
    QCOMPARE(billing.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lost in failover"));
}

void TestLockTableModel::eventLogExplainsAndColoursLeaseEvents()
{
    EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const QStringList types{QStringLiteral("renewal_late"), QStringLiteral("lease_lost"),
                            QStringLiteral("holder_returned"), QStringLiteral("lost_in_failover"),
                            QStringLiteral("token_regressed")};
    QVector<LockEvent> events;
    for (const QString &t : types)
        events << leaseEvent(kLostAt, QStringLiteral("orders:42"), t, kA);
    events << leaseEvent(kLostAt, QStringLiteral("orders:42"), QStringLiteral("force_unlocked"), kA);
    model.append(events);
    auto rowOf = [&model](const QString &type) {
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.event(r).type == type)
                return r;
        return -1;
    };
    const QColor forced = model.index(rowOf(QStringLiteral("force_unlocked")), EventLogModel::TypeColumn)
                              .data(Qt::ForegroundRole)
                              .value<QBrush>()
                              .color();
    for (bool dark : {false, true}) {
        model.setOnDark(dark);
        const QColor background = dark ? QColor(Qt::black) : QColor(Qt::white);
        for (const QString &t : types) {
            const QModelIndex type = model.index(rowOf(t), EventLogModel::TypeColumn);
            QVERIFY2(type.data(Qt::ToolTipRole).toString().size() > 60, qPrintable(t));
            const QColor c = type.data(Qt::ForegroundRole).value<QBrush>().color();
            QVERIFY2(contrast(c, background) >= 4.5,
                     qPrintable(QStringLiteral("%1 on %2: %3").arg(t, background.name()).arg(contrast(c, background))));
            const bool critical = t != QLatin1String("renewal_late");
            QCOMPARE(EventLogModel::isCritical(t), critical);
            QCOMPARE(type.data(Qt::FontRole).value<QFont>().bold(), critical);
            if (!dark && critical) // red like force_unlocked
                QCOMPARE(c, forced);
        }
    }
    QVERIFY(EventLogModel::explain(QStringLiteral("lease_lost")).contains(QStringLiteral("critical section")));
    QVERIFY(EventLogModel::explain(QStringLiteral("holder_returned")).contains(QStringLiteral("stalled, not dead")));
    QVERIFY(EventLogModel::explain(QStringLiteral("lost_in_failover")).contains(QStringLiteral("RedLock")));
    // Contrast of the table badges' white text.
    LeaseAlerts::Alert lostAlert;
    LeaseAlerts::Alert late;
    late.kind = LeaseAlerts::Alert::Kind::RenewalLate;
    QVERIFY(contrast(LeaseAlerts::badgeColor(lostAlert), Qt::white) >= 4.5);
    QVERIFY(contrast(LeaseAlerts::badgeColor(late), Qt::white) >= 4.5);
}

// The lease findings' evidence carries epoch ms (lost_at_ms, last_renewed_ms): the Problems tab's
// tooltip also says them as clock times; durations (silent_ms) stay as they are.
void TestLockTableModel::problemsTooltipGivesEvidenceTimesAsClockTimes()
{
    FindingModel model;
    LockFinding f;
    f.severity = LockFinding::Severity::Critical;
    f.code = QStringLiteral("lease_lost");
    f.lock = QStringLiteral("orders:42");
    f.title = QStringLiteral("orders:42: lease lost by %1 (it stopped renewing)").arg(kA);
    f.evidence = {{QStringLiteral("holder"), kA},
                  {QStringLiteral("lost_at_ms"), kLostAt},
                  {QStringLiteral("last_renewed_ms"), kLostAt - 30000},
                  {QStringLiteral("silent_ms"), 30000}};
    model.setFindings({f});
    const QString tip = model.index(0, FindingModel::TitleColumn).data(Qt::ToolTipRole).toString();
    const auto clock = [](qint64 ms) {
        return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
    };
    QVERIFY2(tip.contains(QStringLiteral("lost_at ") + clock(kLostAt)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("last_renewed ") + clock(kLostAt - 30000)), qPrintable(tip));
    QVERIFY2(!tip.contains(QStringLiteral("silent ")), qPrintable(tip));
    QCOMPARE(model.index(0, FindingModel::SeverityColumn).data().toString(), QStringLiteral("critical"));
}

void TestLockTableModel::namesSortNaturally()
{
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("orders:2"), QStringLiteral("orders:10")));
    QVERIFY(!LockFilterProxy::naturalLess(QStringLiteral("orders:10"), QStringLiteral("orders:2")));
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("a"), QStringLiteral("a1")));
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("a1b"), QStringLiteral("a1c")));
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("x:9"), QStringLiteral("x:009a")));
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("x:7"), QStringLiteral("x:007"))); // fewer zeros first
    QVERIFY(!LockFilterProxy::naturalLess(QStringLiteral("same"), QStringLiteral("same")));
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("billing"), QStringLiteral("orders:1")));
    QVERIFY(LockFilterProxy::naturalLess(QStringLiteral("n:99999999999999999999998"),
                                         QStringLiteral("n:99999999999999999999999")));

    LockTableModel model;
    LockFilterProxy proxy(&model);
    proxy.setSortRole(LockTableModel::SortRole);
    proxy.sort(LockTableModel::NameColumn, Qt::AscendingOrder);
    const QString f = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    model.applyBatch({lock(QStringLiteral("orders:10"), f, 1, 1000, 0), lock(QStringLiteral("orders:2"), f, 1, 1000, 0),
                      lock(QStringLiteral("orders:1"), f, 1, 1000, 0)},
                     {});
    QStringList order;
    for (int r = 0; r < proxy.rowCount(); ++r)
        order
            << proxy.index(r, LockTableModel::NameColumn).data(LockTableModel::SnapshotRole).value<LockSnapshot>().name;
    QCOMPARE(order, (QStringList{QStringLiteral("orders:1"), QStringLiteral("orders:2"), QStringLiteral("orders:10")}));
}

QTEST_MAIN(TestLockTableModel)
#include "tst_locktablemodel.moc"
