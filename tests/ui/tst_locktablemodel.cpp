// LockTableModel and EventLogModel alone (no I/O), under QAbstractItemModelTester.
#include "locks/clientsmodel.h"
#include "locks/eventlogmodel.h"
#include "locks/lockbatchbuffer.h"
#include "locks/lockfilterproxy.h"
#include "locks/locktablemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

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

// Issue 12: thousands of new rows at once reset the model (a sorting proxy then sorts once instead
// of doing O(rows) work per insertion); smaller batches stay row insertions.
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

// The dashboard merges batches for big tables (MainWindow, issue 12): the merge must leave what
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

// Issue 15.11: orders:2 comes before orders:10 (it sorted after it, by code unit).
// Issue 15.4: no "held for" column, the one pg_activity users sort by. Redis keeps no acquire
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

// The Clients tab's model (issue 15.4): one row per client id, rebuilt from the lock table, and
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
