#pragma once

#include "lockvariant.h"

#include <QObject>
#include <QString>

#include <functional>

namespace lockscope
{

/**
 * A Redisson-compatible fenced lock client (`RedissonFencedLock`, protocol §5.2, 3.19.0+/4.7).
 *
 * The RLock hash (field "<clientId>:<threadId>" -> hold count) plus the fencing token counter
 * `redisson_lock_token:{name}`: a STRING with no TTL, INCRed by every successful acquire
 * (re-entry included) and never reset by unlock. Acquires report the token of that acquire in
 * AcquireResult::token. Unlock, unlock channel (`redisson_lock__channel:{name}`, message "0"),
 * the wait, renewal and force unlock are the RLock's (RedissonFencedLock extends RedissonLock):
 * LockVariant's defaults, which SpinLock shares too.
 *
 * All calls are asynchronous; callbacks run on this object's thread, once, unless `context` was
 * destroyed first (pass nullptr for no context). `leaseMs <= 0` means "use the watchdog" (the
 * client's LockWatchdog renews it every timeout/3 until unlocked).
 */
class FencedLock : public LockVariant
{
    Q_OBJECT
public:
    /** `client` gives the identity and the connections; it must outlive this object. */
    explicit FencedLock(LockClient *client, QObject *parent = nullptr);
    ~FencedLock() override;

    AcquireKind kind() const override { return AcquireKind::Fenced; }
    /** The kind's facts ("fenced"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();

    /**
     * One attempt (Redisson `tryLockAndGetToken()`): the lockAndGetToken script (§5.2). Acquired
     * (free or re-entered): `token` = the new value of `redisson_lock_token:{name}` (>= 1).
     * Not acquired: `pttlMs` = the lock's PTTL in ms (-1 = held with no expiry), `token` = -1.
     * The script's reply is {-1, token} / {pttl, -1}; it is told apart by the token, since a lock
     * held with no expiry answers {-1, -1}.
     */
    void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::AcquireCallback callback) override;
    /**
     * Waits up to `waitMs` ms (< 0 = forever), as RLock waiting (§1.5): attempt, subscribe to
     * `redisson_lock__channel:{name}`, retry on "0"/"1" or after min(ttl, remaining). On timeout
     * acquired=false with the last PTTL; on a server/transport error `error` is set. If `context`
     * dies while waiting the wait stops (a lock won in that race is unlocked). This is
     * LockVariant::acquire(), the RLock wait; it is named here for its documentation.
     */
    using LockVariant::acquire;
    /** RLock unlock (§2.3): LockVariant::unlock(), via LockClient::unlock, with the lease of the
     *  acquire as Redisson's internalLockLeaseTime. The token counter is left as it is. */
    using LockVariant::unlock;
    /** Redisson `getToken()`: GET `redisson_lock_token:{name}`; 0 when absent (never acquired),
     *  -1 on error. */
    void token(const QString &name, QObject *context, std::function<void(qint64 token)> callback);

private:
    RedisScript m_acquire;
};

} // namespace lockscope
