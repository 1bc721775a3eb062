#pragma once

#include "endpoint/redisendpoint.h"

#include <QList>
#include <QObject>
#include <QPointer>

namespace lockscope
{

class FairLock;
class FencedLock;
class LockClient;
class ReadWriteLock;
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
 * - `jobs:nightly` (fair lock): four threads of three clients queue and take turns in FIFO order.
 * - `config:rw` (read-write lock): two readers overlap; a writer waits for them, then writes.
 * - `ledger:fenced` (fenced lock): taken and released every few seconds; its token climbs.
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
    void fairTurn(int client, qint64 threadId);
    void readerCycle(int client, qint64 threadId, int holdMs);
    void writerCycle();
    void fencedCycle();

    QList<RedisConnectionPool *> m_pools;
    QList<LockClient *> m_clients;
    QList<FairLock *> m_fair;
    QList<ReadWriteLock *> m_rw;
    QList<FencedLock *> m_fenced;
    bool m_running = false;
};

} // namespace lockscope
