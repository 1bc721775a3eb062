#pragma once

#include "lockvariant.h"

namespace lockscope
{

class ReadWriteLock;

/**
 * The write half of a read-write lock as a LockVariant (Redisson `RedissonWriteLock`,
 * `getReadWriteLock(name).writeLock()`): ReadWriteLock::writeLock() gives it. The scripts and
 * the wait are the ReadWriteLock's (tryAcquireWrite, acquireWrite, unlockWrite, renewWrite; see
 * there for the data each writes, replies and errors).
 *
 * Shape: holder field "<clientId>:<threadId>:write", wait channel `redisson_rwlock:{name}`;
 * write holds taken with `leaseMs <= 0` are renewed by the client's watchdog on the ":write"
 * field. forceUnlock is RedissonWriteLock's (DEL + "1" on `redisson_rwlock:{name}`, through
 * force_unlock.lua).
 */
class WriteLock : public LockVariant
{
    Q_OBJECT
public:
    /** `lock` (its parent) gives the client; it must outlive this object. */
    explicit WriteLock(ReadWriteLock *lock);
    ~WriteLock() override;

    AcquireKind kind() const override { return AcquireKind::Write; }
    /** The kind's facts ("write"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();
    ReadWriteLock *readWriteLock() const { return m_lock; }

    /** ReadWriteLock::writerField: "<clientId>:<threadId>:write". */
    QString holderField(qint64 threadId) const override;
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                 LockClient::AcquireCallback callback) override;
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
    /** ReadWriteLock::renewWrite: the RLock renew script on the ":write" field. */
    void renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
               LockClient::BoolCallback callback) override;
    void forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback) override;
    /** ReadWriteLock::channel(name), shared by both halves. */
    QByteArray waitChannel(const QString &name, qint64 threadId) const override;

private:
    ReadWriteLock *m_lock;
};

} // namespace lockscope
