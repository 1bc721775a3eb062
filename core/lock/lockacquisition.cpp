#include "lockacquisition.h"

#include "observe/locknames.h"
#include "redis/redissubscriber.h"

#include <limits>

namespace lockscope {

LockAcquisition::LockAcquisition(LockClient *client, const QString &name, qint64 threadId, qint64 leaseMs,
                                 qint64 waitMs, QObject *context, LockClient::AcquireCallback callback)
    : QObject(client), m_client(client), m_name(name), m_threadId(threadId), m_leaseMs(leaseMs), m_waitMs(waitMs),
      m_context(context), m_hasContext(context != nullptr), m_callback(std::move(callback)),
      m_channel(LockNames::unlockChannel(name).toUtf8())
{
    m_retryTimer.setParent(this);
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &LockAcquisition::attempt);
}

LockAcquisition::~LockAcquisition()
{
    if (m_subscribed && m_client)
        m_client->releaseChannel(m_channel);
}

void LockAcquisition::start()
{
    m_clock.start();
    attempt();
}

qint64 LockAcquisition::remainingMs() const
{
    if (m_waitMs < 0)
        return std::numeric_limits<qint64>::max();
    return m_waitMs - m_clock.elapsed();
}

void LockAcquisition::attempt()
{
    if (m_done || !m_client)
        return;
    if (m_attemptInFlight) {
        m_retryWanted = true; // an unlock message arrived during an attempt: try once more after it
        return;
    }
    m_attemptInFlight = true;
    m_client->tryAcquire(m_name, m_threadId, m_leaseMs, this, [this](const AcquireResult &r) {
        m_attemptInFlight = false;
        if (r.acquired || !r.error.isEmpty()) {
            finish(r);
            return;
        }
        const qint64 remaining = remainingMs();
        if (remaining <= 0) {
            finish(r);
            return;
        }
        if (!m_subscribed && m_client && m_client->subscriber()) {
            m_subscribed = true;
            RedisSubscriber *sub = m_client->subscriber();
            connect(sub, &RedisSubscriber::message, this,
                    [this](const QByteArray &channel, const QByteArray &, const QByteArray &) {
                        if (channel == m_channel)
                            attempt();
                    });
            // Retry once the subscription is confirmed: an unlock between our attempt and the
            // SUBSCRIBE would otherwise go unnoticed until the TTL (Redisson does the same).
            connect(sub, &RedisSubscriber::subscribed, this, [this](const QByteArray &channel) {
                if (channel == m_channel)
                    attempt();
            });
            m_client->retainChannel(m_channel);
        }
        if (m_retryWanted) {
            m_retryWanted = false;
            m_retryTimer.start(0);
            return;
        }
        // ttl < 0: held with no expiry; only a message (or the end of the wait) helps. Without a
        // subscriber, poll every second instead.
        qint64 delay = r.pttlMs >= 0 ? r.pttlMs : (m_subscribed ? remaining : 1000);
        delay = qBound<qint64>(qint64(1), qMin(delay, remaining), qint64(std::numeric_limits<int>::max()));
        m_retryTimer.start(static_cast<int>(delay));
    });
}

void LockAcquisition::finish(const AcquireResult &result)
{
    if (m_done)
        return;
    m_done = true;
    m_retryTimer.stop();
    if (m_callback && (!m_hasContext || m_context))
        m_callback(result);
    deleteLater();
}

} // namespace lockscope
