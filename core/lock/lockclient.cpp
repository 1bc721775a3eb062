#include "lockclient.h"
#include "redis/redisbytes.h"

#include "lockacquisition.h"
#include "lockcalls.h"
#include "lockwatchdog.h"

#include "protocol/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"
#include "redis/shardedsubscriber.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QUuid>

namespace lockscope
{

namespace
{

QString leaseKey(const QString &name, const QString &field)
{
    return name + QLatin1Char('\n') + field;
}

} // namespace

LockClient::LockClient(RedisConnection *connection, RedisSubscriber *subscriber, QObject *parent,
                       const QString &clientId)
    : QObject(parent), m_connection(connection), m_subscriber(subscriber),
      m_clientId(clientId.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : clientId),
      m_acquire(RedisScript::fromResource(QStringLiteral("lock_acquire"))),
      m_unlock(RedisScript::fromResource(QStringLiteral("lock_unlock"))),
      m_renew(RedisScript::fromResource(QStringLiteral("lock_renew"))),
      m_forceUnlock(RedisScript::fromResource(QStringLiteral("lock_force_unlock")))
{
    m_watchdog = new LockWatchdog(connection, kDefaultWatchdogTimeoutMs, this);
    connect(m_watchdog, &LockWatchdog::renewed, this, &LockClient::watchdogRenewed);
    connect(m_watchdog, &LockWatchdog::lost, this, &LockClient::watchdogLost);
    connect(m_watchdog, &LockWatchdog::renewalFailed, this, &LockClient::watchdogRenewalFailed);
    connect(m_watchdog, &LockWatchdog::recovered, this, &LockClient::watchdogRecovered);
    if (subscriber) {
        // The subscriber is shared (the monitor's patterns use it too): pass on only our channels.
        connect(subscriber, &RedisSubscriber::message, this,
                [this](const QByteArray &channel, const QByteArray &payload, const QByteArray &) {
                    if (!m_sharded && m_channelRefs.contains(channel))
                        emit channelMessage(channel, payload);
                });
        connect(subscriber, &RedisSubscriber::subscribed, this, [this](const QByteArray &channel) {
            if (!m_sharded && m_channelRefs.contains(channel))
                emit channelSubscribed(channel);
        });
    }
}

void LockClient::setShardedSubscriber(ShardedSubscriber *subscriber)
{
    if (m_sharded == subscriber)
        return;
    if (m_sharded)
        disconnect(m_sharded, nullptr, this, nullptr);
    m_sharded = subscriber;
    if (!subscriber)
        return;
    connect(subscriber, &ShardedSubscriber::message, this,
            [this](const QByteArray &channel, const QByteArray &payload) {
                if (m_channelRefs.contains(channel))
                    emit channelMessage(channel, payload);
            });
    connect(subscriber, &ShardedSubscriber::subscribed, this, [this](const QByteArray &channel) {
        if (m_channelRefs.contains(channel))
            emit channelSubscribed(channel);
    });
    connect(subscriber, &ShardedSubscriber::lost, this, [this](const QByteArray &channel) {
        if (m_channelRefs.contains(channel))
            emit channelLost(channel);
    });
}

bool LockClient::isAtRisk(const QString &name) const
{
    return m_watchdog->atRisk().contains(name);
}

LockClient::~LockClient() = default;

QString LockClient::holderField(qint64 threadId) const
{
    return m_clientId + QLatin1Char(':') + QString::number(threadId);
}

QString LockClient::newUnlockLatchKey(const QString &name)
{
    QByteArray requestId(16, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(requestId.data()), 4);
    return LockNames::unlockLatchKey(name, QString::fromLatin1(requestId.toHex()));
}

qint64 LockClient::leaseFor(qint64 leaseMs) const
{
    return leaseMs > 0 ? leaseMs : m_watchdog->timeoutMs();
}

void LockClient::noteAcquired(const QString &name, const QString &field, qint64 lease, bool watch)
{
    m_leaseMs.insert(leaseKey(name, field), lease);
    if (watch)
        m_watchdog->add(name, field);
}

qint64 LockClient::unlockLeaseMs(const QString &name, const QString &field) const
{
    return m_leaseMs.value(leaseKey(name, field), m_watchdog->timeoutMs());
}

void LockClient::noteUnlocked(const QString &name, const QString &field, UnlockResult::Status status)
{
    if (status != UnlockResult::Status::Released && status != UnlockResult::Status::NotHeld)
        return;
    m_watchdog->remove(name);
    m_leaseMs.remove(leaseKey(name, field));
}

void LockClient::setWatchdogTimeoutMs(qint64 ms)
{
    m_watchdog->setTimeoutMs(ms);
}
qint64 LockClient::watchdogTimeoutMs() const
{
    return m_watchdog->timeoutMs();
}

void LockClient::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                            AcquireCallback callback)
{
    const qint64 lease = leaseFor(leaseMs);
    const QString field = holderField(threadId);
    m_acquire.eval(m_connection, {RedisBytes::toBytes(name)}, {QByteArray::number(lease), RedisBytes::toBytes(field)},
                   context,
                   [done = LockCalls::noteAcquiredThen(this, name, field, lease, leaseMs <= 0, std::move(callback))](
                       const RedisReply &r) { done(LockCalls::acquireResult(r)); });
}

