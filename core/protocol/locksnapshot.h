#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/** Lock kinds LockScope tells apart from Redis data alone (protocol §9, §5.5). JSON names in
 *  lockKindName(): "lock", "fair_lock", "read_write_lock", "fenced_lock", "faster_multi_lock"
 *  (a `RedissonFasterMultiLock` group, `getMultiLock(group, values)`, §5.5, §14.10). What a
 *  snapshot *found*, not the client a hold is taken with (AcquireKind): each lock kind's
 *  LockKindDescriptor::foundAs says which of these its hold leaves. */
enum class LockKind { Lock, FairLock, ReadWriteLock, FencedLock, FasterMultiLock };
QString lockKindName(LockKind kind);
/** Human label for the UI ("Reentrant lock", "Fair lock", ...). */
QString lockKindLabel(LockKind kind);

/** One hash field of a lock: `<clientId>:<threadId>` -> hold count (§2.1). */
struct LockHolder {
    QString field;        ///< the raw hash field
    QString clientId;     ///< Redisson client UUID
    QString threadId;     ///< Java thread id (decimal) or whatever a port writes after the colon
    qint64 holdCount = 0; ///< reentrancy count (the field's value)
    QString mode;         ///< "read"/"write" for read-write locks, empty otherwise
    /** Read holds only: PTTL in ms of each hold's `rwlock_timeout:<n>` key (n = 1..holdCount,
     *  protocol §4.1); -2 = that key is gone (a dead reader's hold). */
    QVector<qint64> holdTtlsMs;

    QJsonObject toJson() const;
    bool operator==(const LockHolder &o) const
    {
        return field == o.field && holdCount == o.holdCount && mode == o.mode;
    }
};

/**
 * One locked value of a `RedissonFasterMultiLock` group hash (protocol §5.5, §14.10): field
 * `fieldId` -> owner `<clientId>:<threadId>`, `fieldId:<owner>:expire_time` -> absolute epoch
 * ms (the locking client's clock), `fieldId:<owner>:lock_count` -> reentrancy count.
 */
struct MultiLockValue {
    QString fieldId; ///< base64 of HighwayHash128(encoded value), as Redisson writes it
    QString holder;  ///< the owner's lockName `<clientId>:<threadId>` (the field's value)
    QString clientId;
    QString threadId;
    qint64 holdCount = 0;      ///< `lock_count`; 0 when that field is missing
    qint64 expireEpochMs = -1; ///< `expire_time`; -1 when that field is missing
    /** Held now: an expiry at or after `serverTimeMs` (Redisson's own test, §14.10). */
    bool isLive(qint64 serverTimeMs) const { return expireEpochMs >= serverTimeMs; }
    QJsonObject toJson(qint64 serverTimeMs) const;
};

/** One entry of a fair lock's waiter queue with its deadline from the timeout set (§3.1). */
struct LockWaiter {
    QString field;
    int position = 0;            ///< 1 = head of the queue
    qint64 deadlineEpochMs = -1; ///< score in the timeout set (client clock), -1 when missing
                                 ///< or not a finite number (then deadlineRaw says what is there)
    QString deadlineRaw;         ///< the score as stored when it is not an epoch-ms number ("inf")
    QJsonObject toJson(qint64 serverTimeMs) const;
};

/**
 * Everything LockScope read about one lock in one atomic step (SnapshotReader): a plain value,
 * never holding a connection. Times: `pttlMs` as PTTL returns it at read time (-2 = the hash is
 * absent, -1 = no expiry), `serverTimeMs` = the server's TIME in epoch ms at that moment,
 * `readAtSteadyMs` = this process's monotonic clock (steadyNowMs()) when the reply arrived, so
 * countdowns are computed locally without re-reading Redis.
 */
struct LockSnapshot {
    QString name;
    LockKind kind = LockKind::Lock;
    bool isLock = false; ///< classified as a Redisson lock (or companion keys of one)
    bool exists = false; ///< the lock hash exists
    qint64 pttlMs = -2;
    QVector<LockHolder> holders;
    QVector<LockWaiter> waiters; ///< fair queue order, at most the first N
    qint64 queueLength = 0;      ///< full queue length (may exceed waiters.size())
    qint64 timeoutSetSize = 0;
    /** The timeout set as read (member -> deadline epoch ms, client clock), at most N entries. */
    QVector<QPair<QString, qint64>> timeoutSet;
    qint64 subscribers = 0; ///< PUBSUB NUMSUB of the unlock channel (read-write locks:
                            ///< of redisson_rwlock:{name}): Redisson clients waiting
    qint64 token = -1;      ///< fenced lock token, -1 when none
    QString rwMode;         ///< "read"/"write" for read-write locks
    qint64 serverTimeMs = 0;
    qint64 readAtSteadyMs = 0;
    QStringList problems; ///< readable findings ("no TTL: never expires on its own")
    /** Values Redisson never writes, as read, not silently repaired: an infinite or non-numeric deadline, a
     *  `mode` other than read/write, a non-numeric hold count or fencing token. One sentence each;
     *  the doctor raises `malformed_data` for them. */
    QStringList anomalies;
    /** HLEN of the lock hash (0 when absent). */
    qint64 fieldCount = 0;
    /** The hash had more fields than the snapshot reads whole (1024; an HGETALL of a million
     *  fields blocks Redis for seconds): `holders` is a bounded sample of it. */
    bool sampled = false;
    /** Redis Cluster: the hash slot of this lock was being migrated (resharding: MIGRATING on its
     *  master, IMPORTING on the target) and the lock was read key by key, each key where it lives
     *  (ASK followed), not in one atomic script: -1 when read atomically. */
    int migratingSlot = -1;

