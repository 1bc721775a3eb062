#pragma once

#include "protocol/watchmode.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace lockscope
{

/**
 * The band over the lock table that says what the table is (without it, a wrong port shows an
 * empty table that reads as "no locks", and rows of a dead server still look "held"):
 *  - connecting: no data yet, so an empty table means nothing;
 *  - not connected: the cause, that the rows are the last data read (as of when), that write
 *    actions wait for the connection, and that it retries by itself;
 *  - authentication needed (NOAUTH, WRONGPASS, a refused login): what to do;
 *  - polling: keyspace notifications are off, what that costs (changes seen late);
 *  - reads refused: an ACL user without a command LockScope's reads need (e.g. TIME): which
 *    command, what to grant, never "0 locks".
 * Hidden while live. The *Connect…* button asks the window for another connection.
 */
class ConnectionBanner : public QFrame
{
    Q_OBJECT
public:
    explicit ConnectionBanner(QWidget *parent = nullptr);

    /** Shows the band for `mode` on `server` (an address, no password); `detail` is the
     *  monitor's sentence (cause, retry). `lastDataMs` = epoch ms of the last read (0 = none). */
    void setState(WatchMode mode, const QString &server, const QString &detail, qint64 lastDataMs);
    /**
     * An ACL refuses LockScope's reads on `server` (`detail`: RedisReply::explainPermissionError's
     * sentence, e.g. "the ACL user 'viewer' may not run 'time' (called by LockScope's Lua script
     * ...): NOPERM ..."): says which command is refused and what to grant, and that the empty
     * table does not mean there are no locks. Stays until clearReadsRefused(); setState() keeps it.
     */
    void setReadsRefused(const QString &server, const QString &detail);
    void clearReadsRefused();
    bool readsRefused() const { return !m_refusal.isEmpty(); }
    /** The grant that would let `detail`'s refused command run: "ACL SETUSER viewer +time"; empty
     *  when the sentence names no command. */
    static QString grantFor(const QString &detail);
    /** The text shown now (tests, accessibility). */
    QString text() const;
    /** True when `detail` says the server refused or wants a login. */
    static bool isAuthenticationProblem(const QString &detail);

signals:
    void connectRequested();

private:
    void paint(const QColor &tint);

    QLabel *m_text = nullptr;
    QPushButton *m_connect = nullptr;
    QString m_refusal; ///< the refused read's sentence while an ACL refuses LockScope's reads
};

} // namespace lockscope
