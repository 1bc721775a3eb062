#include "session/auditedwrites.h"

#include "act/lockrepairs.h"
#include "redis/redisconnection.h"
#include "watch/snapshotreader.h"

#include <QDateTime>
#include <QSysInfo>

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
        emit actionFinished(action, name, false,
                            QStringLiteral("Refused: %1. Nothing was sent to Redis: every write is recorded in the "
                                           "audit log first; make it writable or choose another one.")
                                .arg(auditError),
                            QStringLiteral("refused"));
        return;
    }
    // Issue 13.9: no write while LockScope cannot see the lock's server (its data is stale).
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
        {name}, this, [this, action, name, args, perform](const QVector<LockSnapshot> &snaps, const QString &) {
            const LockSnapshot before = snaps.value(0);
            // §14.4: never aim a repair at `x` when the keys it touches are `{x}`'s (or the reverse).
            if (const QString refusal = LockRepairs::targetRefusal(action, before); !refusal.isEmpty()) {
                finish(action, name, args, before, QStringLiteral("refused"), refusal);
                return;
            }
            perform(before, [this, action, name, args, before](const QString &outcome, const QString &message) {
                finish(action, name, args, before, outcome, message);
                m_setup.written(name);
            });
        });
}

QString AuditedWrites::auditProblem() const
{
    QString error;
    return m_audit.check(&error) ? QString() : error;
}

void AuditedWrites::finish(const QString &action, const QString &name, const QJsonObject &args,
                           const LockSnapshot &before, const QString &outcome, const QString &message)
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
    QString auditError;
    if (!m_audit.append(record, &auditError)) {
        emit actionFinished(
            action, name, false,
            QStringLiteral("%1. BUT the audit record could not be written: %2").arg(message, auditError),
            QStringLiteral("audit_failed"));
        return;
    }
    emit actionFinished(action, name, outcome == QLatin1String("done"), message, outcome);
}

} // namespace lockscope
