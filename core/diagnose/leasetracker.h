#pragma once

#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"
#include "protocol/topologyevent.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>

#include <functional>

namespace lockscope
{

/**
 * Lease safety: when mutual exclusion of a lock was at risk. A Redisson lock is only as safe as
 * its lease: a holder that stops renewing (GC pause, frozen host, partition) loses the lock while
 * it may still run its critical section, and a master that fails over before replicating a lock
 * loses it outright. This class watches the monitor's reads and events for both and turns them
 * into events (for `watch`, the event log, recordings) and doctor findings. No I/O.
 *
 * Events it produces (LockEvent::type, README "Lease safety"):
 *  - `renewal_late`: a renewal (watchdog, every lease/3 in Redisson) arrived later than the
 *    cadence allows: more than half the lease after the previous one, i.e. with less than half the
 *    lease left. `extra`: lease_ms, expected_interval_ms (lease/3), actual_interval_ms,
 *    margin_ms (TTL left when it came).
 *  - `lease_lost` (replaces `expired`): a lock LockScope had seen renewed by its holder expired.
 *    The holder stopped renewing: stalled (it may still run its critical section) or dead.
 *    `extra`: client_id, thread_id, lease_ms, renewals, last_renewed_ms (epoch ms), silent_ms
 *    (how long the holder's client showed nothing), next_holder and overlap_from_ms when another
 *    holder took the lock in the same read.
 *  - `holder_returned`: the client of a lost lease was seen again (renewing, acquiring, waiting
 *    on any lock): it was stalled, not dead, and may have run its critical section while the next
 *    holder did. `lock` is the lost lock; `extra`: returned_on (lock), returned_by (event type),
 *    next_holder, overlap_from_ms, overlap_to_ms.
 *  - `lost_in_failover` (replaces the holder-gone event): a lock held on a master before a
 *    Sentinel failover or a cluster master change and missing on the new master's first read,
 *    with no release seen: asynchronous replication lost it. `extra`: detail of the failover.
 *  - `token_regressed` comes from LockEvent::diff (a fencing token that went down); this class
 *    keeps it as a finding.
 * The server's clock is not taken on trust: a lease that ran out because the server's clock
 * jumped forward between two reads of the lock (more than kClockJumpMs beyond real time, while
 * real time since the last renewal was shorter than the lease) is still `lease_lost` (the lock is
 * gone while its holder believes it holds it), but `extra.meaning` is "server_clock_jump" with
 * `server_clock_jump_ms`, and the text blames the clock, not the holder. A renewal that looks late
 * because the server's clock runs fast (between the reads of two renewals the server's TIME moved
 * more than 1.3 times as far as real time) says so, with `server_clock_rate`.
 * An `expired` of a renewed lock while LockScope could not see the server (disconnected) stays
 * `expired` with `extra.lease_lost` "unknown": LockScope cannot tell whether the holder stopped.
 *
 * Findings (LockFinding::code): renewal_late (warning: a renewal came with less than lease/3 left,
 * or the TTL of a renewed lock is below lease/3 now with no renewal), lease_lost (critical, kept
 * kKeepMs), waiters_behind_silent_holder (warning), lost_in_failover (critical), token_regressed
 * (critical).
 *
 * Idempotent on its own output: a batch that already holds lease_lost, holder_returned,
 * lost_in_failover or token_regressed (another tracker's, or a recording's) is recorded, not
 * produced again, so a second tracker fed with the session's events (the CLI doctor, a replay)
 * reaches the same findings. Times: steady ms (LockSnapshot::steadyNowMs()) unless named
 * epoch; event times are the events' own (epoch ms).
 *
 * Why leasetracker.cpp is long: the lease-safety rules (lost lease, late renewal, holder returned,
 * lost in failover, token regressed) share one per-lock history and one clock; each rule is a
 * function of its own, documented with the Redisson behaviour it checks.
 */
class LeaseTracker
{
public:
    /** Lost leases, failover losses and regressed tokens stay findings this long (ms). */
    static constexpr qint64 kKeepMs = 15 * 60 * 1000;
    /** A `renewal_late` finding stays this long after the late renewal (ms). */
    static constexpr qint64 kLateKeepMs = 5 * 60 * 1000;

