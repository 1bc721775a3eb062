#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * A change of a Redis Cluster's masters seen while watching (ClusterLockMonitor), for the event
 * log and `lockscope-cli watch`. `type` is one of:
 *
 * - `master_down`: the cluster marked `oldMaster` failed (or we lost it) and no master serves
 *   its `slots` yet; its locks are shown as last read until a replica takes over.
 * - `failover`: `newMaster` (a promoted replica) now serves `slots` that `oldMaster` served, and
 *   `oldMaster` is no longer a master (Redis Cluster automatic or manual failover).
 * - `slots_moved`: `slots` moved from `oldMaster` to `newMaster`, both still masters
 *   (`CLUSTER SETSLOT ... NODE`, a slot migration finished).
 * - `master_added`: `newMaster` serves slots that no master served before.
 */
struct TopologyEvent {
    qint64 timeMs = 0; ///< local wall clock, epoch ms, when LockScope saw it
    QString type;
    QString oldMaster;                   ///< "host:port", empty for master_added
    QString newMaster;                   ///< "host:port", empty for master_down
    QVector<QPair<int, int>> slotRanges; ///< inclusive hash slot ranges ("slots" is a Qt keyword)
    int mastersLive = 0;                 ///< masters whose monitor is reading (live or polling) now
    int masters = 0;                     ///< masters watched now
    QString detail;                      ///< human sentence

    /**
     * One JSON line of `watch --json`, shaped like LockEvent::toJson() (time_ms, lock = null,
     * type, holder = null, detail) plus old_master, new_master (null when empty), slots
     * ([[first, last], ...]), masters_live and masters.
     */
    QJsonObject toJson() const;
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::TopologyEvent)
