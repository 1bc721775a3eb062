#pragma once

#include "session/locksession.h"

#include <QMainWindow>

class QTabWidget;

namespace lockscope
{

class RedLockDialog;
class ServerView;

/**
 * Several Redis servers side by side: one tab per connection, each a full dashboard (ServerView:
 * its own session and redis-io thread, toolbar, table, charts, actions, status bar), so independent servers, a
 * staging and a production server, or the N masters of a RedLock can be watched in one window.
 * The tab shows the server and its state (● connecting / live / polling / disconnected in
 * colour); Ctrl+Tab / Ctrl+Shift+Tab switch, Ctrl+W closes a tab (and its connections).
 * `lockscope --url A --url B ...` opens it.
 */
class ServerTabsWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit ServerTabsWindow(QWidget *parent = nullptr);

    /** Adds a tab watching `options.endpoint` and starts it; `label` names the tab (default: the
     *  server address). */
    ServerView *addServer(const LockSession::Options &options, const QString &label = QString());
    int count() const;
    ServerView *server(int index) const;

private:
    void updateTab(ServerView *window, WatchMode mode);

    QTabWidget *m_tabs = nullptr;
    RedLockDialog *m_redLock = nullptr; ///< View > RedLock view… of any tab
};

} // namespace lockscope
