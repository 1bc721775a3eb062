#include "readwritelockhalf.h"

#include "readwritelock.h"

#include "redis/redisbytes.h"

namespace lockscope
{

ReadWriteLockHalf::ReadWriteLockHalf(ReadWriteLock *lock) : LockVariant(lock->client(), lock), m_lock(lock) {}

ReadWriteLockHalf::~ReadWriteLockHalf() = default;

void ReadWriteLockHalf::forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    forceUnlockByData(name, context, std::move(callback));
}

QByteArray ReadWriteLockHalf::waitChannel(const QString &name, qint64) const
{
    return RedisBytes::toBytes(ReadWriteLock::channel(name));
}

LockKindDescriptor ReadWriteLockHalf::halfDescriptor(AcquireKind kind, const QString &word, const char *label,
                                                     const char *toolTip, LockKindDescriptor::MakeVariant make)
{
    LockKindDescriptor d = kindDescriptor(kind, word, label, toolTip, make);
    d.foundAs = LockKind::ReadWriteLock;
    d.waitChannel = LockKindDescriptor::WaitChannel::ReadWriteChannel;
    return d;
}

} // namespace lockscope
