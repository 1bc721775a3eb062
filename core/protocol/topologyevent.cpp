#include "protocol/topologyevent.h"

#include <QJsonArray>

namespace lockscope
{

QJsonObject TopologyEvent::toJson() const
{
    auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    QJsonArray ranges;
    for (const auto &r : slotRanges)
        ranges.append(QJsonArray{r.first, r.second});
    QJsonObject o;
    o.insert(QStringLiteral("time_ms"), timeMs);
    o.insert(QStringLiteral("lock"), QJsonValue());
    o.insert(QStringLiteral("type"), type);
    o.insert(QStringLiteral("holder"), QJsonValue());
    o.insert(QStringLiteral("detail"), detail);
    o.insert(QStringLiteral("old_master"), orNull(oldMaster));
    o.insert(QStringLiteral("new_master"), orNull(newMaster));
    o.insert(QStringLiteral("slots"), ranges);
    o.insert(QStringLiteral("masters_live"), mastersLive);
    o.insert(QStringLiteral("masters"), masters);
    return o;
}

} // namespace lockscope
