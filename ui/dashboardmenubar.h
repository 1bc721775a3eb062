#pragma once

#include <QMenuBar>

namespace lockscope
{

class ServerView;

/**
 * The dashboard's menus for one ServerView: File (Connect…, Quit), View (Refresh, Filter, Enable
 * keyspace notifications, RedLock view…), Lock (the writes, Force unlock… last; not in read-only
 * mode) and Help (Keyboard shortcuts, About). The window's menu bar in MainWindow; inside each
 * tab of ServerTabsWindow. Quit closes the window it is in; Keyboard shortcuts lists the actions
 * of its parent widget. GUI thread.
 */
class DashboardMenuBar : public QMenuBar
{
    Q_OBJECT
public:
    /** `view`'s actions (LockActions) fill the menus; `parent` is the window or the view. */
    DashboardMenuBar(ServerView *view, QWidget *parent);

    /** Help > About LockScope over `window` (the workshop window shows the same). */
    static void showAbout(QWidget *window, const QString &clientId);

signals:
    /** File > Connect… (Ctrl+O). */
    void connectRequested();
    /** View > RedLock view… (Ctrl+Shift+R). */
    void redLockViewRequested();
};

} // namespace lockscope
