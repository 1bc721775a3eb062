#pragma once

#include "clustertopology.h"
#include "redisconnection.h"

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>

namespace lockscope
{

class RedisConnectionPool;
class RedisScript;

/**
 * Sends commands to the master that serves a key's hash slot, over the pool's connection of that
 * node, and follows the cluster's redirects transparently (at most 5 per command):
 *
 * - `MOVED <slot> <host:port>`: the slot has a new owner. The router records it at once, refreshes
 *   the whole topology in the background and resends to the new owner.
 * - `ASK <slot> <host:port>`: the slot is being migrated and this key already lives on the
 *   target: resend there once, preceded by `ASKING` (pipelined), without changing the topology.
 * - A lost connection to a node triggers a topology refresh (failover, node removed), repeated
 *   every second while a master's connection is down or some slot has no master (a master the
 *   cluster marked failed is left out until a replica is promoted, ~2 x cluster-node-timeout;
 *   a cluster that leaves slots uncovered for good is thus asked once a second).
 * - startTopologyChecks() also refreshes periodically (one cheap `CLUSTER SHARDS`), for changes
 *   that reach us without an error: a failover of a node we had no connection to, a new master.
 *
 * Cluster mode is detected with detect() (`INFO cluster`, `cluster_enabled:1`) and the topology is
 * read with load() (`CLUSTER SHARDS`, falling back to `CLUSTER SLOTS` on servers before 7.0).
 * Lives on one thread; callbacks run there, exactly once, unless `context` died first.
 */
class ClusterRouter : public QObject
{
    Q_OBJECT
public:
    using TopologyCallback = std::function<void(const ClusterTopology &topology, const QString &error)>;

    ClusterRouter(RedisConnectionPool *pool, const ClusterTopology &topology, QObject *parent = nullptr);

    /** Asks `connection` whether it is a cluster node. `error` set (and `cluster` false) when the
     *  question itself failed (e.g. INFO refused by an ACL). */
    static void detect(RedisConnection *connection, QObject *context,
                       std::function<void(bool cluster, const QString &error)> callback);
    /** Reads the topology through `connection`: CLUSTER SHARDS, then CLUSTER SLOTS; with it
     *  whether the cluster offers sharded pub/sub (PUBSUB SHARDNUMSUB answers, as Redisson's
     *  AUTO mode asks: ClusterTopology::shardedPubSub()). */
    static void load(RedisConnection *connection, QObject *context, TopologyCallback callback);

    const ClusterTopology &topology() const { return m_topology; }
    /** Replaces the topology; topologyChanged() only when it differs. */
    void setTopology(const ClusterTopology &topology);
    RedisConnectionPool *pool() const { return m_pool; }

    /** Endpoint (seed credentials and TLS) of a node address. */
    RedisEndpoint endpointFor(const QString &address) const;
    /** The pool's command connection of `address`, opened. */
    RedisConnection *connectionFor(const QString &address);

    /** Sends `argv` to the master of `key`'s slot, following MOVED and ASK. */
    void send(const QByteArray &key, const QList<QByteArray> &argv, QObject *context,
              RedisConnection::ReplyCallback callback);
    /** send() as a value that may outlive the router: once the router is gone, each call
     *  answers at once with a transport error ("the cluster connection is closed"). What
     *  SnapshotReader::setRoutedSend() takes. */
    std::function<void(const QByteArray &key, const QList<QByteArray> &argv, QObject *context,
                       RedisConnection::ReplyCallback callback)>
    sender();
    /** EVALSHA (EVAL on NOSCRIPT) routed by the slot of keys.first(). */
    void eval(const RedisScript &script, const QList<QByteArray> &keys, const QList<QByteArray> &args, QObject *context,
              RedisConnection::ReplyCallback callback);
    /** Re-reads the topology from any reachable master (the seed last); a node that does not
     *  answer within 2 s is passed over for the next one. */
    void refresh();
    /** Refreshes every `intervalMs` (ms, >= 100) until stopTopologyChecks(), e.g. while watching. */
    void startTopologyChecks(int intervalMs);
    void stopTopologyChecks();

    /** Redirects followed so far (for tests and the status line). */
    int movedCount() const { return m_moved; }
    int askCount() const { return m_asked; }

signals:
    /** The topology differs from the one before (failover, slot migration, MOVED refresh). */
    void topologyChanged();

private:
    void sendTo(const QString &address, const QList<QByteArray> &argv, bool asking, int redirectsLeft, QObject *context,
                bool hasContext, RedisConnection::ReplyCallback callback);
    void refreshFrom(QStringList candidates);
    /** A master we talk to is unreachable, or some slot has no master: keep refreshing fast. */
    bool needsFastRefresh() const;

    RedisConnectionPool *m_pool;
    ClusterTopology m_topology;
    QSet<RedisConnection *> m_watched; ///< connections whose loss triggers a refresh
    bool m_refreshing = false;
    bool m_refreshAgain = false;
    int m_moved = 0;
    int m_asked = 0;
    QTimer m_checkTimer; ///< startTopologyChecks()
    QTimer m_fastTimer;  ///< after a lost connection, until needsFastRefresh() is false
};

} // namespace lockscope