    using Locks = std::function<QHash<QString, LockSnapshot>()>;

    /** `locks`: the watcher's current snapshots, read when a failover is seen (may be empty). */
    explicit LeaseTracker(Locks locks = {}) : m_locks(std::move(locks)) {}
    void setLocks(Locks locks) { m_locks = std::move(locks); }

    /** Waiters behind a holder that renews nothing and does nothing for this long (default 60 s)
     *  give waiters_behind_silent_holder. */
    void setSilentHolderWaitMs(qint64 ms) { m_silentHolderWaitMs = qMax<qint64>(0, ms); }
    qint64 silentHolderWaitMs() const { return m_silentHolderWaitMs; }
    /** How late a read may come after the change it shows, ms: a few ms when live (keyspace
     *  notifications), up to the poll interval when polling. Widens the renewal_late test. */
    void setReadLagMs(qint64 ms) { m_readLagMs = qMax<qint64>(0, ms); }
    qint64 readLagMs() const { return m_readLagMs; }

    /** Every read, in order (removed names: forget()). */
    void observe(const LockSnapshot &snapshot);
    void forget(const QString &name);
    /**
     * One batch of the watcher's (or the session's) events, in order. Returns the batch as it
     * should be shown: `expired` of a renewed hold becomes `lease_lost`, a holder gone after a
     * failover `lost_in_failover`, and `renewal_late` / `holder_returned` are added after the
     * event that shows them. A `failover` event (Sentinel) arms the failover check for the locks
     * held at that moment (locks()). `nowSteadyMs`: when the batch arrived.
     */
    QVector<LockEvent> process(const QVector<LockEvent> &events, qint64 nowSteadyMs);
    /** A cluster's topology changed: a `failover` or `slots_moved` arms the failover check for the
     *  held locks of the slots concerned. */
    void observeTopology(const QVector<TopologyEvent> &events, qint64 nowSteadyMs);
    /** Clients subscribed to the unlock channels of existing locks (DoctorProbe::Result::
     *  heldSubscribers; replaces the last observation): plain-lock waiters that arrived after
     *  the lock's last read. */
    void observeSubscribers(const QHash<QString, qint64> &subscribersByLock, qint64 nowSteadyMs);
    /** LockScope lost sight of the server (disconnected) or regained it. */
    void setBlind(bool blind, qint64 nowSteadyMs);

    /** The findings now, for `locks` (the watcher's snapshots) at `nowSteadyMs`; suggested
     *  commands end with `connection` (LockDoctor::setCommandConnection). */
    QVector<LockFinding> findings(const QHash<QString, LockSnapshot> &locks, qint64 nowSteadyMs,
                                  const QString &connection) const;

    /** How far the server's clock moved beyond real time between two reads of one lock (server
     *  ms from TIME, arrival in steady ms), ms: > kClockJumpMs is a jump of the server's clock
     *  (an operator, a VM resumed, NTP stepping), which expires keys at once. Per lock, so the
     *  masters of a cluster, each with its own clock, are never compared. */
    static qint64 serverClockJumpMs(qint64 serverMsBefore, qint64 steadyMsBefore, qint64 serverMsAfter,
                                    qint64 steadyMsAfter)
    {
        return (serverMsAfter - serverMsBefore) - (steadyMsAfter - steadyMsBefore);
    }
    /** A server clock that moved this much more than real time between two reads jumped (ms; the
     *  reads themselves may each come some hundred ms late under load). */
    static constexpr qint64 kClockJumpMs = 2000;

