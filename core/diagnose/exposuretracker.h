#pragma once

#include "protocol/locksnapshot.h"
#include "protocol/replicationinfo.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>

namespace lockscope
{

/**
 * Exposure before loss: which held locks a failover now would lose. Redis replicates
 * asynchronously, so a lock write the master answered may exist only there (Redisson's
 * checkLockSyncedSlaves, 3.17.0+, follows each lock write with WAIT for this reason; older
 * clients, or that setting off, do not).
 *
 * Fed with the lock writes LockScope sees (wrote(): acquired, reentered, renewed; the event's
 * master) and each master's `INFO replication` (absorb(), at most once a second). A write seen
 * before a reading at master offset X is at an offset <= X; it is on a replica once that
 * replica's acknowledged offset reaches X. Replicas acknowledge about once a second, so a lock is
 * **not replicated** only when no replica has reached X a full acknowledgement interval plus
 * kMarginMs after X was read (a healthy replica never raises it), or at once when every replica
 * has been silent for kSilentReplicaS seconds or more. A lock present before LockScope saw it
 * written (found by the first scan) is replicated once a replica reaches the offset of the
 * reading after it was first seen, and Unknown until then (never NotReplicated: its write may be
 * old). A master without replicas: Unknown, "no replica", never an alarm; a master whose replicas
 * all disconnected: every write seen since is NotReplicated.
 *
 * Pure logic, no I/O: LockSession reads each master's INFO replication once a second and applies
 * the verdicts to the snapshots it hands on (apply()); LockDoctor turns NotReplicated into
 * `not_replicated`. Times are steady ms (the session's clock).
 */
class ExposureTracker
{
public:
    static constexpr qint64 kAckIntervalMs = 1000; ///< a replica's REPLCONF ACK period
    static constexpr qint64 kMarginMs = 500;       ///< on top of it before an alarm
    static constexpr qint64 kSilentReplicaS = 2;   ///< `lag` (s) of a replica taken as stalled

    /** A write of `lock` on `master` ("host:port") seen at `steadyMs`. */
    void wrote(const QString &master, const QString &lock, qint64 steadyMs);
    /** `lock` seen (read) on `master` at `steadyMs`: tracked from then on as written before
     *  LockScope knew, unless tracked already. `pttlMs`: its PTTL as read (the largest is taken as
     *  its lease: a third of it is when an exposure becomes critical). */
    void seen(const QString &master, const QString &lock, qint64 steadyMs, qint64 pttlMs);
    /** `lock` is gone (released, expired, deleted). */
    void forget(const QString &lock);
    /** The locks judged not replicated now. */
    QStringList exposed() const;
    /** Forgets every lock and master (a new server: Sentinel or the workshop followed a failover). */
    void clear();
    /** A reading of `master`; returns the locks whose verdict (replicated or not, the replicas
     *  that have it) changed. */
    QStringList absorb(const QString &master, const ReplicationInfo &info);
    /** The last reading of `master` (valid = false when none). */
    ReplicationInfo info(const QString &master) const { return m_masters.value(master); }
    /** Every master with a reading. */
    QStringList masters() const { return m_masters.keys(); }

    /** Fills `s`'s replication fields (replication, replicatedOn, exposedMs, exposureLimitMs,
     *  replicationNote); `master` serves it (a master without replicas: Unknown, "no replica")
     *  from the verdict on its lock, as of `nowSteadyMs`. Untracked: Unknown, no note. */
    void apply(LockSnapshot &s, const QString &master, qint64 nowSteadyMs) const;

private:
    struct Exposure {
        QString master;
        qint64 writeSteadyMs = 0;  ///< the last write seen (or first sighting)
        bool writeSeen = false;    ///< false: only seen, written before LockScope watched
        qint64 offset = -1;        ///< master offset of the first reading after it, -1 before one
        qint64 offsetSteadyMs = 0; ///< when that reading was taken
        qint64 leaseMs = -1;       ///< the largest PTTL read
        LockSnapshot::Replication verdict = LockSnapshot::Replication::Unknown;
        QStringList replicatedOn;
        QString note;
    };
    /** Recomputes one lock's verdict from its master's reading; true when it changed. */
    bool judge(Exposure &e, const ReplicationInfo &info) const;
    static QString laggingText(const ReplicationInfo &info);
    /** `master` was read and has never had a replica: its locks are not tracked. */
    bool withoutReplicas(const QString &master) const;

    QHash<QString, Exposure> m_locks;
    /** Locks whose verdict may still change (a write not yet replicated, unknown, exposed):
     *  what absorb() judges. */
    QSet<QString> m_pending;
    QHash<QString, ReplicationInfo> m_masters;
    /** By master: the last reading that listed a replica (steady ms). None now: they disconnected,
     *  and what is written after that reading is on none of them. */
    QHash<QString, qint64> m_lastWithReplicasMs;
};

} // namespace lockscope
