#pragma once

#include "lockvariant.h"

namespace lockscope
{

/**
 * The RLock as a LockVariant (Redisson `RedissonLock`, `getLock(name)`): hash `<name>` with field
 * "<clientId>:<threadId>" -> hold count, unlock message "0" on `redisson_lock__channel:{name}`.
 * The scripts and the wait are LockClient's own (LockClient::tryAcquire, acquire, unlock, renew,
 * forceUnlock; see there for replies and errors), which are LockVariant's defaults: this class
 * only adds LockClient::acquire's direct first attempt, so that code holding a LockVariant takes
 * an RLock like any other kind.
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
    /** LockClient::acquire: its first attempt goes out directly, the wait (if any) follows. */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                 LockClient::AcquireCallback callback) override;
};

} // namespace lockscope
