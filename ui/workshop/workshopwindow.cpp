#include "workshop/workshopwindow.h"

#include "common/screenfit.h"
#include "common/shortcutsdialog.h"
#include "common/uitheme.h"
#include "dashboardmenubar.h"
#include "locks/lockdetailpanel.h"
#include "locks/locktablemodel.h"
#include "locks/serverview.h"
#include "locks/sessioncontroller.h"
#include "session/stagetime.h"
#include "workshop/actorlegend.h"
#include "workshop/schedulerbar.h"
#include "workshop/stageclockbadge.h"
#include "workshop/workshopprojector.h"
#include "workshop/workshopstephtml.h"
#include "workshop/workshopsteplist.h"

#include "protocol/locksnapshot.h"

#include "scenario/scenariorunner.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <utility>

namespace lockscope
{

namespace
{
constexpr int kStepIntervalMs = 2500; ///< between steps when playing at 1x
} // namespace

WorkshopWindow::WorkshopWindow(const RedisEndpoint &sandbox, QWidget *parent) : QMainWindow(parent), m_sandbox(sandbox)
{
    m_baseFont = QApplication::font();
    m_quiet = new QTimer(this);
    m_quiet->setSingleShot(true);
    connect(m_quiet, &QTimer::timeout, this, [this] {
        if (auto then = std::exchange(m_afterSettle, nullptr))
            then();
    });
    m_playTimer = new QTimer(this);
    m_playTimer->setSingleShot(true);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_playing && !step() && m_runner && m_runner->atEnd())
            setPlaying(false);
    });
    buildUi();
}

WorkshopWindow::~WorkshopWindow()
{
    m_runner.reset(); // before the views and everything its signals reach
}

