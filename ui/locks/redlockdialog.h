#pragma once

#include "redlock/redlockstatus.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTimer;

namespace lockscope
{

class RedLockSession;

/**
 * The RedLock / MultiLock view (protocol §5.3, §5.4): for one lock name on N independent Redis
 * servers, each server's holder, hold count and TTL (counting down), and the verdict: whether a
 * quorum of N/2 + 1 servers agrees on one holder, which one, and for how long that holds. It
 * reads only (a read-only RedLockSession: one atomic read-only script per server, every second,
 * asynchronous, so the GUI never waits on a server); a stopped server shows as unreachable with
 * the reason. Acquiring a RedLock is `lockscope-cli redlock acquire` (audited).
 */
class RedLockDialog : public QDialog
{
    Q_OBJECT
public:
    explicit RedLockDialog(QWidget *parent = nullptr);
    ~RedLockDialog() override;

    /** Fills the form (comma-separated redis:// URLs, lock name) and starts watching. False with a
     *  message in the dialog when a URL is malformed or named twice. */
    bool watch(const QString &servers, const QString &name);
    /** The last verdict shown (serverCount() == 0 before the first read). */
    const RedLockStatus &status() const { return m_status; }

signals:
    void statusShown();

private:
    void start();
    void stop();
    void showStatus(const RedLockStatus &status);
    void tick();

    QLineEdit *m_servers = nullptr;
    QLineEdit *m_name = nullptr;
    QPushButton *m_watch = nullptr;
    QLabel *m_verdict = nullptr;
    QTableWidget *m_table = nullptr;
    RedLockSession *m_session = nullptr; ///< read-only: the dialog never writes
    QTimer *m_refresh = nullptr;
    QTimer *m_countdown = nullptr;
    RedLockStatus m_status;
};

} // namespace lockscope
