#pragma once

#include <QAbstractTableModel>
#include <QStringList>

namespace lockscope
{

/**
 * A flat table model whose columns are fixed at construction: it answers columnCount() and the
 * horizontal header's text from one list of titles, so a model states its columns once. The
 * subclass gives rowCount() and data(); a model whose header says more (tooltips, a title that
 * changes) overrides headerData() and calls this one for the rest. GUI thread only.
 */
class ColumnTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    /** The number of titles for the root; 0 below a row (a flat table). */
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    /** `titles[section]` for the horizontal header's DisplayRole; an empty QVariant otherwise. */
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /** Text colours for a dark background (workshop projector mode): the subclass's colours
     *  switch to lighter shades (onDark()), and the views redraw the coloured column. */
    void setOnDark(bool dark);

protected:
    /** `titles`: one per column, in column order, already translated (the subclass's tr()).
     *  `colouredColumn`: the column whose text colour follows onDark() (-1: none). */
    ColumnTableModel(const QStringList &titles, QObject *parent, int colouredColumn = -1);

    bool onDark() const { return m_onDark; }

    /** Tells the views that `column` changed in every row (`roles` empty: all roles). */
    void columnChanged(int column, const QList<int> &roles = {});

private:
    QStringList m_titles;
    int m_colouredColumn = -1;
    bool m_onDark = false;
};

} // namespace lockscope
