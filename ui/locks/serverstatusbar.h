#pragma once

#include "protocol/watchmode.h"

#include <QStatusBar>

class QLabel;
class QProgressBar;
class QPushButton;

namespace lockscope
{

/**
 * The status line of one server's dashboard (ServerView): connection state (● live / polling /
 * disconnected in colour, or replay), the server address (never credentials), the lock count,
 * the live masters of a Redis Cluster, the offer to enable keyspace notifications, the scan
 * progress with its Stop button (Esc), and READ-ONLY. Shows; decides nothing. GUI thread.
 */
class ServerStatusBar : public QStatusBar
{
    Q_OBJECT
public:
    /** `address`: host:port shown; `readOnly`: adds the READ-ONLY badge. */
    ServerStatusBar(const QString &address, bool readOnly, QWidget *parent = nullptr);

    /** The state dot and its tooltip; a polling or disconnected state also said for 15 s. */
    void showMode(WatchMode mode, const QString &detail);
    /** Replay instead of a connection: a purple dot and the recorded server. */
    void showReplay(const QString &server);
    /** "N lock(s)", or "S of N locks match "filter"" when a filter hides some. */
    void showCount(int shown, int total, const QString &filter);
    /** The lock count cannot be known (`why`, e.g. reads refused): never "0 locks". */
    void showCountUnknown(const QString &why);
    /** Redis Cluster: "L of N masters live" (shown from the first call on). */
    void showMasters(int live, int total);
    /** A scan someone waits for: `visible` shows the bar and Stop scan. `approxTotalKeys` <= 0 =
     *  unknown total (a busy bar with the counts). */
    void showProgress(bool visible, qint64 scanned, qint64 found, qint64 approxTotalKeys);
    /** The "Enable keyspace notifications" button (shown by setNotificationsOffered()). */
    QPushButton *enableNotificationsButton() const { return m_enableNotifications; }
    void setNotificationsOffered(bool offered);

signals:
    /** Stop scan (or Esc) was pressed. */
    void cancelScanRequested();

private:
    QLabel *m_modeLabel = nullptr;
    QLabel *m_serverLabel = nullptr;
    QLabel *m_countLabel = nullptr;
    QLabel *m_mastersLabel = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancelScan = nullptr;
    QPushButton *m_enableNotifications = nullptr;
};

} // namespace lockscope
