#include "protocol/lockfinding.h"

#include "text/enumwords.h"

#include <QJsonArray>

namespace lockscope
{

namespace
{

const EnumWords<LockFinding::Severity> kSeverityWords{{LockFinding::Severity::Info, "info"},
                                                      {LockFinding::Severity::Warning, "warning"},
                                                      {LockFinding::Severity::Critical, "critical"}};

} // namespace

LockFinding LockFinding::about(const QString &lock, const QString &code, Severity severity)
{
    LockFinding f;
    f.severity = severity;
    f.code = code;
    f.lock = lock;
    return f;
}

QString LockFinding::severityName(Severity s)
{
    return kSeverityWords.word(s);
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
