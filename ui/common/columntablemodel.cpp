#include "common/columntablemodel.h"

namespace lockscope
{

ColumnTableModel::ColumnTableModel(const QStringList &titles, QObject *parent, int colouredColumn)
    : QAbstractTableModel(parent), m_titles(titles), m_colouredColumn(colouredColumn)
{
}

void ColumnTableModel::setOnDark(bool dark)
{
    if (dark == m_onDark)
        return;
    m_onDark = dark;
    if (m_colouredColumn >= 0)
        columnChanged(m_colouredColumn, {Qt::ForegroundRole});
}

int ColumnTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_titles.size());
}

QVariant ColumnTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= m_titles.size())
        return {};
    return m_titles.at(section);
}

void ColumnTableModel::columnChanged(int column, const QList<int> &roles)
{
    const int rows = rowCount();
    if (rows > 0)
        emit dataChanged(index(0, column), index(rows - 1, column), roles);
}

} // namespace lockscope
