#pragma once

#include "scenario/scenario.h"
#include "scenario/stepreport.h"

#include "locks/serverview.h"

#include "endpoint/redisendpoint.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QSplitter;
class QTextBrowser;
class QTimer;

namespace lockscope
{

class StageTime;

class ActorLegend;
class ScenarioRunner;
class SchedulerBar;
class StageClockBadge;
class WorkshopStepList;

/**
 * Workshop mode (`lockscope --workshop [SCENARIO]`): stages a Scenario on a private redis-server
 * with LockScope's own Redisson-compatible clients (ScenarioRunner) and lets a teacher walk a
 * room through it.
 *
 * Left, the stage: the scenario's title and summary, a legend of its actors (name = client id,
 * thread), its steps (✓ held, ✗ broken, ▶ next), and for the last step who did what, the call in
 * Redisson terms, which branch of the Lua script ran, the keys before and after with the changes
 * highlighted, the pub/sub message and whom it woke, the narration (or, when an expectation did
 * not hold, what was expected and what did not hold) and the step's checks. Right, the ordinary
 * lock views (table, detail, TTL chart, timeline, event log) watching the same private server,
 * read-only, naming the actors ("A", client id in the tooltip).
 *
 * The stage clock (ScenarioRunner, StageClock): between steps time stands still on the server
 * (TTLs and fair deadlines held) and the views' countdowns stand still with it; a banner says so.
 * "Let time run" (T, off by default) lets it run between steps.
 *
 * Controls (one set, no key shared with the embedded lock views; Help > Keyboard shortcuts):
 * Step (Space, →), Step back (←, Backspace: the server goes back to the keys before the last
 * step), Back to the selected step (Ctrl+Backspace, or double-click a run step), Play/Pause (P) at
 * 0.1x-4x (one step every 2.5 s at 1x), Restart (Ctrl+Home, a fresh run on a flushed server), Let
 * time run (T), "You are the scheduler" (Ctrl+S: one button per actor with steps left), Projector
 * (F11: large fonts, high contrast, live; Ctrl+= / Ctrl+- scale).
 *
 * The views follow the run: each run (a scenario picked, Restart) starts with empty views, and a
 * step back puts back what the event log, timeline and charts showed before that step (taken as
 * the step began). The writes of a reset or a restore are not events: the views take no history
 * while they land, until the watch has reported nothing for kQuietMs (and kMinMutedMs); a Step pressed meanwhile
 * runs right after.
 *
 * Size (the .cpp is about 520 lines): the parts are classes of their own (WorkshopStepHtml,
 * WorkshopProjector, WorkshopStepList, SchedulerBar, StageClockBadge, ActorLegend); what is left
 * is the wiring of those parts to one ScenarioRunner and the handlers of the controls above.
 *
 * Why workshopwindow.cpp is long: the window composes the stage, the step list, the scheduler bar,
 * the projector mode and the dashboard's views, and keeps their clocks and rewinds in step; each
 * part is a widget class of its own (WorkshopStepList, SchedulerBar, WorkshopProjector, ...).
 */
class WorkshopWindow : public QMainWindow
{
    Q_OBJECT
public:
    /** `sandbox`: the private redis-server (FLUSHALLed by each run). */
    explicit WorkshopWindow(const RedisEndpoint &sandbox, QWidget *parent = nullptr);
    ~WorkshopWindow() override;

    /** Loads a shipped scenario by name or a scenario file (path); false with `*error`. */
    bool loadScenario(const QString &nameOrPath, QString *error = nullptr);
    const Scenario &scenario() const { return m_scenario; }

    /** How long (ms) the lock views must report no event before the writes of a reset or a
     *  restore count as landed (the watch reads a changed key within a few tens of ms)... */
    static constexpr int kQuietMs = 300;
    /** ...and at least this long (ms) after the views were muted: the watch holds an unlock
     *  message up to 500 ms for a read of its lock to take it. */
    static constexpr int kMinMutedMs = 700;
    /** The most a reset or restore waits for that quiet (ms, from the mute). */
    static constexpr int kSettleMaxMs = 3000;

