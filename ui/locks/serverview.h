#pragma once

#include "common/actornames.h"
#include "locks/lockbatchbuffer.h"

#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"
#include "protocol/watchmode.h"
#include "recording/historystore.h"
#include "session/locksession.h"

#include <QTimer>
#include <QWidget>

#include <memory>

class QLineEdit;
class QSplitter;
class QTableView;
class QThread;
class QToolBar;

namespace lockscope
{

class BottomTabs;
class ConnectionBanner;
class EventLogModel;
class FindingModel;
class LockActions;
class LockDetailPanel;
class DoctorLoop;
class LockFilterProxy;
class LockTableModel;
class LockTableView;
class ReplayPlayer;
class ServerStatusBar;
class SessionController;
class SessionRecorder;
class StageTime;

/**
 * One server's dashboard as a widget: its toolbar (Refresh, filter, the writes), the connection
 * band, the lock table beside the selected lock's detail, the bottom tabs (BottomTabs: event log,
 * problems, charts, clients, cluster) and its status bar (ServerStatusBar). Talks to Redis only
 * through its SessionController (own `redis-io` thread), acts through its LockActions, keeps the
 * history the charts draw. Hosted by MainWindow (which moves the toolbar and the status bar into
 * its frame), by each tab of ServerTabsWindow and by the WorkshopWindow. GUI thread.
 *
 * Why serverview.cpp is long: it wires one server's views (table, detail, charts, event log,
 * findings, clients, status bar) to its SessionController and keeps filter, selection and stage
 * clock common to them; each view is a class of its own.
 */
class ServerView : public QWidget
{
    Q_OBJECT
protected:
    /** The table holds still under the pointer: while it is over the rows, changes do not
     *  re-sort them (the row the operator aims at stays where it is); leaving re-sorts. */
    bool eventFilter(QObject *watched, QEvent *event) override;

public:
    explicit ServerView(const LockSession::Options &options, QWidget *parent = nullptr);
    ~ServerView() override;

    /** Starts the session (connect, discover, watch); nothing in a replay. */
    void start();
    /** Ends the session for good (its redis-io thread stops; nothing is retried any more). */
    void stopSession();
    /** Also writes everything seen to a recording (SessionRecorder); false with `*error`. */
    bool startRecording(const QString &path, QString *error);
    /** Replay mode: shows `player`'s recording (not owned) instead of a live server: the session is
     *  never started, every action is hidden, countdowns and the doctor run on the replay clock. */
    void attachReplay(ReplayPlayer *player);
    bool isReplay() const { return m_player != nullptr; }
    /** The workshop: the session, the countdowns, the charts and the history run on `time`, the
     *  stage clock (StageTime: standing still while the teacher talks, going back with a step
     *  undone). Call before start(). */
    void setStageTime(std::shared_ptr<StageTime> time);

    QThread *ioThread() const;
    const LockSession::Options &options() const { return m_options; }
    SessionController *session() const { return m_session; }
    LockActions *lockActions() const { return m_actions; }
    QToolBar *toolBar() const { return m_toolBar; }
    ServerStatusBar *statusBar() const { return m_statusBar; }
    /** The vertical splitter: table and detail above, the bottom tabs below. */
    QSplitter *mainSplitter() const { return m_mainSplit; }
    LockTableModel *lockModel() const { return m_lockModel; }
    EventLogModel *eventModel() const { return m_eventModel; }
    FindingModel *findingModel() const { return m_findingModel; }
    /** Everything seen since the view opened (bounded), for the charts. */
    const HistoryStore &history() const { return m_history; }
    void setHistoryRetention(const HistoryStore::Retention &retention) { m_history.setRetention(retention); }
    QTableView *lockView() const;
    QTableView *findingView() const;
    LockDetailPanel *detailPanel() const { return m_detail; }
    /** Event log, problems, charts, clients and (Redis Cluster) the topology. */
    BottomTabs *bottomTabs() const { return m_tabs; }
    /** The connection band over the table, so an empty or stale table is never read as live;
     *  hidden while live. */
    ConnectionBanner *connectionBanner() const { return m_banner; }

    /** Workshop mode and client labels: every lock view names these clients. */
    void setActorNames(const ActorNames &names);
    /** Selects the row of `name` (if shown). */
    void selectLock(const QString &name);
    QString selectedLockName() const;
    /** The locks on screen and the selected one, to the session (polling reads them every tick). */
    void sendPriorityLocks();
    WatchMode mode() const { return m_mode; }
    bool hasInitialData() const { return m_initialData; }

