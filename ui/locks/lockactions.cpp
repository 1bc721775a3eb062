#include "locks/lockactions.h"

#include "locks/acquiredialog.h"
#include "locks/findingmodel.h"
#include "locks/forceunlockdialog.h"
#include "locks/locktablemodel.h"
#include "locks/serverstatusbar.h"
#include "locks/serverview.h"
#include "locks/sessioncontroller.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QInputDialog>
#include <QJsonDocument>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QStyle>
#include <QTableView>
#include <QToolBar>

namespace lockscope
{

LockActions::LockActions(ServerView *view, SessionController *session, const LockSession::Options &options)
    : QObject(view), m_view(view), m_session(session), m_options(options)
{
    QStyle *style = view->style();
    m_refresh = new QAction(style->standardIcon(QStyle::SP_BrowserReload), tr("&Refresh"), this);
    m_refresh->setShortcut(QKeySequence::Refresh);
    m_refresh->setToolTip(tr("Scan for locks again (F5)"));
    connect(m_refresh, &QAction::triggered, this, [this] {
        emit refreshRequested();
        m_session->refresh();
    });

    m_acquire = new QAction(style->standardIcon(QStyle::SP_DialogApplyButton), tr("&Acquire…"), this);
    m_acquire->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_N));
    m_acquire->setToolTip(tr("Take a lock as LockScope's own Redisson client (Ctrl+N)"));
    connect(m_acquire, &QAction::triggered, this, &LockActions::acquire);
    m_renew = new QAction(tr("Re&new"), this);
    m_renew->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_renew->setToolTip(tr("Reset the TTL of a lock LockScope holds (Ctrl+R)"));
    connect(m_renew, &QAction::triggered, this, &LockActions::renew);
    m_release = new QAction(tr("Re&lease"), this);
    m_release->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_release->setToolTip(tr("Unlock once a lock LockScope holds; waiters are told on full release (Ctrl+L)"));
    connect(m_release, &QAction::triggered, this, &LockActions::release);
    m_forceUnlock = new QAction(style->standardIcon(QStyle::SP_MessageBoxCritical), tr("&Force unlock…"), this);
    m_forceUnlock->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Delete));
    m_forceUnlock->setToolTip(tr("Delete any lock and wake its waiters, after a confirmation (Ctrl+Shift+Del)"));
    connect(m_forceUnlock, &QAction::triggered, this, &LockActions::forceUnlock);
    m_enableNotifications = new QAction(tr("Enable keyspace &notifications"), this);
    m_enableNotifications->setEnabled(false);
    connect(m_enableNotifications, &QAction::triggered, this, &LockActions::confirmEnableNotifications);
    connect(view->statusBar()->enableNotificationsButton(), &QPushButton::clicked, this,
            &LockActions::confirmEnableNotifications);
    m_find = new QAction(tr("&Filter"), this);
    m_find->setShortcut(QKeySequence::Find);
    view->addAction(m_find);

    for (QAction *a : {m_acquire, m_renew, m_release, m_forceUnlock, m_enableNotifications})
        a->setVisible(!m_options.readOnly);

    view->lockView()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view->lockView(), &QWidget::customContextMenuRequested, this, &LockActions::showLockMenu);
    connect(view->findingView(), &QWidget::customContextMenuRequested, this, &LockActions::showFindingMenu);
    connect(session, &SessionController::actionFinished, this, &LockActions::onActionFinished);
    connect(session, &SessionController::notificationsChecked, this,
            [this](bool enabled, const QString &) { onNotificationsChecked(enabled); });
    connect(session, &SessionController::writesChecked, this, &LockActions::onWritesChecked);
}

void LockActions::onWritesChecked(const QString &user, const QStringList &refused)
{
    m_writes = WritePermissions(user, refused);
    updateActions();
    onNotificationsChecked(m_notificationsOn);
    if (!m_replay && !refused.isEmpty() && !m_writes.allows(QStringLiteral("force_unlock")))
        m_view->statusBar()->showMessage(
            tr("The ACL user '%1' may read but not write (no %2): the write actions are off; their tooltips say "
               "what to grant")
                .arg(user, refused.first().toUpper()),
            30000);
}

