#include "act/auditlog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

QString errnoText(int err)
{
    return QString::fromLocal8Bit(std::strerror(err));
}

/**
 * Opens `path` for appending, creating its directory and the file (0600) if needed. A symbolic
 * link is refused, dangling or not (O_NOFOLLOW: records appended to wherever it points, as root
 * perhaps /etc/passwd, or a target created with another mode), and so is a file of another user or
 * one that others may write (a record anyone can rewrite proves nothing).
 */
bool openForAppend(const QString &path, QFile *file, QString *why)
{
    const QFileInfo info(path);
    if (info.isSymLink()) {
        *why = QStringLiteral("it is a symbolic link (to %1): LockScope does not follow links for its audit log; "
                              "give the real file's path")
                   .arg(info.symLinkTarget());
        return false;
    }
    if (info.exists() && !info.isFile()) {
        *why = QStringLiteral("it is not a regular file");
        return false;
    }
    if (!QDir().mkpath(info.absolutePath())) {
        *why = QStringLiteral("cannot create its directory");
        return false;
    }
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                          S_IRUSR | S_IWUSR);
    if (fd < 0) {
        *why = errno == ELOOP ? QStringLiteral("it is a symbolic link: LockScope does not follow links for its audit "
                                               "log; give the real file's path")
                              : errnoText(errno);
        return false;
    }
    struct stat st = {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        *why = QStringLiteral("it is not a regular file");
        return false;
    }
    if (st.st_uid != ::geteuid()) {
        ::close(fd);
        *why = QStringLiteral("it belongs to another user (uid %1): records there are not this operator's to write")
                   .arg(st.st_uid);
        return false;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        ::close(fd);
        *why = QStringLiteral("others may write it (mode %1): anyone could rewrite its records; chmod 600 it")
                   .arg(QString::number(st.st_mode & 0777, 8));
        return false;
    }
    if (!file->open(fd, QIODevice::WriteOnly | QIODevice::Append, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        *why = file->errorString();
        return false;
    }
    return true;
}

/** The room reserve() leaves after the pending record for the outcome's message. */
constexpr int kOutcomeRoom = 1536;

/** Why the open file `fd` (of `size` bytes) cannot take another record, or empty. */
QString cannotGrow(int fd, qint64 size)
{
    constexpr qint64 kSmallestRecord = 512;
    struct rlimit limit = {};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        size + kSmallestRecord > qint64(limit.rlim_cur))
        return QStringLiteral("it cannot grow: it has %1 bytes and this process may not write files beyond %2 "
                              "bytes (ulimit -f)")
            .arg(size)
            .arg(qint64(limit.rlim_cur));
    struct statvfs fs = {};
    if (::fstatvfs(fd, &fs) == 0 && fs.f_blocks > 0) {
        const unsigned long long freeBlocks = ::geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
        if (freeBlocks == 0)
            return QStringLiteral("its file system is full");
    }
    return QString();
}

} // namespace

AuditLog::Reservation::~Reservation()
{
    if (fd >= 0)
        ::close(fd);
}

