#include "clusterlockmonitor.h"

#include "redis/clusterrouter.h"
#include "redis/redisconnectionpool.h"
#include "redis/redissubscriber.h"

namespace lockscope {

ClusterLockMonitor::ClusterLockMonitor(ClusterRouter *router, QObject *parent) : QObject(parent), m_router(router) {}

void ClusterLockMonitor::setPattern(const QString &glob)
{
    m_pattern = glob;
    for (LockMonitor *m : std::as_const(m_nodes))
        m->setPattern(glob);
}

void ClusterLockMonitor::start()
{
    if (!m_nodes.isEmpty()) {
        for (LockMonitor *m : std::as_const(m_nodes))
            m->start();
        return;
    }
    for (const QString &address : m_router->topology().masters()) {
        RedisConnection *conn = m_router->connectionFor(address);
        RedisSubscriber *sub = m_router->pool()->subscriber(m_router->endpointFor(address));
        sub->open();
        auto *m = new LockMonitor(conn, sub, this);
        m->setPattern(m_pattern);
        m->setForcePolling(m_forcePolling);
        m->setPollIntervalMs(m_pollIntervalMs);
        ClusterRouter *router = m_router;
        m->setClusterNode([router, address](const QString &name) {
            return router->topology().masterForKey(name.toUtf8()) == address;
        });
        m_nodes.insert(address, m);
        connect(m, &LockMonitor::modeChanged, this, [this, address](LockMonitor::Mode mode, const QString &detail) {
            emit modeChanged(mode, QStringLiteral("%1: %2").arg(address, detail));
        });
        connect(m, &LockMonitor::locksUpdated, this, &ClusterLockMonitor::locksUpdated);
        connect(m, &LockMonitor::eventsOccurred, this, &ClusterLockMonitor::eventsOccurred);
        connect(m, &LockMonitor::notificationsChecked, this, [this, address](bool enabled, const QString &detail) {
            emit notificationsChecked(enabled, QStringLiteral("%1: %2").arg(address, detail));
        });
        connect(m, &LockMonitor::errorOccurred, this, [this, address](const QString &message) {
            emit errorOccurred(QStringLiteral("%1: %2").arg(address, message));
        });
        connect(m, &LockMonitor::discoveryProgress, this, [this, address](qint64 scanned, qint64 found, bool finished) {
            m_progress[address] = {scanned, found, finished};
            Progress sum;
            sum.finished = m_progress.size() == m_nodes.size();
            for (const Progress &p : std::as_const(m_progress)) {
                sum.scanned += p.scanned;
                sum.found += p.found;
                sum.finished = sum.finished && p.finished;
            }
            emit discoveryProgress(sum.scanned, sum.found, sum.finished);
        });
        connect(m, &LockMonitor::idle, this, [this, address] {
            m_idleSeen.insert(address);
            if (isIdle())
                emit idle();
        });
    }
    for (LockMonitor *m : std::as_const(m_nodes))
        m->start();
}

void ClusterLockMonitor::rediscover()
{
    m_progress.clear();
    for (LockMonitor *m : std::as_const(m_nodes))
        m->rediscover();
}

void ClusterLockMonitor::cancelDiscovery()
{
    for (LockMonitor *m : std::as_const(m_nodes))
        m->cancelDiscovery();
}

void ClusterLockMonitor::enableNotifications()
{
    for (LockMonitor *m : std::as_const(m_nodes))
        m->enableNotifications();
}

QString ClusterLockMonitor::nodeOf(const QString &name) const { return m_router->topology().masterForKey(name.toUtf8()); }

LockMonitor *ClusterLockMonitor::monitorOf(const QString &name) const { return m_nodes.value(nodeOf(name)); }

void ClusterLockMonitor::markDirty(const QString &name, const QString &hint)
{
    if (LockMonitor *m = monitorOf(name))
        m->markDirty(name, hint);
}

void ClusterLockMonitor::expectForceUnlock(const QString &name)
{
    if (LockMonitor *m = monitorOf(name))
        m->expectForceUnlock(name);
}

QHash<QString, LockSnapshot> ClusterLockMonitor::locks() const
{
    QHash<QString, LockSnapshot> all;
    for (LockMonitor *m : m_nodes)
        for (auto it = m->locks().cbegin(); it != m->locks().cend(); ++it)
            all.insert(it.key(), it.value());
    return all;
}

bool ClusterLockMonitor::isIdle() const
{
    if (m_nodes.isEmpty())
        return false;
    for (auto it = m_nodes.cbegin(); it != m_nodes.cend(); ++it)
        if (!m_idleSeen.contains(it.key()) || !it.value()->isIdle())
            return false;
    return true;
}

} // namespace lockscope
