// Workshop mode's window on a private redis-server: stepping a shipped scenario shows the call,
// the script branch, the keys before/after and the narration, next to the lock views; the
// scheduler picks who acts next; projector mode scales and recolours live.
// A teacher's pace: 5 s between steps in the window (time stands still), step back (RedLock too), a projector layout
// at 1280x720 with one unambiguous set of shortcuts.
#include "common/uitheme.h"
#include "locks/findingmodel.h"
#include "locks/lockdetailpanel.h"
#include "workshop/workshopprojector.h"
#include "workshop/workshopwindow.h"

#include "locks/eventlogmodel.h"
#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include <QMenuBar>

#include "demo/redisserverprocess.h"
#include "scenario/scenariorunner.h"

#include "common/shortcutsdialog.h"

#include <QDir>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollBar>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryFile>
#include <QTextBrowser>
#include <QToolBar>
#include <QtTest>
#include <cmath>

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
    void everyScenarioBackRestartAndSwitch();
    void rewindKeepsOnlyTheCheckpointsFindings();
    void failoverLossShowsInTheViews();
    void stageAndViewsShareOneClock();
    void everyScenariosVerdictsReachTheViews();
    void projectorLeaseLossIsReadable();
    void palettesKeepTheirContrast();
    void projectorAt1280x720();
    void projectorAtLaunch_data();
    void projectorAtLaunch();
    void helpLikeTheDashboard();

private:
    bool stepAndWait(WorkshopWindow &w);
    /** The event log as shown: one line per row, every column. */
    static QStringList eventLog(const WorkshopWindow &w);
    void shot(QWidget &w, const QString &name);
    RedisServerProcess m_server;
};