    /** What the event log and the charts show: their events and history. */
    struct Shown {
        QVector<LockEvent> events; ///< newest first
        HistoryStore history;
    };
    Shown shown() const;
    /** Shows an earlier shown() again (workshop step back: the views go back with the server). */
    void restoreShown(const Shown &shown);
    /** While muted, what the session reports still updates the lock table and detail, but neither
     *  the event log nor the charts' history (nor a recording's events): the workshop's step back
     *  rewrites the server, and those writes are no client's doing. */
    void setHistoryMuted(bool muted) { m_historyMuted = muted; }
    bool isHistoryMuted() const { return m_historyMuted; }

signals:
    /** The connection band's "Connect…": the user wants another connection. */
    void connectRequested();
    /** The server refused the login or wants a password, said once per view (retrying would never
     *  succeed). */
    void authenticationNeeded(const QString &detail);
    /** The first discovery finished and its locks are in the table. */
    void initialDataArrived();
    /** New data went into history() (at most once per batch). */
    void historyChanged();
    /** The connection state shown in the status bar changed. */
    void connectionModeChanged(lockscope::WatchMode mode);

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildUi();
    /** "Now" of the charts and the history, epoch ms: the replay position, the stage clock or the
     *  wall clock. */
    qint64 nowEpochMs() const;
    /** Event-log and table colours for the palette's background (light or dark). */
    void followPalette();
    void onLocksUpdated(const QVector<LockSnapshot> &changed, const QStringList &removed);
    void applyToTable(const QVector<LockSnapshot> &changed, const QStringList &removed);
    void flushTableBuffer();
    void onEvents(const QVector<LockEvent> &events);
    void onModeChanged(WatchMode mode, const QString &detail);
    void onProgress(qint64 scanned, qint64 found, bool finished, qint64 approxTotalKeys);
    void onFindings(const QVector<LockFinding> &findings);
    /** The session's masters: for a cluster (showsCluster()) the Cluster tab, the node column
     *  and the masters in the status bar, added the first time; nothing for one server. */
    void onTopology(const SessionTopology &topology);
    /** Whether this view shows the masters of `topology` (Cluster tab, node column, masters
     *  count): for a Redis Cluster, whatever its number of masters; not for a single server or a
     *  Sentinel name. The one place the view tells one server from a cluster. */
    static bool showsCluster(const SessionTopology &topology) { return topology.isCluster(); }
    /** A cluster's lock count per master, in the Cluster tab. */
    void updateClusterLockCounts();
    /** Replay: the locks in the table (the replay doctor's locks()). */
    QHash<QString, LockSnapshot> tableLocks() const;
    void updateDetail();
    void updateCount();

    LockSession::Options m_options;
    SessionController *m_session = nullptr;
    LockActions *m_actions = nullptr;
    LockTableModel *m_lockModel = nullptr;
    LockFilterProxy *m_proxy = nullptr;
    EventLogModel *m_eventModel = nullptr;
    FindingModel *m_findingModel = nullptr;
    QToolBar *m_toolBar = nullptr;
    QLineEdit *m_filter = nullptr;
    LockTableView *m_lockView = nullptr;
    LockDetailPanel *m_detail = nullptr;
    ConnectionBanner *m_banner = nullptr;
    BottomTabs *m_tabs = nullptr;
    QSplitter *m_mainSplit = nullptr;
    ServerStatusBar *m_statusBar = nullptr;
    bool m_clusterCountsPending = false;
    SessionTopology m_topology;           ///< the session's masters, as last reported (one server until told otherwise)
    DoctorLoop *m_replayDoctor = nullptr; ///< replay only: the doctor over the replayed table, replay clock
    bool m_userScan = false;              ///< a Refresh asked for the scan under way: show its progress
    QTimer m_animation;
    WatchMode m_mode = WatchMode::Connecting;
    qint64 m_lastDataMs = 0; ///< epoch ms of the last lock data that arrived (the banner's "as of")
    HistoryStore m_history;
    std::unique_ptr<SessionRecorder> m_recorder;
    ReplayPlayer *m_player = nullptr;
    std::shared_ptr<StageTime> m_stageTime; ///< setStageTime(); null: real time
    bool m_initialData = false;
    bool m_authenticationAsked = false; ///< authenticationNeeded() was emitted
    bool m_historyMuted = false;        ///< setHistoryMuted()
    QTimer m_priorityTimer;
    /** Big tables take lock changes merged, at most every 200 ms (one by one, a
     *  first discovery of 200k locks froze the window). */
    LockBatchBuffer m_tableBuffer;
    QTimer m_tableFlush;
    QStringList m_priorityNames;
};

} // namespace lockscope
