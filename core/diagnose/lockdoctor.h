#pragma once

#include "diagnose/leasetracker.h"
#include "protocol/clientidentity.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"

#include <QHash>
#include <QVector>

namespace lockscope
{

/**
 * The stuck-lock doctor: rules over snapshots and their recent history (no I/O; feed it with
 * observe*() and ask diagnose()). Rules, each a LockFinding code:
 *  - no_ttl (critical): PTTL -1, the lock never expires on its own (§2.1).
 *  - watchdog_long (warning): the same holders for longer than watchdogHeldMs (default 10 min)
 *    while the TTL was seen jumping back (watchdog renewals, §2.6): alive but maybe stuck.
 *  - fair_head_expired: the head waiter's deadline has passed (§3.7). Info while it may still be
 *    alive (§14.7: past it by at most max(kFairHeadGraceMs, the lock's PTTL), a live waiter
 *    re-queues itself at its next poll); warning ("stale") after that.
 *  - fair_companions_disagree (warning): a queue member with no timeout-set score or the reverse.
 *  - waiters_without_holder (warning): for longer than waitersWithoutHolderMs (default 30 s, one
 *    lease), a free fair lock with queued waiters (the head is not running; the others spin,
 *    §14.6: advice remove-waiter of the head, never force unlock), or a free lock with clients
 *    subscribed to its unlock or read-write channel (no message will come, §1.5: advice wake).
 *  - several_holders (critical): more than one holder field in a lock that is not read-write.
 *  - dead_readers (warning): read holds whose rwlock_timeout key is gone (§4.3).
 *  - lingering_latch (info; warning when it has no TTL): redisson_unlock_latch keys (§2.3).
 *  - free_with_queue (info): a free fair lock with queued waiters, right now (normal for a moment).
 *  - deadlock (critical): a cycle in the wait-for graph (a thread queued on a fair lock held by a
 *    thread that is queued on a lock the first one holds), with every lock and holder on it.
 *  - holder_disconnected: every connection of a holder's client closed (ClientTracker, fed with
 *    observeClients()) while it still holds the lock. Warning for a lease a watchdog renewed
 *    (renewals seen: it expires by itself within the watchdog timeout), critical for a fixed lease
 *    (no renewal seen: it blocks its waiters until the lease ends, or forever without a TTL).
 *  - not_replicated: a held lock whose last write no replica has acknowledged
 *    (LockSnapshot::replication, ExposureTracker): a failover now would lose it. Warning; critical
 *    once exposed longer than replicationMs, or (replicationMs 0) than a third of its lease.
 *  - Lease safety (LeaseTracker, fed with observe() and the events through leases().process()):
 *    renewal_late, lease_lost, waiters_behind_silent_holder (after silentHolderWaitMs, default
 *    60 s), lost_in_failover, token_regressed.
 * Times are monotonic ms (LockSnapshot::steadyNowMs()).
 */
class LockDoctor
{
public:
    struct Thresholds {
        qint64 watchdogHeldMs = 10 * 60 * 1000;
        qint64 waitersWithoutHolderMs = 30000;
        /** Waiters behind a holder that renews nothing and shows no activity this long give
         *  waiters_behind_silent_holder (LeaseTracker::setSilentHolderWaitMs). */
        qint64 silentHolderWaitMs = 60000;
        /** not_replicated turns critical after this long (ms); 0: a third of the lock's lease. */
        qint64 replicationMs = 0;
    };

    /** How long after its deadline a fair head waiter may still be alive at least: a live
     *  waiter polls again within its last PTTL, the watchdog lease (30000 ms) by default. */
    static constexpr qint64 kFairHeadGraceMs = 30000;

    void setThresholds(const Thresholds &t)
    {
        m_thresholds = t;
        m_leases.setSilentHolderWaitMs(t.silentHolderWaitMs);
    }
    /** The lease-safety rules and the events they add (LeaseTracker); observe() and forget() feed
     *  it the snapshots, the owner feeds it the events (process()). */
    LeaseTracker &leases() { return m_leases; }
    const LeaseTracker &leases() const { return m_leases; }
    /**
     * The connection arguments every command a finding's `action` suggests ends with, as the
     * front end that shows it wants them pasted against the same server, e.g. "--url redis://10.0.0.5:6380"
     * (never a password; the front end quotes them for the shell). Empty (default): none, so the
     * command runs against lockscope-cli's default server or LOCKSCOPE_URL. Commands read
     * "lockscope-cli <command> <shell-quoted arguments> <connection>".
     */
    void setCommandConnection(const QString &arguments) { m_commandConnection = arguments; }
    QString commandConnection() const { return m_commandConnection; }
    /** "lockscope-cli " + `words` (already quoted) + " " + `connection` (when not empty). */
    static QString suggestedCommand(const QString &words, const QString &connection);
    /** `text` as one POSIX shell word: as it is when made of safe characters only, else in single
     *  quotes (a quote inside becomes '\''). */
    static QString shellQuoted(const QString &text);
    const Thresholds &thresholds() const { return m_thresholds; }