/** WCAG 2 contrast ratio of two colours (1..21). */
static double contrastRatio(const QColor &a, const QColor &b)
{
    auto luminance = [](const QColor &c) {
        auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double l1 = luminance(a), l2 = luminance(b);
    return (std::max(l1, l2) + 0.05) / (std::min(l1, l2) + 0.05);
}

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

QStringList TestWorkshopWindow::eventLog(const WorkshopWindow &w)
{
    const QAbstractItemModel *m = w.lockViews()->eventModel();
    QStringList rows;
    for (int r = 0; r < m->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m->columnCount(); ++c)
            cells << m->index(r, c).data().toString();
        rows << cells.join(QLatin1String(" | "));
    }
    return rows;
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

void TestWorkshopWindow::everyScenarioBackRestartAndSwitch()
{
    // A class is not a straight line. For every shipped scenario, in one window (as a teacher
    // picks them one after another): step to the end, step back to each earlier step (the views
    // show again what they showed then: the restore's own writes are not events), forward
    // again, restart, one step and back, then switch to the next scenario (empty views). Run
    // under ASan/UBSan by the asan_tst_workshopwindow test.
    const QRegularExpression uuid(QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
    const QStringList names = Scenario::builtInNames();
    WorkshopWindow w(m_server.endpoint());
    w.show();
    QVERIFY(w.loadScenario(names.first()));
    auto noRawClientIds = [&](const QString &where) {
        const QString log = eventLog(w).join(QLatin1Char('\n'));
        return !log.contains(uuid) ? QString() : where + QLatin1Char('\n') + log;
    };
    for (int s = 0; s < names.size(); ++s) {
        const QString name = names.at(s);
        QCOMPARE(w.scenario().name, name);
        QSignalSpy rewound(&w, &WorkshopWindow::rewound);
        const int n = int(w.scenario().steps.size());
        // A new scenario starts with empty views (nothing of the one before).
        QVERIFY2(eventLog(w).isEmpty(), qPrintable(name + QLatin1Char('\n') + eventLog(w).join(QLatin1Char('\n'))));
        QVector<QStringList> logBefore(n); // the event log shown just before each step ran
        QVector<StepReport> first;
        for (int i = 0; i < n; ++i) {
            logBefore[i] = eventLog(w);
            QVERIFY2(stepAndWait(w), qPrintable(QStringLiteral("%1 step %2").arg(name).arg(i + 1)));
        }
        first = w.reports();
        QTest::qWait(300); // the last step's events reach the views
        QString raw = noRawClientIds(name);
        QVERIFY2(raw.isEmpty(), qPrintable(raw));
        // A scenario with a replica (failover-loss) cannot step back: a killed master and a paused
        // replica cannot be put back, and the window says so instead. Restart and switch still work.
        if (!w.backTo(n - 1)) {
            w.restart();
            QVERIFY(w.reports().isEmpty());
            QVERIFY(eventLog(w).isEmpty());
            QVERIFY(w.loadScenario(names.at((s + 1) % names.size())));
            QVERIFY(w.reports().isEmpty());
            continue;
        }
        QVERIFY2(rewound.wait(15000), qPrintable(name + QLatin1String(": first back")));
        QVERIFY2(stepAndWait(w), qPrintable(name + QLatin1String(": forward after the first back")));
        rewound.clear();
        // Back one step at a time, to before the first.
        for (int i = n - 1; i >= 0; --i) {
            const QString where = QStringLiteral("%1: back before step %2").arg(name).arg(i + 1);
            rewound.clear();
            QVERIFY2(w.backTo(i), qPrintable(where));
            QVERIFY2(rewound.wait(15000), qPrintable(where));
            QCOMPARE(w.reports().size(), i);
            QCOMPARE(eventLog(w), logBefore.at(i));
            QTest::qWait(200); // and nothing the restore wrote arrives later
            QCOMPARE(eventLog(w), logBefore.at(i));
        }
        // Forward again: the same outcomes.
        for (int i = 0; i < n; ++i)
            QVERIFY2(stepAndWait(w), qPrintable(QStringLiteral("%1 again, step %2").arg(name).arg(i + 1)));
        for (int i = 0; i < n; ++i) {
            QVERIFY2(w.reports().at(i).ok, qPrintable(w.reports().at(i).toText({})));
            QCOMPARE(w.reports().at(i).result, first.at(i).result);
        }
        // Restart while a step back is under way (← then Ctrl+Home at once): a fresh run, empty views.
        QVERIFY(w.stepBack());
        w.restart();
        QVERIFY(w.reports().isEmpty());
        QVERIFY(eventLog(w).isEmpty());
        QVERIFY2(stepAndWait(w), qPrintable(name + QLatin1String(" after restart")));
        rewound.clear();
        QVERIFY(w.stepBack());
        QVERIFY(rewound.wait(15000));
        QVERIFY(eventLog(w).isEmpty());
        // Switch (the next scenario; after the last, the first again) after a step back, while a
        // step runs.
        QVERIFY(w.step());
        QVERIFY(w.loadScenario(names.at((s + 1) % names.size())));
        QVERIFY(w.reports().isEmpty());
        raw = noRawClientIds(name + QLatin1String(" -> next"));
        QVERIFY2(raw.isEmpty(), qPrintable(raw));
    }
    // The first scenario again, after all that: its first step runs and the views show only it.
    QVERIFY(stepAndWait(w));
    QTest::qWait(300);
    QString raw = noRawClientIds(QStringLiteral("again"));
    QVERIFY2(raw.isEmpty(), qPrintable(raw));
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
        if (v->objectName() == QLatin1String("eventTable"))
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

void TestWorkshopWindow::projectorAtLaunch_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1024x768") << QSize(1024, 768);
}

void TestWorkshopWindow::projectorAtLaunch()
{
    // As `lockscope --workshop fair-handoff --projector` on a projector's screen: projector mode is
    // set before the window is shown, and the window is larger than the screen by default.
    QFETCH(QSize, size);
    QScreen *room = nullptr;
    for (QScreen *s : QGuiApplication::screens())
        if (s->availableGeometry().size() == size)
            room = s;
    if (!room)
        QSKIP("needs the offscreen platform with this test's two screens");
    WorkshopWindow w(m_server.endpoint());
    w.setScreen(room);
    w.move(room->availableGeometry().topLeft());
    QVERIFY(w.loadScenario(QStringLiteral("fair-handoff")));
    w.setProjectorMode(true);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_COMPARE(w.size(), size); // fits the screen, nothing cut off
    QTest::qWait(300);
    // Headers in the projector's fonts too (set before the window was shown).
    for (QTableView *v : w.lockViews()->findChildren<QTableView *>())
        for (const QWidget *part : {static_cast<QWidget *>(v), static_cast<QWidget *>(v->horizontalHeader())})
            QVERIFY2(part->font().pointSizeF() >= w.font().pointSizeF() - 0.01,
                     qPrintable(QStringLiteral("%1 (%2): %3 pt, window %4 pt")
                                    .arg(v->objectName(), QString::fromLatin1(part->metaObject()->className()))
                                    .arg(part->font().pointSizeF())
                                    .arg(w.font().pointSizeF())));
    shot(w, QStringLiteral("workshop-projector-launch-%1x%2-start.png").arg(size.width()).arg(size.height()));
    for (int i = 0; i < 3; ++i)
        QVERIFY(stepAndWait(w));
    QTRY_VERIFY_WITH_TIMEOUT(w.lockViews()->lockModel()->rowCount() >= 1, 10000);
    w.lockViews()->selectLock(QStringLiteral("payments"));
    // The teacher talks: time stands still, and so does "Held for" (stage time, not wall time).
    QTest::qWait(2000);
    const QModelIndex heldFor = w.lockViews()->lockModel()->index(0, LockTableModel::HeldForColumn);
    QVERIFY2(heldFor.data(LockTableModel::SortRole).toLongLong() < 1000, qPrintable(heldFor.data().toString()));
    QCOMPARE(w.size(), size);
    // Every toolbar control in sight, no overflow arrow (issue 38: at 1024 Scheduler and Projector
    // were behind it).
    auto *bar = w.findChild<QToolBar *>(QStringLiteral("workshopToolBar"));
    QVERIFY(bar);
    QVERIFY2(bar->sizeHint().width() <= w.width(),
             qPrintable(QStringLiteral("toolbar %1 px in a %2 px window").arg(bar->sizeHint().width()).arg(w.width())));
    shot(w, QStringLiteral("workshop-projector-launch-%1x%2.png").arg(size.width()).arg(size.height()));

    // The lock table is not collapsed: a header and its row, every main column whole.
    QTableView *table = w.lockViews()->lockView();
    QVERIFY2(table->viewport()->height() >= table->verticalHeader()->defaultSectionSize(),
             qPrintable(QStringLiteral("table viewport %1 px").arg(table->viewport()->height())));
    QVERIFY(table->horizontalHeader()->height() >= table->horizontalHeader()->fontMetrics().height());
    QCOMPARE(table->horizontalScrollBar()->value(), 0);
    QVERIFY(!table->horizontalScrollBar()->isVisible());
    for (int c : {LockTableModel::NameColumn, LockTableModel::HolderColumn, LockTableModel::HoldCountColumn,
                  LockTableModel::TtlColumn, LockTableModel::WaitingColumn}) {
        const int right = table->columnViewportPosition(c) + table->columnWidth(c);
        QVERIFY2(
            !table->isColumnHidden(c) && table->columnViewportPosition(c) >= 0 && right <= table->viewport()->width(),
            qPrintable(QStringLiteral("column %1 ends at %2 of %3").arg(c).arg(right).arg(table->viewport()->width())));
        const QString text = table->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(table->horizontalHeader()->fontMetrics().horizontalAdvance(text) < table->columnWidth(c),
                 qPrintable(text));
    }
    // The event log keeps its rows.
    QTableView *log = nullptr;
    for (QTableView *v : w.lockViews()->findChildren<QTableView *>())
        if (v->objectName() == QLatin1String("eventTable"))
            log = v;
    QVERIFY(log);
    QVERIFY2(log->viewport()->height() >= 5 * log->verticalHeader()->defaultSectionSize(),
             qPrintable(QStringLiteral("event log %1 px").arg(log->viewport()->height())));
    // The band, the status line and the warnings at least as large as the narration.
    const qreal narration = w.narrationPointSize();
    QVERIFY(narration >= w.font().pointSizeF());
    auto *band = w.findChild<QLabel *>(QStringLiteral("workshopClock"));
    QVERIFY(band && band->text().contains(QLatin1String("TIME PAUSED")));
    QVERIFY2(
        QFontInfo(band->font()).pointSizeF() >= narration - 0.5,
        qPrintable(
            QStringLiteral("band %1 pt, narration %2 pt").arg(QFontInfo(band->font()).pointSizeF()).arg(narration)));
    QVERIFY2(QFontInfo(w.statusBar()->font()).pointSizeF() >= narration - 0.5,
             qPrintable(QStringLiteral("status %1 pt").arg(QFontInfo(w.statusBar()->font()).pointSizeF())));
    // The narration of the step shown, without scrolling.
    auto *detail = w.findChild<QTextBrowser *>(QStringLiteral("workshopStepDetail"));
    const QString narrationText = w.reports().last().narration;
    QVERIFY(!narrationText.isEmpty());
    QTextCursor found = detail->document()->find(narrationText.left(30));
    QVERIFY2(!found.isNull(), qPrintable(detail->toPlainText()));
    QCOMPARE(detail->verticalScrollBar()->value(), 0);
    QVERIFY2(detail->cursorRect(found).bottom() <= detail->viewport()->height(),
             qPrintable(QStringLiteral("narration at %1 px of %2")
                            .arg(detail->cursorRect(found).bottom())
                            .arg(detail->viewport()->height())));
    const QTextCharFormat format = found.charFormat();
    QVERIFY2(format.fontPointSize() >= narration - 0.5, qPrintable(QString::number(format.fontPointSize())));
}

void TestWorkshopWindow::helpLikeTheDashboard()
{
    // F1 lists the shortcuts as the dashboard's does (from the actions: the workshop's and the
    // lock views'), and Help has About.
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("reentrancy")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *keys = w.findChild<QAction *>(QStringLiteral("keyboardShortcutsAction"));
    QVERIFY(keys);
    QCOMPARE(keys->shortcut(), QKeySequence(QKeySequence::HelpContents));
    QStringList missing{QStringLiteral("Step"), QStringLiteral("Restart"), QStringLiteral("Projector"),
                        QStringLiteral("Refresh")};
    bool shown = false;
    QTimer::singleShot(500, &w, [&] {
        auto *dialog = w.findChild<ShortcutsDialog *>();
        if (!dialog)
            return;
        shown = true;
        for (const auto &row : dialog->rows())
            for (const QString &what : QStringList(missing))
                if (row.first.startsWith(what) && !row.second.isEmpty())
                    missing.removeAll(what);
        dialog->reject();
    });
    QTest::keyClick(&w, Qt::Key_F1);
    QVERIFY(shown);
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1String(", "))));
    bool about = false;
    for (QAction *a : w.menuBar()->actions())
        if (a->menu())
            for (QAction *item : a->menu()->actions())
                about = about || item->text().contains(QLatin1String("About LockScope"));
    QVERIFY(about);
}

