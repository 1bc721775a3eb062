#include "redisconnectionpool.h"

#include "redisconnection.h"
#include "redissubscriber.h"

namespace lockscope
{

RedisConnectionPool::RedisConnectionPool(const RedisEndpoint &seed, QObject *parent) : QObject(parent), m_seed(seed) {}

RedisConnection *RedisConnectionPool::connection(const RedisEndpoint &endpoint)
{
    const RedisEndpoint &ep = endpoint.isValid() ? endpoint : m_seed;
    auto it = m_connections.find(ep.address());
    if (it != m_connections.end())
        return it.value();
    auto *c = new RedisConnection(ep, this);
    m_connections.insert(ep.address(), c);
    return c;
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
    const RedisEndpoint &ep = endpoint.isValid() ? endpoint : m_seed;
    auto it = m_subscribers.find(ep.address());
    if (it != m_subscribers.end())
        return it.value();
    auto *s = new RedisSubscriber(ep, this);
    m_subscribers.insert(ep.address(), s);
    return s;
}

} // namespace lockscope
