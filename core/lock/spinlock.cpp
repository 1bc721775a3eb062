#include "spinlock.h"
#include "redis/redisbytes.h"

#include "lockcalls.h"
#include "lockwatchdog.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"

#include <QRandomGenerator>

namespace lockscope
{

SpinLock::SpinLock(LockClient *client, QObject *parent)
    : LockVariant(client, parent), m_unlock(RedisScript::fromResource(QStringLiteral("spin_unlock")))
{
}

SpinLock::~SpinLock() = default;

LockAcquisition::Steps SpinLock::waitSteps(const QString &name, qint64 threadId, qint64 leaseMs)
{
    // Redisson RedissonSpinLock.lock/tryLock with the LockOptions.ExponentialBackOff defaults: no
    // channel (waitChannel() is empty), just the next backoff period between attempts.
    LockAcquisition::Steps steps = LockVariant::waitSteps(name, threadId, leaseMs);
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
    return steps;
}

void SpinLock::forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->watchdog()->remove(name);
    // Redisson sends `if del(KEYS[1]) == 1 then return 1 else return 0`; one DEL is the same atomic
    // step and answers the same 1 / 0.
    m_client->connection()->send({QByteArrayLiteral("DEL"), RedisBytes::toBytes(name)}, context,
                                 LockCalls::forceUnlockReply(std::move(callback)));
}

QByteArray SpinLock::waitChannel(const QString &, qint64) const
{
    return QByteArray();
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

LockKindDescriptor SpinLock::descriptor()
{
    LockKindDescriptor d = kindDescriptor(
        AcquireKind::Spin, QStringLiteral("spin"), QT_TRANSLATE_NOOP("LockKinds", "&Spin"),
        QT_TRANSLATE_NOOP(
            "LockKinds", "Spin lock (getSpinLock): the RLock's data, waiters poll with backoff instead of subscribing"),
        &makeKind<SpinLock>);
    d.offered = false; // an operator has no reason to take one; the workshop and the tests do
    d.waitChannel = LockKindDescriptor::WaitChannel::None;
    d.protocolSection = "§5.1";
    return d;
}

} // namespace lockscope
