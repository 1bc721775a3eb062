#pragma once

#include "act/auditlog.h"
#include "protocol/locksnapshot.h"

#include <QJsonObject>
#include <QObject>

#include <functional>

namespace lockscope
{

class RedisConnection;
class SnapshotReader;

/**
 * LockSession's one write path (split out of it by concern, issue 14). Every write, from the
 * dashboard or the CLI, goes through run(): refused in read-only mode, while the audit log
 * cannot take a record, or while the lock's server is not reachable (issue 13.9); otherwise the
 * lock is re-read (the audit record shows the state just before), `perform` writes, and finish()
 * appends the audit record (AuditLog: time, operator, host, server, Sentinel master, client id,
 * action, lock, args, before, result, message) and emits actionFinished(). An action that
 * worked but could not be audited finishes "audit_failed".
 */
class AuditedWrites : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(const QString &outcome, const QString &message)>;
    using Perform = std::function<void(const LockSnapshot &before, Done done)>;

    /** What the path needs from its session. */
    struct Setup {
        bool readOnly = false;
        QString server;       ///< the session's endpoint (RedisEndpoint::toString, no password)
        QString clientId;     ///< LockScope's Redisson client id
        QString auditLogPath; ///< empty = AuditLog::defaultPath()
        std::function<RedisConnection *(const QString &lock)> connectionFor;
        std::function<SnapshotReader *(const QString &lock)> readerFor;
        /** Sentinel: the master written to ("host:port"); empty otherwise. */
        std::function<QString()> masterAddress;
        /** After a write: the watcher re-reads `lock` (LockWatcher::markDirty). */
        std::function<void(const QString &lock)> written;
    };

    explicit AuditedWrites(const Setup &setup, QObject *parent = nullptr);

    /** See LockSession::auditProblem(): file system only, safe from any thread. */
    QString auditProblem() const;
    /** Checks, re-reads `name`, performs and finishes `action` (see the class comment). */
    void run(const QString &action, const QString &name, const QJsonObject &args, Perform perform);
    /** Audits and reports an action's `outcome` ("done", "changed", "refused", "error"). */
    void finish(const QString &action, const QString &name, const QJsonObject &args, const LockSnapshot &before,
                const QString &outcome, const QString &message);

signals:
    /** See LockSession::actionFinished(). */
    void actionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                        const QString &outcome);

private:
    Setup m_setup;
    AuditLog m_audit;
};

} // namespace lockscope
