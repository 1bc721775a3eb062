#include "clusterlockmonitor.h"

#include "locknames.h"

#include "redis/clusterrouter.h"
#include "redis/shardedsubscriber.h"
#include "redis/redisconnectionpool.h"
#include "redis/redissubscriber.h"

#include <QDateTime>

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
        connect(m, &LockMonitor::locksUpdated, this, &ClusterLockMonitor::trackSharded);
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

namespace lockscope {

void ClusterLockMonitor::trackSharded(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    if (m_forcePolling)
        return;
    for (const LockSnapshot &s : changed) {
        if (!s.isLock || !s.exists)
            continue;
        const QByteArray channel = (s.kind == LockKind::ReadWriteLock ? LockNames::readWriteChannel(s.name)
                                                                      : LockNames::unlockChannel(s.name)).toUtf8();
        const QString node = nodeOf(s.name);
        const QString current = m_shardedNode.value(channel);
        if (node.isEmpty() || current == node)
            continue;
        if (!current.isEmpty())
            shardedFor(current)->sunsubscribe(channel);
        shardedFor(node)->ssubscribe(channel);
        m_shardedNode.insert(channel, node);
    }
    for (const QString &name : removed) {
        for (const QString &c : {LockNames::unlockChannel(name), LockNames::readWriteChannel(name)}) {
            const QString node = m_shardedNode.take(c.toUtf8());
            if (!node.isEmpty())
                shardedFor(node)->sunsubscribe(c.toUtf8());
        }
    }
}

ShardedSubscriber *ClusterLockMonitor::shardedFor(const QString &address)
{
    ShardedSubscriber *&sub = m_sharded[address];
    if (!sub) {
        sub = new ShardedSubscriber(m_router->endpointFor(address), this);
        connect(sub, &ShardedSubscriber::message, this, &ClusterLockMonitor::onShardedMessage);
        connect(sub, &ShardedSubscriber::lost, this, [this](const QByteArray &channel) {
            // The slot moved: forget it, learn the new owner, and re-read the lock (which
            // subscribes again there through trackSharded()).
            m_shardedNode.remove(channel);
            m_router->refresh();
            QString name = LockNames::lockNameFromUnlockChannel(QString::fromUtf8(channel));
            if (name.isEmpty())
                name = LockNames::lockNameFromReadWriteChannel(QString::fromUtf8(channel));
            if (!name.isEmpty())
                markDirty(name);
        });
        sub->open();
    }
    return sub;
}

void ClusterLockMonitor::onShardedMessage(const QByteArray &channelBytes, const QByteArray &payload)
{
    const QString channel = QString::fromUtf8(channelBytes);
    QString name = LockNames::lockNameFromUnlockChannel(channel);
    if (name.isEmpty())
        name = LockNames::lockNameFromReadWriteChannel(channel);
    if (name.isEmpty())
        return;
    LockEvent e;
    e.timeMs = QDateTime::currentMSecsSinceEpoch();
    e.lock = name;
    e.type = QStringLiteral("unlock_message");
    e.detail = QStringLiteral("sharded message %1 on %2 (SPUBLISH, Redisson 3.22+)").arg(QString::fromUtf8(payload), channel);
    emit eventsOccurred({e});
    markDirty(name);
}

} // namespace lockscope