// Issue 38: gc-pause run to the end and stepped back before step 8 shows the findings a run of
// 7 steps shows: no fencing-token regression (the rewind put the old token back: no client's
// doing), no lease loss of an undone step. A restart shows none.
void TestWorkshopWindow::rewindKeepsOnlyTheCheckpointsFindings()
{
    auto findings = [](const WorkshopWindow &w) {
        QStringList out;
        for (const LockFinding &f : w.lockViews()->findingModel()->findings())
            out << f.code + QLatin1Char(' ') + f.lock;
        out.sort();
        return out;
    };
    QStringList forward;
    {
        WorkshopWindow w(m_server.endpoint());
        QVERIFY(w.loadScenario(QStringLiteral("gc-pause")));
        for (int i = 0; i < 7; ++i)
            QVERIFY(stepAndWait(w));
        QTest::qWait(2500); // a doctor tick
        forward = findings(w);
    }
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("gc-pause")));
    for (int i = 0; i < w.scenario().steps.size(); ++i)
        QVERIFY(stepAndWait(w));
    QTest::qWait(2500);
    const QStringList atEnd = findings(w);
    // The end has more to say than step 7 did (the later lease loss), so the rewind has to undo it.
    QVERIFY2(atEnd != forward, qPrintable(atEnd.join(QLatin1String(", "))));
    QSignalSpy rewound(&w, &WorkshopWindow::rewound);
    QVERIFY(w.backTo(7));
    QVERIFY(rewound.wait(15000));
    QTest::qWait(2500); // a doctor tick after the restore: nothing of it comes back
    const QStringList back = findings(w);
    qInfo() << "forward" << forward << "end" << atEnd << "back" << back;
    QVERIFY2(back == forward, qPrintable(QStringLiteral("forward 7 steps: %1\nend: %2\nback before step 8: %3")
                                             .arg(forward.join(QLatin1String(", ")), atEnd.join(QLatin1String(", ")),
                                                  back.join(QLatin1String(", ")))));
    for (const QString &f : back)
        QVERIFY2(!f.startsWith(QLatin1String("token_regressed")), qPrintable(f));
    w.restart();
    QTRY_VERIFY_WITH_TIMEOUT(findings(w).isEmpty(), 10000);
}

