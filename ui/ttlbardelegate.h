#pragma once

#include <QStyledItemDelegate>

namespace lockscope {

/**
 * Paints the TTL column: a bar for the TTL left *now* (computed at paint time from the row's
 * snapshot and the monotonic clock, so it moves smoothly between reads), the seconds left, and
 * a ⟳ watchdog mark that glows for a moment after each renewal. "no expiry" locks get a red
 * hatched bar: they never free themselves.
 */
class TtlBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    /** "12.3 s", "2 min 05 s", "no expiry", "-" for absent. */
    static QString formatTtl(qint64 ttlMs);
};

} // namespace lockscope
