#pragma once

#include "locks/serverview.h"

#include <QColor>
#include <QMainWindow>

class QLabel;

namespace lockscope
{

class ClientsView;
class ClusterTopologyPanel;
class ContentionView;
class RedLockDialog;
class TimelineWidget;
class TtlChart;

/**
 * The dashboard window: one ServerView (table, detail, bottom tabs; its toolbar and status bar go
 * into this window's frame) with its menus (DashboardMenuBar), the coloured
 * connection band, the replay controls (ReplayBar) and the remembered layout. The view owns the
 * `redis-io` thread (SessionController) and the actions (LockActions); the accessors below are
 * the view's, for the application and the tests.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(const LockSession::Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    /** Starts the session (connect, discover, watch). */
    void start() { m_view->start(); }
    /** Also writes everything seen to a recording (SessionRecorder); false with `*error`. */
    bool startRecording(const QString &path, QString *error) { return m_view->startRecording(path, error); }
    /** Replay mode: shows `player`'s recording instead of a live server (no session is started,
     *  every write action is disabled) with play/pause, speed and a scrub bar. */
    void attachReplay(ReplayPlayer *player);
    bool isReplay() const { return m_view->isReplay(); }

    ServerView *serverView() const { return m_view; }
    QThread *ioThread() const { return m_view->ioThread(); }
    /** The options this window was opened with (its endpoint carries the password, if any). */
    const LockSession::Options &options() const { return m_view->options(); }
    /** Remembers geometry, splitters and column widths in QSettings under `key` (restored now,
     *  saved on close; WindowStateKeeper). The application calls it; tests leave it off. */
    void rememberLayout(const QString &key = QStringLiteral("dashboard"));
    /** Ends the session (its redis-io thread stops; nothing is retried any more), for a window
     *  replaced by another one, e.g. reopened with a password. */
    void stopSession() { m_view->stopSession(); }
    LockTableModel *lockModel() const { return m_view->lockModel(); }
    /** The Cluster tab, nullptr until LockScope finds it is watching a Redis Cluster. */
    ClusterTopologyPanel *clusterPanel() const;
    /** View > RedLock view…: the (single, non-modal) RedLock / MultiLock view, shown. */
    RedLockDialog *openRedLockView();
    EventLogModel *eventModel() const { return m_view->eventModel(); }
    FindingModel *findingModel() const { return m_view->findingModel(); }
    /** Everything seen since the window opened (bounded), on the GUI thread, for the charts. */
    const HistoryStore &history() const { return m_view->history(); }
    void setHistoryRetention(const HistoryStore::Retention &retention) { m_view->setHistoryRetention(retention); }
    QTableView *lockView() const { return m_view->lockView(); }
    LockDetailPanel *detailPanel() const { return m_view->detailPanel(); }
    /** Brings the problems pane (doctor findings) to the front. */
    void showProblems();
    /** Brings the bottom tab whose title starts with `name` (case-insensitive: "event", "problems",
     *  "ttl", "timeline", "contention") to the front; false when there is none. */
    bool showBottomTab(const QString &name);
    TtlChart *ttlChart() const;
    TimelineWidget *timeline() const;
    ContentionView *contentionView() const;
    /** The Clients tab: what each Redisson client holds and waits for. */
    ClientsView *clientsView() const;
    /** Workshop mode, so a room follows actors rather than UUIDs: every lock view names these clients ("A", client id
     * in a tooltip): table, detail, event log, timeline, TTL chart. */
    void setActorNames(const ActorNames &names) { m_view->setActorNames(names); }
    /** Selects the row of `name` (if shown). */
    void selectLock(const QString &name) { m_view->selectLock(name); }
    QString selectedLockName() const { return m_view->selectedLockName(); }
    /** The locks on screen and the selected one, to LockSession::setPriorityLocks (polling reads them every tick). */
    void sendPriorityLocks() { m_view->sendPriorityLocks(); }
    WatchMode mode() const { return m_view->mode(); }
    /** The connection band over the table, so an empty or stale table is never read as live;
     *  hidden while live. */
    ConnectionBanner *connectionBanner() const { return m_view->connectionBanner(); }
    bool hasInitialData() const { return m_view->hasInitialData(); }
    /** Shows a coloured band with `label` above the toolbar, so this connection is recognised at a
     *  glance (e.g. red for production), and says when the TLS certificate is not verified. With an
     *  empty label, no colour and a verified (or no) TLS connection, no band is shown. */
    void setConnectionTag(const QString &label, const QColor &color);

signals:
    /** File > Connect… (Ctrl+O): the user wants another connection (ConnectionLauncher opens it). */
    void connectRequested();
    /** The server refused the login or wants a password, said once per window (retrying would
     *  never succeed):
     *  ConnectionLauncher asks for it and reopens the connection. `detail` is the cause. */
    void authenticationNeeded(const QString &detail);
    /** The first discovery finished and its locks are in the table. */
    void initialDataArrived();

private:
    ServerView *m_view = nullptr;
    QLabel *m_connectionBand = nullptr;
    RedLockDialog *m_redLockDialog = nullptr;
};

} // namespace lockscope
