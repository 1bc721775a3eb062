#pragma once

#include "lockacquisition.h"
#include "lockclient.h"

#include "protocol/acquireplan.h"
#include "protocol/lockkinddescriptor.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QString>

namespace lockscope
{

/**
 * One kind of Redisson lock, as a client of it sees it: the common shape of RLock
 * (ReentrantLock), the fair lock (FairLock), the two halves of the read-write lock (ReadLock,
 * WriteLock), the fenced lock (FencedLock) and the spin lock (SpinLock). Code that takes,
 * renews or gives back a hold (LockHolds, the workshop) holds a LockVariant and does not ask
 * which kind it is; LockVariantFactory makes the one of a kind. Each kind's class also gives
 * its facts as `static LockKindDescriptor descriptor()` (word, label, the data it leaves, how to
 * make it), which shippedLockKinds() registers with LockKinds.
 *
 * Every variant is bound to a LockClient, which gives the identity (client id, thread ids), the
 * connection, the subscriber, the watchdog and the publish verb; it must outlive the variant.
 * The Redis data each kind writes is the one a Java Redisson client of that kind writes (the
 * scripts in resources/scripts; each class says which Redisson class it mirrors).
 *
 * All calls are asynchronous. Callbacks run on this object's thread, once, unless `context` was
 * destroyed first (pass nullptr for no context); without a connection they get the
 * LockCalls::notConnectedMessage() error from the event loop. Times are in ms. `leaseMs <= 0`
 * means "use the watchdog": the lease is the client's watchdog timeout (30000 ms by default) and
 * the hold is renewed every timeout/3 until it is unlocked, as Redisson's lockWatchdogTimeout.
 *
 * The defaults here are those of the RLock hash layout (field "<clientId>:<threadId>" -> hold
 * count, unlock channel `redisson_lock__channel:{name}`), which the fenced and spin locks share;
 * a kind overrides what differs.
 */
class LockVariant : public QObject
{
    Q_OBJECT
public:
    ~LockVariant() override;

    /** Which kind this is (the value AcquirePlan decides and the audit records name). */
    virtual AcquireKind kind() const = 0;
    /** AcquirePlan::kindName(kind()): "lock", "fair", "read", "write", "fenced", "spin". */
    QString kindName() const { return AcquirePlan::kindName(kind()); }
    LockClient *client() const { return m_client; }

    /** The hash field a hold of `threadId` has: "<clientId>:<threadId>" (RLock, fair, read,
     *  fenced, spin) or "<clientId>:<threadId>:write" (write lock). Empty without a client. */
    virtual QString holderField(qint64 threadId) const;

