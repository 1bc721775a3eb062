#pragma once

#include "redis/redisendpoint.h"

#include <QList>
#include <QObject>
#include <QPointer>

namespace lockscope {

class LockClient;
class RedisConnection;
class RedisConnectionPool;

/**
 * Simulated Redisson clients for the demo: three client ids, several thread ids, real lock
 * scripts against the demo server. Scenarios (all repeat until stop()):
 * - `orders:42`: billing thread 1 holds it twice (reentrant) under the watchdog and never releases.
 * - `inventory:7`: inventory thread 17 takes a 20 s lease and lets it expire; again 5 s later.
 * - `payments:batch`: three clients contend; each holds 2-4 s, others wait on the unlock channel.
 * - `reports:daily`: report thread 1 re-enters to hold count 3, then releases one level every 2 s.
 * - `legacy:cron`: a hash written without a TTL by an old client, which never expires.
 */
class DemoWorkload : public QObject
{
    Q_OBJECT
public:
    /** Opens one command and one pub/sub connection per simulated client (as each RedissonClient
     *  has its own), so PUBSUB NUMSUB counts waiting clients as it would in production. */
    explicit DemoWorkload(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~DemoWorkload() override;

    void start();
    void stop();
    QList<LockClient *> clients() const { return m_clients; }

private:
    void contend(LockClient *client, qint64 threadId);
    void expiringLease();
    void reentrantCycle();

    QList<RedisConnectionPool *> m_pools;
    QList<LockClient *> m_clients;
    bool m_running = false;
};

} // namespace lockscope
