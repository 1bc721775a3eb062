#include "redisconnectionpool.h"

#include "redisconnection.h"
#include "redissubscriber.h"

namespace lockscope
{

RedisConnectionPool::RedisConnectionPool(const RedisEndpoint &seed, QObject *parent) : QObject(parent), m_seed(seed) {}

namespace
{

/** The `Part` of `endpoint` in `parts`, made (a child of `pool`) on first use. */
template <typename Part> Part *partFor(QHash<QString, Part *> &parts, const RedisEndpoint &endpoint, QObject *pool)
{
    Part *&part = parts[endpoint.address()];
    if (!part)
        part = new Part(endpoint, pool);
    return part;
}

} // namespace

RedisConnection *RedisConnectionPool::connection(const RedisEndpoint &endpoint)
{
    return partFor(m_connections, endpoint.isValid() ? endpoint : m_seed, this);
}

RedisConnection *RedisConnectionPool::scanConnection(const RedisEndpoint &endpoint)
{
    const RedisEndpoint &ep = endpoint.isValid() ? endpoint : m_seed;
    RedisConnection *&c = m_scanConnections[ep.address()];
    if (!c) {
        c = new RedisConnection(ep, this);
        c->setClientName("lockscope-scan");
    }
    return c;
}

RedisSubscriber *RedisConnectionPool::subscriber(const RedisEndpoint &endpoint)
{
    return partFor(m_subscribers, endpoint.isValid() ? endpoint : m_seed, this);
}

} // namespace lockscope
