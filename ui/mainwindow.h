#pragma once

#include "actionoutcome.h"
#include "actornames.h"

#include "history/historystore.h"
#include "lockbatchbuffer.h"
#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"
#include "session/locksession.h"
#include "watch/lockmonitor.h"

#include <QColor>
#include <QMainWindow>
#include <QTimer>

#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;
class QThread;

namespace lockscope
{

class EventLogModel;
class ReplayPlayer;
class SessionRecorder;
class FindingModel;
class ClusterTopologyPanel;
class RedLockDialog;
class LockDetailPanel;
class LockDoctor;
class TtlBarDelegate;
class LockTableModel;
class ContentionView;
class TimelineWidget;
class TtlChart;

/**
 * The dashboard. Owns the `redis-io` thread and the LockSession living on it; talks to it only
 * through queued calls and its signals, so the GUI thread never waits on Redis.
 */
class ClientsView;
class ConnectionBanner;
class LockFilterProxy;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(const LockSession::Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    /** Starts the session (connect, discover, watch). */
    void start();
    /** Also writes everything seen to a recording (SessionRecorder); false with `*error`. */
    bool startRecording(const QString &path, QString *error);
    /** Replay mode: shows `player`'s recording instead of a live server (no session is started,
     *  every write action is disabled) with play/pause, speed and a scrub bar. */
    void attachReplay(ReplayPlayer *player);
    bool isReplay() const { return m_player != nullptr; }

    QThread *ioThread() const { return m_ioThread; }
    /** The options this window was opened with (its endpoint carries the password, if any). */
    const LockSession::Options &options() const { return m_options; }
    /** Remembers geometry, splitters and column widths in QSettings under `key` (restored now,
     *  saved on close; WindowStateKeeper). The application calls it; tests leave it off. */
    void rememberLayout(const QString &key = QStringLiteral("dashboard"));
    /** Ends the session (its redis-io thread stops; nothing is retried any more), for a window
     *  replaced by another one, e.g. reopened with a password. */
    void stopSession();
    LockTableModel *lockModel() const { return m_lockModel; }
    /** The Cluster tab, nullptr until LockScope finds it is watching a Redis Cluster. */
    ClusterTopologyPanel *clusterPanel() const { return m_clusterPanel; }
    /** View > RedLock view…: the (single, non-modal) RedLock / MultiLock view, shown. */
    RedLockDialog *openRedLockView();
    EventLogModel *eventModel() const { return m_eventModel; }
    FindingModel *findingModel() const { return m_findingModel; }
    /** Everything seen since the window opened (bounded), on the GUI thread, for the charts. */
    const HistoryStore &history() const { return m_history; }
    void setHistoryRetention(const HistoryStore::Retention &retention) { m_history.setRetention(retention); }
    QTableView *lockView() const { return m_lockView; }
    LockDetailPanel *detailPanel() const { return m_detail; }
    /** Brings the problems pane (doctor findings) to the front. */
    void showProblems();
    /** Brings the bottom tab whose title starts with `name` (case-insensitive: "event", "problems",
     *  "ttl", "timeline", "contention") to the front; false when there is none. */
    bool showBottomTab(const QString &name);
    TtlChart *ttlChart() const { return m_ttlChart; }
    TimelineWidget *timeline() const { return m_timeline; }
    ContentionView *contentionView() const { return m_contention; }
    /** The Clients tab (issue 15.4). */
    ClientsView *clientsView() const { return m_clients; }
    /** Workshop mode (issue 16): every lock view names these clients ("A", client id in a
     *  tooltip): table, detail, event log, timeline, TTL chart. */
    void setActorNames(const ActorNames &names);
    /** Selects the row of `name` (if shown). */
    void selectLock(const QString &name);
    QString selectedLockName() const;
    /** The locks on screen and the selected one, to LockSession::setPriorityLocks (polling reads them every tick). */
    void sendPriorityLocks();
    LockMonitor::Mode mode() const { return m_mode; }
    /** The connection band over the table (issue 15.1); hidden while live. */
    ConnectionBanner *connectionBanner() const { return m_banner; }
    bool hasInitialData() const { return m_initialData; }
    /** Shows a coloured band with `label` above the toolbar, so this connection is recognised at a
     *  glance (e.g. red for production), and says when the TLS certificate is not verified. With an
     *  empty label, no colour and a verified (or no) TLS connection, no band is shown. */
    void setConnectionTag(const QString &label, const QColor &color);

signals:
    /** File > Connect… (Ctrl+O): the user wants another connection (ConnectionLauncher opens it). */
    void connectRequested();
    /** The server refused the login or wants a password (issue 15.1), said once per window:
     *  ConnectionLauncher asks for it and reopens the connection. `detail` is the cause. */
    void authenticationNeeded(const QString &detail);
    /** The first discovery finished and its locks are in the table. */
    void initialDataArrived();
    /** New data went into history() (at most once per batch). */
    void historyChanged();
    /** The connection state shown in the status bar changed (a tab host shows it on the tab). */
    void connectionModeChanged(lockscope::LockMonitor::Mode mode);

private:
    void buildUi();
    void buildActions();
    /** The history charts (TTL chart, timeline, contention) as bottom tabs. */
    void buildCharts();
    /** The Clients tab (ClientsView): labels go to setActorNames(), "show its locks" to the filter. */
    void buildClientsTab();
    void onLocksUpdated(const QVector<LockSnapshot> &changed, const QStringList &removed);
    void applyToTable(const QVector<LockSnapshot> &changed, const QStringList &removed);
    void flushTableBuffer();
    void onEvents(const QVector<LockEvent> &events);
    void onModeChanged(LockMonitor::Mode mode, const QString &detail);
    void onProgress(qint64 scanned, qint64 found, bool finished, qint64 approxTotalKeys);
    void onActionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                          const QString &outcome);
    void updateActions();
    void updateDetail();
    void updateCount();
    void acquire();
    void renew();
    void release();
    void forceUnlock();
    void onFindings(const QVector<LockFinding> &findings);
    void onClusterNodes(const QVector<ClusterNodeStatus> &nodes);
    void updateClusterLockCounts();
    /** Replay: the doctor's rules over the replayed table, on the replay clock. */
    void diagnoseReplay();
    void setTtlRepair();
    void removeWaiterRepair();
    void removeReaderRepair();
    void wakeRepair(const QString &name);
    /** Asks the operator to confirm a repair; true when confirmed. */
    /** False (after saying why in a message box) when the audit log cannot take a record. */
    bool auditLogWritable();
    bool confirmRepair(const QString &title, const QString &text);
    qint64 ownThreadOfSelected() const;

