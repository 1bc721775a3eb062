#pragma once

#include "observe/lockevent.h"
#include "observe/lockmonitor.h"
#include "observe/locksession.h"
#include "observe/locksnapshot.h"

#include <QMainWindow>
#include <QTimer>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QThread;

namespace lockscope {

class EventLogModel;
class LockDetailPanel;
class LockTableModel;

/**
 * The dashboard. Owns the `redis-io` thread and the LockSession living on it; talks to it only
 * through queued calls and its signals, so the GUI thread never waits on Redis.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(const LockSession::Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    /** Starts the session (connect, discover, watch). */
    void start();

    QThread *ioThread() const { return m_ioThread; }
    LockTableModel *lockModel() const { return m_lockModel; }
    EventLogModel *eventModel() const { return m_eventModel; }
    QTableView *lockView() const { return m_lockView; }
    LockDetailPanel *detailPanel() const { return m_detail; }
    /** Selects the row of `name` (if shown). */
    void selectLock(const QString &name);
    QString selectedLockName() const;
    LockMonitor::Mode mode() const { return m_mode; }
    bool hasInitialData() const { return m_initialData; }

signals:
    /** The first discovery finished and its locks are in the table. */
    void initialDataArrived();

private:
    void buildUi();
    void buildActions();
    void onLocksUpdated(const QVector<LockSnapshot> &changed, const QStringList &removed);
    void onEvents(const QVector<LockEvent> &events);
    void onModeChanged(LockMonitor::Mode mode, const QString &detail);
    void onProgress(qint64 scanned, qint64 found, bool finished);
    void onActionFinished(const QString &action, const QString &lock, bool ok, const QString &message);
    void updateActions();
    void updateDetail();
    void updateCount();
    void acquire();
    void renew();
    void release();
    void forceUnlock();
    qint64 ownThreadOfSelected() const;

    LockSession::Options m_options;
    QThread *m_ioThread = nullptr;
    LockSession *m_session = nullptr;
    QString m_clientId;
    LockTableModel *m_lockModel = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    EventLogModel *m_eventModel = nullptr;
    QTableView *m_lockView = nullptr;
    QTableView *m_eventView = nullptr;
    LockDetailPanel *m_detail = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_modeLabel = nullptr;
    QLabel *m_serverLabel = nullptr;
    QLabel *m_countLabel = nullptr;
    QProgressBar *m_progress = nullptr;
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
    bool m_initialData = false;
};

} // namespace lockscope