void WorkshopWindow::buildUi()
{
    setWindowTitle(tr("LockScope workshop"));
    // The whole screen (less the frame): the stage and every column of the lock views.
    ScreenFit::apply(this, QSize(0, 0));

    auto *bar = addToolBar(tr("Workshop"));
    bar->setObjectName(QStringLiteral("workshopToolBar"));
    m_picker = new QComboBox(bar);
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setMinimumContentsLength(16);
    m_picker->setToolTip(tr("The shipped scenarios; Open… loads your own scenario file"));
    for (const QString &name : Scenario::builtInNames()) {
        Scenario s;
        QString error;
        if (Scenario::loadBuiltIn(name, &s, &error))
            m_picker->addItem(QStringLiteral("%1 — %2").arg(name, s.title), name);
    }
    bar->addWidget(m_picker);
    connect(m_picker, &QComboBox::activated, this, [this](int i) {
        QString error;
        if (!loadScenario(m_picker->itemData(i).toString(), &error))
            QMessageBox::warning(this, tr("Scenario"), error);
    });
    bar->addAction(tr("Open…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a scenario file"), QString(),
                                                          tr("Scenario files (*.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !loadScenario(path, &error))
            QMessageBox::warning(this, tr("Scenario"), error);
    });
    bar->addSeparator();
    QAction *stepAction = bar->addAction(tr("Step ▶|"), this, [this] { step(); });
    stepAction->setShortcuts({QKeySequence(Qt::Key_Space), QKeySequence(Qt::Key_Right)});
    stepAction->setToolTip(tr("Run the next step (Space or →): one client action, one atomic script"));
    QAction *backAction = bar->addAction(tr("|◀ Step back"), this, [this] { stepBack(); });
    backAction->setShortcuts({QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_Backspace)});
    backAction->setToolTip(tr("Go back to before the last step (← or Backspace): the server gets back its keys, TTLs "
                              "and waiters as they were, the clients their subscriptions"));
    auto *backToAction = new QAction(tr("Back to the selected step"), this);
    backToAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Backspace));
    backToAction->setToolTip(
        tr("Go back to before the step selected in the list (Ctrl+Backspace, or double-click it)"));
    connect(backToAction, &QAction::triggered, this, [this] {
        if (m_steps->currentRow() >= 0)
            backTo(m_steps->currentRow());
    });
    addAction(backToAction);
    m_playAction = bar->addAction(tr("Play"), this, [this] { setPlaying(!m_playing); });
    m_playAction->setShortcut(QKeySequence(Qt::Key_P));
    m_playAction->setToolTip(tr("Play the steps one after another at the chosen speed (P)"));
    m_speed = new QComboBox(bar);
    for (double s : {0.1, 0.25, 0.5, 1.0, 2.0, 4.0})
        m_speed->addItem(QStringLiteral("%1×").arg(s), s);
    m_speed->setCurrentIndex(3);
    m_speed->setToolTip(tr("Playing speed: at 1x one step every 2.5 s"));
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this] { setSpeed(m_speed->currentData().toDouble()); });
    bar->addWidget(m_speed);
    QAction *restartAction = bar->addAction(tr("Restart"), this, &WorkshopWindow::restart);
    restartAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Home));
    restartAction->setToolTip(tr("Start the scenario again on an emptied server (Ctrl+Home)"));
    bar->addSeparator();
    m_timeRunsAction = bar->addAction(tr("Let time run"), this, [this](bool on) { setTimeRuns(on); });
    m_timeRunsAction->setCheckable(true);
    m_timeRunsAction->setShortcut(QKeySequence(Qt::Key_T));
    m_timeRunsAction->setToolTip(tr("Off (default): between steps time stands still on the workshop server, TTLs and "
                                    "waiters' deadlines are held where the step left them. On: they run down in real "
                                    "time, as in production (T)"));
    m_schedulerAction = bar->addAction(tr("You are the scheduler"), this, [this](bool on) { setSchedulerMode(on); });
    m_schedulerAction->setCheckable(true);
    m_schedulerAction->setShortcut(QKeySequence(tr("Ctrl+S")));
    m_schedulerAction->setToolTip(tr("Pick which simulated client acts next (Ctrl+S). Each action is still one "
                                     "atomic script: Redis never interleaves two"));
    m_projectorAction = bar->addAction(tr("Projector"), this, [this](bool on) { setProjectorMode(on); });
    m_projectorAction->setCheckable(true);
    m_projectorAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_projectorAction->setToolTip(tr("Large fonts and high contrast for a room (F11); Ctrl+= / Ctrl+- scale"));
    QMenu *workshopMenu = menuBar()->addMenu(tr("&Workshop"));
    for (QAction *a : {stepAction, backAction, backToAction, m_playAction, restartAction})
        workshopMenu->addAction(a);
    workshopMenu->addSeparator();
    for (QAction *a : {m_timeRunsAction, m_schedulerAction, m_projectorAction})
        workshopMenu->addAction(a);
    workshopMenu->addSeparator();
    QAction *quit = workshopMenu->addAction(tr("&Quit"), this, [this] { close(); });
    quit->setShortcut(QKeySequence::Quit);
    quit->setObjectName(QStringLiteral("quitAction"));
    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *keys = helpMenu->addAction(tr("&Keyboard shortcuts"), this, &WorkshopWindow::showShortcuts);
    keys->setShortcut(QKeySequence::HelpContents);
    keys->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    helpMenu->addAction(tr("&About LockScope"), this,
                        [this] { DashboardMenuBar::showAbout(this, m_views->session()->clientId()); });
    auto *zoomIn = new QAction(tr("Larger (projector)"), this);
    zoomIn->setShortcuts({QKeySequence(tr("Ctrl+=")), QKeySequence(tr("Ctrl++"))});
    connect(zoomIn, &QAction::triggered, this, [this] {
        m_zoom = qMin(3.0, m_zoom * 1.15);
        applyLook();
        applyStageLayout();
    });
    auto *zoomOut = new QAction(tr("Smaller (projector)"), this);
    zoomOut->setShortcut(QKeySequence(tr("Ctrl+-")));
    connect(zoomOut, &QAction::triggered, this, [this] {
        m_zoom = qMax(0.6, m_zoom / 1.15);
        applyLook();
        applyStageLayout();
    });
    addAction(zoomIn);
    addAction(zoomOut);

    auto *stage = new QWidget(this);
    auto *left = new QVBoxLayout(stage);
    m_title = new QLabel(stage);
    m_title->setObjectName(QStringLiteral("workshopTitle"));
    m_title->setWordWrap(true);
    m_summary = new QLabel(stage);
    m_summary->setWordWrap(true);
    left->addWidget(m_title);
    left->addWidget(m_summary);
    m_legend = new ActorLegend(stage);
    left->addWidget(m_legend);
    m_schedulerBar = new SchedulerBar(stage);
    connect(m_schedulerBar, &SchedulerBar::chosen, this, [this](const QString &actor) { stepAs(actor); });
    m_schedulerBar->hide();
    left->addWidget(m_schedulerBar);
    auto *split = new QSplitter(Qt::Vertical, stage);
    m_steps = new WorkshopStepList(split);
    connect(m_steps, &QListWidget::currentRowChanged, this, [this](int row) {
        for (const StepReport &r : std::as_const(m_reports))
            if (r.index == row)
                showReport(r);
    });
    connect(m_steps, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem *item) { backTo(m_steps->row(item)); });
    m_detail = new QTextBrowser(split);
    m_detail->setObjectName(QStringLiteral("workshopStepDetail"));
    m_detail->setOpenLinks(false);
    split->addWidget(m_steps);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    left->addWidget(split, 1);

    LockSession::Options options;
    options.endpoint = m_sandbox;
    options.readOnly = true; // the simulated clients act; the views only watch
    // The actors are named A, B, C by the stage: no CLIENT LIST correlation, which would name
    // them by their connections and add its own events to the teacher's log.
    options.trackClients = false;
    m_views = new ServerView(options);
    m_views->setWindowTitle(tr("Lock views"));

    // The lock views (no menu bar of their own: the workshop's is the window's) count TTLs down
    // on the stage clock.
    // The views' own minimum sizes (charts, the detail's sections) add up to more than 720 px
    // in projector fonts: in this window they may shrink, their parts scroll.
    m_views->setMinimumSize(320, 240);
    m_views->detailPanel()->setMinimumSize(200, 120);
    for (QTabWidget *tabs : m_views->findChildren<QTabWidget *>())
        tabs->setMinimumSize(200, 100);
    m_stageTime = std::make_shared<StageTime>();
    m_stageTime->restart(QDateTime::currentMSecsSinceEpoch(), LockSnapshot::steadyNowMs());
    m_views->setStageTime(m_stageTime);

    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    m_clockBadge = new StageClockBadge(central);
    centralLayout->addWidget(m_clockBadge);
    auto *main = new QSplitter(Qt::Horizontal, central);
    main->setObjectName(QStringLiteral("workshopSplitter"));
    main->addWidget(stage);
    main->addWidget(m_views);
    main->setStretchFactor(0, 1);
    main->setStretchFactor(1, 1);
    main->setSizes({760, 840});
    m_mainSplit = main;
    centralLayout->addWidget(main, 1);
    setCentralWidget(central);
    connect(m_views->session(), &SessionController::eventsOccurred, this, &WorkshopWindow::onViewEvents);
    m_views->start();
    statusBar()->showMessage(
        tr("Private redis-server on %1: nothing here touches any other Redis").arg(m_sandbox.address()));
    applyLook();
    refreshClockBadge();
}

