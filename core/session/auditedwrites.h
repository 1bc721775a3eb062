#pragma once

#include "act/auditlog.h"
#include "protocol/locksnapshot.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>

namespace lockscope
{

class RedisConnection;
class SnapshotReader;

/**
 * LockSession's one write path (split out of it so every write reads in one file). Every write, from the
 * dashboard or the CLI, goes through run(): refused in read-only mode, while the audit log
 * cannot take a record, or while the lock's server is not reachable (its rows are stale); otherwise the
 * lock is re-read (the audit record shows the state just before), the record is written with the
 * result "sending" (AuditLog::reserve(): refused when the log cannot take it, nothing sent),
 * `perform` writes, and finish() completes the audit record (a write whose connection was lost
 * before its reply came finishes "unknown" after a re-read, see settleUnknown()) (AuditLog: time, operator, host,
 * server, Sentinel master, client id, action, lock, args, before, result, message) and emits actionFinished(). An
 * action that worked but could not be audited finishes "audit_failed".
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
        /** A write of unknown outcome was re-read after reconnecting (`after`): what the session
         *  does about it (LockHolds: release a hold it finds it owns but did not know it had),
         *  as a sentence for the record; may be empty. */
        std::function<QString(const QString &action, const QString &lock, const QJsonObject &args,
                              const LockSnapshot &after)>
            unknownSettled;
    };

    explicit AuditedWrites(const Setup &setup, QObject *parent = nullptr);

    /** See LockSession::auditProblem(): file system only, safe from any thread. */
    QString auditProblem() const;
    /** Checks, re-reads `name`, performs and finishes `action` (see the class comment). */
    void run(const QString &action, const QString &name, const QJsonObject &args, Perform perform);
    /** Audits and reports an action's `outcome` ("done", "changed", "refused", "error",
     *  "unknown"): completes `reservation` (the record written before the write was sent), or
     *  appends a record when there is none (a refusal: nothing was sent). */
    void finish(const QString &action, const QString &name, const QJsonObject &args, const LockSnapshot &before,
                const QString &outcome, const QString &message, AuditLog::Reservation *reservation = nullptr,
                const LockSnapshot *after = nullptr);

signals:
    /** See LockSession::actionFinished(). */
    void actionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                        const QString &outcome);

private:
    /** A write of unknown outcome (`unknown` says why: its reply never came, or its script failed
     *  part-way): waits for the server to be there (at most 20 s), re-reads the lock, asks
     *  unknownSettled, and finishes "unknown" with the state found ("after" in the record). */
    void settleUnknown(const QString &action, const QString &name, const QJsonObject &args, const LockSnapshot &before,
                       const QString &unknown, std::shared_ptr<AuditLog::Reservation> reservation,
                       QPointer<RedisConnection> conn);
    /** Reports `action` on `name` as "refused" because its audit record cannot be written
     *  (`auditError` says why); nothing was sent, and no record is possible. */
    void refuseUnaudited(const QString &action, const QString &name, const QString &auditError);
    /** The audit record of one action (see the class comment for its fields). */
    QJsonObject record(const QString &action, const QString &name, const QJsonObject &args, const LockSnapshot &before,
                       const QString &outcome, const QString &message) const;

    Setup m_setup;
    AuditLog m_audit;
};

} // namespace lockscope
