#pragma once

#include "lockclient.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

namespace lockscope
{

class ReadLock;
class WriteLock;

/**
 * A Redisson-compatible read/write lock client (`RedissonReadWriteLock` with its `RedissonReadLock`
 * and `RedissonWriteLock` halves, protocol §4, 3.24+/4.7 semantics).
 *
 * Both halves share one hash `<name>`: "mode" -> "read"/"write", reader fields
 * "<clientId>:<threadId>" -> read hold count, writer field "<clientId>:<threadId>:write" -> write
 * hold count. Every read hold n also has a STRING key `<timeoutPrefix>:<n>` with PX lease, where
 * timeoutPrefix = suffixName(name, holderField) + ":rwlock_timeout" (e.g.
 * "{name}:<clientId>:<threadId>:rwlock_timeout", or "name:<clientId>:<threadId>:rwlock_timeout"
 * when the name contains '{'). Readers and writers share the channel `redisson_rwlock:{name}`:
 * read unlock publishes "0", write unlock publishes "1"; waiters retry on either.
 * A thread holding the write lock may also take read locks (and keeps them when the write lock
 * is released: downgrade); read -> write upgrade is impossible (the thread would wait on itself).
 *
 * All calls are asynchronous; callbacks run on this object's thread, once, unless `context` was
 * destroyed first (pass nullptr for no context). `leaseMs <= 0` means "use the watchdog", with
 * the client's watchdog timeout as the lease: write holds are renewed by the client's
 * LockWatchdog (RLock renew script with the ":write" field), read holds by this object's own
 * timer every timeout/3 with the 4.4.0+ read renewal (renewRead), until unlocked.
 *
 * Its two halves as LockVariants, the common shape of every lock kind, are readLock() and
 * writeLock(), as Redisson's RReadWriteLock gives its RLock halves.
 */
class ReadWriteLock : public QObject
{
    Q_OBJECT
public:
    /** `client` gives the identity and the connections; it must outlive this object. */
    explicit ReadWriteLock(LockClient *client, QObject *parent = nullptr);
    ~ReadWriteLock() override;

    LockClient *client() const { return m_client; }
    /** The ReadWriteLock on `client` among `parent`'s direct children, made there when there is
     *  none: the halves a factory makes share one per client and parent, as the halves of one
     *  Redisson RReadWriteLock do. Never null. */
    static ReadWriteLock *of(LockClient *client, QObject *parent);
    /** The read half as a LockVariant (Redisson `readLock()`); a child of this object. */
    ReadLock *readLock();
    /** The write half as a LockVariant (Redisson `writeLock()`); a child of this object. */
    WriteLock *writeLock();

    /** `redisson_rwlock:{name}` (prefixName), the channel of both halves (§4.1). */
    static QString channel(const QString &name);
    /** suffixName(name, holderField) + ":rwlock_timeout": per-hold keys are this + ":<n>" (§4.1). */
    static QString timeoutPrefix(const QString &name, const QString &holderField);
    /** The part of timeoutPrefix before ":" + holderField: "{name}", or "name" when it contains '{'. */
    static QString keyPrefix(const QString &name);
    /** Writer field "<clientId>:<threadId>:write" of this client's thread (§1.1, §4.1). */
    QString writerField(qint64 threadId) const;

