#pragma once

#include "endpoint/redisendpoint.h"

#include <QHash>
#include <QObject>

namespace lockscope
{

class RedisConnection;
class RedisSubscriber;

/**
 * Command and pub/sub connections keyed by server address ("host:port" or socket path).
 *
 * One server today; the cluster and sentinel support planned next asks the pool for the
 * connection of each node it routes to, so nothing above this class holds a socket of its own.
 * Connections are created on first use (not opened: the caller opens them on the thread they
 * live on) and owned by the pool.
 */
class RedisConnectionPool : public QObject
{
    Q_OBJECT
public:
    explicit RedisConnectionPool(const RedisEndpoint &seed, QObject *parent = nullptr);

    const RedisEndpoint &seed() const { return m_seed; }
    /** The command connection for `endpoint` (the seed when invalid/default). */
    RedisConnection *connection(const RedisEndpoint &endpoint = RedisEndpoint());
    /** A second command connection for `endpoint` (the seed when invalid/default), named
     *  "lockscope-scan", for long read-only chains of scan steps: on its own socket a discovery
     *  step does not wait behind the snapshot reads queued on connection() (200k locks among 1M
     *  keys: `list` 9 s with one connection, 7 s with two). Created on first use, not opened. */
    RedisConnection *scanConnection(const RedisEndpoint &endpoint = RedisEndpoint());
    /** The pub/sub connection for `endpoint` (the seed when invalid/default). */
    RedisSubscriber *subscriber(const RedisEndpoint &endpoint = RedisEndpoint());
    QList<RedisConnection *> connections() const { return m_connections.values(); }

private:
    RedisEndpoint m_seed;
    QHash<QString, RedisConnection *> m_connections;
    QHash<QString, RedisConnection *> m_scanConnections;
    QHash<QString, RedisSubscriber *> m_subscribers;
};

} // namespace lockscope
