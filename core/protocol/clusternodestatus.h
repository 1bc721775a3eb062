#pragma once

#include "protocol/watchmode.h"

#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * One master as LockScope watches it (a master of a Redis Cluster, or the one master of a single
 * server or of a Sentinel name: SessionTopology), for the GUI's topology panel: its
 * address ("host:port"), the hash slot ranges it serves (inclusive, ascending; empty for a master
 * the cluster marked failed whose slots no one serves yet), its replicas ("host:port" each, from
 * CLUSTER SHARDS / CLUSTER SLOTS) and the state of LockScope's monitor on it (connecting, live,
 * polling, disconnected). `down` is true for a master that left the topology (failed, or a
 * replica now) but whose locks are still shown as last read.
 */
struct ClusterNodeStatus {
    QString address;
    QVector<QPair<int, int>> slotRanges;
    QStringList replicas;
    WatchMode mode = WatchMode::Connecting;
    QString detail; ///< the monitor's last status sentence on this master
    bool down = false;
    qint64 scannedKeys = 0; ///< keys SCANned on this master so far (discovery)
    qint64 locksFound = 0;  ///< locks found there so far
    bool scanFinished = false;

    /** Number of slots served (sum of the ranges). */
    int slotCount() const
    {
        int n = 0;
        for (const auto &r : slotRanges)
            n += r.second - r.first + 1;
        return n;
    }
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::ClusterNodeStatus)
