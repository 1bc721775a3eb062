#include "metrics/fleettargets.h"

#include "endpoint/redisendpoint.h"
#include "metrics/yamldocument.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace lockscope
{

const QVector<QByteArray> FleetTargets::kReservedLabels = {"group", "type",    "code",   "severity", "lock", "kind",
                                                           "mode",  "version", "master", "replica",  "le",   "reason"};

namespace
{
bool readJson(const QString &path, QJsonDocument *doc, QString *error, const char *what)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1 %2: cannot read it (%3)").arg(QLatin1String(what), path, f.errorString());
        return false;
    }
    QJsonParseError parse;
    *doc = QJsonDocument::fromJson(f.read(16 * 1024 * 1024), &parse);
    if (parse.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1 %2: not JSON (%3 at byte %4)")
                     .arg(QLatin1String(what), path, parse.errorString())
                     .arg(parse.offset);
        return false;
    }
    return true;
}
} // namespace

QString FleetTargets::Target::tlsKey() const
{
    return QStringList{tls.caFile(), tls.certFile(), tls.keyFile(), tls.serverName(),
                       tls.isInsecure() ? QStringLiteral("insecure") : QString()}
        .join(QLatin1Char('\n'));
}

bool FleetTargets::loadTargets(const QString &path, QVector<Target> *targets, QString *error)
{
    // Prometheus' file_sd reads .json, .yml and .yaml files: YAML by its suffix, JSON otherwise.
    const QString suffix = QFileInfo(path).suffix().toLower();
    QJsonDocument doc;
    if (suffix == QLatin1String("yml") || suffix == QLatin1String("yaml")) {
        QString yamlError;
        doc = YamlDocument::read(path, &yamlError);
        if (doc.isNull()) {
            *error = QStringLiteral("targets file %1: %2").arg(path, yamlError);
            return false;
        }
    } else if (!readJson(path, &doc, error, "targets file")) {
        return false;
    }
    if (!doc.isArray()) {
        *error = QStringLiteral("targets file %1: expected a list of {\"targets\": [...], \"labels\": {...}} "
                                "(Prometheus file_sd)")
                     .arg(path);
        return false;
    }
    static const QRegularExpression labelName(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*$"));
    QVector<Target> out;
    QSet<QString> seen;
    int groupIndex = 0;
    for (const QJsonValue &g : doc.array()) {
        ++groupIndex;
        const QJsonObject group = g.toObject();
        if (!g.isObject() || !group.value(QStringLiteral("targets")).isArray()) {
            *error = QStringLiteral("targets file %1: entry %2 has no \"targets\" array").arg(path).arg(groupIndex);
            return false;
        }
        QVector<QPair<QByteArray, QString>> labels;
        RedisTlsOptions tls;
        bool tlsGiven = false;
        const QJsonObject l = group.value(QStringLiteral("labels")).toObject();
        for (auto it = l.begin(); it != l.end(); ++it) {
            const QString value = it.value().toString();
            if (it.key() == QLatin1String("__tls_ca_file"))
                tls.setCaFile(value);
            else if (it.key() == QLatin1String("__tls_cert_file"))
                tls.setCertFile(value);
            else if (it.key() == QLatin1String("__tls_key_file"))
                tls.setKeyFile(value);
            else if (it.key() == QLatin1String("__tls_server_name"))
                tls.setServerName(value);
            else if (it.key() == QLatin1String("__tls_insecure"))
                tls.setInsecure(value == QLatin1String("true"));
            tlsGiven = tlsGiven || it.key().startsWith(QLatin1String("__tls_"));
            if (it.key().startsWith(QLatin1String("__")))
                continue; // Prometheus' meta labels: relabelling input (and the TLS settings), never exported
            if (!labelName.match(it.key()).hasMatch() || kReservedLabels.contains(it.key().toLatin1()) ||
                !it.value().isString()) {
                *error = QStringLiteral("targets file %1: entry %2: label \"%3\" cannot be added to LockScope's series "
                                        "(a name of letters, digits and _, a string value, and none of: %4)")
                             .arg(path)
                             .arg(groupIndex)
                             .arg(it.key(), QString::fromLatin1(kReservedLabels.toList().join(", ")));
                return false;
            }
            labels.append({it.key().toLatin1(), it.value().toString()});
        }
        std::sort(labels.begin(), labels.end());
        for (const QJsonValue &t : group.value(QStringLiteral("targets")).toArray()) {
            const QString uri = t.toString().trimmed();
            if (!t.isString() || uri.isEmpty()) {
                *error =
                    QStringLiteral("targets file %1: entry %2: every target is a URL string").arg(path).arg(groupIndex);
                return false;
            }
            QString urlError;
            const RedisEndpoint e = RedisEndpoint::parse(uri, &urlError);
            if (!e.isValid()) {
                *error = QStringLiteral("targets file %1: target %2: %3").arg(path, uri, urlError);
                return false;
            }
            if (e.passwordSource() == RedisEndpoint::PasswordSource::Url) {
                *error = QStringLiteral("targets file %1: a target carries a password in its URL: put it in "
                                        "--password-file instead (the targets file is no secret)")
                             .arg(path);
                return false;
            }
            if (tlsGiven && e.transport() != RedisEndpoint::Transport::Tls) {
                *error =
                    QStringLiteral("targets file %1: target %2: __tls_* labels need a rediss:// URL").arg(path, uri);
                return false;
            }
            if (seen.contains(uri)) {
                *error = QStringLiteral("targets file %1: target %2 is listed twice").arg(path, uri);
                return false;
            }
            seen.insert(uri);
            out.append({uri, labels, tls});
        }
    }
    *targets = out;
    return true;
}

bool FleetTargets::loadPasswords(const QString &path, QHash<QString, QString> *passwords, QString *error)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        *error = QStringLiteral("password file %1 does not exist").arg(path);
        return false;
    }
    const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                                            QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
    // systemd's LoadCredential= copies it into a private directory of the unit, readable through
    // an ACL only (mode 0440 there): that directory is as private as an owner-only file.
    const QString credentials = qEnvironmentVariable("CREDENTIALS_DIRECTORY");
    const bool credential = !credentials.isEmpty() && info.absolutePath() == QFileInfo(credentials).absoluteFilePath();
    if ((info.permissions() & others) && !credential) {
        *error = QStringLiteral("password file %1 can be read by others: make it the owner's only "
                                "(chmod 600 %1), as it holds passwords")
                     .arg(path);
        return false;
    }
    QJsonDocument doc;
    if (!readJson(path, &doc, error, "password file"))
        return false;
    if (!doc.isObject()) {
        *error =
            QStringLiteral("password file %1: expected a JSON object {\"redis://host:6379\": \"password\"}").arg(path);
        return false;
    }
    QHash<QString, QString> out;
    const QJsonObject o = doc.object();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!it.value().isString()) {
            *error = QStringLiteral("password file %1: the value for %2 is not a string").arg(path, it.key());
            return false;
        }
        out.insert(it.key(), it.value().toString());
    }
    *passwords = out;
    return true;
}

} // namespace lockscope