bool AuditLog::check(QString *error) const
{
    QFile file;
    QString why;
    if (openForAppend(m_path, &file, &why)) {
        why = cannotGrow(file.handle(), file.size());
        if (why.isEmpty() && ::fsync(file.handle()) == 0)
            return true;
    }
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

std::shared_ptr<AuditLog::Reservation> AuditLog::reserve(const QJsonObject &pending, QString *error) const
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("cannot write the audit log %1: %2").arg(m_path, why);
        return std::shared_ptr<Reservation>();
    };
    {
        QFile probe;
        QString why;
        if (!openForAppend(m_path, &probe, &why)) // the directory, the file type, mode 0600
            return fail(why);
    }
    std::shared_ptr<Reservation> r(new Reservation);
    r->path = m_path;
    r->fd = ::open(QFile::encodeName(m_path).constData(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (r->fd < 0)
        return fail(errnoText(errno));
    QByteArray line = QJsonDocument(pending).toJson(QJsonDocument::Compact);
    line.append(kOutcomeRoom, ' ');
    line.append('\n');
    qint64 written = 0;
    int err = 0;
    while (written < line.size()) {
        const ssize_t n = ::write(r->fd, line.constData() + written, size_t(line.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : ENOSPC;
            break;
        }
        written += n;
    }
    if (written < line.size()) {
        // A cut line is no record: take it back unless another writer appended after it.
        const off_t end = ::lseek(r->fd, 0, SEEK_CUR);
        struct stat st = {};
        if (written > 0 && end >= written && ::fstat(r->fd, &st) == 0 && st.st_size == end)
            (void)!::ftruncate(r->fd, end - written);
        return fail(errnoText(err));
    }
    if (::fsync(r->fd) != 0)
        return fail(QStringLiteral("fsync failed: %1").arg(errnoText(errno)));
    const off_t end = ::lseek(r->fd, 0, SEEK_CUR); // O_APPEND: just past this line
    if (end < line.size())
        return fail(QStringLiteral("cannot tell where the record was written"));
    r->offset = end - line.size();
    r->length = line.size();
    return r;
}

bool AuditLog::complete(Reservation &r, QJsonObject record, QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("cannot write the audit log %1: %2").arg(r.path, why);
        return false;
    };
    if (r.fd < 0)
        return fail(QStringLiteral("the reserved record is gone"));
    const qint64 room = r.length - 1;
    QByteArray json = QJsonDocument(record).toJson(QJsonDocument::Compact);
    if (json.size() > room) {
        // Too big for its line (a RedLock's components and the servers read again, a big lock's
        // before and after): the whole outcome goes in a record of its own at the end of the log,
        // written first, and this line keeps the result and points at it. Never "sending" once
        // the outcome is known.
        QJsonObject whole = record;
        whole.insert(QStringLiteral("completes_offset"), r.offset);
        const QByteArray sidecar = QJsonDocument(whole).toJson(QJsonDocument::Compact) + '\n';
        QString sidecarError;
        const int flags = ::fcntl(r.fd, F_GETFL);
        bool written = flags >= 0 && ::fcntl(r.fd, F_SETFL, flags | O_APPEND) == 0;
        for (qint64 done = 0; written && done < sidecar.size();) {
            const ssize_t n = ::write(r.fd, sidecar.constData() + done, size_t(sidecar.size() - done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                sidecarError = errnoText(n < 0 ? errno : ENOSPC);
                written = false;
                break;
            }
            done += n;
        }
        if (written && ::fsync(r.fd) != 0) {
            sidecarError = errnoText(errno);
            written = false;
        }
        QJsonObject compact;
        for (const char *key :
             {"time_ms", "operator", "host", "server", "master", "client_id", "action", "lock", "result", "message"})
            if (record.contains(QLatin1String(key)))
                compact.insert(QLatin1String(key), record.value(QLatin1String(key)));
        compact.insert(QStringLiteral("outcome_record"),
                       written ? QStringLiteral("appended: the record whose completes_offset is %1").arg(r.offset)
                               : QStringLiteral("lost (%1): only the result is here")
                                     .arg(sidecarError.isEmpty() ? QStringLiteral("cannot append") : sidecarError));
        record = compact;
        json = QJsonDocument(record).toJson(QJsonDocument::Compact);
    }
    QString message = record.value(QStringLiteral("message")).toString();
    while (json.size() > room && !message.isEmpty()) {
        message.chop(qBound(qint64(1), json.size() - room + 1, qint64(message.size())));
        record.insert(QStringLiteral("message"), message + QStringLiteral("\u2026"));
        json = QJsonDocument(record).toJson(QJsonDocument::Compact);
    }
    if (json.size() > room)
        return fail(QStringLiteral("the outcome does not fit the reserved record"));
    json.append(room - json.size(), ' ');
    json.append('\n');
    // pwrite() on an O_APPEND descriptor appends on Linux: this one is ours alone, clear the flag.
    const int flags = ::fcntl(r.fd, F_GETFL);
    if (flags < 0 || ::fcntl(r.fd, F_SETFL, flags & ~O_APPEND) != 0)
        return fail(errnoText(errno));
    qint64 written = 0;
    while (written < json.size()) {
        const ssize_t n = ::pwrite(r.fd, json.constData() + written, size_t(json.size() - written), r.offset + written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(errnoText(n < 0 ? errno : ENOSPC));
        written += n;
    }
    if (::fsync(r.fd) != 0)
        return fail(QStringLiteral("fsync failed: %1").arg(errnoText(errno)));
    ::close(r.fd);
    r.fd = -1;
    return true;
}

} // namespace lockscope
