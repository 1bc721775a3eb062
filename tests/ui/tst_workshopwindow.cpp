// Workshop mode's window on a private redis-server: stepping a shipped scenario shows the call,
// the script branch, the keys before/after and the narration, next to the lock views; the
// scheduler picks who acts next; projector mode scales and recolours live.
// Issue 16: 5 s between steps in the window (time stands still), step back (RedLock too), a projector layout
// at 1280x720 with one unambiguous set of shortcuts.
#include "workshop/workshopwindow.h"

#include "locks/eventlogmodel.h"
#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include <QMenuBar>

#include "demo/redisserverprocess.h"
#include "workshop/scenariorunner.h"

#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTableView>
#include <QTextBrowser>
#include <QtTest>

using namespace lockscope;

class TestWorkshopWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase() { m_server.stop(); }
    void stepsThroughFairHandOff();
    void schedulerPicksWhoActsNext();
    void everyShippedScenarioPlaysToTheEnd();
    void everyShippedScenarioAtATeachersPace();
    void stepBackAndStepOn_data();
    void stepBackAndStepOn();
    void projectorAt1280x720();

private:
    bool stepAndWait(WorkshopWindow &w);
    void shot(QWidget &w, const QString &name);
    RedisServerProcess m_server;
};

void TestWorkshopWindow::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty())
        QSKIP("redis-server is needed");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

bool TestWorkshopWindow::stepAndWait(WorkshopWindow &w)
{
    QSignalSpy shown(&w, &WorkshopWindow::stepShown);
    return w.step() && shown.wait(15000);
}

void TestWorkshopWindow::shot(QWidget &w, const QString &name)
{
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(QDir(dir).filePath(name)));
}

void TestWorkshopWindow::stepsThroughFairHandOff()
{
    WorkshopWindow w(m_server.endpoint());
    QString error;
    QVERIFY2(w.loadScenario(QStringLiteral("fair-handoff"), &error), qPrintable(error));
    w.show();
    for (int i = 0; i < 4; ++i)
        QVERIFY(stepAndWait(w));
    QCOMPARE(w.reports().size(), 4);
    const StepReport &last = w.reports().last();
    QCOMPARE(last.actor, QStringLiteral("A"));
    QCOMPARE(last.action, QStringLiteral("fairUnlock"));
    auto *detail = w.findChild<QTextBrowser *>(QStringLiteral("workshopStepDetail"));
    QVERIFY(detail);
    const QString text = detail->toPlainText();
    QVERIFY2(text.contains(QLatin1String("Script branch")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("Redis keys")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("redisson_lock_queue")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("PUBLISH")), qPrintable(text)); // the hand-over message to B
    auto *steps = w.findChild<QListWidget *>(QStringLiteral("workshopSteps"));
    QVERIFY(steps->item(0)->text().startsWith(QStringLiteral("✓")));
    QVERIFY(steps->item(4)->text().startsWith(QStringLiteral("▶")));
    // The lock views alongside watch the same private server.
    QTRY_VERIFY_WITH_TIMEOUT(w.lockViews()->lockModel()->rowCount() >= 1, 10000);
    QTest::qWait(600);
    shot(w, QStringLiteral("workshop-fair-handoff.png"));

    // Projector mode: larger fonts, dark theme, switched live.
    const qreal before = w.font().pointSizeF();
    w.setProjectorMode(true);
    QVERIFY(w.font().pointSizeF() >= before * 1.4);
    QVERIFY(w.palette().color(QPalette::Window).lightness() < 60);
    QTest::qWait(300);
    shot(w, QStringLiteral("workshop-projector.png"));
    w.setProjectorMode(false);
    QCOMPARE(w.font().pointSizeF(), before);
}

void TestWorkshopWindow::schedulerPicksWhoActsNext()
{
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("fair-handoff")));
    w.setSchedulerMode(true);
    // C jumps ahead of A and B: it asks first, so it gets the free lock (the scenario's own
    // expectation for that step, "queued", no longer holds: the order made the difference).
    QSignalSpy shown(&w, &WorkshopWindow::stepShown);
    QVERIFY(w.stepAs(QStringLiteral("C")));
    QVERIFY(shown.wait(15000));
    QCOMPARE(w.reports().first().actor, QStringLiteral("C"));
    QCOMPARE(w.reports().first().index, 2);
    QCOMPARE(w.reports().first().result, QStringLiteral("acquired"));
    QVERIFY(!w.reports().first().ok);
    // Atomicity: while a step runs, no other can start.
    QVERIFY(w.stepAs(QStringLiteral("A")));
    QVERIFY(!w.stepAs(QStringLiteral("B")));
    QVERIFY(shown.wait(15000));
    QCOMPARE(w.reports().size(), 2);
    QCOMPARE(w.reports().last().result, QStringLiteral("queued"));
}

