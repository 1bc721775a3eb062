#include "watch/clusterlockmonitor.h"
#include "redis/redisbytes.h"

#include "protocol/locknames.h"

#include "redis/clusterrouter.h"
#include "redis/redisconnectionpool.h"
#include "redis/redissubscriber.h"
#include "redis/shardedsubscriber.h"
#include "watch/lockdiscovery.h"

#include <QDateTime>

#include <algorithm>

namespace lockscope
{

ClusterLockMonitor::ClusterLockMonitor(ClusterRouter *router, QObject *parent) : LockWatcher(parent), m_router(router)
{
}

void ClusterLockMonitor::setPattern(const QString &glob)
{
    m_pattern = glob;
    for (LockMonitor *m : std::as_const(m_nodes))
        m->setPattern(glob);
}

void ClusterLockMonitor::setPriorityLocks(const QStringList &names)
{
    m_priority = names;
    for (LockMonitor *m : std::as_const(m_nodes))
        m->setPriorityLocks(names);
}

void ClusterLockMonitor::start()
{
    if (!m_nodes.isEmpty()) {
        for (LockMonitor *m : std::as_const(m_nodes))
            m->start();
        return;
    }
    qRegisterMetaType<lockscope::TopologyEvent>();
    qRegisterMetaType<lockscope::ClusterNodeStatus>();
    qRegisterMetaType<QVector<lockscope::ClusterNodeStatus>>();
    qRegisterMetaType<QVector<lockscope::TopologyEvent>>();
    m_known = m_router->topology();
    for (const QString &address : m_known.masters())
        addNode(address);
    connect(m_router, &ClusterRouter::topologyChanged, this, &ClusterLockMonitor::onTopologyChanged);
    m_router->startTopologyChecks(m_topologyCheckMs);
    if (!m_oneShot) {
        m_watcherCheck = new QTimer(this);
        m_watcherCheck->setInterval(2000);
        connect(m_watcherCheck, &QTimer::timeout, this, &ClusterLockMonitor::refreshWatchers);
        m_watcherCheck->start();
    }
    refreshWatchers();
    for (LockMonitor *m : std::as_const(m_nodes))
        m->start();
    updateLiveMasters();
}

LockMonitor *ClusterLockMonitor::addNode(const QString &address)
{
    RedisConnection *conn = m_router->connectionFor(address);
    RedisSubscriber *sub = m_router->pool()->subscriber(m_router->endpointFor(address));
    if (!m_oneShot)
        sub->open();
    auto *m = new LockMonitor(conn, sub, this);
    m->setSubscriberDiscount([this, address](const QString &lock) { return watchersOf(address, lock); });
    m->setPattern(m_pattern);
    m->setForcePolling(m_forcePolling);
    m->setOneShot(m_oneShot);
    m->setPollIntervalMs(m_pollIntervalMs);
    m->setPollBudget(m_pollBudget / qMax(1, int(m_router->topology().masters().size())));
    m->setPriorityLocks(m_priority);
    ClusterRouter *router = m_router;
    m->setClusterNode(
        [router, address](const QString &name) {
            return router->topology().masterForKey(RedisBytes::toBytes(name)) == address;
        },
        [this](const QString &name, const QString &hint) { markDirty(name, hint); }, router->sender());
    m_nodes.insert(address, m);
    connect(m, &LockMonitor::modeChanged, this, [this, address](LockMonitor::Mode mode, const QString &detail) {
        updateLiveMasters();
        emit modeChanged(mode, QStringLiteral("%1: %2 %3").arg(address, detail, liveSuffix()));
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
    connect(m, &LockMonitor::discoveryProgress, this,
            [this, address](qint64 scanned, qint64 found, bool finished, qint64 total) {
                Progress &mine = m_progress[address];
                mine.scanned = scanned;
                mine.found = found;
                mine.finished = finished;
                mine.total = total;
                Progress sum;
                sum.total = 0;
                sum.finished = m_progress.size() == m_nodes.size();
                for (const Progress &p : std::as_const(m_progress)) {
                    sum.scanned += p.scanned;
                    sum.found += p.found;
                    sum.finished = sum.finished && p.finished;
                    sum.total = sum.total < 0 || p.total < 0 ? -1 : sum.total + p.total;
                }
                emit discoveryProgress(sum.scanned, sum.found, sum.finished, sum.total);
                // Per-master progress for the topology view: at most every 250 ms, and at the end.
                if (finished || !m_progressClock.isValid() || m_progressClock.elapsed() >= 250) {
                    m_progressClock.start();
                    emit nodesChanged();
                }
            });
    connect(m, &LockMonitor::idle, this, [this, address] {
        m_idleSeen.insert(address);
        if (isIdle())
            emit idle();
    });
    return m;
}

void ClusterLockMonitor::retireNode(const QString &address)
{
    LockMonitor *m = m_nodes.take(address);
    if (!m)
        return;
    disconnect(m, nullptr, this, nullptr);
    m->deleteLater();
    m_progress.remove(address);
    m_idleSeen.remove(address);
    if (ShardedSubscriber *sharded = m_sharded.take(address))
        sharded->deleteLater();
    // The node is gone or a replica now: stop reconnecting to it (connectionFor() reopens it
    // should it serve slots again).
    const RedisEndpoint ep = m_router->endpointFor(address);
    m_router->pool()->subscriber(ep)->close();
    m_router->pool()->connection(ep)->close();
}

int ClusterLockMonitor::liveMasters() const
{
    int live = 0;
    for (const LockMonitor *m : m_nodes)
        live += (m->mode() == LockMonitor::Mode::Live || m->mode() == LockMonitor::Mode::Polling) ? 1 : 0;
    return live;
}

QString ClusterLockMonitor::liveSuffix() const
{
    return QStringLiteral("(%1 of %2 masters live)").arg(liveMasters()).arg(m_nodes.size());
}

QVector<LockWatcher::Mode> ClusterLockMonitor::serverModes() const
{
    QVector<Mode> modes;
    for (const LockMonitor *m : m_nodes)
        modes << m->mode();
    return modes;
}

QVector<ClusterNodeStatus> ClusterLockMonitor::nodeStatuses() const
{
    const ClusterTopology current = m_router->topology();
    QStringList addresses = m_known.isValid() ? m_known.masters() : current.masters();
    for (auto it = m_nodes.cbegin(); it != m_nodes.cend(); ++it)
        if (!addresses.contains(it.key()))
            addresses << it.key();
    std::sort(addresses.begin(), addresses.end());
    QVector<ClusterNodeStatus> out;
    for (const QString &address : addresses) {
        ClusterNodeStatus n;
        n.address = address;
        n.slotRanges = (m_known.isValid() ? m_known : current).slotsOf(address);
        for (const auto &r : (m_known.isValid() ? m_known : current).ranges())
            if (r.master == address)
                for (const QString &replica : r.replicas)
                    if (!n.replicas.contains(replica))
                        n.replicas << replica;
        if (const LockMonitor *m = m_nodes.value(address)) {
            n.mode = m->mode();
            n.detail = m->modeDetail();
        } else {
            n.mode = LockMonitor::Mode::Disconnected;
        }
        n.down = current.slotsOf(address).isEmpty();
        const auto progress = m_progress.constFind(address);
        if (progress != m_progress.cend()) {
            n.scannedKeys = progress->scanned;
            n.locksFound = progress->found;
            n.scanFinished = progress->finished;
        }
        out << n;
    }
    return out;
}

void ClusterLockMonitor::updateLiveMasters()
{
    emit nodesChanged();
    const int live = liveMasters();
    const int masters = int(m_nodes.size());
    if (live == m_reportedLive && masters == m_reportedMasters)
        return;
    m_reportedLive = live;
    m_reportedMasters = masters;
    emit liveMastersChanged(live, masters);
}

void ClusterLockMonitor::onTopologyChanged()
{
    const ClusterTopology now = m_router->topology();
    // Slots of a master marked failed stay attributed to it until some master serves them.
    const ClusterTopology merged = now.mergedOver(m_known);
    const QVector<ClusterTopology::Handover> handovers = ClusterTopology::handovers(m_known, merged);
    const QStringList servingNow = now.masters();
    const QStringList followed = merged.masters();
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    QVector<TopologyEvent> events;

    for (const QString &address : followed) {
        if (!servingNow.contains(address) && !m_down.contains(address)) {
            m_down.insert(address);
            const auto served = merged.slotsOf(address);
            events.append({nowMs, QStringLiteral("master_down"), address, QString(), served, 0, 0,
                           QStringLiteral("master %1 is marked failed or unreachable: no master serves slots %2 until "
                                          "a replica takes over; its locks are shown as last read")
                               .arg(address, ClusterTopology::describeSlots(served))});
        }
    }
    for (auto it = m_down.begin(); it != m_down.end();) {
        if (servingNow.contains(*it) || !followed.contains(*it))
            it = m_down.erase(it);
        else
            ++it;
    }

    // Masters new to us: their slots were either watched on another master (handover) or not.
    QVector<LockMonitor *> added;
    for (const QString &address : followed) {
        if (m_nodes.contains(address))
            continue;
        LockMonitor *m = addNode(address);
        m->adoptLocks({});
        added << m;
        const bool takesOver = std::any_of(handovers.cbegin(), handovers.cend(),
                                           [&address](const ClusterTopology::Handover &h) { return h.to == address; });
        if (!takesOver) {
            const auto served = merged.slotsOf(address);
            events.append(
                {nowMs, QStringLiteral("master_added"), QString(), address, served, 0, 0,
                 QStringLiteral("new master %1 serves slots %2").arg(address, ClusterTopology::describeSlots(served))});
        }
    }

    // Hand every lock to the monitor of the master that serves its slot now.
    QStringList lost;
    for (auto it = m_nodes.cbegin(); it != m_nodes.cend(); ++it) {
        const QString &address = it.key();
        const bool retiring = !followed.contains(address);
        QHash<QString, QStringList> moving; // new owner -> names
        for (auto l = it.value()->locks().cbegin(); l != it.value()->locks().cend(); ++l) {
            const QString owner = merged.masterForKey(RedisBytes::toBytes(l.key()));
            if (owner == address)
                continue;
            if (m_nodes.contains(owner))
                moving[owner] << l.key();
            else if (retiring)
                lost << l.key();
        }
        for (auto m = moving.cbegin(); m != moving.cend(); ++m)
            m_nodes.value(m.key())->adoptLocks(it.value()->takeLocks(m.value()));
    }
    for (const QString &address : m_nodes.keys())
        if (!followed.contains(address))
            retireNode(address);
    if (!lost.isEmpty()) {
        trackSharded({}, lost);
        emit locksUpdated({}, lost);
    }

    // Sharded unlock channels follow their slot: subscribed again on the new owner when the
    // handed-over lock is re-read (trackSharded()).
    for (auto it = m_shardedNode.begin(); it != m_shardedNode.end();) {
        const QString channel = RedisBytes::toText(it.key());
        QString name = LockNames::lockNameFromUnlockChannel(channel);
        if (name.isEmpty())
            name = LockNames::lockNameFromReadWriteChannel(channel);
        const QString owner = now.masterForKey(RedisBytes::toBytes(name));
        if (name.isEmpty() || owner == it.value()) {
            ++it;
            continue;
        }
        if (ShardedSubscriber *old = m_sharded.value(it.value()))
            old->sunsubscribe(it.key());
        it = m_shardedNode.erase(it);
        if (LockMonitor *m = m_nodes.value(owner))
            for (const QString &n : LockNames::withTwin(name)) // same slot: the tag is the name
                m->markDirty(n);
    }

    for (const ClusterTopology::Handover &h : handovers) {
        const bool failover = !followed.contains(h.from);
        const QString slotText = ClusterTopology::describeSlots(h.slotRanges);
        events.append({nowMs, failover ? QStringLiteral("failover") : QStringLiteral("slots_moved"), h.from, h.to,
                       h.slotRanges, 0, 0,
                       failover ? QStringLiteral("failover: %1 took over slots %2 from %3, which is no longer a master")
                                      .arg(h.to, slotText, h.from)
                                : QStringLiteral("slots %1 moved from %2 to %3").arg(slotText, h.from, h.to)});
    }
    m_known = merged;

    for (LockMonitor *m : std::as_const(added)) {
        m->start();
        if (m_notificationsRequested)
            m->enableNotifications(); // the operator asked for them on every master
    }
    updateLiveMasters();
    if (events.isEmpty())
        return;
    // New masters are still connecting here: say so, modeChanged() tells when they are live.
    const QString suffix = added.isEmpty() ? liveSuffix()
                                           : QStringLiteral("(%1 of %2 masters live; connecting to the new master)")
                                                 .arg(liveMasters())
                                                 .arg(m_nodes.size());
    for (TopologyEvent &e : events) {
        e.mastersLive = liveMasters();
        e.masters = int(m_nodes.size());
        e.detail += QLatin1Char(' ') + suffix;
    }
    emit topologyChanged(events);
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
    m_notificationsRequested = true;
    for (LockMonitor *m : std::as_const(m_nodes))
        m->enableNotifications();
}

QString ClusterLockMonitor::nodeOf(const QString &name) const
{
    return m_router->topology().masterForKey(RedisBytes::toBytes(name));
}

LockMonitor *ClusterLockMonitor::monitorOf(const QString &name) const
{
    return m_nodes.value(nodeOf(name));
}

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

LockSnapshot ClusterLockMonitor::lock(const QString &name) const
{
    for (LockMonitor *m : m_nodes) {
        LockSnapshot s = m->lock(name);
        if (!s.name.isEmpty())
            return s;
    }
    return {};
}

void ClusterLockMonitor::forEachLock(const std::function<void(const LockSnapshot &)> &visit) const
{
    for (LockMonitor *m : m_nodes)
        m->forEachLock(visit);
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

namespace lockscope
{

void ClusterLockMonitor::trackSharded(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    if (m_forcePolling)
        return;
    auto follow = [this](const QByteArray &channel, const QString &node) {
        const QString current = m_shardedNode.value(channel);
        if (node.isEmpty() || current == node)
            return;
        if (!current.isEmpty())
            shardedFor(current)->sunsubscribe(channel);
        shardedFor(node)->ssubscribe(channel);
        m_shardedNode.insert(channel, node);
    };
    auto drop = [this](const QByteArray &channel) {
        const QString node = m_shardedNode.take(channel);
        if (!node.isEmpty())
            shardedFor(node)->sunsubscribe(channel);
    };
    for (const LockSnapshot &s : changed) {
        if (!s.isLock || (!s.exists && s.waiters.isEmpty()))
            continue;
        const QString node = nodeOf(s.name);
        if (s.exists)
            follow(RedisBytes::toBytes((s.kind == LockKind::ReadWriteLock ? LockNames::readWriteChannel(s.name)
                                                                          : LockNames::unlockChannel(s.name))),
                   node);
        // A fair lock wakes only its head waiter, on that waiter's own channel (§3.5): follow
        // each queued waiter's channel, and let go of those that left the queue.
        QSet<QByteArray> &waiterChannels = m_fairWaiterChannels[s.name];
        QSet<QByteArray> now;
        for (const LockWaiter &w : s.waiters)
            now.insert(RedisBytes::toBytes((LockNames::unlockChannel(s.name) + QLatin1Char(':') + w.field)));
        for (const QByteArray &c : std::as_const(now))
            follow(c, node);
        for (const QByteArray &c : std::as_const(waiterChannels))
            if (!now.contains(c))
                drop(c);
        if (now.isEmpty())
            m_fairWaiterChannels.remove(s.name);
        else
            waiterChannels = now;
    }
    for (const QString &name : removed) {
        for (const QString &c : {LockNames::unlockChannel(name), LockNames::readWriteChannel(name)})
            drop(RedisBytes::toBytes(c));
        for (const QByteArray &c : m_fairWaiterChannels.take(name))
            drop(c);
    }
}

QByteArray ClusterLockMonitor::watcherClientName(const QString &pattern)
{
    const QByteArray p = pattern.toUtf8();
    if (pattern == QLatin1String("*") || p.isEmpty() || p.size() > 200 || p.contains(' ') || p.contains('\n') ||
        p.contains('\r'))
        return "lockscope-watch";
    return "lockscope-watch:" + p;
}

QVector<QRegularExpression> ClusterLockMonitor::watcherPatterns(const QVector<ClientListEntry> &list)
{
    QVector<QRegularExpression> out;
    for (const ClientListEntry &e : list) {
        if (e.shardSubscriptions <= 0 || !e.name.startsWith(QLatin1String("lockscope-watch")))
            continue;
        const QString pattern =
            e.name.startsWith(QLatin1String("lockscope-watch:")) ? e.name.mid(16) : QStringLiteral("*");
        out << LockDiscovery::globToRegex(pattern);
    }
    return out;
}

void ClusterLockMonitor::refreshWatchers()
{
    for (const QString &address : m_nodes.keys()) {
        RedisConnection *conn = m_router->connectionFor(address);
        if (!conn || !conn->isReady())
            continue;
        conn->send({"CLIENT", "LIST", "TYPE", "pubsub"}, this, [this, address](const RedisReply &r) {
            if (r.isError())
                return; // CLIENT refused: subscribers are counted as Redis says
            m_watchers.insert(address, watcherPatterns(ClientListEntry::parse(r.toByteArray(), address)));
        });
    }
}

qint64 ClusterLockMonitor::watchersMatching(const QVector<QRegularExpression> &patterns, const QString &name)
{
    qint64 n = 0;
    const QString matchable = RedisBytes::matchable(name);
    for (const QRegularExpression &re : patterns)
        n += re.match(matchable).hasMatch();
    return n;
}

qint64 ClusterLockMonitor::watchersOf(const QString &address, const QString &lock) const
{
    qint64 n = watchersMatching(m_watchers.value(address), lock);
    // This monitor's own subscription before the first CLIENT LIST has listed it.
    if (!m_watchers.contains(address) &&
        m_shardedNode.value(RedisBytes::toBytes(LockNames::unlockChannel(lock))) == address)
        ++n;
    return n;
}

ShardedSubscriber *ClusterLockMonitor::shardedFor(const QString &address)
{
    ShardedSubscriber *&sub = m_sharded[address];
    if (!sub) {
        sub = new ShardedSubscriber(m_router->endpointFor(address), this);
        sub->setClientName(watcherClientName(m_pattern)); // no LockScope counts it as a waiter
        connect(sub, &ShardedSubscriber::message, this, &ClusterLockMonitor::onShardedMessage);
        connect(sub, &ShardedSubscriber::lost, this, [this](const QByteArray &channel) {
            // The slot moved: forget it, learn the new owner, and re-read the lock (which
            // subscribes again there through trackSharded()).
            m_shardedNode.remove(channel);
            m_router->refresh();
            QString name = LockNames::lockNameFromUnlockChannel(RedisBytes::toText(channel));
            if (name.isEmpty())
                name = LockNames::lockNameFromReadWriteChannel(RedisBytes::toText(channel));
            for (const QString &n : LockNames::withTwin(name)) // §14.4: the channel is both's
                markDirty(n);
        });
        sub->open();
    }
    return sub;
}

void ClusterLockMonitor::onShardedMessage(const QByteArray &channelBytes, const QByteArray &payload)
{
    const QString channel = RedisBytes::toText(channelBytes);
    QString name = LockNames::lockNameFromUnlockChannel(channel);
    if (name.isEmpty())
        name = LockNames::lockNameFromReadWriteChannel(channel);
    if (name.isEmpty())
        return;
    // `x` and `{x}` share the channel (§14.4): file it under the listed lock whose hash exists,
    // else a listed one, else the plain name; re-read both.
    const QStringList candidates = LockNames::withTwin(name);
    const QHash<QString, LockSnapshot> known = locks();
    QString owner;
    for (const QString &n : candidates)
        if (owner.isEmpty() && known.contains(n) && known.value(n).exists)
            owner = n;
    for (const QString &n : candidates)
        if (owner.isEmpty() && known.contains(n))
            owner = n;
    name = owner.isEmpty() ? candidates.value(0) : owner;
    for (const QString &n : candidates)
        if (n != name)
            markDirty(n);
    LockEvent e;
    e.timeMs = QDateTime::currentMSecsSinceEpoch();
    e.lock = name;
    e.type = QStringLiteral("unlock_message");
    e.detail =
        QStringLiteral("sharded message %1 on %2 (SPUBLISH, Redisson 3.22+)").arg(RedisBytes::toText(payload), channel);
    emit eventsOccurred({e});
    markDirty(name);
}

} // namespace lockscope
