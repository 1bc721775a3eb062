#pragma once

#include "endpoint/redisendpoint.h"

#include <QObject>
#include <QSet>

namespace lockscope
{

class RedisConnection;
class RedisReply;

/**
 * A dedicated pub/sub connection (RESP2 subscriber mode) to one server.
 *
 * Keeps the set of channels and patterns asked for and re-subscribes to all of them after every
 * reconnect, so a dropped connection loses messages sent while it was down but never a
 * subscription. Messages arrive as `message()` signals on the object's thread.
 *
 * Never deaf for long, since a dead subscriber silently misses every message: the connection is health-checked (a PING
 * when idle for kHealthIntervalMs, declared dead after kHealthTimeoutMs without an answer, then connectionLost() and a
 * reconnect with short attempts) and has TCP keep-alive.
 */
class RedisSubscriber : public QObject
{
    Q_OBJECT
public:
    /** Health check (RedisConnection::setHealthCheckMs()) of the subscriber connection. */
    static constexpr int kHealthIntervalMs = 1000;
    static constexpr int kHealthTimeoutMs = 1500;

    explicit RedisSubscriber(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~RedisSubscriber() override;

    void open();
    void close();
    bool isReady() const;
    RedisConnection *connection() const { return m_connection; }

    /** SUBSCRIBE / PSUBSCRIBE (idempotent). `subscribed()` fires when the server confirms. */
    void subscribe(const QByteArray &channel);
    void psubscribe(const QByteArray &pattern);
    void unsubscribe(const QByteArray &channel);
    void punsubscribe(const QByteArray &pattern);

    QSet<QByteArray> channels() const { return m_channels; }
    QSet<QByteArray> patterns() const { return m_patterns; }

signals:
    /** A message on `channel`; `pattern` is set when it came through a PSUBSCRIBE. */
    void message(const QByteArray &channel, const QByteArray &payload, const QByteArray &pattern);
    /** The server confirmed a (p)subscription to `name`. */
    void subscribed(const QByteArray &name);
    void ready();
    void connectionLost(const QString &reason);

private:
    void onPush(const RedisReply &reply);
    void restore();
    /** Adds `name` to `set` (or removes it) and, when that changed the set and the connection is
     *  ready, sends `command name`; a closed connection gets the set back in restore(). */
    void change(QSet<QByteArray> &set, const QByteArray &name, bool add, const char *command);

    RedisConnection *m_connection = nullptr;
    QSet<QByteArray> m_channels;
    QSet<QByteArray> m_patterns;
};

} // namespace lockscope