    /** Runs the next step (as the Step button). False while a step runs or at the end. While the
     *  views settle after a (re)start it is queued and runs right after (true). */
    bool step();
    /** Runs `actor`'s next step (scheduler mode's buttons; "" = a time step). */
    bool stepAs(const QString &actor);
    /** Goes back to before the last step run (ScenarioRunner::stepBack); rewound() when done. */
    bool stepBack();
    /** Goes back to before step `index` (0-based) ran; rewound() when done. */
    bool backTo(int index);
    /** "Let time run" (off by default): time runs between steps too. */
    void setTimeRuns(bool runs);
    /** True while time stands still on the workshop server (between steps). */
    bool isTimeHeld() const;
    void setPlaying(bool playing);
    void setSpeed(double speed);
    void restart();
    void setSchedulerMode(bool on);
    void setProjectorMode(bool on);
    bool projectorMode() const { return m_projector; }

    const QVector<StepReport> &reports() const { return m_reports; }
    /** The embedded lock views. */
    ServerView *lockViews() const { return m_views; }

    /** The workshop's own keys, mouse gestures included: (keys, what). Help > Keyboard shortcuts
     *  (F1) lists every action's, as the dashboard's does. */
    QList<QPair<QString, QString>> shortcuts() const;

    /** The narration's font size (pt); the clock band, warnings and the status line are at least
     *  this large. */
    qreal narrationPointSize() const;

protected:
    void resizeEvent(QResizeEvent *event) override;
    /** The first show fits the window to its screen; projector mode is arranged once shown. */
    void showEvent(QShowEvent *event) override;

signals:
    void stepShown(const lockscope::StepReport &report);
    /** After stepBack()/backTo(`index`): the server is as before that step. */
    void rewound(int index);
    void scenarioFinished(bool allExpectationsHeld);

private:
    void buildUi();
    void startRun();
    void onStep(const StepReport &report);
    void refreshSteps();
    void refreshScheduler();
    void showReport(const StepReport &report);
    void applyLook();
    /** Shorter toolbar labels when the long ones do not fit the window's width. */
    void fitToolBar();
    void applyStageLayout();
    void applyActorNames();
    void refreshClockBadge();
    void showShortcuts();
    /** Before a reset or a restore writes: the views take no history from now on. */
    void muteViews();
    /** Once the watch has been quiet (kQuietMs, kMinMutedMs after muteViews()): `then`. */
    void settleViews(std::function<void()> then);
    void restartQuiet();
    void onViewEvents();
    bool viewsReady() const;
    void onRewound(int index, const QString &error);
    QString stepHtml(const StepReport &report) const;
    /** The views' stage clock caught up with the runner's stage time (a step ended, a step
     *  back), running or standing as the stage clock does. */
    void syncStageTime(bool back = false);
    /** At the first show: a window larger than its screen's free area is maximised instead. */
    void fitToScreen();

    RedisEndpoint m_sandbox;
    Scenario m_scenario;
    std::unique_ptr<ScenarioRunner> m_runner;
    QVector<StepReport> m_reports;
    /** Step index -> what the views showed just before its latest run (for a step back). */
    QHash<int, ServerView::Shown> m_shownBefore;
    QTimer *m_quiet = nullptr;           ///< settleViews(): kQuietMs without events
    QElapsedTimer m_mutedSince;          ///< muteViews()
    std::function<void()> m_afterSettle; ///< what settleViews() runs once quiet
    std::function<bool()> m_queuedStep;  ///< a Step pressed while the views settled
    ServerView *m_views = nullptr;
    QComboBox *m_picker = nullptr;
    QComboBox *m_speed = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_summary = nullptr;
    WorkshopStepList *m_steps = nullptr;
    QTextBrowser *m_detail = nullptr;
    StageClockBadge *m_clockBadge = nullptr;
    QSplitter *m_mainSplit = nullptr;
    ActorLegend *m_legend = nullptr;
    QAction *m_timeRunsAction = nullptr;
    /** The lock views' clock (their session, countdowns, charts): the stage's, so paused talk is
     *  no silence and a step back takes time back too. */
    std::shared_ptr<StageTime> m_stageTime;
    bool m_fitted = false; ///< fitToScreen() ran
    SchedulerBar *m_schedulerBar = nullptr;
    QAction *m_playAction = nullptr;
    QAction *m_schedulerAction = nullptr;
    QAction *m_projectorAction = nullptr;
    QTimer *m_playTimer = nullptr;
    double m_speedFactor = 1.0;
    bool m_playing = false;
    bool m_scheduler = false;
    bool m_projector = false;
    double m_zoom = 1.0;
    QFont m_baseFont;
};

} // namespace lockscope