void LockActions::enableWrite(QAction *a, const QString &action, bool enabled, const QString &tip)
{
    // The action's own tooltip comes back once the user may write again (a reconnection).
    if (!a->property("lockscopeToolTip").isValid())
        a->setProperty("lockscopeToolTip", a->toolTip());
    const QString why = m_writes.whyNot(action);
    a->setEnabled(enabled && why.isEmpty());
    a->setStatusTip(why.isEmpty() ? tip : why);
    a->setToolTip(why.isEmpty() ? a->property("lockscopeToolTip").toString() : why);
}

void LockActions::fillToolBar(QToolBar *bar, QWidget *filter)
{
    bar->addAction(m_refresh);
    bar->addWidget(filter);
    if (m_options.readOnly)
        return;
    bar->addSeparator();
    bar->addAction(m_acquire);
    bar->addAction(m_renew);
    bar->addAction(m_release);
    auto *spacer = new QWidget(bar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    bar->addWidget(spacer);
    bar->addAction(m_forceUnlock);
}

void LockActions::setReplay()
{
    m_replay = true;
    for (QAction *a : {m_acquire, m_renew, m_release, m_forceUnlock, m_enableNotifications, m_refresh}) {
        a->setEnabled(false);
        a->setVisible(false);
    }
    m_view->statusBar()->setNotificationsOffered(false);
}

void LockActions::onNotificationsChecked(bool enabled)
{
    m_notificationsOn = enabled;
    // Not offered to a user who may not run CONFIG SET: the click would only be refused.
    const bool offer = !enabled && !m_options.readOnly && !m_options.forcePolling &&
                       m_writes.allows(QStringLiteral("enable_notifications"));
    m_view->statusBar()->setNotificationsOffered(offer);
    m_enableNotifications->setEnabled(offer);
    m_enableNotifications->setStatusTip(m_writes.whyNot(QStringLiteral("enable_notifications")));
}

void LockActions::confirmEnableNotifications()
{
    // A server-wide setting, for every client of this Redis: asked, then audited, never changed
    // in one click.
    QMessageBox box(QMessageBox::Question, tr("Enable keyspace notifications"),
                    tr("Turn on keyspace notifications on %1?").arg(m_options.endpoint.address()),
                    QMessageBox::NoButton, m_view);
    box.setObjectName(QStringLiteral("enableNotificationsConfirm"));
    box.setInformativeText(
        tr("LockScope runs CONFIG SET notify-keyspace-events with K, g, h and x added. This changes the "
           "configuration of the whole server, for every client: each write to a hash, each expiry and each "
           "generic command (DEL, EXPIRE…) then also publishes an event, which costs Redis some CPU on busy "
           "servers. It is not saved to redis.conf: a restart undoes it. The change is recorded in the audit "
           "log."));
    QPushButton *enable = box.addButton(tr("Enable"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    if (box.clickedButton() != enable)
        return;
    m_session->enableNotifications();
}

void LockActions::showFindingMenu(const QPoint &pos)
{
    QTableView *findings = m_view->findingView();
    const QModelIndex idx = findings->indexAt(pos);
    if (!idx.isValid())
        return;
    const LockFinding f = idx.data(FindingModel::FindingRole).value<LockFinding>();
    QMenu menu(m_view);
    menu.addAction(tr("Select %1").arg(f.lock), this, [this, f] { m_view->selectLock(f.lock); });
    menu.addAction(tr("Copy as JSON"), this, [f] {
        QApplication::clipboard()->setText(
            QString::fromUtf8(QJsonDocument(f.toJson()).toJson(QJsonDocument::Indented)));
    });
    if (!m_options.readOnly && f.code == QLatin1String("waiters_without_holder") &&
        !m_view->lockModel()->snapshot(f.lock)) {
        QAction *wake = menu.addAction(tr("Wake the waiting clients…"), this, [this, f] { wakeRepair(f.lock); });
        enableWrite(wake, QStringLiteral("wake"), true);
        menu.setToolTipsVisible(true);
    }
    menu.exec(findings->viewport()->mapToGlobal(pos));
}

void LockActions::showLockMenu(const QPoint &pos)
{
    QMenu menu(m_view);
    const QString name = m_view->selectedLockName();
    if (!name.isEmpty())
        menu.addAction(tr("Copy lock name"), this, [name] { QApplication::clipboard()->setText(name); });
    if (!m_options.readOnly) {
        menu.addAction(m_acquire);
        menu.addAction(m_renew);
        menu.addAction(m_release);
        const LockSnapshot *s = m_view->lockModel()->snapshot(name);
        if (s) {
            QMenu *repair = menu.addMenu(tr("Repair"));
            QAction *ttl = repair->addAction(tr("Set a TTL…"), this, &LockActions::setTtlRepair);
            ttl->setToolTip(tr("Lets the holder finish, but a dead holder no longer blocks the lock forever"));
            enableWrite(ttl, QStringLiteral("set_ttl"), s->exists && s->pttlMs == -1);
            QAction *waiter = repair->addAction(tr("Remove a waiter…"), this, &LockActions::removeWaiterRepair);
            enableWrite(waiter, QStringLiteral("remove_waiter"), !s->waiters.isEmpty() || !s->timeoutSet.isEmpty());
            QAction *reader = repair->addAction(tr("Remove a dead reader…"), this, &LockActions::removeReaderRepair);
            enableWrite(reader, QStringLiteral("remove_reader"), s->kind == LockKind::ReadWriteLock);
            repair->setToolTipsVisible(true);
        }
        menu.addSeparator();
        menu.addAction(m_forceUnlock);
    }
    menu.exec(m_view->lockView()->viewport()->mapToGlobal(pos));
}

qint64 LockActions::ownThreadOfSelected() const
{
    const LockSnapshot *s = m_view->lockModel()->snapshot(m_view->selectedLockName());
    if (!s)
        return -1;
    for (const auto &h : s->holders) {
        if (h.clientId == m_session->clientId())
            return h.threadId.toLongLong();
    }
    return -1;
}

void LockActions::updateActions()
{
    if (m_replay)
        return; // a replay writes nothing: its actions stay off
    const QString name = m_view->selectedLockName();
    // Writes need a server that answers: offered after it died, they could only fail or act on
    // stale rows.
    const WatchMode mode = m_view->mode();
    const bool connected = mode == WatchMode::Live || mode == WatchMode::Polling;
    const bool own = ownThreadOfSelected() >= 0;
    const QString offline =
        connected ? QString() : tr("Not connected: LockScope writes to Redis only while it can reach it");
    // An action the ACL user cannot perform is off before any confirmation, its tooltip saying
    // which command to grant (WritePermissions).
    enableWrite(m_renew, QStringLiteral("renew"), connected && own,
                own ? offline : tr("Only locks LockScope itself holds can be renewed"));
    enableWrite(m_release, QStringLiteral("release"), connected && own, offline);
    enableWrite(m_forceUnlock, QStringLiteral("force_unlock"), connected && !name.isEmpty(), offline);
    enableWrite(m_acquire, QStringLiteral("acquire"), connected, offline);
}

void LockActions::onActionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                                   const QString &outcome)
{
    // What happened, to whom, in the operator's terms: "orders:42 was force-unlocked (…); 1 waiter woken".
    const QString said = m_outcome.sentence(action, lock, ok, outcome, message);
    m_view->statusBar()->showMessage((ok ? QStringLiteral("✔ ") : QStringLiteral("✖ ")) + said, 30000);
    if (!ok && action == QLatin1String("force_unlock"))
        QMessageBox::warning(m_view, tr("Force unlock"), message);
}

bool LockActions::auditLogWritable()
{
    // Every write is recorded first (LockSession refuses it otherwise): say so before the operator
    // confirms anything. A file-system check only, no Redis.
    const QString problem = m_session->auditProblem();
    if (problem.isEmpty())
        return true;
    QMessageBox::critical(m_view, tr("Audit log not writable"),
                          tr("LockScope records every write in its audit log before it acts, and %1.\n\n"
                             "Nothing was sent to Redis. Make the file writable, or start LockScope with "
                             "--audit-log PATH.")
                              .arg(problem));
    return false;
}

bool LockActions::confirmRepair(const QString &title, const QString &text)
{
    if (!auditLogWritable())
        return false;
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Cancel, m_view);
    QPushButton *go = box.addButton(tr("Repair"), QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.setInformativeText(tr("Done only if the lock is still as shown; recorded in the audit log."));
    box.exec();
    return box.clickedButton() == go;
}

void LockActions::setTtlRepair()
{
    const LockSnapshot *s = m_view->lockModel()->snapshot(m_view->selectedLockName());
    if (!s)
        return;
    bool ok = false;
    const int ttl = QInputDialog::getInt(
        m_view, tr("Set a TTL"),
        tr("%1 has no TTL. Give it one of (ms); its holder can still renew or release it:").arg(s->name), 30000, 1000,
        24 * 3600 * 1000, 1000, &ok);
    if (!ok || !confirmRepair(tr("Set a TTL"),
                              tr("Set a TTL of %1 ms on %2 (held by %3)?").arg(ttl).arg(s->name, s->holderSummary())))
        return;
    m_session->setTtl(s->name, ttl, s->stateFingerprint());
}

void LockActions::removeWaiterRepair()
{
    const LockSnapshot *s = m_view->lockModel()->snapshot(m_view->selectedLockName());
    if (!s)
        return;
    QStringList fields;
    for (const auto &w : s->waiters)
        fields << w.field;
    for (const auto &t : s->timeoutSet)
        if (!fields.contains(t.first))
            fields << t.first;
    bool ok = false;
    const QString field = QInputDialog::getItem(
        m_view, tr("Remove a waiter"), tr("Waiter to remove from the queue and timeout set of %1:").arg(s->name),
        fields, 0, false, &ok);
    if (!ok || !confirmRepair(
                   tr("Remove a waiter"),
                   tr("Remove %1 from %2? Waiters behind it move up, as when a waiter gives up.").arg(field, s->name)))
        return;
    m_session->removeWaiter(s->name, field);
}

void LockActions::removeReaderRepair()
{
    const LockSnapshot *s = m_view->lockModel()->snapshot(m_view->selectedLockName());
    if (!s)
        return;
    QStringList dead;
    for (const auto &h : s->holders)
        if (h.mode == QLatin1String("read") && h.holdTtlsMs.contains(-2))
            dead << h.field;
    if (dead.isEmpty()) {
        QMessageBox::information(m_view, tr("Remove a dead reader"),
                                 tr("%1 has no reader whose rwlock_timeout keys are gone.").arg(s->name));
        return;
    }
    bool ok = false;
    const QString field = QInputDialog::getItem(m_view, tr("Remove a dead reader"),
                                                tr("Dead reader of %1:").arg(s->name), dead, 0, false, &ok);
    if (!ok ||
        !confirmRepair(tr("Remove a dead reader"), tr("Remove the read holds of %1 from %2?").arg(field, s->name)))
        return;
    m_session->removeReader(s->name, field);
}

void LockActions::wakeRepair(const QString &name)
{
    if (!confirmRepair(tr("Wake waiters"),
                       tr("Publish the unlock message of %1 so the clients waiting for it retry?").arg(name)))
        return;
    m_session->wake(name);
}

void LockActions::acquire()
{
    if (!auditLogWritable())
        return;
    // The dialog offers the kinds the dashboard's data allows; the session checks again on a
    // fresh read just before it writes (and refuses if the lock changed kind meanwhile).
    AcquireDialog dialog(
        m_view->selectedLockName(),
        [this](const QString &name) -> std::optional<LockSnapshot> {
            const LockSnapshot *s = m_view->lockModel()->snapshot(name);
            return s ? std::optional<LockSnapshot>(*s) : std::nullopt;
        },
        m_view);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_session->acquire(dialog.lockName(), dialog.threadId(), dialog.leaseMs(), dialog.waitMs(), dialog.kind());
}

void LockActions::renew()
{
    const qint64 thread = ownThreadOfSelected();
    if (thread >= 0)
        m_session->renew(m_view->selectedLockName(), thread);
}

void LockActions::release()
{
    const qint64 thread = ownThreadOfSelected();
    if (thread >= 0)
        m_session->release(m_view->selectedLockName(), thread);
}

void LockActions::forceUnlock()
{
    const LockSnapshot *s = m_view->lockModel()->snapshot(m_view->selectedLockName());
    if (!s || !auditLogWritable())
        return;
    ForceUnlockDialog dialog(*s, m_view, [this](const QString &id) { return m_session->clientIdentity(id); });
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_outcome.expect(QStringLiteral("force_unlock"), *s);
    m_session->forceUnlock(s->name, s->stateFingerprint()); // what the operator saw and confirmed
}

} // namespace lockscope
