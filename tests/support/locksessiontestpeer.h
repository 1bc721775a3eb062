#pragma once

#include "session/locksession.h"

// The parts' own headers: a test that reaches a part uses its API (the session's header no longer
// brings them).
#include "lock/lockclient.h"
#include "redis/clusterrouter.h"
#include "redis/clustertopology.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"
#include "redis/sentinelresolver.h"
#include "watch/lockmonitor.h"
#include "watch/lockwatcher.h"

#include <memory>

namespace lockscope
{

/**
 * Tests' way behind LockSession's intents (its friend): the monitor, lock clients, connections,
 * router, Sentinel resolver and topology, which front ends never see. One line per part, as
 * LockSession documents each one; nothing here changes what the session does.
 */
class LockSessionTestPeer
{
public:
    explicit LockSessionTestPeer(LockSession *session) : m_session(session) {}

    LockWatcher *watcher() const { return m_session->watcher(); }
    LockMonitor *monitor() const { return m_session->monitor(); }
    LockClient *client() const { return m_session->client(); }
    RedisConnection *connection() const { return m_session->connection(); }
    const ClusterTopology &topology() const { return m_session->topology(); }
    ClusterRouter *router() const { return m_session->router(); }
    LockClient *clientFor(const QString &name) const { return m_session->clientFor(name); }
    RedisConnection *connectionFor(const QString &name) const { return m_session->connectionFor(name); }
    QByteArray publishCommand() const { return m_session->publishCommand(); }
    QStringList holdsAtRisk() const { return m_session->holdsAtRisk(); }
    SentinelResolver *sentinel() const { return m_session->sentinel(); }
    void enableCluster(const ClusterTopology &topology) const { m_session->enableCluster(topology); }

private:
    LockSession *m_session;
};

/** LockSessionTestPeer(session), shorter at the call site: `peer(s).monitor()`, whether `s` is a
 *  pointer, a std::unique_ptr or the session itself. */
inline LockSessionTestPeer peer(LockSession *session)
{
    return LockSessionTestPeer(session);
}
inline LockSessionTestPeer peer(LockSession &session)
{
    return LockSessionTestPeer(&session);
}
inline LockSessionTestPeer peer(const std::unique_ptr<LockSession> &session)
{
    return LockSessionTestPeer(session.get());
}

} // namespace lockscope
