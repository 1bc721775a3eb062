#include "redlock/redlocksession.h"

#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"
#include "redlock/redlockreader.h"

#include <QDateTime>
#include <QPointer>
#include <QSysInfo>
#include <QUuid>

namespace lockscope
{

RedLockSession::RedLockSession(const Options &options, QObject *parent)
    : QObject(parent), m_options(options), m_clientId(QUuid::createUuid().toString(QUuid::WithoutBraces)),
      m_audit(options.auditLogPath)
{
    QVector<RedLockReader::Target> targets;
    for (const RedisEndpoint &e : m_options.servers)
        targets << RedLockReader::Target{e, m_options.name};
    m_reader = new RedLockReader(targets, this);
    m_reader->setTimeoutsMs(m_options.connectTimeoutMs, m_options.commandTimeoutMs);
    connect(m_reader, &RedLockReader::statusRead, this, &RedLockSession::statusRead);
}

RedLockSession::~RedLockSession() = default;

QString RedLockSession::serverList() const
{
    QStringList list;
    for (const RedisEndpoint &e : m_options.servers)
        list << e.address();
    return list.join(QStringLiteral(", "));
}

QString RedLockSession::holderField(qint64 threadId) const
{
    return QStringLiteral("%1:%2").arg(m_clientId).arg(threadId);
}

qint64 RedLockSession::watchdogTimeoutMs()
{
    return LockClient::kDefaultWatchdogTimeoutMs;
}

QString RedLockSession::auditProblem() const
{
    QString error;
    return m_audit.check(&error) ? QString() : error;
}

void RedLockSession::read(QObject *context, std::function<void(const RedLockStatus &)> callback)
{
    m_reader->read(context, std::move(callback));
}

void RedLockSession::refresh()
{
    m_reader->refresh();
}

void RedLockSession::setName(const QString &name)
{
    m_options.name = name;
    m_reader->setNames({name});
}

void RedLockSession::ensureClients()
{
    if (m_lock)
        return;
    QVector<MultiLockComponent> components;
    for (const RedisEndpoint &e : m_options.servers) {
        auto *conn = new RedisConnection(e, this);
        conn->setClientName("lockscope-redlock");
        conn->setConnectTimeoutMs(m_options.connectTimeoutMs);
        conn->setCommandTimeoutMs(m_options.commandTimeoutMs);
        auto *sub = new RedisSubscriber(e, this);
        sub->connection()->setConnectTimeoutMs(m_options.connectTimeoutMs);
        auto *client = new LockClient(conn, sub, this, m_clientId);
        conn->open();
        sub->open();
        m_connections << conn;
        m_subscribers << sub;
        m_clients << client;
        components << MultiLockComponent{client, m_options.name, e.address()};
    }
    m_lock = new MultiLock(m_options.multi ? MultiLock::Mode::MultiLock : MultiLock::Mode::RedLock, components, this);
}

QJsonObject RedLockSession::record(const QString &action, const QJsonObject &args, const QString &result,
                                   const QString &message) const
{
    return QJsonObject{{QStringLiteral("time_ms"), QDateTime::currentMSecsSinceEpoch()},
                       {QStringLiteral("operator"), AuditLog::operatorName()},
                       {QStringLiteral("host"), QSysInfo::machineHostName()},
                       {QStringLiteral("server"), serverList()},
                       {QStringLiteral("client_id"), m_clientId},
                       {QStringLiteral("action"), action},
                       {QStringLiteral("lock"), m_options.name},
                       {QStringLiteral("args"), args},
                       {QStringLiteral("result"), result},
                       {QStringLiteral("message"), message}};
}

std::shared_ptr<AuditLog::Reservation> RedLockSession::reserve(const QString &action, const QJsonObject &args,
                                                               QString *error)
{
    if (m_options.readOnly) {
        *error = QStringLiteral("Refused: read-only mode. Nothing was sent to Redis.");
        return nullptr;
    }
    // The record goes in first (result "sending"): nothing is sent to any server unless the log
    // took it, so a full disk or an unwritable log refuses here instead of failing after the write.
    QString reserveError;
    std::shared_ptr<AuditLog::Reservation> reservation =
        m_audit.reserve(record(action, args, QStringLiteral("sending"),
                               QStringLiteral("Sent to the servers; LockScope stopped before it could record the "
                                              "outcome, so the outcome is unknown.")),
                        &reserveError);
    if (!reservation)
        *error = QStringLiteral("Refused: %1. Nothing was sent to any server: every write is recorded in the audit "
                                "log first; make it writable or choose another one (--audit-log PATH).")
                     .arg(reserveError);
    return reservation;
}

void RedLockSession::write(const QString &action, const QJsonObject &args, QObject *context, WriteCallback callback,
                           std::function<void(MultiLock::Callback)> send,
                           std::function<QString(const MultiLockResult &, bool anyError)> outcomeOf)
{
    WriteResult refused;
    refused.outcome = QStringLiteral("refused");
    std::shared_ptr<AuditLog::Reservation> reservation = reserve(action, args, &refused.message);
    if (!reservation) {
        callback(refused);
        return;
    }
    ensureClients();
    QPointer<QObject> ctx(context);
    send([this, action, args, reservation, ctx, callback, outcomeOf](const MultiLockResult &r) {
        WriteResult w;
        w.sent = true;
        w.result = r;
        bool anyError = false;
        for (const auto &c : r.components)
            anyError |= c.status == MultiLockComponentOutcome::Status::Error ||
                        c.status == MultiLockComponentOutcome::Status::Unknown;
        w.outcome = outcomeOf(r, anyError);
        w.message = r.error;
        complete(action, args, reservation, w, ctx, callback);
    });
}

void RedLockSession::acquire(qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context, WriteCallback callback)
{
    const QJsonObject args{
        {QStringLiteral("servers"), serverList()},
        {QStringLiteral("mode"), m_options.multi ? QStringLiteral("multilock") : QStringLiteral("redlock")},
        {QStringLiteral("lease_ms"), leaseMs},
        {QStringLiteral("wait_ms"), waitMs},
        {QStringLiteral("holder"), holderField(threadId)}};
    write(
        QStringLiteral("redlock_acquire"), args, context, std::move(callback),
        [this, threadId, leaseMs, waitMs](MultiLock::Callback done) {
            m_lock->acquire(threadId, leaseMs, waitMs, this, std::move(done));
        },
        [](const MultiLockResult &r, bool anyError) {
            return r.acquired ? QStringLiteral("done")
                   : anyError ? QStringLiteral("unknown")
                              : QStringLiteral("refused");
        });
}

void RedLockSession::release(qint64 threadId, QObject *context, WriteCallback callback)
{
    const QJsonObject args{{QStringLiteral("servers"), serverList()},
                           {QStringLiteral("holder"), holderField(threadId)}};
    write(
        QStringLiteral("redlock_release"), args, context, std::move(callback),
        [this, threadId](MultiLock::Callback done) { m_lock->unlock(threadId, this, std::move(done)); },
        // A component not held by this holder answers NotHeld: nothing to release there.
        [](const MultiLockResult &, bool anyError) {
            return anyError ? QStringLiteral("unknown") : QStringLiteral("done");
        });
}

void RedLockSession::complete(const QString &action, const QJsonObject &args,
                              std::shared_ptr<AuditLog::Reservation> reservation, WriteResult r,
                              QPointer<QObject> context, WriteCallback callback)
{
    // The record is completed even when the caller has gone: the log never keeps a "sending"
    // line for a write whose outcome LockScope knew.
    QJsonObject entry = record(action, args, r.outcome, r.message);
    entry.insert(QStringLiteral("detail"), r.result.toJson());
    auto finishWith = [reservation, callback, context](QJsonObject entry, WriteResult r) {
        QString error;
        if (!AuditLog::complete(*reservation, entry, &error))
            r.auditError = error;
        if (context)
            callback(r);
    };
    if (r.outcome != QLatin1String("unknown")) {
        finishWith(entry, r);
        return;
    }
    // A server did not answer: the script may have run there. Read every server again and keep
    // what they show in the record, so the log says what is known rather than "failed".
    m_reader->read(this, [entry, r, finishWith](const RedLockStatus &after) mutable {
        entry.insert(QStringLiteral("after"), after.toJson());
        if (r.message.isEmpty())
            r.message = QStringLiteral("a server did not answer; the servers were read again (see \"after\")");
        entry.insert(QStringLiteral("message"), r.message);
        finishWith(entry, r);
    });
}

} // namespace lockscope
