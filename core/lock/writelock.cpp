#include "writelock.h"

#include "readwritelock.h"

namespace lockscope
{

WriteLock::WriteLock(ReadWriteLock *lock) : ReadWriteLockHalf(lock) {}

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

void WriteLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    m_lock->unlockWrite(name, threadId, context, std::move(callback));
}

void WriteLock::renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                      LockClient::BoolCallback callback)
{
    m_lock->renewWrite(name, threadId, leaseMs, context, std::move(callback));
}

LockKindDescriptor WriteLock::descriptor()
{
    LockKindDescriptor d = halfDescriptor(
        AcquireKind::Write, QStringLiteral("write"), QT_TRANSLATE_NOOP("LockKinds", "W&rite"),
        QT_TRANSLATE_NOOP("LockKinds", "Write half of a read-write lock: exclusive, waits until every reader has left"),
        [](LockClient *client, QObject *parent) -> LockVariant * {
            return ReadWriteLock::of(client, parent)->writeLock();
        });
    d.holderField = LockKindDescriptor::HolderField::ClientThreadWrite;
    d.protocolSection = "§4.4";
    return d;
}

} // namespace lockscope
