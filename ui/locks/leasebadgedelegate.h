#pragma once

#include <QStyledItemDelegate>

namespace lockscope
{

/**
 * Paints the holder column of the lock table: the holder text, and before it, when the lock's
 * lease was lost (or lost in a failover, its token went down, its renewal came late), a small
 * filled badge with white words ("lease lost") from LockTableModel::LeaseBadgeRole in the colour
 * of LeaseBadgeColorRole. The row's tooltip says who lost it, when and who holds it now.
 */
class LeaseBadgeDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    /** Where the badge of `text` goes in a cell of `cell`, with `font` (the view's). */
    static QRect badgeRect(const QRect &cell, const QFont &font, const QString &text);
};

} // namespace lockscope