bool WorkshopWindow::loadScenario(const QString &nameOrPath, QString *error)
{
    Scenario s;
    QString err;
    const bool ok = QFileInfo::exists(nameOrPath) ? Scenario::load(nameOrPath, &s, &err)
                                                  : Scenario::loadBuiltIn(nameOrPath, &s, &err);
    if (!ok) {
        if (error)
            *error = err;
        return false;
    }
    m_scenario = s;
    const int i = m_picker->findData(s.name);
    if (i >= 0)
        m_picker->setCurrentIndex(i);
    setWindowTitle(tr("LockScope workshop — %1").arg(s.title));
    m_title->setText(QStringLiteral("<b>%1</b>").arg(s.title.toHtmlEscaped()));
    m_summary->setText(s.summary.toHtmlEscaped());
    startRun();
    return true;
}

void WorkshopWindow::startRun()
{
    setPlaying(false);
    // The old run goes first, whatever it was doing (a step, a rewind, connecting): the runner
    // drops what it had in flight, nothing of it reaches this window any more.
    m_runner.reset();
    m_queuedStep = nullptr;
    m_afterSettle = nullptr;
    m_quiet->stop();
    m_reports.clear();
    m_shownBefore.clear();
    // Empty views at once; what the reset of the server makes the watch report is not shown.
    muteViews();
    m_views->restoreShown({});
    m_runner = std::make_unique<ScenarioRunner>(m_scenario, m_sandbox);
    ScenarioRunner *runner = m_runner.get();
    runner->setTimeRuns(m_timeRunsAction->isChecked());
    connect(runner, &ScenarioRunner::stepStarting, this,
            [this](int index) { m_shownBefore.insert(index, m_views->shown()); });
    connect(runner, &ScenarioRunner::stepFinished, this, &WorkshopWindow::onStep);
    m_stageTime->restart(runner->stageEpochZeroMs(), LockSnapshot::steadyNowMs());
    connect(runner, &ScenarioRunner::timeHeldChanged, this, [this](bool held) {
        m_stageTime->setRunning(!held, LockSnapshot::steadyNowMs());
        refreshClockBadge();
    });
    connect(runner, &ScenarioRunner::rewound, this, &WorkshopWindow::onRewound);
    // The views watch the server the steps act on: a replication scenario's master, then the
    // replica its failover promotes (as LockScope follows a Sentinel failover), else the sandbox.
    connect(runner, &ScenarioRunner::watchedServerChanged, this, [this](const QString &address, bool failover) {
        m_views->session()->followServer(
            address, failover ? tr("the scenario's failover promoted it") : tr("the scenario's master"), failover);
    });
    connect(runner, &ScenarioRunner::prepared, this, [this] {
        applyActorNames();
        settleViews([this] {
            m_views->restoreShown({});
            m_views->setHistoryMuted(false);
            if (auto queued = std::exchange(m_queuedStep, nullptr))
                queued();
        });
    });
    connect(runner, &ScenarioRunner::failed, this, [this](const QString &error) {
        setPlaying(false);
        m_queuedStep = nullptr;
        m_views->setHistoryMuted(false);
        m_detail->setHtml(
            tr("<p style='color:%2; font-size:%3pt'><b>The private Redis cannot be reached:</b> %1</p>")
                .arg(error.toHtmlEscaped(), m_projector ? QStringLiteral("#ff7b6b") : QStringLiteral("#c0392b"))
                .arg(narrationPointSize(), 0, 'f', 1));
    });
    m_detail->setHtml(tr("<p>%1</p><p><i>Press <b>Step</b> (Space) to run the first action, or <b>Play</b>.</i></p>")
                          .arg(m_scenario.summary.toHtmlEscaped()));
    refreshSteps();
    refreshScheduler();
    applyActorNames();
    refreshClockBadge();
    runner->prepare();
}

