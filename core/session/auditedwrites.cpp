#include "session/auditedwrites.h"

#include "act/lockrepairs.h"
#include "redis/redisconnection.h"
#include "watch/snapshotreader.h"

#include <QDateTime>
#include <QPointer>
#include <QSysInfo>
#include <QTimer>

namespace lockscope
{

AuditedWrites::AuditedWrites(const Setup &setup, QObject *parent)
    : QObject(parent), m_setup(setup), m_audit(setup.auditLogPath)
{
}

void AuditedWrites::run(const QString &action, const QString &name, const QJsonObject &args, Perform perform)
{
    if (m_setup.readOnly) {
        finish(action, name, args, LockSnapshot(), QStringLiteral("refused"),
               QStringLiteral("Refused: LockScope runs read-only, so it writes nothing to Redis."));
        return;
    }
    // No write without its audit record: the log must be writable before anything is sent.
    const QString auditError = auditProblem();
    if (!auditError.isEmpty()) {
        refuseUnaudited(action, name, auditError);
        return;
    }
    // No write while LockScope cannot see the lock's server: its data is stale, and a write
    // confirmed against stale rows could hit a lock that changed meanwhile.
    if (RedisConnection *conn = m_setup.connectionFor(name); conn && conn->lostSinceEpochMs() != 0) {
        finish(action, name, args, LockSnapshot(), QStringLiteral("refused"),
               QStringLiteral("Refused: not connected to %1 since %2 (%3): LockScope writes nothing while it "
                              "cannot see the lock; it reconnects by itself, try again when it is back.")
                   .arg(conn->endpoint().address(),
                        QDateTime::fromMSecsSinceEpoch(conn->lostSinceEpochMs()).toString(QStringLiteral("HH:mm:ss")),
                        conn->lastError()));
        return;
    }
    // Re-read the lock first: the audit record shows the state just before the change.
    m_setup.readerFor(name)->read(
        {name}, this, [this, action, name, args, perform](const QVector<LockSnapshot> &snaps, const QString &error) {
            // No write on a lock that could not be re-read (the state before is unknown); the
            // refusal is recorded like every other.
            if (!error.isEmpty()) {
                finish(action, name, args, LockSnapshot(), QStringLiteral("refused"),
                       QStringLiteral("Refused: %1 could not be re-read before the write (%2). Nothing was sent.")
                           .arg(name, error));
                return;
            }
            const LockSnapshot before = snaps.value(0);
            // §14.4: never aim a repair at `x` when the keys it touches are `{x}`'s (or the reverse).
            if (const QString refusal = LockRepairs::targetRefusal(action, before); !refusal.isEmpty()) {
                finish(action, name, args, before, QStringLiteral("refused"), refusal);
                return;
            }
            // The record itself goes in first (result "sending"): a write is sent only once the log
            // took its record, so a full disk refuses here instead of failing after the write.
            QString reserveError;
            std::shared_ptr<AuditLog::Reservation> reservation =
                m_audit.reserve(record(action, name, args, before, QStringLiteral("sending"),
                                       QStringLiteral("Sent to Redis; LockScope stopped before it could record the "
                                                      "outcome, so the outcome is unknown.")),
                                &reserveError);
            if (!reservation) {
                refuseUnaudited(action, name, reserveError);
                return;
            }
            QPointer<RedisConnection> conn = m_setup.connectionFor(name);
            perform(before, [this, action, name, args, before, reservation, conn](const QString &outcome,
                                                                                  const QString &message) {
                // An error because the connection went away: the write may have reached Redis
                // before it did (a server that stalls, then runs it). Unknown, never "error".
                if (outcome == QLatin1String("error") && conn && conn->lostSinceEpochMs() != 0) {
                    settleUnknown(action, name, args, before,
                                  QStringLiteral("Outcome unknown: the %1 of %2 was sent, but the connection was lost "
                                                 "before its reply came (%3), so Redis may have run it or not.")
                                      .arg(action, name, conn->lastError()),
                                  reservation, conn);
                    return;
                }
                // A script that failed inside (a command refused by the ACL, a wrong type, OOM) may
                // have written before it: Redis does not roll a script back. Unknown, re-read.
                if (outcome == QLatin1String("error") && conn && message.contains(QLatin1String("@user_script"))) {
                    settleUnknown(action, name, args, before,
                                  QStringLiteral("Outcome unknown: the %1 script of %2 failed part-way (%3). Redis "
                                                 "does not undo what a script wrote before the command that "
                                                 "failed, so some of it may have run.")
                                      .arg(action, name, message),
                                  reservation, conn);
                    return;
                }
                finish(action, name, args, before, outcome, message, reservation.get());
                m_setup.written(name);
            });
        });
}

namespace
{
/** How long a write of unknown outcome waits for its server to come back before the re-read. */
constexpr int kSettleWaitMs = 20000;

/** The lock as a re-read found it, in a few words. */
QString stateText(const LockSnapshot &after)
{
    if (!after.exists)
        return QStringLiteral("%1 is free (its hash does not exist)").arg(after.name);
    QStringList holders;
    for (const LockHolder &h : after.holders)
        holders << QStringLiteral("%1 x%2").arg(h.field).arg(h.holdCount);
    return QStringLiteral("%1 is held by %2, TTL %3 ms")
        .arg(after.name, holders.isEmpty() ? QStringLiteral("no holder") : holders.join(QStringLiteral(", ")))
        .arg(after.pttlMs);
}
} // namespace

void AuditedWrites::settleUnknown(const QString &action, const QString &name, const QJsonObject &args,
                                  const LockSnapshot &before, const QString &unknown,
                                  std::shared_ptr<AuditLog::Reservation> reservation, QPointer<RedisConnection> conn)
{
    // One of: the connection is back (re-read), or the wait ended (say so). Whichever is first.
    auto *waiter = new QObject(this);
    auto settled = std::make_shared<bool>(false);
    auto give = [this, action, name, args, before, reservation, waiter, settled](const QString &text,
                                                                                 const LockSnapshot *after) {
        if (*settled)
            return;
        *settled = true;
        waiter->deleteLater();
        finish(action, name, args, before, QStringLiteral("unknown"), text, reservation.get(), after);
        m_setup.written(name);
    };
    auto reread = [this, name, args, action, unknown, waiter, settled, give] {
        if (*settled)
            return;
        m_setup.readerFor(name)->read(
            {name}, waiter,
            [this, name, args, action, unknown, give](const QVector<LockSnapshot> &snaps, const QString &error) {
                if (!error.isEmpty() || snaps.isEmpty()) {
                    give(QStringLiteral("%1 The re-read failed: %2").arg(unknown, error), nullptr);
                    return;
                }
                const LockSnapshot after = snaps.first();
                QString text = QStringLiteral("%1 Re-read: %2.").arg(unknown, stateText(after));
                if (m_setup.unknownSettled)
                    if (const QString note = m_setup.unknownSettled(action, name, args, after); !note.isEmpty())
                        text += QLatin1Char(' ') + note;
                give(text, &after);
            });
    };
    connect(conn, &RedisConnection::ready, waiter, reread);
    QTimer::singleShot(kSettleWaitMs, waiter, [unknown, give] {
        give(QStringLiteral("%1 The server did not come back within %2 s, so the lock was not re-read.")
                 .arg(unknown)
                 .arg(kSettleWaitMs / 1000),
             nullptr);
    });
    if (conn->isReady())
        QTimer::singleShot(0, waiter, reread);
}

QString AuditedWrites::auditProblem() const
{
    QString error;
    return m_audit.check(&error) ? QString() : error;
}

void AuditedWrites::refuseUnaudited(const QString &action, const QString &name, const QString &auditError)
{
    emit actionFinished(action, name, false,
                        QStringLiteral("Refused: %1. Nothing was sent to Redis: every write is recorded in the audit "
                                       "log first; make it writable or choose another one.")
                            .arg(auditError),
                        QStringLiteral("refused"));
}

QJsonObject AuditedWrites::record(const QString &action, const QString &name, const QJsonObject &args,
                                  const LockSnapshot &before, const QString &outcome, const QString &message) const
{
    QJsonObject record;
    record.insert(QStringLiteral("time_ms"), QDateTime::currentMSecsSinceEpoch());
    record.insert(QStringLiteral("operator"), AuditLog::operatorName());
    record.insert(QStringLiteral("host"), QSysInfo::machineHostName());
    record.insert(QStringLiteral("server"), m_setup.server);
    // Sentinel: which master the sentinels named at the time, the one written to.
    if (const QString master = m_setup.masterAddress ? m_setup.masterAddress() : QString(); !master.isEmpty())
        record.insert(QStringLiteral("master"), master);
    record.insert(QStringLiteral("client_id"), m_setup.clientId);
    record.insert(QStringLiteral("action"), action);
    record.insert(QStringLiteral("lock"), name);
    record.insert(QStringLiteral("args"), args);
    record.insert(QStringLiteral("before"), before.name.isEmpty() ? QJsonValue() : QJsonValue(before.toJson()));
    record.insert(QStringLiteral("result"), outcome);
    record.insert(QStringLiteral("message"), message);
    return record;
}

void AuditedWrites::finish(const QString &action, const QString &name, const QJsonObject &args,
                           const LockSnapshot &before, const QString &outcome, const QString &message,
                           AuditLog::Reservation *reservation, const LockSnapshot *after)
{
    QString said = message;
    if (outcome == QLatin1String("error") && message.contains(QLatin1String("READONLY")))
        said += QStringLiteral(" (this server is a replica, which refuses every write: run it against its master; "
                               "ROLE on this server names it)");
    QJsonObject entry = record(action, name, args, before, outcome, said);
    if (after) {
        QJsonObject state = after->toJson();
        state.insert(QStringLiteral("exists"), after->exists); // free or not, said plainly
        entry.insert(QStringLiteral("after"), state);
    }
    QString auditError;
    if (reservation ? !AuditLog::complete(*reservation, entry, &auditError) : !m_audit.append(entry, &auditError)) {
        emit actionFinished(action, name, false,
                            QStringLiteral("%1. BUT the audit record could not be written: %2").arg(said, auditError),
                            QStringLiteral("audit_failed"));
        return;
    }
    emit actionFinished(action, name, outcome == QLatin1String("done"), said, outcome);
}

} // namespace lockscope
