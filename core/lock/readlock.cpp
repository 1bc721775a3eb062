#include "readlock.h"

#include "readwritelock.h"

#include "redis/redisbytes.h"

namespace lockscope
{

ReadLock::ReadLock(ReadWriteLock *lock) : LockVariant(lock->client(), lock), m_lock(lock)
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

void ReadLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                       LockClient::AcquireCallback callback)
{
    m_lock->acquireRead(name, threadId, leaseMs, waitMs, context, std::move(callback));
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

void ReadLock::forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    forceUnlockByData(name, context, std::move(callback));
}

QByteArray ReadLock::waitChannel(const QString &name, qint64) const
{
    return RedisBytes::toBytes(ReadWriteLock::channel(name));
}

LockKindDescriptor ReadLock::descriptor()
{
    LockKindDescriptor d;
    d.kind = AcquireKind::Read;
    d.word = QStringLiteral("read");
    d.label = QT_TRANSLATE_NOOP("LockKinds", "&Read");
    d.toolTip =
        QT_TRANSLATE_NOOP("LockKinds", "Read half of a read-write lock (getReadWriteLock): shared with other readers");
    d.offered = true;
    d.foundAs = LockKind::ReadWriteLock;
    d.holderField = LockKindDescriptor::HolderField::ClientThread;
    d.waitChannel = LockKindDescriptor::WaitChannel::ReadWriteChannel;
    d.protocolSection = "§4.2";
    d.make = [](LockClient *client, QObject *parent) -> LockVariant * {
        return ReadWriteLock::of(client, parent)->readLock();
    };
    return d;
}

} // namespace lockscope
