#include "locks/ttlbardelegate.h"

#include "locks/locktablemodel.h"

#include "protocol/locksnapshot.h"
#include "text/durationtext.h"

#include <QApplication>
#include <QPainter>

namespace lockscope
{

void TtlBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);

    const auto snap = index.data(LockTableModel::SnapshotRole).value<LockSnapshot>();
    const qint64 now = m_clock();
    const qint64 ttl = snap.remainingTtlMs(now);
    const qint64 scale = qMax<qint64>(1, index.data(LockTableModel::TtlScaleRole).toLongLong());
    const qint64 renewedAt = index.data(LockTableModel::LastRenewalRole).toLongLong();
    if (snap.stale) {
        // The countdown of a lock LockScope cannot see is a guess; say from when the row is.
        painter->save();
        painter->setPen(option.palette.color(QPalette::Disabled, QPalette::Text));
        painter->drawText(option.rect.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                          index.data(Qt::DisplayRole).toString());
        painter->restore();
        return;
    }

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    const QRect r = option.rect.adjusted(4, 4, -4, -4);
    const int textWidth = option.fontMetrics.horizontalAdvance(QStringLiteral("00 min 00 s ⟳ "));
    QRect bar = r;
    bar.setWidth(qMax(20, r.width() - textWidth));

    painter->setPen(Qt::NoPen);
    painter->setBrush(option.palette.color(QPalette::Midlight));
    painter->drawRoundedRect(bar, 3, 3);
    if (ttl == -1) {
        // The hatching must stand out on dark bases too: a lighter red there.
        const bool dark = option.palette.color(QPalette::Base).lightnessF() < 0.5;
        painter->setBrush(QBrush(dark ? QColor(0xff, 0x7a, 0x6b) : QColor(0xc0, 0x39, 0x2b), Qt::BDiagPattern));
        painter->drawRoundedRect(bar, 3, 3);
    } else if (ttl >= 0) {
        const double fraction = qBound(0.0, double(ttl) / double(scale), 1.0);
        QColor c = fraction > 0.5   ? QColor(0x2e, 0x9d, 0x5b)
                   : fraction > 0.2 ? QColor(0xe6, 0x9b, 0x00)
                                    : QColor(0xd6, 0x45, 0x30);
        QRect fill = bar;
        fill.setWidth(int(bar.width() * fraction));
        painter->setBrush(c);
        painter->drawRoundedRect(fill, 3, 3);
    }

    QString text = DurationText::ttl(ttl);
    if (renewedAt > 0) {
        text += QStringLiteral(" ⟳");
        const qint64 since = now - renewedAt;
        if (since < 1500) { // glow briefly after a renewal
            QColor glow(0x1e, 0x88, 0xe5);
            glow.setAlphaF(0.35 * (1.0 - since / 1500.0));
            painter->setBrush(glow);
            painter->drawRoundedRect(bar.adjusted(-2, -2, 2, 2), 4, 4);
        }
    }
    painter->setPen(opt.state & QStyle::State_Selected ? option.palette.color(QPalette::HighlightedText)
                                                       : option.palette.color(QPalette::Text));
    QRect textRect = r;
    textRect.setLeft(bar.right() + 6);
    painter->drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, text);
    painter->restore();
}

QSize TtlBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(qMax(s.width(), 220));
    return s;
}

} // namespace lockscope