void WorkshopWindow::muteViews()
{
    m_views->setHistoryMuted(true);
    m_mutedSince.start();
}

void WorkshopWindow::settleViews(std::function<void()> then)
{
    m_afterSettle = std::move(then);
    restartQuiet();
}

void WorkshopWindow::restartQuiet()
{
    const qint64 muted = m_mutedSince.isValid() ? m_mutedSince.elapsed() : kMinMutedMs;
    m_quiet->start(int(qMax<qint64>(kQuietMs, kMinMutedMs - muted)));
}

void WorkshopWindow::onViewEvents()
{
    // Still settling: the writes are still being reported; wait on (at most kSettleMaxMs).
    if (m_afterSettle && m_mutedSince.isValid() && m_mutedSince.elapsed() < kSettleMaxMs)
        restartQuiet();
}

bool WorkshopWindow::viewsReady() const
{
    return m_runner && m_runner->isPrepared() && !m_afterSettle && !m_views->isHistoryMuted();
}

void WorkshopWindow::onRewound(int index, const QString &error)
{
    syncStageTime(true); // the stage clock went back to the checkpoint's time
    // The server is back; the views too, once the watch has reported the restore's writes
    // (dropped: no client did them).
    settleViews([this, index, error] {
        m_views->restoreShown(m_shownBefore.value(index));
        m_views->setHistoryMuted(false);
        m_reports = m_runner->reports();
        refreshSteps();
        refreshScheduler();
        const QString size = QStringLiteral("font-size:%1pt").arg(narrationPointSize(), 0, 'f', 1);
        m_detail->setHtml(tr("<p style='background:#2d6cdf; color:white; padding:4px; %2'><b>Back before step %1.</b> "
                             "The server holds the keys, TTLs and waiters as they were before it, and the lock views "
                             "show what they showed then; press Step to run it again, or let another client act "
                             "(scheduler).</p>")
                              .arg(index + 1)
                              .arg(size) +
                          (error.isEmpty()
                               ? QString()
                               : tr("<p style='color:%2; %3'>%1</p>")
                                     .arg(error.toHtmlEscaped(),
                                          m_projector ? QStringLiteral("#ff7b6b") : QStringLiteral("#c0392b"), size)) +
                          (m_reports.isEmpty() ? QString() : stepHtml(m_reports.last())));
        if (m_steps->count() > index)
            m_steps->setCurrentRow(index);
        statusBar()->showMessage(tr("Back before step %1").arg(index + 1));
        emit rewound(index);
        if (auto queued = std::exchange(m_queuedStep, nullptr))
            queued();
    });
}

