#include "spinlock.h"
#include "redis/redisbytes.h"

#include "lockacquisition.h"
#include "lockcalls.h"

#include <QRandomGenerator>

namespace lockscope
{

SpinLock::SpinLock(LockClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_unlock(RedisScript::fromResource(QStringLiteral("spin_unlock")))
{
}

SpinLock::~SpinLock() = default;

void SpinLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                          LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->tryAcquire(name, threadId, leaseMs, context, std::move(callback));
}

void SpinLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                       LockClient::AcquireCallback callback)
{
    // Redisson RedissonSpinLock.lock/tryLock with the LockOptions.ExponentialBackOff defaults: no
    // channel, just the next backoff period between attempts.
    LockAcquisition::Steps steps;
    steps.attempt = [this, name, threadId, leaseMs](QObject *attemptContext, LockClient::AcquireCallback done) {
        tryAcquire(name, threadId, leaseMs, attemptContext, std::move(done));
    };
    // Exponential backoff: the current period, which then grows x2 plus 0..fails-1 ms.
    steps.retryDelay = [next = kBackoffInitialMs, fails = qint64(0)](const AcquireResult &, bool) mutable {
        if (next >= kBackoffMaxMs)
            return kBackoffMaxMs;
        const qint64 sleep = next;
        ++fails;
        next = qMin(kBackoffMaxMs,
                    next * kBackoffMultiplier + QRandomGenerator::global()->bounded(static_cast<int>(fails)));
        return sleep;
    };
    steps.releaseOrphan = [this, name, threadId] { unlock(name, threadId, nullptr, nullptr); };
    LockAcquisition::start(this, m_client, waitMs, context, std::move(callback), std::move(steps));
}

void SpinLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const QString field = m_client->holderField(threadId);
    LockCalls::runUnlock(m_unlock, m_client->connection(), name, field, {RedisBytes::toBytes(name)},
                         {QByteArray::number(m_client->unlockLeaseMs(name, field)), RedisBytes::toBytes(field)},
                         context, LockCalls::noteUnlockedThen(m_client, name, field, std::move(callback)));
}

} // namespace lockscope
