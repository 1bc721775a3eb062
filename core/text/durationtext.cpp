#include "durationtext.h"

namespace lockscope
{

QString DurationText::ttl(qint64 pttlMs, Style style)
{
    if (pttlMs == -1)
        return QStringLiteral("no expiry");
    if (pttlMs < 0)
        return QStringLiteral("-");
    return duration(pttlMs, style);
}

QString DurationText::duration(qint64 ms, Style style)
{
    const qint64 minutesFrom = style == Style::Seconds ? -1 : style == Style::Minutes ? 120000 : 60000;
    if (style == Style::Hours && ms >= 3600000)
        return QStringLiteral("%1 h %2 min").arg(ms / 3600000).arg((ms / 60000) % 60, 2, 10, QLatin1Char('0'));
    if (minutesFrom >= 0 && ms >= minutesFrom)
        return QStringLiteral("%1 min %2 s").arg(ms / 60000).arg((ms / 1000) % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1.%2 s").arg(ms / 1000).arg((ms % 1000) / 100);
}

} // namespace lockscope
