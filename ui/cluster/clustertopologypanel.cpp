#include "cluster/clustertopologypanel.h"

#include "common/statuscolours.h"

#include "redis/clustertopology.h"
#include "redis/hashslot.h"

#include <QBrush>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace lockscope
{

namespace
{
enum Column { NodeCol, RoleCol, SlotsCol, StateCol, LocksCol, ScanCol, ColumnCount };

QColor stateColor(const ClusterNodeStatus &n)
{
    return n.down ? StatusColours::mode(WatchMode::Disconnected) : StatusColours::mode(n.mode);
}
} // namespace

ClusterTopologyPanel::ClusterTopologyPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(this);
    m_summary->setTextFormat(Qt::RichText);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("clusterTopologyTree"));
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels(
        {tr("Node"), tr("Role"), tr("Hash slots"), tr("LockScope monitor"), tr("Locks"), tr("Scan")});
    m_tree->headerItem()->setToolTip(NodeCol, tr("host:port of the node, as CLUSTER SHARDS / CLUSTER SLOTS report it"));
    m_tree->headerItem()->setToolTip(SlotsCol,
                                     tr("The hash slots (0-16383) this master serves; a key's slot is CRC16 of "
                                        "its name (or of the part in {braces}) mod 16384"));
    m_tree->headerItem()->setToolTip(StateCol, tr("How LockScope reads this master: live (keyspace notifications), "
                                                  "polling, connecting, or disconnected"));
    m_tree->headerItem()->setToolTip(LocksCol, tr("Locks shown in the table whose hash slot this master serves"));
    m_tree->headerItem()->setToolTip(ScanCol, tr("Discovery on this master: keys SCANned so far (each master is "
                                                 "scanned on its own, in parallel)"));
    m_tree->setRootIsDecorated(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_summary);
    layout->addWidget(m_tree, 1);
    rebuild();
}

int ClusterTopologyPanel::liveMasters() const
{
    int live = 0;
    for (const auto &n : m_nodes)
        live += (!n.down && (n.mode == WatchMode::Live || n.mode == WatchMode::Polling)) ? 1 : 0;
    return live;
}

void ClusterTopologyPanel::setNodes(const QVector<ClusterNodeStatus> &nodes)
{
    m_nodes = nodes;
    rebuild();
}

void ClusterTopologyPanel::setLockCounts(const QHash<QString, int> &locksByMaster)
{
    if (locksByMaster == m_lockCounts)
        return;
    m_lockCounts = locksByMaster;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_tree->topLevelItem(i);
        item->setText(LocksCol, QString::number(m_lockCounts.value(item->text(NodeCol))));
    }
}

void ClusterTopologyPanel::rebuild()
{
    int covered = 0;
    int masters = 0;
    for (const auto &n : m_nodes) {
        if (!n.down) {
            covered += n.slotCount();
            ++masters;
        }
    }
    const int live = liveMasters();
    const QString color =
        StatusColours::mode(live == masters && covered == HashSlot::kSlotCount ? WatchMode::Live
                                                                               : WatchMode::Disconnected)
            .name();
    m_summary->setText(m_nodes.isEmpty()
                           ? tr("Not a Redis Cluster: this view fills in when LockScope watches a cluster node.")
                           : tr("<span style='color:%1'>●</span> <b>%2 of %3 masters live</b>, %4 of 16384 hash slots "
                                "served%5")
                                 .arg(color)
                                 .arg(live)
                                 .arg(m_nodes.size())
                                 .arg(covered)
                                 .arg(masters < m_nodes.size() ? tr(" — a master is down: its locks show as last read "
                                                                    "until a replica takes over")
                                                               : QString()));
    m_tree->clear();
    for (const auto &n : m_nodes) {
        auto *item = new QTreeWidgetItem(m_tree);
        item->setText(NodeCol, n.address);
        item->setText(RoleCol, n.down ? tr("master (failed)") : tr("master"));
        item->setText(SlotsCol,
                      n.slotRanges.isEmpty()
                          ? tr("none")
                          : tr("%1 (%2 slots)").arg(ClusterTopology::describeSlots(n.slotRanges)).arg(n.slotCount()));
        item->setText(StateCol, n.down ? tr("down: no master serves its slots yet") : watchModeName(n.mode));
        item->setToolTip(StateCol, n.detail);
        item->setForeground(StateCol, QBrush(stateColor(n)));
        if (n.down)
            item->setForeground(NodeCol, QBrush(stateColor(n)));
        item->setText(LocksCol, QString::number(m_lockCounts.value(n.address)));
        item->setTextAlignment(LocksCol, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(ScanCol, n.scanFinished      ? tr("done: %n key(s) scanned", nullptr, int(n.scannedKeys))
                               : n.scannedKeys > 0 ? tr("scanning… %n key(s)", nullptr, int(n.scannedKeys))
                                                   : QString());
        for (const QString &replica : n.replicas) {
            auto *child = new QTreeWidgetItem(item);
            child->setText(NodeCol, replica);
            child->setText(RoleCol, tr("replica of %1").arg(n.address));
            child->setText(StateCol, tr("not read (replicas hold copies; LockScope reads masters)"));
            child->setForeground(StateCol, QBrush(Qt::gray));
        }
        item->setExpanded(true);
    }
}

} // namespace lockscope