void WorkshopWindow::restart()
{
    if (!m_scenario.name.isEmpty() || !m_scenario.steps.isEmpty())
        startRun();
}

bool WorkshopWindow::step()
{
    if (!m_runner || m_runner->isBusy() || m_runner->atEnd())
        return false;
    if (!viewsReady()) {
        if (m_queuedStep || (!m_afterSettle && m_runner->isPrepared()))
            return false;
        m_queuedStep = [this] { return m_runner && m_runner->next(); };
        return true;
    }
    return m_runner->next();
}

bool WorkshopWindow::stepAs(const QString &actor)
{
    if (!m_runner || m_runner->isBusy() || !m_runner->pendingActors().contains(actor))
        return false;
    if (!viewsReady()) {
        if (m_queuedStep || (!m_afterSettle && m_runner->isPrepared()))
            return false;
        m_queuedStep = [this, actor] { return m_runner && m_runner->nextFor(actor); };
        return true;
    }
    return m_runner->nextFor(actor);
}

bool WorkshopWindow::stepBack()
{
    if (!m_runner || m_runner->isBusy() || !viewsReady())
        return false;
    setPlaying(false);
    QString error;
    muteViews(); // before the first write of the restore
    if (!m_runner->stepBack(&error)) {
        m_views->setHistoryMuted(false);
        statusBar()->showMessage(tr("Cannot step back: %1").arg(error));
        return false;
    }
    return true;
}

bool WorkshopWindow::backTo(int index)
{
    if (!m_runner || m_runner->isBusy() || !viewsReady())
        return false;
    setPlaying(false);
    QString error;
    muteViews();
    if (!m_runner->rewindTo(index, &error)) {
        m_views->setHistoryMuted(false);
        statusBar()->showMessage(tr("Cannot go back to step %1: %2").arg(index + 1).arg(error));
        return false;
    }
    return true;
}

void WorkshopWindow::setTimeRuns(bool runs)
{
    m_timeRunsAction->setChecked(runs);
    if (m_runner)
        m_runner->setTimeRuns(runs);
    refreshClockBadge();
}

bool WorkshopWindow::isTimeHeld() const
{
    return m_runner && m_runner->isTimeHeld();
}

void WorkshopWindow::syncStageTime(bool back)
{
    if (m_runner)
        m_stageTime->sync(m_runner->stageMs(), !m_runner->isTimeHeld(), LockSnapshot::steadyNowMs(), back);
}

void WorkshopWindow::refreshClockBadge()
{
    if (m_clockBadge)
        m_clockBadge->show(m_timeRunsAction && m_timeRunsAction->isChecked(), isTimeHeld());
}