// Issue 38: the views of failover-loss watch the scenario's master, then follow the promoted
// replica: at step 5 the table shows payments (B's, on the new master) and the event log the
// lost_in_failover the narration promises.
void TestWorkshopWindow::failoverLossShowsInTheViews()
{
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("failover-loss")));
    w.show();
    auto hasPayments = [&w] {
        const QAbstractItemModel *m = w.lockViews()->lockModel();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, 0).data(LockTableModel::SnapshotRole).value<LockSnapshot>().name ==
                QLatin1String("payments"))
                return true;
        return false;
    };
    for (int i = 0; i < 3; ++i)
        QVERIFY(stepAndWait(w));
    QTRY_VERIFY_WITH_TIMEOUT(hasPayments(), 10000); // A's, on the master
    // Issue 39: before the failover the row says what a failover now would do: the paused replica
    // does not have the lock.
    auto badge = [&w] {
        const QAbstractItemModel *m = w.lockViews()->lockModel();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, 0).data(LockTableModel::SnapshotRole).value<LockSnapshot>().name ==
                QLatin1String("payments"))
                return m->index(r, LockTableModel::HolderColumn).data(LockTableModel::LeaseBadgeRole).toString();
        return QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(badge(), QStringLiteral("not replicated"), 6000);
    w.lockViews()->selectLock(QStringLiteral("payments"));
    QTest::qWait(300);
    shot(w, QStringLiteral("workshop-not-replicated.png"));
    QVERIFY(stepAndWait(w)); // the failover
    QTRY_VERIFY2_WITH_TIMEOUT(eventLog(w).join(QLatin1Char('\n')).contains(QLatin1String("lost_in_failover")),
                              qPrintable(eventLog(w).join(QLatin1Char('\n'))), 15000);
    QVERIFY(stepAndWait(w)); // B takes it on the new master
    QTRY_VERIFY_WITH_TIMEOUT(hasPayments(), 10000);
    QTest::qWait(500);
    shot(w, QStringLiteral("workshop-failover-loss.png"));
}

