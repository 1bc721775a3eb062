#include "protocol/lockfinding.h"

#include <QJsonArray>

namespace lockscope
{

QString LockFinding::severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return QStringLiteral("info");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Critical:
        return QStringLiteral("critical");
    }
    return {};
}

QJsonObject LockFinding::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("severity"), severityName(severity));
    o.insert(QStringLiteral("code"), code);
    o.insert(QStringLiteral("lock"), lock);
    o.insert(QStringLiteral("locks"), QJsonArray::fromStringList(locks.isEmpty() ? QStringList{lock} : locks));
    o.insert(QStringLiteral("title"), title);
    o.insert(QStringLiteral("explanation"), explanation);
    o.insert(QStringLiteral("evidence"), evidence);
    o.insert(QStringLiteral("action"), action);
    return o;
}

} // namespace lockscope