QList<QPair<QString, QString>> WorkshopWindow::shortcuts() const
{
    return {
        {tr("Space, →"), tr("Step: run the next step")},
        {tr("←, Backspace"), tr("Step back: the server goes back to before the last step")},
        {tr("Ctrl+Backspace, double-click"), tr("Back to before the selected step")},
        {tr("P"), tr("Play / Pause")},
        {tr("Ctrl+Home"), tr("Restart the scenario on an emptied server")},
        {tr("T"), tr("Let time run between steps (off: time stands still)")},
        {tr("Ctrl+S"), tr("You are the scheduler: pick who acts next")},
        {tr("F11"), tr("Projector mode")},
        {tr("Ctrl+Q"), tr("Quit")},
        {tr("Ctrl+=, Ctrl+-"), tr("Larger / smaller")},
        {tr("F5"), tr("Lock views: scan the workshop server again")},
        {tr("Ctrl+F"), tr("Lock views: filter")},
    };
}

void WorkshopWindow::showShortcuts()
{
    // As the dashboard's F1: generated from the actions (the workshop's and the lock views').
    ShortcutsDialog dialog(ShortcutsDialog::actionsWithShortcuts(this), this);
    dialog.setObjectName(QStringLiteral("workshopShortcuts"));
    dialog.exec();
}

void WorkshopWindow::applyActorNames()
{
    if (!m_legend)
        return;
    const QHash<QString, QString> ids = m_runner ? m_runner->actorOfClientId() : QHash<QString, QString>();
    m_legend->setActors(m_scenario.actors, ids);
    m_views->setActorNames(ActorNames(ids)); // every lock view says "A", the client id in its tooltips
}

void WorkshopWindow::setPlaying(bool playing)
{
    m_playing = playing && m_runner && !m_runner->atEnd();
    m_playAction->setText(m_playing ? tr("Pause") : tr("Play"));
    if (m_playing && m_runner && !m_runner->isBusy())
        m_playTimer->start(0);
    else if (!m_playing)
        m_playTimer->stop();
}

void WorkshopWindow::setSpeed(double speed)
{
    m_speedFactor = qBound(0.1, speed, 4.0);
    const int i = m_speed->findData(m_speedFactor);
    if (i >= 0 && i != m_speed->currentIndex())
        m_speed->setCurrentIndex(i);
}

void WorkshopWindow::onStep(const StepReport &report)
{
    syncStageTime();
    m_reports << report;
    if (report.index == 0 || m_reports.size() == 1)
        applyActorNames();
    refreshClockBadge();
    // The lock views follow the lock the step acted on (unless the teacher picked another).
    if (!report.lock.isEmpty() && m_views->selectedLockName().isEmpty())
        m_views->selectLock(report.lock);
    refreshSteps();
    refreshScheduler();
    showReport(report);
    if (m_projector)
        QTimer::singleShot(300, this, [this] { applyStageLayout(); });
    emit stepShown(report);
    if (m_runner->atEnd()) {
        setPlaying(false);
        const bool ok = m_runner->allExpectationsHeld();
        statusBar()->showMessage(ok ? tr("Scenario finished: every expectation held")
                                    : tr("Scenario finished: some expectations did not hold (✗)"));
        emit scenarioFinished(ok);
    } else if (m_playing) {
        m_playTimer->start(int(kStepIntervalMs / m_speedFactor));
    }
}

void WorkshopWindow::refreshSteps()
{
    m_steps->showSteps(m_scenario.steps, m_reports, m_runner ? m_runner->firstPending() : -1, m_projector);
}

void WorkshopWindow::refreshScheduler()
{
    m_schedulerBar->setActors(m_runner ? m_runner->pendingActors() : QStringList());
}

void WorkshopWindow::setSchedulerMode(bool on)
{
    m_scheduler = on;
    m_schedulerAction->setChecked(on);
    m_schedulerBar->setVisible(on);
    if (on)
        setPlaying(false);
}

