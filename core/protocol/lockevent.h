#pragma once

#include "protocol/locksnapshot.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * Something that happened to a lock, as the monitor saw it. `type` is one of the architecture
 * doc's event names: acquired, reentered, released, renewed, expired, force_unlocked, enqueued,
 * dequeued, unlock_message; `renewal_failed` / `renewal_recovered` for LockScope's own watchdog
 * holds (LockSession::holdAtRisk(); `extra`: error, at_risk, last_renewed_ms, lease_ms); or
 * `renewed` carries `extra` margin_ms (TTL left when the renewal was read), pttl_ms (the TTL it
 * was pushed back to) and read_gap_ms (time since the previous read); `token_regressed` (a fenced
 * lock's token went down: `extra` token_before, token_after). The lease-safety events
 * (renewal_late, lease_lost, holder_returned, lost_in_failover) come from LeaseTracker. Or
 * `failover`, which concerns no one lock (`lock` empty): Redis
 * Sentinel named a new master and LockScope moved to it (`extra`: master_name, old_master,
 * new_master, source).
 * A holder's removal by a delete of the lock carries `extra.removal` (protocol §14.9):
 * "unlock" (released by its holder: the unlock latch was written with the delete), "forced"
 * (type force_unlocked, `holder` and `extra.victim` = the holder that lost it, not the actor),
 * "lockscope" (LockScope's own force unlock) or "unknown" (type released; the detail says why
 * it cannot tell: polling, or no client seen writing a latch). Seen from a replica (which gets
 * an expiry on its master as a DEL), a gone holder is `removed` with `extra.removal` "replica":
 * expired, released or force-unlocked, LockScope cannot tell there.
 */
struct LockEvent {
    qint64 timeMs = 0; ///< local wall clock, epoch ms, when LockScope saw it
    QString lock;
    QString type;
    QString holder;      ///< holder field concerned, if any
    QString detail;      ///< human sentence ("hold count 1 -> 2", "message 0 on ...")
    QJsonObject extra{}; ///< further fields of some event types, added to toJson() as they are

    /** time_ms, lock (null when empty), type, holder (null when empty), detail, then `extra`. */
    QJsonObject toJson() const;
    /** Inverse of toJson() (recordings). */
    static LockEvent fromJson(const QJsonObject &o);

    /** What the monitor saw when a lock's hash went away (protocol §14.9). */
    enum class Removal {
        Unclassified, ///< no evidence passed (legacy: a gone holder is "released")
        Unlock,       ///< a `del` followed by an unlock-latch write of the same name: unlock() by its holder
        Forced,       ///< a `del` without a latch write, from a server whose clients write latches
        NoLatchSeen,  ///< a `del` without a latch write, but no client was ever seen writing one (< 3.24)
        Polling,      ///< no keyspace notifications: LockScope polls and cannot tell
        Unknown,      ///< notifications on, but no `del` event for it was seen
        Replica,      ///< seen on a replica, where a key expiring on its master arrives as a `del`
    };

    /**
     * Events implied by going from `before` (nullptr = lock unknown until now) to `after`.
     * `keyspaceHint` is the last keyspace-notification event name seen for the key ("expired",
     * "del", "pexpire", ...) and `forceUnlocked` marks a deletion LockScope did on request.
     * Rules: new holder -> acquired; higher count -> reentered; lower count -> released (partial);
     * holder gone -> released / expired / force_unlocked; same holders and TTL higher than the
     * countdown predicts by > 1 s -> renewed (a watchdog or an explicit renew, §2.6); new/removed
     * fair-queue entries -> enqueued / dequeued. `removal` classifies a holder gone with the hash
     * (not expired, not LockScope's): Unlock -> released; Forced -> force_unlocked naming the
     * victim; NoLatchSeen, Polling, Unknown -> released with "released or force-unlocked" and why
     * it cannot tell (a holder field gone while others of the same hash stay is released).
     * Returned in causal order (causalRank()): holders gone, then dequeued, then acquired and
     * reentered, then renewed and enqueued, so a hand-over reads as it happened.
     */
    /** Where an event of `type` stands among those of one read of one lock: 0 a holder gone
     *  (released, expired, force_unlocked, lease_lost, lost_in_failover), 1 unlock_message, 2 dequeued, 3
     * acquired/reentered, 4 anything else (renewed, enqueued). */
    static int causalRank(const QString &type);
    static QVector<LockEvent> diff(const LockSnapshot *before, const LockSnapshot &after, const QString &keyspaceHint,
                                   bool forceUnlocked, Removal removal = Removal::Unclassified);
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::LockEvent)
