#pragma once

#include "redisendpoint.h"
#include "redisreply.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope {

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
    struct Range
    {
        int first = 0;
        int last = 0;
        QString master;       ///< "host:port"
        QStringList replicas; ///< "host:port" each
    };

    ClusterTopology() = default;

    /** Parses a `CLUSTER SHARDS` reply. `fallbackHost` replaces an unknown host. */
    static ClusterTopology fromShards(const RedisReply &reply, const QString &fallbackHost, QString *error = nullptr);
    /** Parses a `CLUSTER SLOTS` reply. */
    static ClusterTopology fromSlots(const RedisReply &reply, const QString &fallbackHost, QString *error = nullptr);

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
    /** Records a MOVED redirect: `slot` is now served by `address` (until the next refresh). */
    void setMaster(int slot, const QString &address);

    /** `seed` with its host and port replaced by those of `address` ("host:port"). */
    static RedisEndpoint endpointFor(const QString &address, const RedisEndpoint &seed);
    /** Splits "host:port" (IPv6 "[::1]:port" too); false when malformed. */
    static bool splitAddress(const QString &address, QString *host, quint16 *port);

private:
    void normalise();

    QVector<Range> m_ranges; ///< sorted by first slot, non-overlapping
};

} // namespace lockscope
