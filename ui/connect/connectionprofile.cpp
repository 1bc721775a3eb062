#include "connect/connectionprofile.h"

#include "text/enumwords.h"

#include <QUrl>

namespace lockscope
{

namespace
{

using PasswordStorage = ConnectionProfile::PasswordStorage;
const EnumWords<PasswordStorage> kStorageWords{{PasswordStorage::Ask, "ask"}, {PasswordStorage::Keychain, "keychain"}};

} // namespace

RedisEndpoint ConnectionProfile::endpoint(QString *error) const
{
    QString password;
    stripPassword(url, &password);
    if (!password.isEmpty()) {
        if (error)
            *error = QStringLiteral("The URL holds a password: remove it from the URL and type it in the Password "
                                    "field (profiles never store passwords in clear).");
        return RedisEndpoint();
    }
    RedisEndpoint ep = RedisEndpoint::parse(url, error);
    if (!ep.isValid())
        return ep;
    RedisTlsOptions tls;
    tls.setCaFile(tlsCaFile.trimmed());
    tls.setCertFile(tlsCertFile.trimmed());
    tls.setKeyFile(tlsKeyFile.trimmed());
    tls.setServerName(tlsServerName.trimmed());
    tls.setInsecure(tlsInsecure);
    if (ep.transport() != RedisEndpoint::Transport::Tls) {
        if (!tls.isDefault()) {
            if (error)
                *error = QStringLiteral("TLS settings need a rediss:// URL, but %1 is not one: use rediss://host:port "
                                        "or clear the TLS fields.")
                             .arg(ep.toString());
            return RedisEndpoint();
        }
        return ep;
    }
    if (!tls.validate(error))
        return RedisEndpoint();
    ep.setTlsOptions(tls);
    return ep;
}

QString ConnectionProfile::keychainKey() const
{
    const QUrl u(url.trimmed());
    const QString user = u.userName().isEmpty() ? QStringLiteral("default") : u.userName();
    const QString address =
        u.scheme() == QLatin1String("unix") ? u.path() : QStringLiteral("%1:%2").arg(u.host()).arg(u.port(6379));
    return QStringLiteral("%1@%2").arg(user, address);
}

QString ConnectionProfile::displayName() const
{
    return name.isEmpty() ? url : name;
}

bool ConnectionProfile::sameConnection(const ConnectionProfile &o) const
{
    return QUrl(url.trimmed()) == QUrl(o.url.trimmed()) && tlsCaFile == o.tlsCaFile && tlsCertFile == o.tlsCertFile &&
           tlsKeyFile == o.tlsKeyFile && tlsServerName == o.tlsServerName && tlsInsecure == o.tlsInsecure;
}

bool ConnectionProfile::operator==(const ConnectionProfile &o) const
{
    return name == o.name && url == o.url && tlsCaFile == o.tlsCaFile && tlsCertFile == o.tlsCertFile &&
           tlsKeyFile == o.tlsKeyFile && tlsServerName == o.tlsServerName && tlsInsecure == o.tlsInsecure &&
           readOnly == o.readOnly && color == o.color && passwordStorage == o.passwordStorage;
}

QString ConnectionProfile::stripPassword(const QString &text, QString *password)
{
    QUrl u(text.trimmed());
    if (password)
        password->clear();
    if (!u.isValid() || u.password().isEmpty())
        return text.trimmed();
    if (password)
        *password = u.password();
    u.setPassword(QString());
    return u.toString();
}

QString ConnectionProfile::storageName(PasswordStorage storage)
{
    return kStorageWords.word(storage, "none");
}

ConnectionProfile::PasswordStorage ConnectionProfile::storageFromName(const QString &name)
{
    return kStorageWords.value(name, PasswordStorage::None);
}

QList<QPair<QString, QColor>> ConnectionProfile::colorTags()
{
    return {
        {QStringLiteral("None"), QColor()},
        {QStringLiteral("Production (red)"), QColor(0xc0, 0x39, 0x2b)},
        {QStringLiteral("Staging (orange)"), QColor(0xe6, 0x7e, 0x22)},
        {QStringLiteral("Test (blue)"), QColor(0x1e, 0x88, 0xe5)},
        {QStringLiteral("Sandbox (green)"), QColor(0x2e, 0x9d, 0x5b)},
        {QStringLiteral("Other (purple)"), QColor(0x8e, 0x44, 0xad)},
    };
}

} // namespace lockscope
