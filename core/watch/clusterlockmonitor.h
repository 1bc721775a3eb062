#pragma once

#include "protocol/clusternodestatus.h"
#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"
#include "protocol/topologyevent.h"
#include "watch/lockmonitor.h"

#include "redis/clientlistentry.h"
#include "redis/clustertopology.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMap>
#include <QObject>
#include <QRegularExpression>
#include <QSet>
#include <QTimer>

namespace lockscope
{

class ClusterRouter;
class ShardedSubscriber;

/**
 * Watches every master of a Redis Cluster: one LockMonitor per master (SCAN, keyspace
 * notifications and PSUBSCRIBE are per node), each reading only the names whose slot that
 * master serves, merged into one lock set. Signals carry the same value types as LockMonitor's,
 * so LockSession, the CLI and the GUI consume them unchanged.
 *
 * Unless polling, every lock's unlock channel (and each queued fair-lock waiter's own channel) is
 * also watched with `SSUBSCRIBE` on the master that owns it, since Redisson 3.22+ on Redis 7
 * publishes there (sharded pub/sub, protocol §1.3); a channel whose slot moves away is subscribed
 * again on the new owner when the lock is re-read.
 *
 * Masters are taken from the router's topology at start(); from then on the router re-reads the
 * topology every few seconds (and every second while a master is unreachable), and each change
 * is followed (Redis Cluster failover, `CLUSTER SETSLOT ... NODE`, a new master):
 *
 * - A master that dropped out of `CLUSTER SHARDS` (marked failed) keeps its monitor, showing its
 *   locks as last read (`master_down`), until another master serves its slots.
 * - A new master gets a LockMonitor (and sharded subscriptions, and the keyspace notifications
 *   the operator enabled earlier); locks whose slots it took over are handed to it from the old
 *   master's monitor and re-read there, so a lock still held is not reported released, acquired
 *   again or expired, while one lost in the failover is reported released or expired.
 * - The monitor of a master that no longer serves slots is retired (its connections closed).
 * - Each change is reported as a TopologyEvent (`failover`, `slots_moved`, ...), and
 *   liveMastersChanged() says how many masters are read from.
 *
 * Size (the .cpp is about 500 lines): the topology follow-up above (new, failed and retired
 * masters, slot hand-overs between their monitors) is one algorithm over one per-master map.
 */
class ClusterLockMonitor : public LockWatcher
{
    Q_OBJECT
public:
    ClusterLockMonitor(ClusterRouter *router, QObject *parent = nullptr);

    void setPattern(const QString &glob) override;
    void setForcePolling(bool on) override { m_forcePolling = on; }
    /** LockMonitor::setOneShot() on every master (no subscriptions). Call before start(). */
    void setOneShot(bool on) override { m_oneShot = on; }
    void setPollIntervalMs(int ms) override { m_pollIntervalMs = ms; }
    /** LockMonitor::setPollBudget(): the budget is shared evenly by the masters. Call before start(). */
    void setPollBudget(int commandsPerSecond) override { m_pollBudget = commandsPerSecond; }
    /** LockMonitor::setPriorityLocks() on every master (each keeps the names it serves). */
    void setPriorityLocks(const QStringList &names) override;
    /** Period of the topology check while watching, ms (default 3000). Call before start(). */
    void setTopologyCheckIntervalMs(int ms) { m_topologyCheckMs = ms; }

    /** Creates (once) and starts one LockMonitor per master, and starts the topology checks. */
    void start() override;
    void rediscover() override;
    void cancelDiscovery() override;
    void enableNotifications() override;
    /** Routed to the monitor of the master serving `name`. */
    void markDirty(const QString &name, const QString &hint = QString()) override;
    void expectForceUnlock(const QString &name) override;

