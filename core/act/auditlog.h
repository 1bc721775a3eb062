#pragma once

#include <QJsonObject>
#include <QString>

#include <memory>

namespace lockscope
{

/**
 * Append-only JSON-lines audit log of every write LockScope does or refuses. Each append opens
 * the file (creating it with mode 0600 and its directory if needed), writes one line, flushes
 * and fsync()s it, then closes it, so a record that was reported written survives a crash. A
 * symbolic link is never followed (refused, dangling or not), nor a file of another user or one
 * that group or others may write.
 * Default: `$XDG_DATA_HOME/lockscope/audit.jsonl` (~/.local/share/lockscope/audit.jsonl), shared
 * by the dashboard and the CLI.
 */
class AuditLog
{
public:
    explicit AuditLog(const QString &path = QString());

    static QString defaultPath();
    QString path() const { return m_path; }

    /**
     * Checks, before anything is written to Redis, that a record could be appended: creates the
     * directory and the file (mode 0600) if needed, opens it for appending and fsync()s it, and
     * refuses a file that cannot grow (at the process's file size limit, RLIMIT_FSIZE, or on a
     * file system with no free block). A quick check only: the write path's proof is reserve().
     * Returns false with a sentence in `*error` (the path and the cause) when it cannot. Const and
     * reentrant (file system only), so a GUI can ask before it shows a confirmation.
     */
    bool check(QString *error = nullptr) const;

    /** Appends `record` as one line. Returns false with a sentence in `*error` on failure. */
    bool append(const QJsonObject &record, QString *error = nullptr) const;

    /**
     * The record of one write, put in the log before the write is sent (see reserve()) and
     * completed in place with its outcome (complete()). Holds the file open: a log renamed in
     * between (rotation) still gets the outcome in the right line.
     */
    class Reservation
    {
    public:
        ~Reservation();
        Reservation(const Reservation &) = delete;
        Reservation &operator=(const Reservation &) = delete;

    private:
        friend class AuditLog;
        Reservation() = default;
        int fd = -1;
        qint64 offset = 0; ///< where the line starts
        qint64 length = 0; ///< the line's bytes, newline included
        QString path;
    };

    /**
     * Writes `pending` (the record with result "sending") as one line followed by room for the
     * outcome (spaces: a JSON reader skips them), flushes and fsync()s it. This is the proof that
     * the record can be written: a full disk or a file size limit fails here, before anything is
     * sent. Returns null with a sentence in `*error` when the line could not be written whole
     * (a partial line is cut off again when nothing was appended after it).
     */
    std::shared_ptr<Reservation> reserve(const QJsonObject &pending, QString *error = nullptr) const;

    /**
     * Overwrites the reserved line with `record` (same length, padded with spaces) and fsync()s
     * it. A record too big for its line (a RedLock's components and the servers read again) is
     * appended whole at the end of the log first, with "completes_offset" (the byte offset of the
     * reserved line), and the line keeps the result, the message and "outcome_record" pointing at
     * it; when even that append fails (a full disk), the line says so and keeps the result. A
     * "message" too long for the room is shortened ("…"). A record that fits writes no new bytes
     * to the file system, so it works on a disk that filled meanwhile. False with a sentence in
     * `*error`.
     */
    static bool complete(Reservation &reservation, QJsonObject record, QString *error = nullptr);

    /** Who is acting: $USER, else $LOGNAME, else the account name of the uid (getpwuid), else
     *  "uid N". */
    static QString operatorName();

private:
    QString m_path;
};

} // namespace lockscope
