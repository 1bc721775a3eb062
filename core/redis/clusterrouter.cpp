#include "clusterrouter.h"

#include "hashslot.h"
#include "redisconnectionpool.h"
#include "redisscript.h"

#include <QPointer>

#include <memory>

namespace lockscope
{

static constexpr int kMaxRedirects = 5;
static constexpr int kFastRefreshMs = 1000;
static constexpr int kTopologyAnswerMs = 2000;

ClusterRouter::ClusterRouter(RedisConnectionPool *pool, const ClusterTopology &topology, QObject *parent)
    : QObject(parent), m_pool(pool), m_topology(topology)
{
    m_checkTimer.setParent(this);
    m_fastTimer.setParent(this);
    connect(&m_checkTimer, &QTimer::timeout, this, &ClusterRouter::refresh);
    connect(&m_fastTimer, &QTimer::timeout, this, [this] {
        if (!needsFastRefresh()) {
            m_fastTimer.stop();
            return;
        }
        refresh();
    });
}

void ClusterRouter::startTopologyChecks(int intervalMs)
{
    m_checkTimer.start(qMax(100, intervalMs));
}

void ClusterRouter::stopTopologyChecks()
{
    m_checkTimer.stop();
    m_fastTimer.stop();
}

bool ClusterRouter::needsFastRefresh() const
{
    if (!m_topology.coversAllSlots())
        return true;
    for (const QString &master : m_topology.masters()) {
        RedisConnection *c = m_pool->connection(endpointFor(master));
        if (m_watched.contains(c) && !c->isReady())
            return true;
    }
    return false;
}

void ClusterRouter::detect(RedisConnection *connection, QObject *context,
                           std::function<void(bool, const QString &)> callback)
{
    connection->send({"INFO", "cluster"}, context, [callback](const RedisReply &r) {
        if (r.isError()) {
            callback(false, r.errorMessage());
            return;
        }
        callback(r.toByteArray().contains("cluster_enabled:1"), QString());
    });
}

void ClusterRouter::load(RedisConnection *connection, QObject *context, TopologyCallback callback)
{
    const QString host = connection->endpoint().host();
    QPointer<RedisConnection> conn(connection);
    // PUBSUB SHARDNUMSUB with no channel answers an empty list where sharded pub/sub exists
    // (Redis 7+), an error elsewhere: Redisson's shardedSubscriptionMode=AUTO test (§1.3).
    connection->pipeline({{"CLUSTER", "SHARDS"}, {"PUBSUB", "SHARDNUMSUB"}}, context,
                         [conn, context, host, callback](const QVector<RedisReply> &replies) {
                             const RedisReply &r = replies.at(0);
                             const bool sharded = replies.size() > 1 && !replies.at(1).isError();
                             QString error;
                             ClusterTopology shards = ClusterTopology::fromShards(r, host, &error);
                             shards.setShardedPubSub(sharded);
                             if (shards.isValid() || r.isTransportError() || !conn) {
                                 callback(shards, error);
                                 return;
                             }
                             // Redis < 7 has no CLUSTER SHARDS ("unknown subcommand"): ask CLUSTER SLOTS.
                             conn->send(
                                 {"CLUSTER", "SLOTS"}, context, [host, callback, sharded](const RedisReply &slotReply) {
                                     QString slotsError;
                                     ClusterTopology t = ClusterTopology::fromSlots(slotReply, host, &slotsError);
                                     t.setShardedPubSub(sharded);
                                     callback(t, slotsError);
                                 });
                         });
}

void ClusterRouter::setTopology(const ClusterTopology &topology)
{
    if (topology == m_topology)
        return;
    m_topology = topology;
    if (!m_topology.coversAllSlots() && !m_fastTimer.isActive())
        m_fastTimer.start(kFastRefreshMs); // a master was marked failed: watch for its replica
    emit topologyChanged();
}

RedisEndpoint ClusterRouter::endpointFor(const QString &address) const
{
    if (address == m_pool->seed().address())
        return m_pool->seed();
    return ClusterTopology::endpointFor(address, m_pool->seed());
}

RedisConnection *ClusterRouter::connectionFor(const QString &address)
{
    const RedisEndpoint ep = address.isEmpty() ? m_pool->seed() : endpointFor(address);
    RedisConnection *c = m_pool->connection(ep);
    if (!m_watched.contains(c)) {
        m_watched.insert(c);
        connect(c, &RedisConnection::connectionLost, this, [this] {
            refresh();
            if (!m_fastTimer.isActive())
                m_fastTimer.start(kFastRefreshMs);
        });
    }
    c->open();
    return c;
}

void ClusterRouter::send(const QByteArray &key, const QList<QByteArray> &argv, QObject *context,
                         RedisConnection::ReplyCallback callback)
{
    sendTo(m_topology.masterForKey(key), argv, false, kMaxRedirects, context, context != nullptr, std::move(callback));
}

void ClusterRouter::sendTo(const QString &address, const QList<QByteArray> &argv, bool asking, int redirectsLeft,
                           QObject *context, bool hasContext, RedisConnection::ReplyCallback callback)
{
    RedisConnection *c = connectionFor(address);
    QPointer<QObject> guard(context);
    auto handle = [this, argv, redirectsLeft, guard, hasContext, callback](const RedisReply &r) {
        if (hasContext && !guard)
            return;
        if (r.isError() && !r.isTransportError() && redirectsLeft > 0) {
            const QString message = r.errorMessage();
            const QStringList parts = message.split(QLatin1Char(' '));
            const bool moved = message.startsWith(QLatin1String("MOVED "));
            const bool ask = message.startsWith(QLatin1String("ASK "));
            if ((moved || ask) && parts.size() >= 3) {
                const int slot = parts.at(1).toInt();
                const QString target = parts.at(2);
                if (moved) {
                    ++m_moved;
                    m_topology.setMaster(slot, target);
                    emit topologyChanged();
                    refresh();
                } else {
                    ++m_asked;
                }
                sendTo(target, argv, ask, redirectsLeft - 1, guard.data(), hasContext, callback);
                return;
            }
        }
        if (callback)
            callback(r);
    };
    if (asking)
        c->pipeline({{"ASKING"}, argv}, this,
                    [handle](const QVector<RedisReply> &replies) { handle(replies.value(1)); });
    else
        c->send(argv, this, handle);
}

std::function<void(const QByteArray &, const QList<QByteArray> &, QObject *, RedisConnection::ReplyCallback)>
ClusterRouter::sender()
{
    QPointer<ClusterRouter> self(this);
    return [self](const QByteArray &key, const QList<QByteArray> &argv, QObject *context,
                  RedisConnection::ReplyCallback callback) {
        if (self)
            self->send(key, argv, context, std::move(callback));
        else if (callback)
            callback(RedisReply::makeError(QStringLiteral("the cluster connection is closed"), true));
    };
}

void ClusterRouter::eval(const RedisScript &script, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                         QObject *context, RedisConnection::ReplyCallback callback)
{
    const QByteArray key = keys.value(0);
    QList<QByteArray> tail{QByteArray::number(keys.size())};
    tail += keys;
    tail += args;
    const QList<QByteArray> evalsha = QList<QByteArray>{"EVALSHA", script.sha1()} + tail;
    const QList<QByteArray> evalFull = QList<QByteArray>{"EVAL", script.source()} + tail;
    QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    send(key, evalsha, context, [this, key, evalFull, guard, hasContext, callback](const RedisReply &r) {
        if (r.isError() && r.errorMessage().startsWith(QLatin1String("NOSCRIPT"))) {
            if (hasContext && !guard)
                return;
            send(key, evalFull, guard.data(), callback);
            return;
        }
        if (callback)
            callback(r);
    });
}

void ClusterRouter::refresh()
{
    if (m_refreshing) {
        m_refreshAgain = true;
        return;
    }
    QStringList candidates = m_topology.masters();
    candidates.removeAll(m_pool->seed().address());
    candidates << m_pool->seed().address();
    m_refreshing = true;
    refreshFrom(candidates);
}

void ClusterRouter::refreshFrom(QStringList candidates)
{
    // Ask ready connections only: a dead node would just time out.
    while (!candidates.isEmpty()) {
        RedisConnection *c = m_pool->connection(endpointFor(candidates.first()));
        if (c->isReady())
            break;
        candidates.removeFirst();
    }
    if (candidates.isEmpty()) {
        m_refreshing = false;
        return; // try again at the next MOVED or connection loss
    }
    RedisConnection *c = m_pool->connection(endpointFor(candidates.takeFirst()));
    // A node that hangs (paused, overloaded) keeps its connection "ready" until the command
    // timeout: do not wait for it, ask the next one (its late answer is ignored).
    auto settled = std::make_shared<bool>(false);
    QTimer::singleShot(kTopologyAnswerMs, this, [this, settled, candidates] {
        if (*settled)
            return;
        *settled = true;
        refreshFrom(candidates);
    });
    load(c, this, [this, settled, candidates](const ClusterTopology &t, const QString &) {
        if (*settled)
            return;
        *settled = true;
        if (!t.isValid()) {
            refreshFrom(candidates);
            return;
        }
        m_refreshing = false;
        setTopology(t);
        if (m_refreshAgain) {
            m_refreshAgain = false;
            refresh();
        }
    });
}

} // namespace lockscope
