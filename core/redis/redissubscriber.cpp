#include "redissubscriber.h"

#include "redisconnection.h"

namespace lockscope
{

RedisSubscriber::RedisSubscriber(const RedisEndpoint &endpoint, QObject *parent) : QObject(parent)
{
    m_connection = new RedisConnection(endpoint, this);
    m_connection->setPushMode(true);
    m_connection->setClientName("lockscope-sub");
    m_connection->setCommandTimeoutMs(0); // a subscriber waits for pushes indefinitely...
    // ...but never deaf for long, since a dead subscriber silently misses unlock messages: PING
    // when idle for 1 s, dead after 1.5 s without an answer, then reconnect quickly (attempts of
    // 1 s, at most 1 s apart) so it is back within 2 s of the network's return.
    m_connection->setHealthCheckMs(kHealthIntervalMs, kHealthTimeoutMs);
    m_connection->setConnectTimeoutMs(1000);
    m_connection->setReconnectDelaysMs(100, 800);
    connect(m_connection, &RedisConnection::pushReceived, this, &RedisSubscriber::onPush);
    connect(m_connection, &RedisConnection::ready, this, &RedisSubscriber::restore);
    connect(m_connection, &RedisConnection::connectionLost, this, &RedisSubscriber::connectionLost);
}

RedisSubscriber::~RedisSubscriber() = default;

void RedisSubscriber::open()
{
    m_connection->open();
}
void RedisSubscriber::close()
{
    m_connection->close();
}
bool RedisSubscriber::isReady() const
{
    return m_connection->isReady();
}

void RedisSubscriber::restore()
{
    if (!m_channels.isEmpty()) {
        QList<QByteArray> argv{"SUBSCRIBE"};
        for (const auto &c : m_channels)
            argv << c;
        m_connection->send(argv);
    }
    if (!m_patterns.isEmpty()) {
        QList<QByteArray> argv{"PSUBSCRIBE"};
        for (const auto &p : m_patterns)
            argv << p;
        m_connection->send(argv);
    }
    emit ready();
}

void RedisSubscriber::change(QSet<QByteArray> &set, const QByteArray &name, bool add, const char *command)
{
    const bool changed = add ? !set.contains(name) : set.contains(name);
    if (!changed)
        return;
    if (add)
        set.insert(name);
    else
        set.remove(name);
    if (m_connection->isReady())
        m_connection->send({command, name});
}

void RedisSubscriber::subscribe(const QByteArray &channel)
{
    change(m_channels, channel, true, "SUBSCRIBE");
}

void RedisSubscriber::psubscribe(const QByteArray &pattern)
{
    change(m_patterns, pattern, true, "PSUBSCRIBE");
}

void RedisSubscriber::unsubscribe(const QByteArray &channel)
{
    change(m_channels, channel, false, "UNSUBSCRIBE");
}

void RedisSubscriber::punsubscribe(const QByteArray &pattern)
{
    change(m_patterns, pattern, false, "PUNSUBSCRIBE");
}

void RedisSubscriber::onPush(const RedisReply &reply)
{
    if (!reply.isArray() || reply.size() < 3)
        return;
    const QByteArray kind = reply.at(0).toByteArray().toLower();
    if (kind == "message" || kind == "smessage")
        emit message(reply.at(1).toByteArray(), reply.at(2).toByteArray(), QByteArray());
    else if (kind == "pmessage" && reply.size() >= 4)
        emit message(reply.at(2).toByteArray(), reply.at(3).toByteArray(), reply.at(1).toByteArray());
    else if (kind == "subscribe" || kind == "psubscribe" || kind == "ssubscribe")
        emit subscribed(reply.at(1).toByteArray());
}

} // namespace lockscope
