#pragma once

#include "endpoint/redisendpoint.h"

#include <QObject>
#include <QSet>

namespace lockscope
{

class RedisConnection;
class RedisReply;

/**
 * Sharded pub/sub (Redis 7 `SSUBSCRIBE`) on one cluster node, the way Redisson 3.22+ waiters
 * listen for unlock messages in a cluster (protocol §1.3, §7). Sharded and classic pub/sub are
 * separate name spaces, so RedisSubscriber's PSUBSCRIBE never sees an `SPUBLISH`.
 *
 * One `SSUBSCRIBE` per channel (channels of one command must share a slot); all of them are sent
 * again after a reconnect. When the node stops serving a channel's slot (migration, failover) it
 * unsubscribes us or refuses with MOVED: the channel is dropped and `lost()` says so, so the
 * owner can subscribe again on the new shard.
 */
class ShardedSubscriber : public QObject
{
    Q_OBJECT
public:
    explicit ShardedSubscriber(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    /** CLIENT SETNAME of its connection, before open() ("lockscope-ssub" by default: LockScope's own
     *  waiters; a watcher's subscriptions are named "lockscope-watch[:<pattern>]" so that no
     *  LockScope counts them as clients waiting for a lock). */
    void setClientName(const QByteArray &name);
    ~ShardedSubscriber() override;

    void open();
    void ssubscribe(const QByteArray &channel);
    void sunsubscribe(const QByteArray &channel);
    bool isSubscribed(const QByteArray &channel) const { return m_channels.contains(channel); }
    int channelCount() const { return int(m_channels.size()); }

signals:
    void message(const QByteArray &channel, const QByteArray &payload);
    /** The node confirmed the SSUBSCRIBE of `channel` (also after a reconnect). */
    void subscribed(const QByteArray &channel);
    /** The node no longer serves `channel` (slot moved): subscribe on its new owner. */
    void lost(const QByteArray &channel);

private:
    void onPush(const RedisReply &reply);
    void restore();

    RedisConnection *m_connection;
    QSet<QByteArray> m_channels;
    QSet<QByteArray> m_leaving; ///< sunsubscribe sent by us (not a slot move)
};

} // namespace lockscope