    /**
     * One attempt without waiting (Redisson `tryLock()` with no wait time). Acquired: `acquired`
     * true (and `token` >= 1 for the fenced lock, -1 for every other kind). Not acquired:
     * `pttlMs` = the lock's PTTL in ms (-1 = held with no expiry; the fair lock also answers -2 =
     * free, but another waiter is first in line). A server or transport error: `error` set.
     * Default: the RLock acquire script once (LockClient::tryAcquire, §2.2).
     */
    virtual void tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                            LockClient::AcquireCallback callback);
    /**
     * Waits up to `waitMs` ms (< 0 = forever), as Redisson's lock()/tryLock(waitTime): attempt,
     * then listen on waitChannel() (or poll, when it is empty) and retry until acquired, the wait
     * is over (acquired=false with the last PTTL) or an error ends it. If `context` is destroyed
     * while waiting the wait stops, and a hold won in that race is given back. Default: the RLock
     * wait (LockAcquisition with waitSteps()).
     */
    virtual void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                         LockClient::AcquireCallback callback);
    /**
     * Gives back one hold of `threadId` with the kind's unlock script and Redisson's unlock latch.
     * Released: the hold is gone (the hash deleted, or for the write lock downgraded to its own
     * read holds) and the kind's wake-up message published. StillHeld: the hold count went down,
     * the TTL is reset to the lease of the acquire. NotHeld: not held by this thread (Redisson's
     * IllegalMonitorStateException text in `error`). Error: server or transport error. Released
     * and NotHeld stop the watchdog renewal of the hold. Default: the RLock unlock script
     * (LockClient::unlock, §2.3), with the lease of the acquire as Redisson's
     * internalLockLeaseTime and "0" published on `redisson_lock__channel:{name}` on release.
     */
    virtual void unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback);
    /**
     * Renews the hold of `threadId` to `leaseMs` (<= 0: the watchdog timeout), as one round of
     * Redisson's watchdog (renewExpiration). `ok` = false when `threadId` holds nothing here; with
     * `error` set on a server or transport error. Default: the RLock renew script on
     * holderField(threadId).
     */
    virtual void renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                       LockClient::BoolCallback callback);
    /**
     * Redisson's forceUnlock of this kind: deletes the lock whoever holds it and wakes its waiters
     * on the kind's channel. `ok` = true when a lock was deleted; `error` set on a server or
     * transport error. Also stops this client's watchdog renewal of `name`. Default: the RLock's
     * (DEL + "0" on `redisson_lock__channel:{name}`, RedissonLock.forceUnlockAsync).
     */
    virtual void forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback);
    /**
     * The channel a waiting `threadId` listens on, the one the kind's unlock publishes its
     * wake-up message to: `redisson_lock__channel:{name}` (RLock, fenced), the per-waiter
     * `redisson_lock__channel:{name}:<holderField>` (fair), `redisson_rwlock:{name}` (read,
     * write); empty for the spin lock, whose waiters poll.
     */
    virtual QByteArray waitChannel(const QString &name, qint64 threadId) const;

signals:
    /** A renewal of the kind's own (not the client's watchdog) found `name` no longer held by
     *  this client and stopped renewing it (the read lock's renewal timer). */
    void renewalStopped(const QString &name);
    /** A renewal of the kind's own failed with `message` (server or transport error). */
    void renewalFailed(const QString &message);

protected:
    /** `client` gives identity and connections; it must outlive this object. */
    explicit LockVariant(LockClient *client, QObject *parent = nullptr);

    /** The parts of the default acquire() wait: attempt = tryAcquire(), channel = waitChannel(),
     *  woken by "0" or "1" (Redisson's unlock and read-write unlock messages), a hold won after
     *  the caller's context died given back with unlock(). A kind changes what differs. */
    virtual LockAcquisition::Steps waitSteps(const QString &name, qint64 threadId, qint64 leaseMs);

    /**
     * The start of a kind's descriptor(): its id `kind`, its `--kind` word `word`, the dialog's
     * `label` and `toolTip` (static strings marked QT_TRANSLATE_NOOP in context "LockKinds") and
     * `make`. Every other field is at LockKindDescriptor's default, the RLock's: offered, found as
     * `lock`, holder field "<clientId>:<threadId>", waiters on `redisson_lock__channel:{name}`,
     * no protocol section; descriptor() sets its protocol section and what differs.
     */
    static LockKindDescriptor kindDescriptor(AcquireKind kind, const QString &word, const char *label,
                                             const char *toolTip, LockKindDescriptor::MakeVariant make);
    /** The `make` of a kind whose variant is a new `Kind(client, parent)`. */
    template <typename Kind> static LockVariant *makeKind(LockClient *client, QObject *parent)
    {
        return new Kind(client, parent);
    }

    /**
     * Force unlock decided by the data (resources/scripts/force_unlock.lua without a confirmed
     * state): what Redisson's forceUnlock of the kind the data shows does (fair: prune, DEL, "0"
     * to the head waiter; read-write: DEL + "1" on `redisson_rwlock:{name}`; otherwise DEL + "0"
     * on `redisson_lock__channel:{name}`). For the kinds whose force unlock is not the RLock's.
     */
    void forceUnlockByData(const QString &name, QObject *context, LockClient::BoolCallback callback);

    QPointer<LockClient> m_client;
};

} // namespace lockscope
