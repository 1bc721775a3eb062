#pragma once

#include "watch/lockmonitor.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace lockscope
{

/**
 * The band over the lock table that says what the table is (issue 15.1: a wrong port showed an
 * empty table that read as "no locks", and rows of a dead server stayed "held"):
 *  - connecting: no data yet, so an empty table means nothing;
 *  - not connected: the cause, that the rows are the last data read (as of when), that write
 *    actions wait for the connection, and that it retries by itself;
 *  - authentication needed (NOAUTH, WRONGPASS, a refused login): what to do;
 *  - polling: keyspace notifications are off, what that costs (changes seen late).
 * Hidden while live. The *Connect…* button asks the window for another connection.
 */
class ConnectionBanner : public QFrame
{
    Q_OBJECT
public:
    explicit ConnectionBanner(QWidget *parent = nullptr);

    /** Shows the band for `mode` on `server` (an address, no password); `detail` is the
     *  monitor's sentence (cause, retry). `lastDataMs` = epoch ms of the last read (0 = none). */
    void setState(LockMonitor::Mode mode, const QString &server, const QString &detail, qint64 lastDataMs);
    /** The text shown now (tests, accessibility). */
    QString text() const;
    /** True when `detail` says the server refused or wants a login. */
    static bool isAuthenticationProblem(const QString &detail);

signals:
    void connectRequested();

private:
    QLabel *m_text = nullptr;
    QPushButton *m_connect = nullptr;
};

} // namespace lockscope