void WorkshopWindow::setProjectorMode(bool on)
{
    m_projector = on;
    m_projectorAction->setChecked(on);
    if (on && m_zoom < 1.4)
        m_zoom = 1.4;
    else if (!on)
        m_zoom = 1.0;
    applyLook();
    applyStageLayout();
    refreshSteps();
    if (!m_reports.isEmpty())
        showReport(m_reports.last());
}

void WorkshopWindow::applyStageLayout()
{
    // For a room, which reads the step from afar: the summary opens the step detail too, the room needs the height.
    m_summary->setVisible(!m_projector);
    if (m_mainSplit) {
        // On a narrow screen (1024 px) the lock table needs the larger share for its six columns.
        const int stage = width() * (width() < 1200 ? 36 : 42) / 100;
        m_mainSplit->setSizes(m_projector ? QList<int>{stage, width() - stage} : QList<int>{760, 840});
    }
    WorkshopProjector::arrange(m_views, m_projector);
}

void WorkshopWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_fitted) {
        m_fitted = true;
        fitToScreen();
    }
    // Arranged before the window was shown (--projector at launch), the views had no height yet:
    // arrange them again once every layout has its real size.
    if (m_projector)
        QTimer::singleShot(0, this, [this] { applyStageLayout(); });
}

void WorkshopWindow::fitToScreen()
{
    const QScreen *s = screen();
    if (!s)
        return;
    const QRect free = s->availableGeometry();
    // A projector's 1280x720 or 1024x768 (any screen up to 1440x900): the whole screen, every
    // column of the lock views and the stage side by side.
    if (free.width() <= 1440 || free.height() <= 900) {
        resize(free.size());
        move(free.topLeft());
        setWindowState(windowState() | Qt::WindowMaximized);
        return;
    }
    // The screen it opened on is not the one it was sized for (ScreenFit at construction).
    if (width() > free.width() || height() > free.height())
        ScreenFit::apply(this, QSize(0, 0));
}

void WorkshopWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    fitToolBar();
    if (m_projector)
        applyStageLayout();
}

void WorkshopWindow::fitToolBar()
{
    // Every control in sight: at 1024 px in projector fonts the long labels pushed Scheduler and
    // Projector behind the toolbar's overflow arrow. Shorter words there (tooltips keep the rest).
    auto *bar = findChild<QToolBar *>(QStringLiteral("workshopToolBar"));
    if (!bar || !m_timeRunsAction || !m_schedulerAction)
        return;
    m_timeRunsAction->setText(tr("Let time run"));
    m_schedulerAction->setText(tr("You are the scheduler"));
    m_picker->setMinimumContentsLength(16);
    if (bar->sizeHint().width() <= width())
        return;
    m_timeRunsAction->setText(tr("Time runs"));
    m_schedulerAction->setText(tr("Scheduler"));
    if (bar->sizeHint().width() > width())
        m_picker->setMinimumContentsLength(8);
}

void WorkshopWindow::applyLook()
{
    QFont f = m_baseFont;
    f.setPointSizeF(m_baseFont.pointSizeF() * m_zoom);
    setFont(f);
    QFont title = f;
    title.setPointSizeF(f.pointSizeF() * (m_projector ? 1.15 : 1.4));
    m_title->setFont(title);
    // The band, the status line and the warnings in the step detail: as large as the narration,
    // readable from the back of the room.
    QFont large = f;
    large.setPointSizeF(narrationPointSize());
    m_clockBadge->setPointSize(large.pointSizeF());
    statusBar()->setFont(large);
    setPalette(m_projector ? WorkshopProjector::palette() : QApplication::palette());
    fitToolBar();
}

qreal WorkshopWindow::narrationPointSize() const
{
    return font().pointSizeF() * (m_projector ? 1.2 : 1.15);
}

QString WorkshopWindow::stepHtml(const StepReport &r) const
{
    return WorkshopStepHtml::html(r, m_runner ? m_runner->actorOfClientId() : QHash<QString, QString>(), m_projector,
                                  narrationPointSize(), UiTheme::isDark());
}

void WorkshopWindow::showReport(const StepReport &r)
{
    m_detail->setHtml(stepHtml(r));
}

} // namespace lockscope
