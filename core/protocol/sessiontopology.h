#pragma once

#include "protocol/clusternodestatus.h"

#include <QMetaType>
#include <QVector>

namespace lockscope
{

/**
 * The masters a session reads and writes, as every face shows them (LockSession::topologyChanged).
 * A single server, or the master a Sentinel names, is a topology of one master serving all 16384
 * hash slots; a Redis Cluster lists every master (those the cluster marked failed too, `down`,
 * until a replica takes their slots). The dashboard shows its Cluster tab, node column and
 * masters count for a cluster only (isCluster()), whatever the number of masters.
 */
struct SessionTopology {
    enum class Kind {
        Single,   ///< one server (redis://, rediss://, unix socket)
        Sentinel, ///< the master a Sentinel names (redis-sentinel://); follows failovers
        Cluster,  ///< a Redis Cluster: the masters of CLUSTER SHARDS / CLUSTER SLOTS
    };
    Kind kind = Kind::Single;
    QVector<ClusterNodeStatus> masters; ///< sorted by address; one for Single and Sentinel

    bool isCluster() const { return kind == Kind::Cluster; }
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::SessionTopology)
