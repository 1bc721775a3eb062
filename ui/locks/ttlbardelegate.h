#pragma once

#include "protocol/locksnapshot.h"

#include <QStyledItemDelegate>

#include <functional>

namespace lockscope
{

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

    /**
     * The clock countdowns are computed against, in the unit of LockSnapshot::readAtSteadyMs: the
     * monotonic LockSnapshot::steadyNowMs() by default, ReplayPlayer::clockMs() in a replay.
     */
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    std::function<qint64()> m_clock = &LockSnapshot::steadyNowMs;
};

} // namespace lockscope
