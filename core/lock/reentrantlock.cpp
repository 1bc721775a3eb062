#include "reentrantlock.h"

#include "lockcalls.h"

namespace lockscope
{

ReentrantLock::ReentrantLock(LockClient *client, QObject *parent) : LockVariant(client, parent) {}

ReentrantLock::~ReentrantLock() = default;

void ReentrantLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                               LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->tryAcquire(name, threadId, leaseMs, context, std::move(callback));
}

void ReentrantLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                            LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->acquire(name, threadId, leaseMs, waitMs, context, std::move(callback));
}

void ReentrantLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->unlock(name, threadId, context, std::move(callback));
}

} // namespace lockscope
