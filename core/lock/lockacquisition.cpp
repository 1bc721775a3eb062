#include "lockacquisition.h"

#include "lockcalls.h"

#include <limits>

namespace lockscope
{

void LockAcquisition::start(QObject *owner, LockClient *client, qint64 waitMs, QObject *context,
                            LockClient::AcquireCallback callback, Steps steps)
{
    auto *a = new LockAcquisition(owner, client, waitMs, context, std::move(callback), std::move(steps));
    a->m_clock.start();
    a->attempt();
}

void LockAcquisition::resume(QObject *owner, LockClient *client, qint64 waitMs, const QElapsedTimer &clock,
                             QObject *context, LockClient::AcquireCallback callback, Steps steps,
                             const AcquireResult &first)
{
    auto *a = new LockAcquisition(owner, client, waitMs, context, std::move(callback), std::move(steps));
    a->m_clock = clock;
    a->onResult(first);
}

qint64 LockAcquisition::ttlRetryDelay(const AcquireResult &last, bool subscribed)
{
    if (last.pttlMs >= 0)
        return last.pttlMs;
    return subscribed ? std::numeric_limits<qint64>::max() : 1000;
}

LockAcquisition::LockAcquisition(QObject *owner, LockClient *client, qint64 waitMs, QObject *context,
                                 LockClient::AcquireCallback callback, Steps steps)
    : QObject(owner), m_client(client), m_waitMs(waitMs), m_context(context), m_hasContext(context != nullptr),
      m_callback(std::move(callback)), m_steps(std::move(steps))
{
    if (!m_steps.retryDelay)
        m_steps.retryDelay = &LockAcquisition::ttlRetryDelay;
    m_retryTimer.setParent(this);
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &LockAcquisition::attempt);
    if (context && m_steps.releaseOrphan)
        connect(context, &QObject::destroyed, this, &LockAcquisition::cancel);
}

LockAcquisition::~LockAcquisition()
{
    if (m_subscribed && m_client)
        m_client->releaseChannel(m_steps.channel);
    // Destroyed mid-wait (the owner or the client went away): clean up all the same.
    if (!m_done && !m_givingUp && m_steps.giveUp)
        m_steps.giveUp(nullptr, nullptr);
}

qint64 LockAcquisition::remainingMs() const
{
    if (m_waitMs < 0)
        return std::numeric_limits<qint64>::max();
    return m_waitMs - m_clock.elapsed();
}

void LockAcquisition::attempt()
{
    if (m_done || m_givingUp)
        return;
    if (m_attemptInFlight) {
        m_retryWanted = true; // woken during an attempt: try once more after it
        return;
    }
    m_attemptInFlight = true;
    m_steps.attempt(this, [this](const AcquireResult &r) { onResult(r); });
}

void LockAcquisition::onResult(const AcquireResult &result)
{
    m_attemptInFlight = false;
    if (result.acquired) {
        if (m_cancelled) // nobody is left to use it
            m_steps.releaseOrphan();
        finish(result);
        return;
    }
    const qint64 remaining = remainingMs();
    if (!result.error.isEmpty() || m_cancelled || remaining <= 0) {
        giveUp(result);
        return;
    }
    subscribe();
    if (m_retryWanted) {
        m_retryWanted = false;
        m_retryTimer.start(0);
        return;
    }
    m_retryTimer.start(LockCalls::timerMs(qMin(m_steps.retryDelay(result, m_subscribed), remaining)));
}

void LockAcquisition::subscribe()
{
    if (m_subscribed || m_steps.channel.isEmpty() || !m_client || !m_client->canSubscribe())
        return;
    m_subscribed = true;
    // SUBSCRIBE or, on a Redis 7 cluster in sharded mode, SSUBSCRIBE (LockClient decides, §1.3).
    connect(m_client, &LockClient::channelMessage, this, [this](const QByteArray &channel, const QByteArray &payload) {
        if (channel == m_steps.channel && (m_steps.wakeMessages.isEmpty() || m_steps.wakeMessages.contains(payload)))
            attempt();
    });
    connect(m_client, &LockClient::channelSubscribed, this, [this](const QByteArray &channel) {
        if (channel == m_steps.channel)
            attempt();
    });
    // The shard stopped serving the channel (slot moved): no message can come here any more.
    connect(m_client, &LockClient::channelLost, this, [this](const QByteArray &channel) {
        if (channel == m_steps.channel)
            attempt();
    });
    m_client->retainChannel(m_steps.channel);
}

void LockAcquisition::cancel()
{
    if (m_done || m_cancelled)
        return;
    m_cancelled = true;
    m_retryTimer.stop();
    if (!m_attemptInFlight)
        giveUp(AcquireResult());
    // else: onResult() ends the wait (and gives back a lock won in that race)
}

void LockAcquisition::giveUp(const AcquireResult &result)
{
    if (m_done || m_givingUp)
        return;
    m_retryTimer.stop();
    if (!m_steps.giveUp) {
        finish(result);
        return;
    }
    m_givingUp = true;
    m_steps.giveUp(this, [this, result] { finish(result); });
}

void LockAcquisition::finish(const AcquireResult &result)
{
    if (m_done)
        return;
    m_done = true;
    m_retryTimer.stop();
    if (m_callback && !m_cancelled && (!m_hasContext || m_context))
        m_callback(result);
    deleteLater();
}

} // namespace lockscope
