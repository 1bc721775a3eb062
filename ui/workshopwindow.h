#pragma once

#include "workshop/scenario.h"
#include "workshop/stepreport.h"

#include "redis/redisendpoint.h"

#include <QMainWindow>

class QAction;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QTextBrowser;
class QTimer;

namespace lockscope {

class MainWindow;
class ScenarioRunner;

/**
 * Workshop mode (`lockscope --workshop [SCENARIO]`): stages a Scenario on a private redis-server
 * with LockScope's own Redisson-compatible clients (ScenarioRunner) and lets a teacher walk a
 * room through it.
 *
 * Left, the stage: the scenario's title and summary, its steps (✓ held, ✗ broken, ▶ next), and for
 * the last step who did what (client id, thread id, the call in Redisson terms), which branch of
 * the Lua script ran, the keys before and after with the changes highlighted, the pub/sub message
 * and whom it woke, the narration and the step's checks. Right, the ordinary lock views (table,
 * detail, TTL chart, timeline) watching the same private server, read-only.
 *
 * Controls: Step (Space), Play/Pause (P) at 0.1x-4x (one step every 2.5 s at 1x), Restart (Ctrl+R,
 * a fresh run on a flushed server), and "You are the scheduler" (Ctrl+S): one button per actor
 * with steps left, the teacher picks who acts next (steps stay atomic: one at a time). Projector
 * mode (F5) switches to large fonts and a high-contrast theme, live; Ctrl+= / Ctrl+- scale.
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

    /** Runs the next step (as the Step button). False while a step runs or at the end. */
    bool step();
    /** Runs `actor`'s next step (scheduler mode's buttons; "" = a time step). */
    bool stepAs(const QString &actor);
    void setPlaying(bool playing);
    void setSpeed(double speed);
    void restart();
    void setSchedulerMode(bool on);
    void setProjectorMode(bool on);
    bool projectorMode() const { return m_projector; }

    const QVector<StepReport> &reports() const { return m_reports; }
    /** The embedded lock views. */
    MainWindow *lockViews() const { return m_views; }

signals:
    void stepShown(const lockscope::StepReport &report);
    void scenarioFinished(bool allExpectationsHeld);

private:
    void buildUi();
    void startRun();
    void onStep(const StepReport &report);
    void refreshSteps();
    void refreshScheduler();
    void showReport(const StepReport &report);
    void applyLook();
    QString html(const StepReport &report) const;

    RedisEndpoint m_sandbox;
    Scenario m_scenario;
    ScenarioRunner *m_runner = nullptr;
    QVector<StepReport> m_reports;
    MainWindow *m_views = nullptr;
    QComboBox *m_picker = nullptr;
    QComboBox *m_speed = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_summary = nullptr;
    QListWidget *m_steps = nullptr;
    QTextBrowser *m_detail = nullptr;
    QWidget *m_schedulerBar = nullptr;
    QHBoxLayout *m_schedulerButtons = nullptr;
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
