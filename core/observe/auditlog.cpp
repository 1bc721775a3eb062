#include "auditlog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>

#include <unistd.h>

namespace lockscope {

AuditLog::AuditLog(const QString &path) : m_path(path.isEmpty() ? defaultPath() : path) {}

QString AuditLog::defaultPath()
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    return QDir(base.isEmpty() ? QDir::homePath() : base).filePath(QStringLiteral("lockscope/audit.jsonl"));
}

QString AuditLog::operatorName()
{
    for (const char *var : {"USER", "LOGNAME"}) {
        const QString v = qEnvironmentVariable(var);
        if (!v.isEmpty())
            return v;
    }
    return QStringLiteral("uid %1").arg(::getuid());
}

bool AuditLog::append(const QJsonObject &record, QString *error) const
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("cannot write the audit log %1: %2").arg(m_path, why);
        return false;
    };
    const QFileInfo info(m_path);
    if (!QDir().mkpath(info.absolutePath()))
        return fail(QStringLiteral("cannot create its directory"));
    QFile file(m_path);
    const bool existed = file.exists();
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(file.errorString());
    if (!existed)
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QByteArray line = QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n';
    if (file.write(line) != line.size())
        return fail(file.errorString());
    if (!file.flush())
        return fail(file.errorString());
    if (::fsync(file.handle()) != 0)
        return fail(QStringLiteral("fsync failed"));
    file.close();
    return true;
}

} // namespace lockscope