    /** Records a snapshot (call for every read, in order). */
    void observe(const LockSnapshot &snapshot);
    /** The lock is gone: forget its history. */
    void forget(const QString &name);
    /** Clients subscribed to unlock channels whose lock hash does not exist: lock -> subscribers
     *  (from PUBSUB CHANNELS/NUMSUB). Replaces the previous observation. */
    void observeOrphanWaiters(const QHash<QString, qint64> &subscribersByLock, qint64 nowSteadyMs);
    /** Unlock latch keys found, with their PTTL in ms (-1 = no expiry), and how many were found in
     *  all (`total`; -1 = as many as given: the probe keeps only some). Replaces the previous one. */
    void observeLatches(const QVector<QPair<QString, qint64>> &latchKeys, qint64 total = -1);

    /** What is known of the clients (ClientTracker::identities()), by client id; replaces the
     *  previous observation. The holder_disconnected rule reads it. */
    void observeClients(const QVector<ClientIdentity> &clients);

    /** Every finding for `locks` (the monitor's current snapshots) at `nowSteadyMs`. Sorted by
     *  severity (critical first), then lock name. */
    QVector<LockFinding> diagnose(const QHash<QString, LockSnapshot> &locks, qint64 nowSteadyMs) const;

    /** The rules that need nothing but one snapshot. */
    static QVector<LockFinding> snapshotFindings(const LockSnapshot &snapshot, const QString &connection = QString());
    /** not_replicated for `s` (none unless its replication is NotReplicated); `criticalMs` as
     *  Thresholds::replicationMs. */
    static QVector<LockFinding> replicationFindings(const LockSnapshot &s, qint64 criticalMs);
    /** Cycles in the wait-for graph of fair-queue waiters and holders. */
    static QVector<LockFinding> deadlocks(const QHash<QString, LockSnapshot> &locks,
                                          const QString &connection = QString());
    /** Highest severity among `findings`, or -1 when empty. */
    static int worstSeverity(const QVector<LockFinding> &findings);

private:
    /** What the doctor remembers of one lock between reads. Kept small on purpose, since it is
     *  kept for every lock (200k of them on a big keyspace): a hash of the holder summary instead of the text, and of
     * the previous snapshot only what LockSnapshot::isRenewalOf() reads (the holder list is shared with the snapshot,
     *  not copied). */
    struct History {
        size_t holdersHash = 0;  ///< qHash(holderSummary()) when first seen held this way
        qint64 heldSinceMs = -1; ///< first seen held by these holders
        qint64 renewals = 0;     ///< TTL jumps back seen while held by them
        qint64 freeWithWaitersSinceMs = -1;
        // The previous read, for the renewal rule.
        QVector<LockHolder> lastHolders;
        QString lastRwMode;
        qint64 lastPttlMs = -2;
        qint64 lastServerTimeMs = 0;
        qint64 lastReadAtSteadyMs = 0;
        LockSnapshot previous() const;
    };

    Thresholds m_thresholds;
    LeaseTracker m_leases;
    QString m_commandConnection;
    QHash<QString, History> m_history;
    QHash<QString, qint64> m_orphanSubscribers;
    QHash<QString, qint64> m_orphanSinceMs;
    qint64 m_orphanObservedAtMs = 0;
    QVector<QPair<QString, qint64>> m_latches;
    qint64 m_latchTotal = 0;                       ///< latch keys found in all (m_latches may hold fewer)
    QHash<QString, ClientIdentity> m_disconnected; ///< client id -> identity, disconnected ones only
    /** holder_disconnected findings of `s` (its holders whose client is disconnected). */
    QVector<LockFinding> disconnectedHolders(const LockSnapshot &s, const History *h) const;
};

} // namespace lockscope
