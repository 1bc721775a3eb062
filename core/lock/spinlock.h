#pragma once

#include "lockvariant.h"

#include <QObject>
#include <QString>

namespace lockscope
{

/**
 * A Redisson-compatible spin lock client (`RedissonSpinLock`, protocol §5.1, 3.15.0+/4.7).
 *
 * The RLock hash layout (field "<clientId>:<threadId>" -> hold count) and the RLock acquire
 * script, but **no pub/sub at all**: unlock publishes nothing and waiters poll with Redisson's
 * default exponential backoff (1 ms, then x2 + a random 0..n-1 ms after the n-th miss, capped at
 * 128 ms, §1.6). It is therefore invisible in PUBSUB listings, and cannot be told apart from an
 * RLock in Redis. Renewal is the RLock's (LockVariant's default, shared with FencedLock); force
 * unlock only deletes the hash, as RedissonSpinLock.forceUnlockAsync does (no message: spin
 * waiters poll).
 *
 * All calls are asynchronous; callbacks run on this object's thread, once, unless `context` was
 * destroyed first (pass nullptr for no context). `leaseMs <= 0` means "use the watchdog" (the
 * client's LockWatchdog renews it every timeout/3 until unlocked).
 */
class SpinLock : public LockVariant
{
    Q_OBJECT
public:
    static constexpr qint64 kBackoffInitialMs = 1;
    static constexpr qint64 kBackoffMaxMs = 128;
    static constexpr qint64 kBackoffMultiplier = 2;

    /** `client` gives the identity and the connection; it must outlive this object. */
    explicit SpinLock(LockClient *client, QObject *parent = nullptr);
    ~SpinLock() override;

    AcquireKind kind() const override { return AcquireKind::Spin; }
    /** The kind's facts ("spin"), registered in shippedLockKinds() (LockVariantFactory). */
    static LockKindDescriptor descriptor();

    /** One attempt (Redisson `tryLock()`): LockVariant::tryAcquire(), the RLock acquire script run
     *  by LockClient::tryAcquire: acquire when free, re-enter when held by this thread (hold
     *  count + 1, TTL reset to the lease); otherwise `pttlMs` = the lock's PTTL in ms (-1 = held
     *  with no expiry). */
    using LockVariant::tryAcquire;
    /**
     * Waits up to `waitMs` ms (< 0 = forever) by polling tryAcquire with exponential backoff
     * (1 ms initial, x2 + jitter, max 128 ms; never longer than the remaining wait). No
     * subscription is made. On timeout acquired=false with the last PTTL; on a server/transport
     * error `error` is set. If `context` dies while waiting the polling stops (a lock won in that
     * race is unlocked). This is LockVariant::acquire() with waitSteps() below.
     */
    using LockVariant::acquire;
    /**
     * Spin unlock with a fresh request id and the latch (§5.1): the RLock unlock without publish,
     * then a fire-and-forget DEL of the latch key. Released: hash deleted. StillHeld: hold count
     * decremented, TTL reset to the lease of the acquire. NotHeld: not held by this thread
     * (Redisson's IllegalMonitorStateException text in `error`). Error: server/transport error.
     * Released and NotHeld stop the watchdog renewal of `name`.
     */
    void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback) override;
    /** RedissonSpinLock.forceUnlockAsync: DEL of the hash and nothing published. `ok` = true when
     *  the hash existed; `error` set on a server or transport error. Stops this client's watchdog
     *  renewal of `name`. */
    void forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback) override;
    /** Empty: spin waiters listen on no channel. */
    QByteArray waitChannel(const QString &name, qint64 threadId) const override;

protected:
    /** The RLock wait without a channel, and Redisson's LockOptions.ExponentialBackOff between
     *  attempts. */
    LockAcquisition::Steps waitSteps(const QString &name, qint64 threadId, qint64 leaseMs) override;

private:
    RedisScript m_unlock;
};

} // namespace lockscope
