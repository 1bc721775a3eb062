#include "act/auditlog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>

#include <pwd.h>
#include <unistd.h>

namespace lockscope
{

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
    // No $USER (cron, systemd units, containers): the account name of the uid, as `id -un` says.
    if (const struct passwd *pw = ::getpwuid(::getuid()); pw && pw->pw_name && *pw->pw_name)
        return QString::fromLocal8Bit(pw->pw_name);
    return QStringLiteral("uid %1").arg(::getuid());
}

namespace
{

/** Opens `path` for appending, creating its directory and the file (0600) if needed. */
bool openForAppend(const QString &path, QFile *file, QString *why)
{
    const QFileInfo info(path);
    if (info.exists() && !info.isFile()) {
        *why = QStringLiteral("it is not a regular file");
        return false;
    }
    if (!QDir().mkpath(info.absolutePath())) {
        *why = QStringLiteral("cannot create its directory");
        return false;
    }
    file->setFileName(path);
    const bool existed = file->exists();
    if (!file->open(QIODevice::WriteOnly | QIODevice::Append)) {
        *why = file->errorString();
        return false;
    }
    if (!existed)
        file->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return true;
}

} // namespace

bool AuditLog::check(QString *error) const
{
    QFile file;
    QString why;
    if (openForAppend(m_path, &file, &why) && ::fsync(file.handle()) == 0)
        return true;
    if (why.isEmpty())
        why = QStringLiteral("fsync failed");
    if (error)
        *error = QStringLiteral("cannot write the audit log %1: %2").arg(m_path, why);
    return false;
}

bool AuditLog::append(const QJsonObject &record, QString *error) const
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("cannot write the audit log %1: %2").arg(m_path, why);
        return false;
    };
    QFile file;
    QString why;
    if (!openForAppend(m_path, &file, &why))
        return fail(why);
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