void TestWorkshopWindow::everyShippedScenarioPlaysToTheEnd()
{
    WorkshopWindow w(m_server.endpoint());
    // Play (at 4x: a step every 625 ms) through one scenario...
    QVERIFY(w.loadScenario(QStringLiteral("reentrancy")));
    QSignalSpy played(&w, &WorkshopWindow::scenarioFinished);
    w.setSpeed(4.0);
    w.setPlaying(true);
    QVERIFY(played.wait(60000));
    QVERIFY(played.first().first().toBool());
    // ...and step through every shipped one, with its expectations met.
    for (const QString &name : Scenario::builtInNames()) {
        QString error;
        QVERIFY2(w.loadScenario(name, &error), qPrintable(error));
        QSignalSpy finished(&w, &WorkshopWindow::scenarioFinished);
        for (int i = 0; i < w.scenario().steps.size(); ++i)
            QVERIFY2(stepAndWait(w), qPrintable(QStringLiteral("%1 step %2").arg(name).arg(i + 1)));
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.first().first().toBool(), qPrintable(name));
    }
}

void TestWorkshopWindow::everyShippedScenarioAtATeachersPace()
{
    // One window per shipped scenario, each on its own redis-server, all stepped together with 5 s
    // between steps (a teacher talking): with time standing still every expectation holds. The
    // views' countdown stands still too.
    const QStringList names = Scenario::builtInNames();
    std::vector<std::unique_ptr<RedisServerProcess>> servers;
    std::vector<std::unique_ptr<WorkshopWindow>> windows;
    for (const QString &name : names) {
        servers.push_back(std::make_unique<RedisServerProcess>());
        QString error;
        QVERIFY2(servers.back()->start(10000, &error), qPrintable(error));
        windows.push_back(std::make_unique<WorkshopWindow>(servers.back()->endpoint()));
        QVERIFY2(windows.back()->loadScenario(name, &error), qPrintable(error));
    }
    bool checkedBadge = false;
    for (int round = 0;; ++round) {
        bool any = false;
        for (auto &w : windows) {
            if (w->reports().size() >= w->scenario().steps.size())
                continue;
            any = true;
            QVERIFY(w->step());
        }
        if (!any)
            break;
        for (auto &w : windows)
            QVERIFY2(
                QTest::qWaitFor([&] { return w->reports().size() >= qMin(round + 1, int(w->scenario().steps.size())); },
                                20000),
                qPrintable(w->scenario().name));
        if (!checkedBadge && round == 0) {
            WorkshopWindow &w = *windows.front();
            QTRY_VERIFY_WITH_TIMEOUT(w.isTimeHeld(), 5000);
            auto *badge = w.findChild<QLabel *>(QStringLiteral("workshopClock"));
            QVERIFY(badge && badge->text().contains(QLatin1String("TIME PAUSED")));
            checkedBadge = true;
        }
        QTest::qWait(5000);
    }
    for (auto &w : windows) {
        for (const StepReport &r : w->reports())
            QVERIFY2(r.ok, qPrintable(w->scenario().name + QLatin1Char('\n') + r.toText({})));
    }
    windows.clear();
    for (auto &s : servers)
        s->stop();
}

void TestWorkshopWindow::stepBackAndStepOn_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("fair-handoff") << QStringLiteral("fair-handoff");
    // Step 2 stops RedLock server 2: going back before it starts the server again with its keys.
    QTest::newRow("redlock-five-servers") << QStringLiteral("redlock-five-servers");
}

void TestWorkshopWindow::stepBackAndStepOn()
{
    QFETCH(QString, name);
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(name));
    for (int i = 0; i < w.scenario().steps.size(); ++i)
        QVERIFY(stepAndWait(w));
    const QVector<StepReport> first = w.reports();
    QSignalSpy rewound(&w, &WorkshopWindow::rewound);
    QVERIFY(w.backTo(1));
    QVERIFY(rewound.wait(10000));
    QCOMPARE(w.reports().size(), 1);
    auto *steps = w.findChild<QListWidget *>(QStringLiteral("workshopSteps"));
    QVERIFY(steps->item(1)->text().startsWith(QStringLiteral("▶")));
    auto *detail = w.findChild<QTextBrowser *>(QStringLiteral("workshopStepDetail"));
    QVERIFY2(detail->toPlainText().contains(QLatin1String("Back before step 2")), qPrintable(detail->toPlainText()));
    for (int i = 1; i < first.size(); ++i)
        QVERIFY(stepAndWait(w));
    for (int i = 0; i < first.size(); ++i) {
        QVERIFY2(w.reports().at(i).ok, qPrintable(w.reports().at(i).toText({})));
        QCOMPARE(w.reports().at(i).result, first.at(i).result);
        QCOMPARE(w.reports().at(i).woke, first.at(i).woke);
    }
    // Step back from the end, one step (←).
    QVERIFY(w.stepBack());
    QVERIFY(rewound.wait(10000));
    QCOMPARE(w.reports().size(), first.size() - 1);
}

