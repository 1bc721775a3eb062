#pragma once

#include "lockvariant.h"

namespace lockscope
{

/**
 * The RLock as a LockVariant (Redisson `RedissonLock`, `getLock(name)`): hash `<name>` with field
 * "<clientId>:<threadId>" -> hold count, unlock message "0" on `redisson_lock__channel:{name}`.
 * The scripts and the wait are LockClient's own (LockClient::tryAcquire, acquire, unlock, renew,
 * forceUnlock; see there for replies and errors): this class only gives them the common shape,
 * so that code holding a LockVariant takes an RLock like any other kind.
 */
class ReentrantLock : public LockVariant
{
    Q_OBJECT
public:
    /** `client` gives the identity and the connections; it must outlive this object. */
    explicit ReentrantLock(LockClient *client, QObject *parent = nullptr);
    ~ReentrantLock() override;

    AcquireKind kind() const override { return AcquireKind::Lock; }
    /** The kind's facts ("lock"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();
    /** LockClient::tryAcquire: the RLock acquire script once. */
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;
    /** LockClient::acquire: its first attempt goes out directly, the wait (if any) follows. */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                 LockClient::AcquireCallback callback) override;
    /** LockClient::unlock: the RLock unlock script with the latch, "0" published on release. */
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
};

} // namespace lockscope
