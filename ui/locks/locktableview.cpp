#include "locks/locktableview.h"

#include "locks/leasebadgedelegate.h"
#include "locks/lockfilterproxy.h"
#include "locks/locktablemodel.h"
#include "locks/ttlbardelegate.h"

#include <QHeaderView>

namespace lockscope
{

LockTableView::LockTableView(LockTableModel *model, LockFilterProxy *proxy, QWidget *parent)
    : QTableView(parent), m_model(model), m_proxy(proxy)
{
    setModel(proxy);
    m_ttlDelegate = new TtlBarDelegate(this);
    setItemDelegateForColumn(LockTableModel::TtlColumn, m_ttlDelegate);
    // A lost lease shows as a badge before the holder (LockTableModel::LeaseBadgeRole).
    setItemDelegateForColumn(LockTableModel::HolderColumn, new LeaseBadgeDelegate(this));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSortingEnabled(true);
    sortByColumn(LockTableModel::NameColumn, Qt::AscendingOrder);
    setAlternatingRowColors(true);
    setColumnHidden(LockTableModel::NodeColumn, true); // shown in Redis Cluster mode
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(28);
    horizontalHeader()->setStretchLastSection(true);
    // Every column, "Held for" included, fits the table's share of the default window (1360 px
    // wide, the detail panel beside it) without a horizontal scroll: a holder's UUID is elided in
    // the middle (the thread id stays visible; the tooltip has it whole).
    setColumnWidth(LockTableModel::NameColumn, 140);
    setColumnWidth(LockTableModel::KindColumn, 145);
    setColumnWidth(LockTableModel::HolderColumn, 235);
    setColumnWidth(LockTableModel::HoldCountColumn, 80);
    setColumnWidth(LockTableModel::TtlColumn, 160);
    setColumnWidth(LockTableModel::WaitingColumn, 90);
    setTextElideMode(Qt::ElideMiddle);
    setContextMenuPolicy(Qt::CustomContextMenu);
    setWordWrap(false);
    // Tab leaves the table for the next pane (arrows move within it); Tab used to walk
    // cell by cell and change the selected lock, the force-unlock target.
    setTabKeyNavigation(false);
    setObjectName(QStringLiteral("lockTable"));
    setAccessibleName(tr("Locks"));
}

QString LockTableView::selectedLockName() const
{
    const QModelIndexList rows = selectionModel()->selectedRows(LockTableModel::NameColumn);
    // The snapshot's name, not the displayed text: a name that is not UTF-8 is displayed escaped.
    return rows.isEmpty() ? QString() : rows.first().data(LockTableModel::SnapshotRole).value<LockSnapshot>().name;
}

void LockTableView::selectLock(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    const QModelIndex idx = m_proxy->mapFromSource(m_model->index(row, 0));
    if (idx.isValid())
        selectRow(idx.row());
}

void LockTableView::clearLockSelection()
{
    selectionModel()->clearSelection();
    selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::Clear);
}

QStringList LockTableView::visibleLockNames() const
{
    QStringList names;
    const int top = qMax(0, rowAt(0));
    int bottom = rowAt(viewport()->height() - 1);
    if (bottom < 0)
        bottom = qMin(m_proxy->rowCount() - 1, top + 100);
    for (int r = top; r <= bottom && r < m_proxy->rowCount(); ++r)
        names << m_proxy->index(r, LockTableModel::NameColumn).data(Qt::DisplayRole).toString();
    return names;
}

void LockTableView::showNodeColumn()
{
    setColumnHidden(LockTableModel::NodeColumn, false);
    // Next to the name: which master serves the lock matters before who holds it there.
    QHeaderView *header = horizontalHeader();
    header->moveSection(header->visualIndex(LockTableModel::NodeColumn), 1);
    setColumnWidth(LockTableModel::NodeColumn, 190);
    setColumnWidth(LockTableModel::HolderColumn,
                   qMin(columnWidth(LockTableModel::HolderColumn), 300)); // keep the TTL in view
}

} // namespace lockscope
