#pragma once

#include "act/writepermissions.h"
#include "locks/actionoutcome.h"
#include "session/locksession.h"

#include <QObject>

class QAction;
class QPoint;
class QToolBar;
class QWidget;

namespace lockscope
{

class ServerView;
class SessionController;

/**
 * What the operator can do to the locks of one server (ServerView): the actions (Refresh,
 * Filter, Acquire…, Renew, Release, Force unlock…, Enable keyspace notifications) with their
 * shortcuts and enabled state, the context menus of the lock table and of the Problems tab, the
 * confirmations (force unlock, repairs, enabling notifications server-wide, an audit log that
 * cannot be written) and the repair dialogs. Every write goes to the SessionController; the
 * sentence said afterwards (ActionOutcome) goes to the view's status bar. Read-only mode hides
 * the writes; a replay hides and disables every action. GUI thread; child of its view.
 */
class LockActions : public QObject
{
    Q_OBJECT
public:
    /** `view` must have built its widgets (table, Problems tab, status bar); it parents the
     *  dialogs. Only `options.readOnly`, `forcePolling` and the endpoint's address are used. */
    LockActions(ServerView *view, SessionController *session, const LockSession::Options &options);

    QAction *refreshAction() const { return m_refresh; }
    QAction *findAction() const { return m_find; }
    QAction *acquireAction() const { return m_acquire; }
    QAction *renewAction() const { return m_renew; }
    QAction *releaseAction() const { return m_release; }
    QAction *forceUnlockAction() const { return m_forceUnlock; }
    QAction *enableNotificationsAction() const { return m_enableNotifications; }

    /** Harmless actions on the left of `bar` (Refresh, `filter`), the writes after them, and Force
     *  unlock alone on the far right, never next to Refresh. */
    void fillToolBar(QToolBar *bar, QWidget *filter);
    /** Replay: writes nothing, reads nothing; every action off and hidden for good. */
    void setReplay();
    /** Enabled states from the selection and the connection (writes wait for a server that answers). */
    void updateActions();
    /** The sentence said after the last action on `lock` (ActionOutcome::lastSentence). */
    QString lastSentence(const QString &lock) const { return m_outcome.lastSentence(lock); }
    void setActorNames(const ActorNames &names) { m_outcome.setActorNames(names); }

signals:
    /** Refresh was asked for: the scan that follows is one someone waits for (progress shown). */
    void refreshRequested();

private:
    void showLockMenu(const QPoint &pos);
    void showFindingMenu(const QPoint &pos);
    void onActionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                          const QString &outcome);
    void onNotificationsChecked(bool enabled);
    void confirmEnableNotifications();
    void acquire();
    void renew();
    void release();
    void forceUnlock();
    void setTtlRepair();
    void removeWaiterRepair();
    void removeReaderRepair();
    void wakeRepair(const QString &name);
    /** False (after saying why in a message box) when the audit log cannot take a record. */
    bool auditLogWritable();
    /** Asks the operator to confirm a repair; true when confirmed. */
    bool confirmRepair(const QString &title, const QString &text);
    /** The ACL user's write permissions arrived: actions it cannot perform go off, saying why. */
    void onWritesChecked(const QString &user, const QStringList &refused);
    /** Enables `a` when `enabled` and the ACL user may perform `action`; the tooltip says why not. */
    void enableWrite(QAction *a, const QString &action, bool enabled, const QString &tip = {});
    /** LockScope's own thread holding the selected lock, or -1. */
    qint64 ownThreadOfSelected() const;

    ServerView *m_view;
    SessionController *m_session;
    LockSession::Options m_options;
    ActionOutcome m_outcome; ///< the sentence said after a write action
    bool m_replay = false;
    WritePermissions m_writes;     ///< what the ACL user may write (unknown until the probe answered)
    bool m_notificationsOn = true; ///< as last checked (the offer to enable them depends on it)
    QAction *m_refresh = nullptr;
    QAction *m_find = nullptr;
    QAction *m_acquire = nullptr;
    QAction *m_renew = nullptr;
    QAction *m_release = nullptr;
    QAction *m_forceUnlock = nullptr;
    QAction *m_enableNotifications = nullptr;
};

} // namespace lockscope