    LockSession::Options m_options;
    QThread *m_ioThread = nullptr;
    LockSession *m_session = nullptr;
    QString m_clientId;
    LockTableModel *m_lockModel = nullptr;
    LockFilterProxy *m_proxy = nullptr;
    EventLogModel *m_eventModel = nullptr;
    FindingModel *m_findingModel = nullptr;
    QTableView *m_findingView = nullptr;
    QTabWidget *m_bottomTabs = nullptr;
    QTableView *m_lockView = nullptr;
    QTableView *m_eventView = nullptr;
    LockDetailPanel *m_detail = nullptr;
    TtlBarDelegate *m_ttlDelegate = nullptr;
    ClusterTopologyPanel *m_clusterPanel = nullptr; ///< Redis Cluster mode only
    QLabel *m_mastersLabel = nullptr;
    RedLockDialog *m_redLockDialog = nullptr;
    bool m_clusterCountsPending = false;
    std::unique_ptr<LockDoctor> m_replayDoctor; ///< replay only: findings from the replayed snapshots
    QLineEdit *m_filter = nullptr;
    QLabel *m_modeLabel = nullptr;
    QLabel *m_serverLabel = nullptr;
    QLabel *m_connectionBand = nullptr;
    QLabel *m_countLabel = nullptr;
    QProgressBar *m_progress = nullptr;
    bool m_userScan = false; ///< a Refresh asked for the scan under way: show its progress
    QPushButton *m_cancelScan = nullptr;
    QPushButton *m_enableNotifications = nullptr;
    QAction *m_refreshAction = nullptr;
    QAction *m_acquireAction = nullptr;
    QAction *m_renewAction = nullptr;
    QAction *m_releaseAction = nullptr;
    QAction *m_forceUnlockAction = nullptr;
    QAction *m_enableNotificationsAction = nullptr;
    QTimer m_animation;
    LockMonitor::Mode m_mode = LockMonitor::Mode::Connecting;
    ConnectionBanner *m_banner = nullptr;
    qint64 m_lastDataMs = 0; ///< epoch ms of the last lock data that arrived (the banner's "as of")
    HistoryStore m_history;
    std::unique_ptr<SessionRecorder> m_recorder;
    ReplayPlayer *m_player = nullptr;
    TtlChart *m_ttlChart = nullptr;
    TimelineWidget *m_timeline = nullptr;
    ContentionView *m_contention = nullptr;
    ClientsView *m_clients = nullptr;
    ActionOutcome m_outcome; ///< the sentence said after a write action
    bool m_initialData = false;
    bool m_authenticationAsked = false; ///< authenticationNeeded() was emitted
    QTimer m_priorityTimer;
    /** Big tables take lock changes merged, at most every kTableFlushMs (issue 12). */
    LockBatchBuffer m_tableBuffer;
    QTimer m_tableFlush;
    QStringList m_priorityNames;
};

} // namespace lockscope
