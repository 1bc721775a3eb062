#include "shardedsubscriber.h"

#include "hashslot.h"
#include "redisconnection.h"
#include "redisreply.h"

namespace lockscope
{

ShardedSubscriber::ShardedSubscriber(const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent), m_connection(new RedisConnection(endpoint, this))
{
    m_connection->setClientName("lockscope-ssub");
    m_connection->setPushMode(true);
    connect(m_connection, &RedisConnection::pushReceived, this, &ShardedSubscriber::onPush);
    connect(m_connection, &RedisConnection::ready, this, &ShardedSubscriber::restore);
}

ShardedSubscriber::~ShardedSubscriber() = default;

void ShardedSubscriber::setClientName(const QByteArray &name)
{
    m_connection->setClientName(name);
}

void ShardedSubscriber::open()
{
    m_connection->open();
}

void ShardedSubscriber::ssubscribe(const QByteArray &channel)
{
    if (m_channels.contains(channel))
        return;
    m_channels.insert(channel);
    m_leaving.remove(channel);
    if (m_connection->isReady())
        m_connection->send({"SSUBSCRIBE", channel});
    else
        m_connection->open(); // restore() sends it after the handshake
}

void ShardedSubscriber::sunsubscribe(const QByteArray &channel)
{
    if (!m_channels.remove(channel))
        return;
    if (m_connection->isReady()) {
        m_leaving.insert(channel);
        m_connection->send({"SUNSUBSCRIBE", channel});
    }
}

void ShardedSubscriber::restore()
{
    m_leaving.clear();
    for (const QByteArray &c : std::as_const(m_channels))
        m_connection->send({"SSUBSCRIBE", c});
}

void ShardedSubscriber::onPush(const RedisReply &reply)
{
    if (reply.isError()) {
        // "MOVED slot host:port" for an SSUBSCRIBE of a slot this node no longer serves. The
        // reply does not name the channel: drop those whose slot it names.
        const QStringList parts = reply.errorMessage().split(QLatin1Char(' '));
        if (parts.size() >= 2 && parts.first() == QLatin1String("MOVED")) {
            const QSet<QByteArray> all = m_channels;
            for (const QByteArray &c : all) {
                if (QString::number(HashSlot::of(c)) == parts.at(1)) {
                    m_channels.remove(c);
                    emit lost(c);
                }
            }
        }
        return;
    }
    if (!reply.isArray() || reply.size() < 3)
        return;
    const QByteArray kind = reply.at(0).toByteArray().toLower();
    const QByteArray channel = reply.at(1).toByteArray();
    if (kind == "smessage") {
        emit message(channel, reply.at(2).toByteArray());
    } else if (kind == "ssubscribe") {
        emit subscribed(channel);
    } else if (kind == "sunsubscribe") {
        if (m_leaving.remove(channel))
            return;
        // The server unsubscribed us: the slot moved away from this node.
        if (m_channels.remove(channel))
            emit lost(channel);
    }
}

} // namespace lockscope
