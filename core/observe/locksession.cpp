#include "locksession.h"

#include "forceunlocker.h"

#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "lock/lockwatchdog.h"
#include "redis/redissubscriber.h"

#include <QUuid>

namespace lockscope {

LockSession::LockSession(const Options &options, QObject *parent)
    : QObject(parent), m_options(options), m_clientId(QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    m_pool = new RedisConnectionPool(options.endpoint, this);
    RedisConnection *conn = m_pool->connection();
    m_monitor = new LockMonitor(conn, m_pool->subscriber(), this);
    m_monitor->setPattern(options.pattern);
    m_monitor->setForcePolling(options.forcePolling);
    m_monitor->setPollIntervalMs(options.pollIntervalMs);
    m_client = new LockClient(conn, m_pool->subscriber(), this, m_clientId);
    m_forceUnlocker = new ForceUnlocker(conn, this);

    connect(m_monitor, &LockMonitor::modeChanged, this, &LockSession::modeChanged);
    connect(m_monitor, &LockMonitor::locksUpdated, this, &LockSession::locksUpdated);
    connect(m_monitor, &LockMonitor::eventsOccurred, this, &LockSession::eventsOccurred);
    connect(m_monitor, &LockMonitor::discoveryProgress, this, &LockSession::discoveryProgress);
    connect(m_monitor, &LockMonitor::notificationsChecked, this, &LockSession::notificationsChecked);
    connect(m_monitor, &LockMonitor::errorOccurred, this, &LockSession::errorOccurred);
    connect(m_client, &LockClient::watchdogLost, this, [this](const QString &name) {
        emit errorOccurred(QStringLiteral("Watchdog stopped renewing %1: LockScope no longer holds it").arg(name));
    });
}

LockSession::~LockSession() = default;

RedisConnection *LockSession::connection() const { return m_pool->connection(); }

void LockSession::open()
{
    m_pool->connection()->open();
    m_pool->subscriber()->open();
}

void LockSession::start()
{
    open();
    m_monitor->start();
}
void LockSession::refresh() { m_monitor->rediscover(); }
void LockSession::cancelScan() { m_monitor->cancelDiscovery(); }

void LockSession::setPattern(const QString &glob)
{
    m_monitor->setPattern(glob);
    m_monitor->rediscover();
}

bool LockSession::refuseIfReadOnly(const QString &action, const QString &name)
{
    if (!m_options.readOnly)
        return false;
    emit actionFinished(action, name, false,
                        QStringLiteral("Refused: LockScope runs read-only (--read-only), so it writes nothing to Redis."));
    return true;
}

void LockSession::enableNotifications()
{
    if (refuseIfReadOnly(QStringLiteral("enable_notifications"), QString()))
        return;
    m_monitor->enableNotifications();
}

void LockSession::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs)
{
    if (refuseIfReadOnly(QStringLiteral("acquire"), name))
        return;
    const QString field = m_client->holderField(threadId);
    auto done = [this, name, field, leaseMs](const AcquireResult &r) {
        QString msg;
        if (!r.error.isEmpty())
            msg = QStringLiteral("Acquire of %1 failed: %2").arg(name, r.error);
        else if (r.acquired)
            msg = QStringLiteral("Acquired %1 as %2 (%3)")
                      .arg(name, field,
                           leaseMs > 0 ? QStringLiteral("lease %1 ms").arg(leaseMs)
                                       : QStringLiteral("watchdog renews every %1 ms").arg(m_client->watchdogTimeoutMs() / 3));
        else
            msg = QStringLiteral("%1 is held by someone else (TTL %2 ms)").arg(name).arg(r.pttlMs);
        emit actionFinished(QStringLiteral("acquire"), name, r.acquired, msg);
        m_monitor->markDirty(name);
    };
    if (waitMs == 0)
        m_client->tryAcquire(name, threadId, leaseMs, this, done);
    else
        m_client->acquire(name, threadId, leaseMs, waitMs, this, done);
}

void LockSession::renew(const QString &name, qint64 threadId)
{
    if (refuseIfReadOnly(QStringLiteral("renew"), name))
        return;
    m_client->renew(name, threadId, 0, this, [this, name](bool ok, const QString &error) {
        emit actionFinished(QStringLiteral("renew"), name, ok,
                            ok ? QStringLiteral("Renewed %1 to %2 ms").arg(name).arg(m_client->watchdogTimeoutMs())
                               : error.isEmpty() ? QStringLiteral("%1 is not held by LockScope: nothing renewed").arg(name)
                                                 : QStringLiteral("Renew of %1 failed: %2").arg(name, error));
        m_monitor->markDirty(name);
    });
}

void LockSession::release(const QString &name, qint64 threadId)
{
    if (refuseIfReadOnly(QStringLiteral("release"), name))
        return;
    m_client->unlock(name, threadId, this, [this, name](const UnlockResult &r) {
        QString msg;
        switch (r.status) {
        case UnlockResult::Status::Released:
            msg = QStringLiteral("Released %1 (unlock message sent)").arg(name);
            break;
        case UnlockResult::Status::StillHeld:
            msg = QStringLiteral("Released one hold of %1; still held (reentrant)").arg(name);
            break;
        case UnlockResult::Status::NotHeld:
        case UnlockResult::Status::Error:
            msg = QStringLiteral("Release of %1 failed: %2").arg(name, r.error);
            break;
        }
        const bool ok = r.status == UnlockResult::Status::Released || r.status == UnlockResult::Status::StillHeld;
        emit actionFinished(QStringLiteral("release"), name, ok, msg);
        m_monitor->markDirty(name);
    });
}

void LockSession::forceUnlock(const QString &name)
{
    if (refuseIfReadOnly(QStringLiteral("force_unlock"), name))
        return;
    m_monitor->expectForceUnlock(name);
    m_client->watchdog()->remove(name); // if LockScope itself held it, stop renewing
    m_forceUnlocker->forceUnlock(name, this, [this, name](const ForceUnlockResult &r) {
        emit actionFinished(QStringLiteral("force_unlock"), name, r.deleted, ForceUnlocker::describe(name, r));
        m_monitor->markDirty(name);
    });
}

} // namespace lockscope
