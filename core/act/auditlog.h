#pragma once

#include <QJsonObject>
#include <QString>

namespace lockscope
{

/**
 * Append-only JSON-lines audit log of every write LockScope does or refuses. Each append opens
 * the file (creating it with mode 0600 and its directory if needed), writes one line, flushes
 * and fsync()s it, then closes it, so a record that was reported written survives a crash.
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
     * directory and the file (mode 0600) if needed, opens it for appending and fsync()s it.
     * Returns false with a sentence in `*error` (the path and the cause) when it cannot. Const and
     * reentrant (file system only), so a GUI can ask before it shows a confirmation.
     */
    bool check(QString *error = nullptr) const;

    /** Appends `record` as one line. Returns false with a sentence in `*error` on failure. */
    bool append(const QJsonObject &record, QString *error = nullptr) const;

    /** Who is acting: $USER, else $LOGNAME, else the account name of the uid (getpwuid), else
     *  "uid N". */
    static QString operatorName();

private:
    QString m_path;
};

} // namespace lockscope