// Issue 38: in projector mode the lease-lost paragraph of the detail is as large as the narration
// and readable on the dark palette (WCAG contrast of at least 4.5:1), at 1280x720.
void TestWorkshopWindow::projectorLeaseLossIsReadable()
{
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("gc-pause")));
    w.setProjectorMode(true);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (int i = 0; i < 8; ++i)
        QVERIFY(stepAndWait(w));
    w.lockViews()->selectLock(QStringLiteral("stock"));
    auto *lease = w.lockViews()->detailPanel()->findChild<QLabel *>(QStringLiteral("leaseLabel"));
    QVERIFY(lease);
    QTRY_VERIFY_WITH_TIMEOUT(lease->isVisible() && !lease->text().isEmpty(), 10000);
    QTest::qWait(300);
    shot(w, QStringLiteral("workshop-projector-lease-lost.png"));
    const QColor fg = lease->palette().color(QPalette::WindowText);
    const QColor bg = w.lockViews()->detailPanel()->palette().color(QPalette::Window); // the label paints none
    const double contrast = contrastRatio(fg, bg);
    QVERIFY2(contrast >= 4.5, qPrintable(QStringLiteral("%1 on %2: %3").arg(fg.name(), bg.name()).arg(contrast)));
    QVERIFY2(lease->font().pointSizeF() >= w.narrationPointSize() * 0.8,
             qPrintable(
                 QStringLiteral("%1 pt, narration %2 pt").arg(lease->font().pointSizeF()).arg(w.narrationPointSize())));
}

