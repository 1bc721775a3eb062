#pragma once

#include "lockvariant.h"

namespace lockscope
{

class ReadWriteLock;

/**
 * The read half of a read-write lock as a LockVariant (Redisson `RedissonReadLock`,
 * `getReadWriteLock(name).readLock()`): ReadWriteLock::readLock() gives it. The scripts, the
 * wait and the read renewal are the ReadWriteLock's (tryAcquireRead, acquireRead, unlockRead,
 * renewRead; see there for the data each writes, replies and errors).
 *
 * Shape: holder field "<clientId>:<threadId>", wait channel `redisson_rwlock:{name}` (read
 * unlock publishes "0", write unlock "1"). Read holds taken with `leaseMs <= 0` are renewed by
 * the ReadWriteLock's own timer, not the client's watchdog: when that renewal finds a hold gone
 * or fails, renewalStopped() / renewalFailed() say so. forceUnlock is RedissonReadLock's (DEL +
 * a wake-up on `redisson_rwlock:{name}`, through force_unlock.lua, which publishes "1" so that
 * every waiting thread wakes).
 */
class ReadLock : public LockVariant
{
    Q_OBJECT
public:
    /** `lock` (its parent) gives the client and the read renewal; it must outlive this object. */
    explicit ReadLock(ReadWriteLock *lock);
    ~ReadLock() override;

    AcquireKind kind() const override { return AcquireKind::Read; }
    /** The kind's facts ("read"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();
    ReadWriteLock *readWriteLock() const { return m_lock; }

    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                 LockClient::AcquireCallback callback) override;
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
    /** ReadWriteLock::renewRead for `threadId` alone (Redisson 4.4.0+ read renewal). */
    void renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
               LockClient::BoolCallback callback) override;
    void forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback) override;
    /** ReadWriteLock::channel(name), shared by both halves. */
    QByteArray waitChannel(const QString &name, qint64 threadId) const override;

private:
    ReadWriteLock *m_lock;
};

} // namespace lockscope
