#pragma once

#include "locksnapshot.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

namespace lockscope {

/**
 * Something that happened to a lock, as the monitor saw it. `type` is one of the architecture
 * doc's event names: acquired, reentered, released, renewed, expired, force_unlocked, enqueued,
 * dequeued, unlock_message; `renewal_failed` / `renewal_recovered` for LockScope's own watchdog
 * holds (LockSession::holdAtRisk(); `extra`: error, at_risk, last_renewed_ms, lease_ms); or
 * `failover`, which concerns no one lock (`lock` empty): Redis
 * Sentinel named a new master and LockScope moved to it (`extra`: master_name, old_master,
 * new_master, source).
 */
struct LockEvent
{
    qint64 timeMs = 0;   ///< local wall clock, epoch ms, when LockScope saw it
    QString lock;
    QString type;
    QString holder;      ///< holder field concerned, if any
    QString detail;      ///< human sentence ("hold count 1 -> 2", "message 0 on ...")
    QJsonObject extra{}; ///< further fields of some event types, added to toJson() as they are

    /** time_ms, lock (null when empty), type, holder (null when empty), detail, then `extra`. */
    QJsonObject toJson() const;
    /** Inverse of toJson() (recordings). */
    static LockEvent fromJson(const QJsonObject &o);

    /**
     * Events implied by going from `before` (nullptr = lock unknown until now) to `after`.
     * `keyspaceHint` is the last keyspace-notification event name seen for the key ("expired",
     * "del", "pexpire", ...) and `forceUnlocked` marks a deletion LockScope did on request.
     * Rules: new holder -> acquired; higher count -> reentered; lower count -> released (partial);
     * holder gone -> released / expired / force_unlocked; same holders and TTL higher than the
     * countdown predicts by > 1 s -> renewed (a watchdog or an explicit renew, §2.6); new/removed
     * fair-queue entries -> enqueued / dequeued.
     */
    static QVector<LockEvent> diff(const LockSnapshot *before, const LockSnapshot &after,
                                   const QString &keyspaceHint, bool forceUnlocked);
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::LockEvent)
