#include "session/sentinelfollower.h"

#include "redis/redisbytes.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/redisreply.h"
#include "redis/redissubscriber.h"
#include "redis/sentinelresolver.h"

#include <QDateTime>
#include <QJsonObject>
#include <QTimer>

namespace lockscope
{

SentinelFollower::SentinelFollower(const RedisEndpoint &endpoint, RedisConnectionPool *pool, QObject *parent)
    : QObject(parent), m_pool(pool)
{
    m_sentinel = new SentinelResolver(endpoint, this);
    auto resolver = [this](RedisConnection::ResolvedCallback done) { m_sentinel->resolve(this, std::move(done)); };
    RedisConnection *conn = m_pool->connection();
    conn->setEndpointResolver(resolver);
    m_pool->subscriber()->connection()->setEndpointResolver(resolver);
    connect(m_sentinel, &SentinelResolver::masterChanged, this, &SentinelFollower::onMasterChanged);
    connect(conn, &RedisConnection::ready, this, &SentinelFollower::verifyMaster);
    connect(conn, &RedisConnection::serverErrorReceived, this, [this](const QString &message) {
        if (message.startsWith(QLatin1String("READONLY")) || message.startsWith(QLatin1String("LOADING")))
            verifyMaster();
    });
}

void SentinelFollower::onMasterChanged(const RedisEndpoint &oldMaster, const RedisEndpoint &newMaster,
                                       const QString &how)
{
    const QString name = m_sentinel->masterName();
    LockEvent e;
    e.timeMs = QDateTime::currentMSecsSinceEpoch();
    e.type = QStringLiteral("failover");
    e.detail = QStringLiteral("master '%1' moved from %2 to %3 (%4): LockScope follows it to %3")
                   .arg(name, oldMaster.address(), newMaster.address(), how);
    e.extra = QJsonObject{{QStringLiteral("master_name"), name},
                          {QStringLiteral("old_master"), oldMaster.address()},
                          {QStringLiteral("new_master"), newMaster.address()},
                          {QStringLiteral("source"), how}};
    emit masterChanged(name, oldMaster.address(), newMaster.address(), how);
    emit eventsOccurred({e});
    followMaster(newMaster, QStringLiteral("failover: the master of '%1' is now %2 (was %3)")
                                .arg(name, newMaster.address(), oldMaster.address()));
}

void SentinelFollower::followMaster(const RedisEndpoint &master, const QString &reason)
{
    for (RedisConnection *c : {m_pool->connection(), m_pool->subscriber()->connection()}) {
        if (c->endpoint().address() != master.address())
            c->reconnectNow(reason);
    }
}

void SentinelFollower::verifyMaster()
{
    RedisConnection *conn = m_pool->connection();
    if (!m_sentinel || m_verifyingMaster || !conn->isReady())
        return;
    m_verifyingMaster = true;
    conn->send({"ROLE"}, this, [this, conn](const RedisReply &r) {
        // ROLE refused (ACL) or the connection went away: the sentinels' word stands.
        const QByteArray role = r.isArray() && r.size() > 0 ? r.at(0).toByteArray() : QByteArray("master");
        if (role == "master") {
            m_verifyingMaster = false;
            m_staleMasterReported = false;
            return;
        }
        const QString address = conn->endpoint().address();
        if (!m_staleMasterReported)
            emit errorOccurred(QStringLiteral("%1 answers ROLE '%2': it is no longer the master of '%3'. Asking the "
                                              "sentinels again.")
                                   .arg(address, RedisBytes::toText(role), m_sentinel->masterName()));
        m_staleMasterReported = true;
        m_sentinel->resolve(this, [this, address](const RedisEndpoint &master, const QString &, bool) {
            if (master.isValid() && master.address() != address) {
                m_verifyingMaster = false;
                // After masterChanged() (emitted once this callback returns) had its say.
                QMetaObject::invokeMethod(
                    this,
                    [this, master] {
                        followMaster(
                            master,
                            QStringLiteral("the master of '%1' is %2").arg(m_sentinel->masterName(), master.address()));
                    },
                    Qt::QueuedConnection);
                return;
            }
            // The sentinels still name this server (a failover is under way): look again in a second.
            QTimer::singleShot(1000, this, [this] {
                m_verifyingMaster = false;
                verifyMaster();
            });
        });
    });
}

} // namespace lockscope