// Issue 38: every text role the views draw with, on the background it is drawn on, keeps a WCAG
// contrast of at least 4.5:1 in the projector, dark and light palettes (disabled text 3:1).
void TestWorkshopWindow::palettesKeepTheirContrast()
{
    const QVector<QPair<QString, QPalette>> palettes{
        {QStringLiteral("projector"), WorkshopProjector::palette()},
        {QStringLiteral("dark"), UiTheme::palette(UiTheme::Theme::Dark)},
        {QStringLiteral("light"), UiTheme::palette(UiTheme::Theme::Light)}};
    struct Pair {
        const char *what;
        QPalette::ColorRole fg, bg;
        double least;
    };
    const Pair pairs[] = {{"WindowText on Window", QPalette::WindowText, QPalette::Window, 4.5},
                          {"Text on Base", QPalette::Text, QPalette::Base, 4.5},
                          {"Text on AlternateBase", QPalette::Text, QPalette::AlternateBase, 4.5},
                          {"ButtonText on Button", QPalette::ButtonText, QPalette::Button, 4.5},
                          {"HighlightedText on Highlight", QPalette::HighlightedText, QPalette::Highlight, 4.5},
                          {"ToolTipText on ToolTipBase", QPalette::ToolTipText, QPalette::ToolTipBase, 4.5},
                          {"PlaceholderText on Base", QPalette::PlaceholderText, QPalette::Base, 3.0},
                          {"Link on Base", QPalette::Link, QPalette::Base, 4.5}};
    for (const auto &[name, palette] : palettes)
        for (const Pair &p : pairs) {
            const double c =
                contrastRatio(palette.color(QPalette::Active, p.fg), palette.color(QPalette::Active, p.bg));
            QVERIFY2(c >= p.least, qPrintable(QStringLiteral("%1: %2 is %3:1 (%4 on %5)")
                                                  .arg(name, QString::fromLatin1(p.what))
                                                  .arg(c, 0, 'f', 2)
                                                  .arg(palette.color(p.fg).name(), palette.color(p.bg).name())));
        }
}

int main(int argc, char *argv[])
{
    // Two screens, as the rooms' projectors: 1280x720 and 1024x768, through the
    // offscreen platform's configuration file (with another platform the launch tests skip).
    QTemporaryFile screens(QDir::temp().filePath(QStringLiteral("lockscope-screens-XXXXXX.json")));
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen" && screens.open()) {
        screens.write(R"({"synchronousWindowSystemEvents": false, "windowFrameMargins": false, "screens": [
            {"name": "a-projector-1280", "x": 0, "y": 0, "width": 1280, "height": 720,
             "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
            {"name": "b-projector-1024", "x": 1280, "y": 0, "width": 1024, "height": 768,
             "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
        screens.close();
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + QFile::encodeName(screens.fileName()));
    }
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestWorkshopWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_workshopwindow.moc"

// Issue 38 point 3: one clock. gc-pause stepped as a teacher does (talking between the steps):
// the views' lease_lost counts the silence the stage counts (the 3.5 s pause, not the talk), and
// their holder_returned names the same overlap as the stage's, on the same clock.
void TestWorkshopWindow::stageAndViewsShareOneClock()
{
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("gc-pause")));
    constexpr int kTalkMs = 2500;
    for (int i = 0; i < 8; ++i) {
        QVERIFY(stepAndWait(w));
        QTest::qWait(kTalkMs);
    }
    auto find = [](const QVector<LockEvent> &events, const QString &type) {
        for (const LockEvent &e : events)
            if (e.type == type && e.lock == QLatin1String("report"))
                return e;
        return LockEvent();
    };
    QVector<LockEvent> stage;
    for (const StepReport &r : w.reports())
        stage << r.events;
    const QVector<LockEvent> &views = w.lockViews()->eventModel()->events();
    for (const QString &type : {QStringLiteral("lease_lost"), QStringLiteral("holder_returned")}) {
        const LockEvent s = find(stage, type), v = find(views, type);
        QVERIFY2(!s.type.isEmpty(), qPrintable(QStringLiteral("stage: no %1").arg(type)));
        QVERIFY2(!v.type.isEmpty(), qPrintable(QStringLiteral("views: no %1").arg(type)));
        qInfo() << type << "stage" << s.timeMs << s.detail << "\nviews" << v.timeMs << v.detail;
        // The same moment on the same clock, not the talk between steps apart (the views see the
        // expiry itself, during the pause step; the stage at the step after it).
        QVERIFY2(
            qAbs(v.timeMs - s.timeMs) < 1000,
            qPrintable(QStringLiteral("%1 at %2 on the stage, %3 in the views").arg(type).arg(s.timeMs).arg(v.timeMs)));
    }
    const qint64 stageSilent =
        find(stage, QStringLiteral("lease_lost")).extra.value(QStringLiteral("silent_ms")).toInteger();
    const qint64 viewSilent =
        find(views, QStringLiteral("lease_lost")).extra.value(QStringLiteral("silent_ms")).toInteger();
    QVERIFY2(stageSilent >= 3000 && viewSilent >= 2500 && viewSilent <= stageSilent + 500,
             qPrintable(QStringLiteral("silent %1 ms on the stage, %2 ms in the views (talk between steps: %3 ms each)")
                            .arg(stageSilent)
                            .arg(viewSilent)
                            .arg(kTalkMs)));
    const LockEvent back = find(views, QStringLiteral("holder_returned"));
    const qint64 overlapMs = back.extra.value(QStringLiteral("overlap_to_ms")).toInteger() -
                             back.extra.value(QStringLiteral("overlap_from_ms")).toInteger();
    QVERIFY2(overlapMs >= 0 && overlapMs < kTalkMs, qPrintable(back.detail));
}

