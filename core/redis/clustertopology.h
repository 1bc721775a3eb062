#pragma once

#include "endpoint/redisendpoint.h"
#include "redisreply.h"

#include <QByteArray>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * Which master serves which hash slot of a Redis Cluster (a plain value type).
 *
 * Built from `CLUSTER SHARDS` (Redis >= 7) or `CLUSTER SLOTS` (older servers); addresses are
 * "host:port" strings, the keys of RedisConnectionPool. A node that reports no usable host
 * ("" or "?") is reached on the host of the node that answered. endpointFor() turns an address
 * into a RedisEndpoint carrying the seed's user, password, TLS options and db, so every node is
 * reached the way the operator asked to reach the first one.
 */
class ClusterTopology
{
public:
    struct Range {
        int first = 0;
        int last = 0;
        QString master;       ///< "host:port"
        QStringList replicas; ///< "host:port" each
    };

    /** Slots that changed master between two topologies (a failover or a slot migration). */
    struct Handover {
        QString from;                        ///< previous master, "host:port"
        QString to;                          ///< master serving them now, "host:port"
        QVector<QPair<int, int>> slotRanges; ///< inclusive [first, last], ascending ("slots" is a Qt keyword)
    };

    ClusterTopology() = default;

    /** Parses a `CLUSTER SHARDS` reply. `fallbackHost` replaces an unknown host. */
    static ClusterTopology fromShards(const RedisReply &reply, const QString &fallbackHost, QString *error = nullptr);
    /** Parses a `CLUSTER SLOTS` reply. */
    static ClusterTopology fromSlots(const RedisReply &reply, const QString &fallbackHost, QString *error = nullptr);
    /**
     * A server that is not a cluster node (a single server, or the master a Sentinel names) as a
     * topology: one master, `address`, serving all 16384 slots, no replicas, no sharded pub/sub
     * (Redisson publishes with PUBLISH there). isCluster() is false. Lets LockSession route every
     * lock through one path whether it watches one server or a cluster.
     */
    static ClusterTopology singleMaster(const QString &address);
    /** False for singleMaster(), true otherwise (a topology read from a cluster node). */
    bool isCluster() const { return !m_singleServer; }

    /** At least one slot has a master. */
    bool isValid() const { return !m_ranges.isEmpty(); }
    /** Every one of the 16384 slots has a master. */
    bool coversAllSlots() const;
    const QVector<Range> &ranges() const { return m_ranges; }
    /** Distinct master addresses, sorted. */
    QStringList masters() const;
    /** Master address of `slot`, empty when no master serves it. */
    QString masterForSlot(int slot) const;
    QString masterForKey(const QByteArray &key) const;
    /** Inclusive slot ranges served by `master`, ascending (adjacent ranges joined). */
    QVector<QPair<int, int>> slotsOf(const QString &master) const;
    /**
     * This topology, plus the ranges of `older` for slots this one has no master for. A master the
     * cluster marked failed is left out of `CLUSTER SHARDS` until a replica takes over; merging
     * keeps its slots attributed to it meanwhile, so the handover to the replica can be seen.
     */
    ClusterTopology mergedOver(const ClusterTopology &older) const;
    /**
     * Slots served by a master in both `before` and `after` whose master differs, grouped by
     * (from, to). Slots without a master on either side are not handovers.
     */
    static QVector<Handover> handovers(const ClusterTopology &before, const ClusterTopology &after);
    /** "0-5460, 5462" style text of slot ranges. */
    static QString describeSlots(const QVector<QPair<int, int>> &ranges);

    /**
     * The cluster offers sharded pub/sub: `PUBSUB SHARDNUMSUB` succeeded on the node that
     * answered (Redis/Valkey >= 7), which is how Redisson's default `shardedSubscriptionMode=AUTO`
     * decides (protocol §1.3, §14.3). Redisson clients then publish unlock messages with
     * `SPUBLISH` and wait with `SSUBSCRIBE`; so does LockScope (publishCommand()). Set by
     * ClusterRouter::load(); false for a topology parsed alone.
     */
    bool shardedPubSub() const { return m_shardedPubSub; }
    void setShardedPubSub(bool on) { m_shardedPubSub = on; }
    /** The publish verb Redisson uses on this cluster: "spublish" with sharded pub/sub, else "publish". */
    QByteArray publishCommand() const
    {
        return m_shardedPubSub ? QByteArrayLiteral("spublish") : QByteArrayLiteral("publish");
    }

    /** Same slot ranges, masters, replicas, sharded pub/sub support and isCluster(). */
    bool operator==(const ClusterTopology &other) const;
    bool operator!=(const ClusterTopology &other) const { return !(*this == other); }

    /** Records a MOVED redirect: `slot` is now served by `address` (until the next refresh). */
    void setMaster(int slot, const QString &address);

    /** `seed` with its host and port replaced by those of `address` ("host:port"). */
    static RedisEndpoint endpointFor(const QString &address, const RedisEndpoint &seed);
    /** Splits "host:port" (IPv6 "[::1]:port" too); false when malformed. */
    static bool splitAddress(const QString &address, QString *host, quint16 *port);

private:
    void normalise();
    /** Index into m_ranges of every slot's range, -1 where no master serves it. */
    QVector<int> slotIndex() const;

    QVector<Range> m_ranges; ///< sorted by first slot, non-overlapping
    bool m_shardedPubSub = false;
    bool m_singleServer = false; ///< singleMaster(): not a cluster
};

} // namespace lockscope
