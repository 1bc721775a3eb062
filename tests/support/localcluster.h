#pragma once

#include "endpoint/redisendpoint.h"

#include <QList>
#include <QString>

#include <memory>
#include <vector>

namespace lockscope
{
class RedisServerProcess;
}

namespace lockscope::test
{

/**
 * A real Redis Cluster of `masters` masters, each with `replicasPerMaster` replicas, on loopback,
 * for tests: one private redis-server per node (RedisServerProcess: own temp dir, free port, an
 * explicit free cluster bus port, `--cluster-enabled yes`), joined with `redis-cli --cluster
 * create ... --cluster-replicas N --cluster-yes`, ready once every node reports
 * `cluster_state:ok`, lists every master with all its replicas, and every replica's link to its
 * master is up. Nodes 0 .. masters-1 start as masters (redis-cli picks the first ones on one
 * host). Everything is killed by stop() or the destructor.
 *
 * Failover: kill() (SIGKILL) or pause() (SIGSTOP) a master; after about two
 * `cluster-node-timeout`s (setNodeTimeoutMs(), 5000 ms by default; replicas always fail over,
 * `cluster-replica-validity-factor 0`) one of its replicas is promoted: waitForPromotion().
 */
class LocalCluster
{
public:
    LocalCluster();
    ~LocalCluster();

    /** `cluster-node-timeout` in ms of the nodes started next (failure detection time). */
    void setNodeTimeoutMs(int ms) { m_nodeTimeoutMs = ms; }

    /** Starts and joins the nodes (blocking, spins the event loop). */
    bool start(int masters = 3, QString *error = nullptr);
    /** Same with `replicasPerMaster` replicas per master (masters * (1 + replicas) nodes). */
    bool start(int masters, int replicasPerMaster, QString *error);
    void stop();

    /** SIGKILL node i (a crash: no goodbye to the cluster, connections reset). */
    void kill(int i);
    /** SIGSTOP node i (hung: connections stay open, nothing answers). resume() is SIGCONT. */
    void pause(int i);
    void resume(int i);
    /** Node i was neither killed nor paused. */
    bool isUp(int i) const;
    /** Node i says (ROLE) it is a master; false when it does not answer. */
    bool isMaster(int i) const;
    /** Index of the master node i replicates (ROLE), -1 when node i is a master or down. */
    int masterOf(int i) const;
    /** Indexes of the live nodes that replicate master i. */
    QList<int> replicasOf(int i) const;
    /**
     * Waits (spinning the event loop) until one of the replicas that `deadMaster` had is a master
     * serving slots for every live node's CLUSTER SLOTS; returns its index, -1 on timeout.
     * `replicas` is replicasOf(deadMaster) taken before the kill.
     */
    int waitForPromotion(const QList<int> &replicas, int timeoutMs = 30000) const;

    int size() const { return int(m_nodes.size()); }
    quint16 port(int i) const;
    RedisEndpoint endpoint(int i) const;
    QString url(int i) const;
    /** Index of the node serving `key`'s slot (by CLUSTER SLOTS of the first live node), -1 if unknown. */
    int nodeOf(const QByteArray &key) const;
    /** Index of the node listening on `port`, -1 if none. */
    int indexOfPort(quint16 port) const;
    /** CLUSTER MYID of node i. */
    QByteArray nodeId(int i) const;

private:
    std::vector<std::unique_ptr<RedisServerProcess>> m_nodes;
    std::vector<bool> m_down; ///< killed or paused
    int m_nodeTimeoutMs = 5000;
};

} // namespace lockscope::test