void TestWorkshopWindow::projectorAt1280x720()
{
    // One set of shortcuts: none shared with the embedded lock views (F5 is their Refresh).
    QTest::failOnWarning(QRegularExpression(QStringLiteral("Ambiguous shortcut")));
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("fair-handoff")));
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::keyClick(&w, Qt::Key_F11);
    QVERIFY(w.projectorMode());
    QTest::keyClick(&w, Qt::Key_F5); // the lock views' Refresh, nothing of the workshop's
    QVERIFY(w.projectorMode());
    for (int i = 0; i < 3; ++i)
        QVERIFY(stepAndWait(w));
    // Before step 4: A holds (hold count, TTL standing still), B and C wait with their deadlines.
    QTRY_VERIFY_WITH_TIMEOUT(w.lockViews()->lockModel()->rowCount() >= 1, 10000);
    w.lockViews()->selectLock(QStringLiteral("payments"));
    QTest::qWait(800);
    shot(w, QStringLiteral("workshop-projector-1280x720-step4.png"));
    const QModelIndex holder = w.lockViews()->lockModel()->index(0, LockTableModel::HolderColumn);
    QCOMPARE(holder.data().toString(), QStringLiteral("A")); // actors by name
    QVERIFY(holder.data(Qt::ToolTipRole).toString().contains(w.reports().first().clientId));
    QVERIFY(stepAndWait(w));
    QVERIFY(!w.lockViews()->findChild<QMenuBar *>()); // no menu bar nested in the window
    QTRY_VERIFY_WITH_TIMEOUT(w.lockViews()->lockModel()->rowCount() >= 1, 10000);
    w.lockViews()->selectLock(QStringLiteral("payments"));
    QTest::qWait(800);
    QCOMPARE(w.size(), QSize(1280, 720)); // the window fits the room's screen, nothing pushes it larger
    shot(w, QStringLiteral("workshop-projector-1280x720.png"));
    // Name, holder, hold count, TTL and waiters all visible without scrolling.
    QTableView *table = w.lockViews()->lockView();
    for (int c : {LockTableModel::NameColumn, LockTableModel::HolderColumn, LockTableModel::HoldCountColumn,
                  LockTableModel::TtlColumn, LockTableModel::WaitingColumn}) {
        QVERIFY2(!table->isColumnHidden(c), qPrintable(QString::number(c)));
        const int right = table->columnViewportPosition(c) + table->columnWidth(c);
        QVERIFY2(
            table->columnViewportPosition(c) >= 0 && right <= table->viewport()->width(),
            qPrintable(QStringLiteral("column %1 ends at %2 of %3").arg(c).arg(right).arg(table->viewport()->width())));
    }
    QCOMPARE(table->horizontalScrollBar()->value(), 0);
    // Headers not clipped: with actor names the holder column is headed "Holder", and it fits.
    for (int c : {LockTableModel::NameColumn, LockTableModel::HolderColumn, LockTableModel::HoldCountColumn,
                  LockTableModel::TtlColumn, LockTableModel::WaitingColumn}) {
        const QString text = table->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(table->horizontalHeader()->fontMetrics().horizontalAdvance(text) < table->columnWidth(c),
                 qPrintable(text));
    }
    QCOMPARE(table->model()->headerData(LockTableModel::HolderColumn, Qt::Horizontal).toString(),
             QStringLiteral("Holder"));
    // The event log fits: at least 6 rows readable in projector mode at 720 px.
    QTableView *log = nullptr;
    for (QTableView *v : w.lockViews()->findChildren<QTableView *>())
        if (v->model() == w.lockViews()->eventModel())
            log = v;
    QVERIFY(log);
    QVERIFY2(log->viewport()->height() >= 6 * log->verticalHeader()->defaultSectionSize(),
             qPrintable(QStringLiteral("event log %1 px for rows of %2 px")
                            .arg(log->viewport()->height())
                            .arg(log->verticalHeader()->defaultSectionSize())));
    const QList<QPair<QString, QString>> keys = w.shortcuts();
    QStringList all;
    for (const auto &k : keys)
        all << k.first;
    QVERIFY(!all.join(QLatin1Char(',')).contains(QLatin1String("Ctrl+R")));
}

QTEST_MAIN(TestWorkshopWindow)
#include "tst_workshopwindow.moc"
