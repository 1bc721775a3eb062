#pragma once

#include "readwritelockhalf.h"

namespace lockscope
{

/**
 * The write half of a read-write lock as a LockVariant (Redisson `RedissonWriteLock`,
 * `getReadWriteLock(name).writeLock()`): ReadWriteLock::writeLock() gives it. The scripts are the
 * ReadWriteLock's (tryAcquireWrite, unlockWrite, renewWrite; see there for the data each writes,
 * replies and errors); the wait channel and force unlock are both halves' (ReadWriteLockHalf).
 *
 * Shape: holder field "<clientId>:<threadId>:write"; write holds taken with `leaseMs <= 0` are
 * renewed by the client's watchdog on the ":write" field.
 */
class WriteLock : public ReadWriteLockHalf
{
    Q_OBJECT
public:
    /** `lock` (its parent) gives the client; it must outlive this object. */
    explicit WriteLock(ReadWriteLock *lock);
    ~WriteLock() override;

    AcquireKind kind() const override { return AcquireKind::Write; }
    /** The kind's facts ("write"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();

    /** ReadWriteLock::writerField: "<clientId>:<threadId>:write". */
    QString holderField(qint64 threadId) const override;
    /** ReadWriteLock::tryAcquireWrite (§4.4). */
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;
    /** ReadWriteLock::unlockWrite (§4.5). */
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
    /** ReadWriteLock::renewWrite: the RLock renew script on the ":write" field. */
    void renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
               LockClient::BoolCallback callback) override;
};

} // namespace lockscope