void LockClient::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                         AcquireCallback callback)
{
    // The first attempt goes out directly: an uncontended lock (the common case) is won by its
    // reply, without the acquisition object, the subscription and the timer of a wait. Only a
    // lock held by someone else, with time left to wait, goes on in a LockAcquisition.
    QElapsedTimer clock;
    clock.start();
    const QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    // `this` as the request's context: the attempt dies with the client, as an acquisition would.
    tryAcquire(name, threadId, leaseMs, this,
               [this, name, threadId, leaseMs, waitMs, clock, guard, hasContext,
                callback = std::move(callback)](const AcquireResult &r) mutable {
                   if (hasContext && !guard) {
                       // The caller went away during the attempt: nobody is left to use a lock won
                       // meanwhile (it would stay held and watchdog-renewed), so give it back.
                       if (r.acquired)
                           unlock(name, threadId, nullptr, nullptr);
                       return;
                   }
                   const bool wait = !r.acquired && r.error.isEmpty() && (waitMs < 0 || clock.elapsed() < waitMs);
                   if (!wait) {
                       if (callback)
                           callback(r);
                       return;
                   }
                   LockAcquisition::Steps steps;
                   steps.attempt = [this, name, threadId, leaseMs](QObject *attemptContext, AcquireCallback done) {
                       tryAcquire(name, threadId, leaseMs, attemptContext, std::move(done));
                   };
                   steps.channel = RedisBytes::toBytes(LockNames::unlockChannel(name));
                   // LockPubSub wakes on UNLOCK_MESSAGE 0 and READ_UNLOCK_MESSAGE 1 only (§1.4).
                   steps.wakeMessages = {QByteArrayLiteral("0"), QByteArrayLiteral("1")};
                   // A lock won after the caller went away would stay held (and watchdog-renewed): give it back.
                   steps.releaseOrphan = [this, name, threadId] { unlock(name, threadId, nullptr, nullptr); };
                   LockAcquisition::resume(this, this, waitMs, clock, guard.data(), std::move(callback),
                                           std::move(steps), r);
               });
}

void LockClient::unlock(const QString &name, qint64 threadId, QObject *context, UnlockCallback callback)
{
    const QString field = holderField(threadId);
    LockCalls::runUnlock(
        m_unlock, m_connection, name, field,
        {RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::unlockChannel(name))},
        {"0", QByteArray::number(unlockLeaseMs(name, field)), RedisBytes::toBytes(field), m_publishCommand}, context,
        LockCalls::noteUnlockedThen(this, name, field, std::move(callback)));
}

void LockClient::renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context, BoolCallback callback)
{
    m_renew.eval(m_connection, {RedisBytes::toBytes(name)},
                 {QByteArray::number(leaseFor(leaseMs)), RedisBytes::toBytes(holderField(threadId))}, context,
                 LockCalls::renewReply(std::move(callback)));
}

void LockClient::forceUnlock(const QString &name, QObject *context, BoolCallback callback)
{
    m_watchdog->remove(name);
    m_forceUnlock.eval(m_connection, {RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::unlockChannel(name))},
                       {"0", m_publishCommand}, context, LockCalls::forceUnlockReply(std::move(callback)));
}

void LockClient::holdCount(const QString &name, qint64 threadId, QObject *context, std::function<void(qint64)> callback)
{
    m_connection->send({"HGET", RedisBytes::toBytes(name), RedisBytes::toBytes(holderField(threadId))}, context,
                       [callback](const RedisReply &r) {
                           if (callback)
                               callback(r.isNil() || r.isError() ? 0 : r.toInteger());
                       });
}

void LockClient::retainChannel(const QByteArray &channel)
{
    if (m_channelRefs[channel]++ != 0)
        return;
    if (m_sharded)
        m_sharded->ssubscribe(channel);
    else if (m_subscriber)
        m_subscriber->subscribe(channel);
}

void LockClient::releaseChannel(const QByteArray &channel)
{
    auto it = m_channelRefs.find(channel);
    if (it == m_channelRefs.end())
        return;
    if (--it.value() <= 0) {
        m_channelRefs.erase(it);
        if (m_sharded)
            m_sharded->sunsubscribe(channel);
        else if (m_subscriber)
            m_subscriber->unsubscribe(channel);
    }
}

} // namespace lockscope
