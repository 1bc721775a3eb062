#include "dashboardmenubar.h"

#include "common/shortcutsdialog.h"
#include "common/uitheme.h"
#include "locks/lockactions.h"
#include "locks/serverview.h"
#include "locks/sessioncontroller.h"

#include <QAction>
#include <QApplication>
#include <QKeySequence>
#include <QMenu>
#include <QMessageBox>

namespace lockscope
{

DashboardMenuBar::DashboardMenuBar(ServerView *view, QWidget *parent) : QMenuBar(parent)
{
    const LockActions *actions = view->lockActions();
    QMenu *file = addMenu(tr("&File"));
    QAction *connectAction = file->addAction(tr("&Connect…"), this, &DashboardMenuBar::connectRequested);
    connectAction->setShortcut(QKeySequence::Open);
    connectAction->setToolTip(tr("Open another connection (saved profiles, recent connections) in a new window"));
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, [this] { window()->close(); });
    quit->setShortcut(QKeySequence::Quit);
    QMenu *viewMenu = addMenu(tr("&View"));
    viewMenu->addAction(actions->refreshAction());
    viewMenu->addAction(actions->findAction());
    viewMenu->addAction(actions->enableNotificationsAction());
    viewMenu->addSeparator();
    UiTheme::addMenuActions(viewMenu->addMenu(tr("&Theme")));
    viewMenu->addSeparator();
    QAction *redlock = viewMenu->addAction(tr("&RedLock view…"), this, &DashboardMenuBar::redLockViewRequested);
    redlock->setShortcut(QKeySequence(tr("Ctrl+Shift+R")));
    redlock->setToolTip(tr("One lock name on several independent servers: each server's holder and TTL, and "
                           "whether a quorum (N/2 + 1) agrees"));
    if (!view->options().readOnly) {
        QMenu *lock = addMenu(tr("&Lock"));
        lock->addAction(actions->acquireAction());
        lock->addAction(actions->renewAction());
        lock->addAction(actions->releaseAction());
        lock->addSeparator();
        lock->addAction(actions->forceUnlockAction());
    }
    QMenu *help = addMenu(tr("&Help"));
    QAction *keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        ShortcutsDialog dialog(ShortcutsDialog::actionsWithShortcuts(parentWidget()), window());
        dialog.exec();
    });
    keys->setShortcut(QKeySequence::HelpContents);
    keys->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    const QString clientId = view->session()->clientId();
    help->addAction(tr("&About LockScope"), this, [this, clientId] { showAbout(window(), clientId); });
}

void DashboardMenuBar::showAbout(QWidget *window, const QString &clientId)
{
    QMessageBox::about(window, tr("About LockScope"),
                       tr("<b>LockScope %1</b><br>See and act on Redisson distributed locks in Redis.<br>"
                          "Your client id in this session: <code>%2</code><br>GPL-3.0-or-later.")
                           .arg(QApplication::applicationVersion(), clientId));
}

} // namespace lockscope