    /** Client id of a holder field `<clientId>:<threadId>[:write]` (everything before the thread). */
    static QString clientOf(const QString &holderField);

private:
    /** What a lock's renewals showed, while its current holder holds it. */
    struct Renewals {
        QString holder;
        qint64 count = 0;
        qint64 leaseMs = 0;
        qint64 lastEpochMs = 0;         ///< event time of the last renewal
        qint64 lastSteadyMs = 0;        ///< when it was processed
        qint64 lastSeenHeldMs = 0;      ///< steady ms of the last read that showed the holder
        qint64 lowMarginMs = -1;        ///< smallest margin below lease/3, -1 none
        qint64 lowMarginAtMs = 0;       ///< steady ms of that renewal
        qint64 lowMarginEpochMs = 0;    ///< its event time
        qint64 heldServerMs = 0;        ///< server time of the last read that showed the holder
        qint64 heldReadSteadyMs = 0;    ///< when that read arrived (steady ms)
        qint64 goneServerMs = 0;        ///< server time of the read that no longer showed it, 0 none
        qint64 goneReadSteadyMs = 0;    ///< when that read arrived
        qint64 renewalServerMs = 0;     ///< server time of the read that showed the last renewal
        qint64 renewalReadSteadyMs = 0; ///< when that read arrived (steady ms)
    };
    struct LostLease {
        QString lock;
        QString holder;
        QString clientId;
        qint64 lostEpochMs = 0;
        qint64 lostSteadyMs = 0;
        qint64 lastRenewedEpochMs = 0;
        qint64 leaseMs = 0;
        qint64 silentMs = 0;
        QString nextHolder;
        qint64 nextEpochMs = 0;
        bool returned = false;
        qint64 returnedEpochMs = 0;
        QString returnedOn;
        qint64 clockJumpMs = 0; ///< the server's clock jumped this far forward: the cause, not the holder
    };
    struct FailoverLoss {
        QString lock;
        QString holder;
        QString detail;
        qint64 epochMs = 0;
        qint64 steadyMs = 0;
        QString nextHolder;
    };
    struct Pending { ///< a lock held when a failover was seen, not yet read on the new master
        QStringList holders;
        qint64 predictedEndSteadyMs = -1; ///< when its TTL would have run out, -1 never
        QString detail;
        qint64 armedAtMs = 0;
    };
    struct Waiting { ///< a held lock with waiters, and since when
        size_t holdersHash = 0;
        qint64 sinceMs = -1;
    };
    struct Regressed {
        QString lock;
        qint64 before = 0;
        qint64 after = 0;
        qint64 epochMs = 0;
        qint64 steadyMs = 0;
    };

    void armFailover(const QHash<QString, LockSnapshot> &held, const QString &detail, qint64 nowSteadyMs);
    void touch(const QString &holderField, qint64 nowSteadyMs);
    void prune(qint64 nowSteadyMs);
    bool blindSince(qint64 steadyMs) const;

    Locks m_locks;
    qint64 m_silentHolderWaitMs = 60000;
    qint64 m_readLagMs = 50;
    QHash<QString, Renewals> m_renewals;     ///< by lock
    QHash<QString, qint64> m_clientActivity; ///< client id -> steady ms of its last event
    QVector<LostLease> m_lost;
    QVector<FailoverLoss> m_failoverLosses;
    QVector<Regressed> m_regressed;
    QHash<QString, Pending> m_pending; ///< by lock
    QHash<QString, Waiting> m_waiting; ///< by lock: held locks with waiters only (from reads)
    struct Subscribed {
        qint64 subscribers = 0;
        qint64 sinceMs = -1;
        size_t holdersHash = 0; ///< of the holders they wait behind (qHash(holderSummary()))
    };
    QHash<QString, Subscribed> m_subscribed; ///< by lock: from the doctor's probe
    bool m_blind = false;
    qint64 m_blindStartMs = -1; ///< steady ms, -1 none
    qint64 m_blindEndMs = -1;   ///< end of the last blind spell
};

} // namespace lockscope