// Issue 38: whatever a step's expectations say LockScope derives or holds is in the window's
// views at that step, for every shipped scenario: each event type its `events` names (for its
// lock, in the event log's model) and the holder its `holder` names (in the lock table's model).
void TestWorkshopWindow::everyScenariosVerdictsReachTheViews()
{
    for (const QString &name : Scenario::builtInNames()) {
        WorkshopWindow w(m_server.endpoint());
        QVERIFY(w.loadScenario(name));
        QHash<QString, QString> clientOf; // actor -> client id, as the steps report them
        for (int i = 0; i < w.scenario().steps.size(); ++i) {
            const Scenario::Step &step = w.scenario().steps.at(i);
            const QString where = QStringLiteral("%1 step %2").arg(name).arg(i + 1);
            // The event log's model keeps the newest first: count the events of each type and lock
            // before the step.
            auto counts = [&w] {
                QHash<QString, int> n;
                for (const LockEvent &e : w.lockViews()->eventModel()->events())
                    ++n[e.type + QLatin1Char('\n') + e.lock];
                return n;
            };
            const QHash<QString, int> before = counts();
            QVERIFY2(stepAndWait(w), qPrintable(where));
            const StepReport &r = w.reports().last();
            if (!r.actor.isEmpty())
                clientOf.insert(r.actor, r.clientId);
            const QString lock = step.lock.isEmpty() ? w.scenario().lock : step.lock;
            for (const QJsonValue &type : step.expect.value(QStringLiteral("events")).toArray()) {
                // The lock the stage derived it for (a returned holder: the lock it lost, not the
                // one it came back on).
                QString lockOf = lock;
                for (const LockEvent &e : r.events)
                    if (e.type == type.toString())
                        lockOf = e.lock;
                const QString key = type.toString() + QLatin1Char('\n') + lockOf;
                const auto inViews = [&] { return counts().value(key) > before.value(key); };
                QVERIFY2(QTest::qWaitFor(inViews, 5000),
                         qPrintable(QStringLiteral("%1: no %2 on %3 in the event log\n%4")
                                        .arg(where, type.toString(), lockOf, eventLog(w).join(QLatin1Char('\n')))));
            }
            const QString holder = step.expect.value(QStringLiteral("holder")).toString();
            if (holder.isEmpty() || holder == QLatin1String("none") || !clientOf.contains(holder))
                continue;
            const auto held = [&] {
                const QAbstractItemModel *m = w.lockViews()->lockModel();
                for (int row = 0; row < m->rowCount(); ++row) {
                    const auto s = m->index(row, 0).data(LockTableModel::SnapshotRole).value<LockSnapshot>();
                    if (s.name == lock)
                        for (const LockHolder &h : s.holders)
                            if (h.clientId == clientOf.value(holder))
                                return true;
                }
                return false;
            };
            QVERIFY2(QTest::qWaitFor(held, 5000),
                     qPrintable(QStringLiteral("%1: %2 not shown holding %3").arg(where, holder, lock)));
        }
    }
}