    /** Replication exposure (ExposureTracker): whether the last write of this lock LockScope saw
     *  (acquire, reentry, renewal) is on a replica of its master, from the master's
     *  `INFO replication` offsets. NotReplicated: a failover now would lose it. Unknown: no
     *  replica, not read yet, or not known (replicationNote says which). */
    enum class Replication : qint8 { Unknown, Replicated, NotReplicated };
    Replication replication = Replication::Unknown;
    QStringList replicatedOn;        ///< replicas ("ip:port") that have acknowledged it
    qint64 exposedSinceSteadyMs = 0; ///< NotReplicated: the write's time (steady ms)
    qint64 exposedMs = -1;           ///< NotReplicated: for how long, as of the verdict (ms)
    qint64 exposureLimitMs = -1;     ///< a third of the largest PTTL seen: exposed longer is critical
    QString replicationNote;         ///< why Unknown, or which replicas lag (one sentence)

    /** Faster multilock groups: every value of the hash (holders then lists each live owner
     *  once, its holdCount = the sum of its live values' lock_count). */
    QVector<MultiLockValue> multiLockValues;
    /** Faster multilock groups: the hash's field/value pairs as read (stateFingerprint()). */
    QVector<QPair<QString, QString>> rawFields;

    /**
     * Whether the data proves `kind` (README "kind_certain"; some kinds store the same data): a fair queue or
     * timeout set -> fair; `mode` -> read-write; a fence token -> fenced; multilock fields ->
     * faster multilock; a hash of holder fields with clients subscribed to the shared unlock
     * channel -> plain (fair waiters listen on per-waiter channels, §3.1). A held hash with none
     * of these is exactly what a fair lock with an empty queue stores as well (§3.1): `kind` stays
     * Lock, kindCertain is false and kindNote says why. LockMonitor may settle it as fair when it
     * saw a queue for the name earlier in the session.
     */
    bool kindCertain = true;
    /** LockScope lost sight of this lock (connection lost) and this is the last read;
     *  staleAsOfMs is when (wall clock, ms since the epoch). Cleared by the next read. */
    bool stale = false;
    qint64 staleAsOfMs = 0;
    QString kindNote; ///< why the kind is (un)certain; empty when plain evidence

    /** §14.4: the name whose derived keys are the same as this one's (`x` <-> `{x}`), empty
     *  when there is none (LockNames::twinName()). */
    QString twinName;
    bool twinExists = false; ///< the twin's hash existed at read time
    /** This name's hash is absent and its twin's exists: the companion keys belong to the twin
     *  (they were not attributed to this name, which is then not a lock). */
    bool companionsOfTwin() const { return !twinName.isEmpty() && !exists && twinExists; }
    /** Both hashes exist: Redisson shares the queue, timeout set, token and channels between them. */
    bool companionsShared() const { return !twinName.isEmpty() && exists && twinExists; }
    /** False when neither hash exists and the lock was seen only through shared companion keys:
     *  it may be named `x` or `{x}` (nameNote says so). */
    bool nameCertain() const { return twinName.isEmpty() || exists || twinExists; }
    /** One sentence for nameCertain() false or companionsShared(); empty otherwise. */
    QString nameNote() const;
    /** The kind column text: lockKindName(), "lock (fair or plain)" when !kindCertain. */
    QString kindDisplay() const;

    bool isHeld() const { return !holders.isEmpty(); }
    qint64 totalHoldCount() const;
    /** TTL left now, in ms, from pttlMs minus monotonic time since the read; -1 = no expiry,
     *  -2 = absent, never below 0 otherwise. */
    qint64 remainingTtlMs(qint64 nowSteadyMs) const;
    /** "clientId:threadId" of the holders, comma-separated. */
    QString holderSummary() const;
    /** The lock hash as LockScope saw it: "field=value" lines (holders and `mode`), sorted, joined by
     *  "\n"; empty for an absent hash. The scripts that act on a confirmed state compare it with
     *  the same string computed inside Redis, atomically. */
    QString stateFingerprint() const;
    /** True when this snapshot shows the TTL pushed back since `before` with the same holders:
     *  a watchdog renewal or an explicit renew (§2.6). "Pushed back" = more than 250 ms above what
     *  `before`'s countdown predicts for this read on the server's clock (serverTimeMs of both
     *  reads; the local arrival times only when a server time is missing), so a longer round trip
     *  is no renewal. A re-entry also resets the TTL, but changes the hold count, so it is not a
     *  renewal. */
    bool isRenewalOf(const LockSnapshot &before) const;
    /** Same holders with the same counts and mode (TTL and waiters ignored). */
    bool sameHolders(const LockSnapshot &o) const;

    /** The JSON object of the architecture doc ("Machine-readable output"). */
    QJsonObject toJson() const;
    /** Inverse of toJson() (recordings): `readAtSteadyMs` is set to `readAtSteadyMs`. */
    static LockSnapshot fromJson(const QJsonObject &o, qint64 readAtSteadyMs);

    /** Monotonic ms since an arbitrary origin (std::chrono::steady_clock). */
    static qint64 steadyNowMs();
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::LockSnapshot)
