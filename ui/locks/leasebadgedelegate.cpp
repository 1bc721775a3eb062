#include "locks/leasebadgedelegate.h"

#include "locks/locktablemodel.h"

#include <QApplication>
#include <QPainter>

namespace lockscope
{

namespace
{
QFont badgeFont(const QFont &base)
{
    QFont f = base;
    f.setBold(true);
    f.setPointSizeF(base.pointSizeF() > 0 ? base.pointSizeF() * 0.85 : 8);
    return f;
}
} // namespace

QRect LeaseBadgeDelegate::badgeRect(const QRect &cell, const QFont &font, const QString &text)
{
    const QFontMetrics fm(badgeFont(font));
    const int h = qMin(cell.height() - 6, fm.height() + 4);
    const int w = fm.horizontalAdvance(text) + 12;
    return QRect(cell.left() + 4, cell.top() + (cell.height() - h) / 2, w, h);
}

void LeaseBadgeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QString badge = index.data(LockTableModel::LeaseBadgeRole).toString();
    if (badge.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget); // background, selection, focus

    // The holder stays readable: in a narrow cell (a projector's large fonts) the badge gives way,
    // down to "⚠" (its tooltip says it all), and the holder keeps up to half of the cell.
    const QFontMetrics badgeMetrics(badgeFont(opt.font));
    const int textNeed = qMin(opt.fontMetrics.horizontalAdvance(text) + 10, opt.rect.width() / 2);
    const int room = opt.rect.width() - textNeed - 4 - 12;
    QString shown = badge;
    if (badgeMetrics.horizontalAdvance(badge) > room) {
        shown = badgeMetrics.elidedText(badge, Qt::ElideRight, qMax(0, room));
        if (shown.size() < 4)
            shown = QStringLiteral("⚠");
    }
    const QRect pill = badgeRect(opt.rect, opt.font, shown);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(index.data(LockTableModel::LeaseBadgeColorRole).value<QColor>());
    painter->drawRoundedRect(pill, pill.height() / 2.0, pill.height() / 2.0);
    painter->setFont(badgeFont(opt.font));
    painter->setPen(Qt::white);
    painter->drawText(pill, Qt::AlignCenter, shown);
    painter->restore();

    const QRect textRect = opt.rect.adjusted(pill.right() - opt.rect.left() + 7, 0, -3, 0);
    const bool selected = opt.state & QStyle::State_Selected;
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(opt.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled,
                                      selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                      opt.fontMetrics.elidedText(text, opt.textElideMode, textRect.width()));
    painter->restore();
}

QSize LeaseBadgeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    const QString badge = index.data(LockTableModel::LeaseBadgeRole).toString();
    if (!badge.isEmpty())
        size.rwidth() += badgeRect(option.rect, option.font, badge).width() + 8;
    return size;
}

} // namespace lockscope