    /**
     * One read attempt (§4.2): acquired when the lock is free, in read mode, or write-held by this
     * same thread; each hold adds a `<timeoutPrefix>:<n>` key with PX lease and raises the hash
     * TTL to at least the lease. Otherwise `pttlMs` = the lock's PTTL in ms (-1 = no expiry).
     */
    void tryAcquireRead(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                        LockClient::AcquireCallback callback);
    /** Waits up to `waitMs` ms (< 0 = forever) for a read hold: attempt, subscribe to
     *  `redisson_rwlock:{name}`, retry on "0"/"1" or after min(ttl, remaining) (§1.5). On timeout
     *  acquired=false with the last PTTL; on a server/transport error `error` is set. If `context`
     *  dies while waiting the wait stops (a hold won in that race is released). The wait is
     *  readLock()'s, LockVariant's (§1.5 on the channel both halves share). */
    void acquireRead(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                     LockClient::AcquireCallback callback);
    /**
     * Read unlock with a fresh request id and the latch (§4.3), then a fire-and-forget DEL of the
     * latch key. Removes this thread's newest per-hold key. Released: the hash was deleted (no
     * live holder left) and "0" published. StillHeld: the lock stays (this thread or other live
     * readers still hold it, the hash TTL becoming the longest remaining per-hold TTL, or this
     * thread still has its write hold). NotHeld: this thread holds no read lock (when the hash is
     * absent, Redisson still publishes "0"). Error: server/transport error.
     */
    void unlockRead(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback);

    /** One write attempt (§4.4): acquired when the lock is free (mode "write", TTL = lease) or
     *  write-held by this thread (re-entry: TTL = current PTTL + lease, as Redisson adds).
     *  Otherwise `pttlMs` = the lock's PTTL in ms (read-held, or write-held by someone else). */
    void tryAcquireWrite(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                         LockClient::AcquireCallback callback);
    /** Waits up to `waitMs` ms (< 0 = forever) for the write lock, like acquireRead: writeLock()'s
     *  wait. */
    void acquireWrite(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                      LockClient::AcquireCallback callback);
    /**
     * Write unlock with a fresh request id and the latch (§4.5), then a fire-and-forget DEL of the
     * latch key. Released: the write hold is gone: either the hash was deleted and "1" published,
     * or this thread's own read holds remain and the lock was downgraded to mode "read" (no
     * publish). StillHeld: hold count decremented, TTL reset to the lease of the acquire. NotHeld:
     * not write-held by this thread (when the hash is absent, Redisson still publishes "1").
     */
    void unlockWrite(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback);

    /** Renews this thread's write hold to `leaseMs` (<= 0: the watchdog timeout) with the RLock
     *  renew script on the ":write" field (§4.6): ok=false when not write-held by it. */
    void renewWrite(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                    LockClient::BoolCallback callback);
    /**
     * 4.4.0+ read renewal (§4.6) of this client's `threadIds` on `name`: for each thread with a
     * hold count c, PEXPIREs its per-hold keys c..1 to `leaseMs` (<= 0: the watchdog timeout);
     * then the hash too if any thread held. ok=true when at least one of them holds a read lock;
     * false (and nothing touched) otherwise or on error (then `error` is set).
     */
    void renewRead(const QString &name, const QList<qint64> &threadIds, qint64 leaseMs, QObject *context,
                   LockClient::BoolCallback callback);

    /** Lock names whose read holds this object renews (read holds taken with leaseMs <= 0). */
    QStringList readWatchdogNames() const { return m_readWatch.keys(); }

signals:
    /** The read renewal timer renewed these locks. */
    void readWatchdogRenewed(const QStringList &names);
    /** The read renewal found none of the watched threads holding `name`, and dropped it. */
    void readWatchdogLost(const QString &name);
    void readWatchdogError(const QString &message);

private:
    void watchRead(const QString &name, qint64 threadId);
    void unwatchRead(const QString &name, qint64 threadId, bool allHolds);
    void renewWatchedReads();

    QPointer<LockClient> m_client;
    ReadLock *m_readLock = nullptr;
    WriteLock *m_writeLock = nullptr;
    RedisScript m_readAcquire;
    RedisScript m_readUnlock;
    RedisScript m_writeAcquire;
    RedisScript m_writeUnlock;
    RedisScript m_readRenew;
    RedisScript m_renew;
    QHash<QString, QHash<qint64, int>> m_readWatch; ///< name -> thread -> watchdog-managed read holds
    QTimer m_readRenewTimer;
};

} // namespace lockscope
