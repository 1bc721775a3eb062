#pragma once

#include "readwritelockhalf.h"

namespace lockscope
{

/**
 * The read half of a read-write lock as a LockVariant (Redisson `RedissonReadLock`,
 * `getReadWriteLock(name).readLock()`): ReadWriteLock::readLock() gives it. The scripts and the
 * read renewal are the ReadWriteLock's (tryAcquireRead, unlockRead, renewRead; see there for the
 * data each writes, replies and errors); the wait channel and force unlock are both halves'
 * (ReadWriteLockHalf).
 *
 * Shape: holder field "<clientId>:<threadId>". Read holds taken with `leaseMs <= 0` are renewed
 * by the ReadWriteLock's own timer, not the client's watchdog: when that renewal finds a hold
 * gone or fails, renewalStopped() / renewalFailed() say so.
 */
class ReadLock : public ReadWriteLockHalf
{
    Q_OBJECT
public:
    /** `lock` (its parent) gives the client and the read renewal; it must outlive this object. */
    explicit ReadLock(ReadWriteLock *lock);
    ~ReadLock() override;

    AcquireKind kind() const override { return AcquireKind::Read; }
    /** The kind's facts ("read"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();

    /** ReadWriteLock::tryAcquireRead (§4.2). */
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;
    /** ReadWriteLock::unlockRead (§4.3). */
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
    /** ReadWriteLock::renewRead for `threadId` alone (Redisson 4.4.0+ read renewal). */
    void renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
               LockClient::BoolCallback callback) override;
};

} // namespace lockscope
