#pragma once

#include "endpoint/redisendpoint.h"
#include "protocol/lockevent.h"

#include <QObject>

namespace lockscope
{

class RedisConnectionPool;
class SentinelResolver;

/**
 * Redis Sentinel for LockSession (split out of it so the session reads as its concerns): the command and pub/sub
 * connections of `pool` ask the sentinels of a `redis-sentinel://` endpoint for the master at
 * each connect (SentinelResolver), follow a `+switch-master` at once (a `failover` LockEvent and
 * masterChanged()), and check with ROLE after each connect and on a READONLY or LOADING reply
 * that the server is still the master; if not, they ask the sentinels again (every second while
 * a failover is under way) and move. The session forwards the signals as its own.
 */
class SentinelFollower : public QObject
{
    Q_OBJECT
public:
    SentinelFollower(const RedisEndpoint &endpoint, RedisConnectionPool *pool, QObject *parent = nullptr);

    SentinelResolver *resolver() const { return m_sentinel; }

signals:
    /** See LockSession::masterChanged(). */
    void masterChanged(const QString &masterName, const QString &oldAddress, const QString &newAddress,
                       const QString &how);
    /** The `failover` event of a master change. */
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    /** A server that answers ROLE with something else than master. */
    void errorOccurred(const QString &message);

private:
    void onMasterChanged(const RedisEndpoint &oldMaster, const RedisEndpoint &newMaster, const QString &how);
    /** Moves the command and pub/sub connections to `master` if they are elsewhere. */
    void followMaster(const RedisEndpoint &master, const QString &reason);
    /** ROLE on the command connection: a server that is no longer a master sends us back to the sentinels. */
    void verifyMaster();

    RedisConnectionPool *m_pool = nullptr;
    SentinelResolver *m_sentinel = nullptr;
    bool m_verifyingMaster = false; ///< a ROLE check (or its retry) is under way
    bool m_staleMasterReported = false;
};

} // namespace lockscope
