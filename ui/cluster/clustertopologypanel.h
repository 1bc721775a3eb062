#pragma once

#include "protocol/clusternodestatus.h"

#include <QHash>
#include <QWidget>

class QLabel;
class QTreeWidget;

namespace lockscope
{

/**
 * The Redis Cluster as LockScope watches it: one row per master (address, hash slot ranges and
 * how many slots, the state of LockScope's monitor on it, the locks it serves), its replicas as
 * child rows, and a summary line ("3 of 3 masters live, 16384 slots covered"). A master that
 * failed and whose slots no one serves yet is shown in red with its last slots; after a
 * failover the promoted replica appears as a master. Fed by LockSession::topologyChanged (a cluster's) and
 * the lock table (setLockCounts); no I/O.
 */
class ClusterTopologyPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterTopologyPanel(QWidget *parent = nullptr);

    void setNodes(const QVector<ClusterNodeStatus> &nodes);
    /** Locks shown per master address. */
    void setLockCounts(const QHash<QString, int> &locksByMaster);
    const QVector<ClusterNodeStatus> &nodes() const { return m_nodes; }
    /** Masters read from now (live or polling) and masters watched. */
    int liveMasters() const;

private:
    void rebuild();

    QVector<ClusterNodeStatus> m_nodes;
    QHash<QString, int> m_lockCounts;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_tree = nullptr;
};

} // namespace lockscope
