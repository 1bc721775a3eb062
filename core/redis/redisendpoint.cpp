#include "redisendpoint.h"

#include <QUrl>
#include <QUrlQuery>

namespace lockscope {

static bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

RedisEndpoint RedisEndpoint::parse(const QString &text, QString *error)
{
    RedisEndpoint ep;
    const QString expected = QStringLiteral(
        "expected redis://[user[:password]@]host[:port][/db], rediss://... or unix:///path.sock");
    const QUrl url(text.trimmed(), QUrl::StrictMode);
    if (!url.isValid() || url.scheme().isEmpty()) {
        fail(error, QStringLiteral("'%1' is not a valid Redis URL: %2").arg(text, expected));
        return ep;
    }
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("redis"))
        ep.m_transport = Transport::Tcp;
    else if (scheme == QLatin1String("rediss"))
        ep.m_transport = Transport::Tls;
    else if (scheme == QLatin1String("unix"))
        ep.m_transport = Transport::Unix;
    else {
        fail(error, QStringLiteral("unknown scheme '%1' in '%2': %3").arg(url.scheme(), text, expected));
        return ep;
    }

    ep.m_username = url.userName();
    if (ep.m_username.isEmpty())
        ep.m_username = qEnvironmentVariable("LOCKSCOPE_USER");
    ep.m_password = url.password();
    ep.m_passwordSource = ep.m_password.isEmpty() ? PasswordSource::None : PasswordSource::Url;
    if (ep.m_password.isEmpty()) {
        ep.m_password = qEnvironmentVariable("LOCKSCOPE_PASSWORD");
        if (!ep.m_password.isEmpty())
            ep.m_passwordSource = PasswordSource::Environment;
    }

    if (ep.m_transport == Transport::Unix) {
        ep.m_socketPath = url.path();
        if (ep.m_socketPath.isEmpty()) {
            fail(error, QStringLiteral("'%1' names no socket path: %2").arg(text, expected));
            return ep;
        }
        const QString db = QUrlQuery(url).queryItemValue(QStringLiteral("db"));
        if (!db.isEmpty()) {
            bool ok = false;
            ep.m_db = db.toInt(&ok);
            if (!ok || ep.m_db < 0) {
                fail(error, QStringLiteral("database '%1' in '%2' is not a number >= 0").arg(db, text));
                return ep;
            }
        }
        ep.m_valid = true;
        return ep;
    }

    ep.m_host = url.host();
    if (ep.m_host.isEmpty()) {
        fail(error, QStringLiteral("'%1' names no host: %2").arg(text, expected));
        return ep;
    }
    const int port = url.port(6379);
    if (port <= 0 || port > 65535) {
        fail(error, QStringLiteral("port %1 in '%2' is out of range 1-65535").arg(port).arg(text));
        return ep;
    }
    ep.m_port = static_cast<quint16>(port);
    QString path = url.path();
    if (path.startsWith(QLatin1Char('/')))
        path.remove(0, 1);
    if (!path.isEmpty()) {
        bool ok = false;
        ep.m_db = path.toInt(&ok);
        if (!ok || ep.m_db < 0) {
            fail(error, QStringLiteral("database '%1' in '%2' is not a number >= 0").arg(path, text));
            return ep;
        }
    }
    ep.m_valid = true;
    return ep;
}

RedisEndpoint RedisEndpoint::tcp(const QString &host, quint16 port, int db)
{
    RedisEndpoint ep;
    ep.m_valid = true;
    ep.m_host = host;
    ep.m_port = port;
    ep.m_db = db;
    return ep;
}

QString RedisEndpoint::aclUser() const
{
    return m_username.isEmpty() ? QStringLiteral("default") : m_username;
}

void RedisEndpoint::setPassword(const QString &password, PasswordSource source)
{
    m_password = password;
    m_passwordSource = password.isEmpty() ? PasswordSource::None : source;
}

QString RedisEndpoint::describe(PasswordSource source)
{
    switch (source) {
    case PasswordSource::None:
        return QString();
    case PasswordSource::Url:
        return QStringLiteral("the URL");
    case PasswordSource::Environment:
        return QStringLiteral("LOCKSCOPE_PASSWORD");
    case PasswordSource::Prompt:
        return QStringLiteral("the password prompt");
    case PasswordSource::Keychain:
        return QStringLiteral("the system keychain");
    }
    return QString();
}

QString RedisEndpoint::address() const
{
    if (m_transport == Transport::Unix)
        return m_socketPath;
    if (m_host.contains(QLatin1Char(':')))
        return QStringLiteral("[%1]:%2").arg(m_host).arg(m_port);
    return QStringLiteral("%1:%2").arg(m_host).arg(m_port);
}

QString RedisEndpoint::toString() const
{
    if (!m_valid)
        return QStringLiteral("(invalid)");
    if (m_transport == Transport::Unix)
        return QStringLiteral("unix://%1%2").arg(m_socketPath,
                                                 m_db ? QStringLiteral("?db=%1").arg(m_db) : QString());
    const QString scheme = m_transport == Transport::Tls ? QStringLiteral("rediss") : QStringLiteral("redis");
    const QString user = m_username.isEmpty() ? QString() : m_username + QLatin1Char('@');
    return QStringLiteral("%1://%2%3/%4").arg(scheme, user, address()).arg(m_db);
}

bool RedisEndpoint::operator==(const RedisEndpoint &o) const
{
    return m_valid == o.m_valid && m_transport == o.m_transport && m_host == o.m_host && m_port == o.m_port
           && m_socketPath == o.m_socketPath && m_db == o.m_db && m_username == o.m_username && m_tls == o.m_tls;
}

} // namespace lockscope