    /** The per-master monitors, by address ("host:port"). */
    const QMap<QString, LockMonitor *> &nodes() const { return m_nodes; }
    /** Masters whose monitor reads now (mode live or polling), out of nodes().size(). */
    int liveMasters() const;
    /** Every master watched, sorted by address, with its slots, replicas and monitor state. */
    QVector<ClusterNodeStatus> nodeStatuses() const;
    /** Every master's locks in one set. */
    QHash<QString, LockSnapshot> locks() const override;
    /** Each master's locks in turn, no merged copy. */
    void forEachLock(const std::function<void(const LockSnapshot &)> &visit) const override;
    /** The first master that has `name` answers (mid-migration a lock may be on its slot's old
     *  master still); none: an empty snapshot. */
    LockSnapshot lock(const QString &name) const override;
    /** Each master's monitor mode, in nodes() order. */
    QVector<Mode> serverModes() const override;
    /** Address of the master that serves `name` (from the router's topology). */
    QString nodeOf(const QString &name) const;
    bool isIdle() const override;

signals:
    /** (LockWatcher::modeChanged()'s `detail` starts with the master's address and ends with
     *  "(N of M masters live)"; discoveryProgress() sums over the masters.) */
    /** liveMasters() or nodes().size() changed. */
    void liveMastersChanged(int live, int masters);
    /** Something nodeStatuses() reports changed (a master's monitor state, the topology). */
    void nodesChanged();

private:
    struct Progress {
        qint64 scanned = 0;
        qint64 found = 0;
        qint64 total = -1;
        bool finished = false;
    };
    LockMonitor *monitorOf(const QString &name) const;
    LockMonitor *addNode(const QString &address);
    void retireNode(const QString &address);
    void onTopologyChanged();
    void updateLiveMasters();
    QString liveSuffix() const;
    void trackSharded(const QVector<LockSnapshot> &changed, const QStringList &removed);
    ShardedSubscriber *shardedFor(const QString &address);
    void onShardedMessage(const QByteArray &channel, const QByteArray &payload);
    /** CLIENT LIST TYPE pubsub on every master: the LockScope watchers subscribed there
     *  (connections named "lockscope-watch[:<pattern>]" with sharded subscriptions), whose
     *  subscriptions are no waiters (LockMonitor::setSubscriberDiscount). */
    void refreshWatchers();
    /** How many LockScope watchers on `address` subscribe to the channels of `lock`. */
    qint64 watchersOf(const QString &address, const QString &lock) const;

public:
    /** The client name of a watcher's sharded subscriptions for `pattern`: "lockscope-watch" plus
     *  ":<pattern>" when the pattern is not "*" and can be a client name (no spaces, short). */
    static QByteArray watcherClientName(const QString &pattern);
    /** The LockScope watchers listed on one master (CLIENT LIST TYPE pubsub): their patterns as
     *  regular expressions, one per watcher with sharded subscriptions. */
    static QVector<QRegularExpression> watcherPatterns(const QVector<ClientListEntry> &list);
    /** How many of `patterns` (watcherPatterns()) match lock `name`: the watchers subscribed to it. */
    static qint64 watchersMatching(const QVector<QRegularExpression> &patterns, const QString &name);

private:
    QHash<QString, QVector<QRegularExpression>> m_watchers; ///< master -> LockScope watchers' patterns there
    QTimer *m_watcherCheck = nullptr;

    ClusterRouter *m_router;
    QString m_pattern = QStringLiteral("*");
    bool m_forcePolling = false;
    bool m_oneShot = false;
    int m_pollIntervalMs = 1000;
    int m_pollBudget = 2000;
    QStringList m_priority;
    int m_topologyCheckMs = 3000;
    bool m_notificationsRequested = false; ///< enableNotifications() was asked: also on new masters
    ClusterTopology m_known;               ///< topology the monitors follow (failed masters' slots kept)
    QSet<QString> m_down;                  ///< masters reported master_down, not yet replaced
    int m_reportedLive = -1;
    int m_reportedMasters = -1;
    QMap<QString, LockMonitor *> m_nodes;
    QHash<QString, Progress> m_progress;
    QElapsedTimer m_progressClock;                         ///< throttles nodesChanged() during scans
    QHash<QString, ShardedSubscriber *> m_sharded;         ///< by master address
    QHash<QByteArray, QString> m_shardedNode;              ///< channel -> master it is SSUBSCRIBEd on
    QHash<QString, QSet<QByteArray>> m_fairWaiterChannels; ///< fair lock -> its queued waiters' channels followed
    QSet<QString> m_idleSeen; ///< masters whose monitor has been idle once (finished a first read)
};

} // namespace lockscope
