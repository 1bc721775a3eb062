#include "readlock.h"

#include "readwritelock.h"

namespace lockscope
{

ReadLock::ReadLock(ReadWriteLock *lock) : ReadWriteLockHalf(lock)
{
    connect(lock, &ReadWriteLock::readWatchdogLost, this, &LockVariant::renewalStopped);
    connect(lock, &ReadWriteLock::readWatchdogError, this, &LockVariant::renewalFailed);
}

ReadLock::~ReadLock() = default;

void ReadLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                          LockClient::AcquireCallback callback)
{
    m_lock->tryAcquireRead(name, threadId, leaseMs, context, std::move(callback));
}

void ReadLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    m_lock->unlockRead(name, threadId, context, std::move(callback));
}

void ReadLock::renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                     LockClient::BoolCallback callback)
{
    m_lock->renewRead(name, {threadId}, leaseMs, context, std::move(callback));
}

LockKindDescriptor ReadLock::descriptor()
{
    LockKindDescriptor d = halfDescriptor(
        AcquireKind::Read, QStringLiteral("read"), QT_TRANSLATE_NOOP("LockKinds", "&Read"),
        QT_TRANSLATE_NOOP("LockKinds", "Read half of a read-write lock (getReadWriteLock): shared with other readers"),
        [](LockClient *client, QObject *parent) -> LockVariant * {
            return ReadWriteLock::of(client, parent)->readLock();
        });
    d.protocolSection = "§4.2";
    return d;
}

} // namespace lockscope
