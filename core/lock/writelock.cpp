#include "writelock.h"

#include "readwritelock.h"

#include "redis/redisbytes.h"

namespace lockscope
{

WriteLock::WriteLock(ReadWriteLock *lock) : LockVariant(lock->client(), lock), m_lock(lock) {}

WriteLock::~WriteLock() = default;

QString WriteLock::holderField(qint64 threadId) const
{
    return m_lock->writerField(threadId);
}

void WriteLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                           LockClient::AcquireCallback callback)
{
    m_lock->tryAcquireWrite(name, threadId, leaseMs, context, std::move(callback));
}

void WriteLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                        LockClient::AcquireCallback callback)
{
    m_lock->acquireWrite(name, threadId, leaseMs, waitMs, context, std::move(callback));
}

void WriteLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    m_lock->unlockWrite(name, threadId, context, std::move(callback));
}

void WriteLock::renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                      LockClient::BoolCallback callback)
{
    m_lock->renewWrite(name, threadId, leaseMs, context, std::move(callback));
}

void WriteLock::forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    forceUnlockByData(name, context, std::move(callback));
}

QByteArray WriteLock::waitChannel(const QString &name, qint64) const
{
    return RedisBytes::toBytes(ReadWriteLock::channel(name));
}

LockKindDescriptor WriteLock::descriptor()
{
    LockKindDescriptor d;
    d.kind = AcquireKind::Write;
    d.word = QStringLiteral("write");
    d.label = QT_TRANSLATE_NOOP("LockKinds", "W&rite");
    d.toolTip =
        QT_TRANSLATE_NOOP("LockKinds", "Write half of a read-write lock: exclusive, waits until every reader has left");
    d.offered = true;
    d.foundAs = LockKind::ReadWriteLock;
    d.holderField = LockKindDescriptor::HolderField::ClientThreadWrite;
    d.waitChannel = LockKindDescriptor::WaitChannel::ReadWriteChannel;
    d.protocolSection = "§4.4";
    d.make = [](LockClient *client, QObject *parent) -> LockVariant * {
        return ReadWriteLock::of(client, parent)->writeLock();
    };
    return d;
}

} // namespace lockscope
