#pragma once

#include "redis/redisendpoint.h"

#include <QList>
#include <QString>

#include <memory>
#include <vector>

namespace lockscope {
class RedisServerProcess;
}

namespace lockscope::test {

/**
 * A real Redis Cluster of `masters` masters (no replicas) on loopback, for tests: one private
 * redis-server per node (RedisServerProcess: own temp dir, free port, an explicit free cluster
 * bus port, `--cluster-enabled yes`), joined with `redis-cli --cluster create ... --cluster-yes`,
 * ready once every node reports `cluster_state:ok`. Everything is killed by stop() or the
 * destructor.
 */
class LocalCluster
{
public:
    LocalCluster();
    ~LocalCluster();

    /** Starts and joins the nodes (blocking, spins the event loop). */
    bool start(int masters = 3, QString *error = nullptr);
    void stop();

    int size() const { return int(m_nodes.size()); }
    quint16 port(int i) const;
    RedisEndpoint endpoint(int i) const;
    QString url(int i) const;
    /** Index of the node serving `key`'s slot (by CLUSTER SLOTS of node 0), -1 if unknown. */
    int nodeOf(const QByteArray &key) const;
    /** Index of the node listening on `port`, -1 if none. */
    int indexOfPort(quint16 port) const;
    /** CLUSTER MYID of node i. */
    QByteArray nodeId(int i) const;

private:
    std::vector<std::unique_ptr<RedisServerProcess>> m_nodes;
};

} // namespace lockscope::test
