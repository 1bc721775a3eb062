#include "redisendpoint.h"

#include <QStringList>
#include <QUrl>
#include <QUrlQuery>

namespace lockscope
{

static bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

/** The database number `db` of URL `text` into `*out`; false with `*error` unless a number >= 0. */
static bool parseDb(const QString &db, const QString &text, int *out, QString *error)
{
    bool ok = false;
    *out = db.toInt(&ok);
    return (ok && *out >= 0) || fail(error, QStringLiteral("database '%1' in '%2' is not a number >= 0").arg(db, text));
}

QString RedisEndpoint::redactUrl(const QString &text)
{
    const qsizetype at = text.lastIndexOf(QLatin1Char('@'));
    if (at < 0)
        return text;
    // The user info starts after "scheme://" (or "scheme:" or the start, for a mistyped scheme).
    qsizetype start = text.indexOf(QLatin1String("//"));
    start = start >= 0 && start < at ? start + 2 : 0;
    const qsizetype colon = text.indexOf(QLatin1Char(':'), start);
    if (colon < 0 || colon > at)
        return text; // "user@host": no password
    return text.left(colon + 1) + QStringLiteral("***") + text.mid(at);
}

RedisEndpoint RedisEndpoint::parse(const QString &rawText, QString *error)
{
    // Every message below quotes the URL: never with its password.
    const QString text = redactUrl(rawText);
    RedisEndpoint ep;
    const QString expected =
        QStringLiteral("expected redis://[user[:password]@]host[:port][/db], rediss://..., unix:///path.sock or "
                       "redis-sentinel://host:port[,host2:port2...][/db]#masterName");
    // Sentinel URLs carry a host list, which QUrl does not parse: split them by hand.
    const QString trimmed = rawText.trimmed();
    if (trimmed.startsWith(QLatin1String("redis-sentinel://"), Qt::CaseInsensitive))
        return parseSentinel(trimmed, false, error);
    if (trimmed.startsWith(QLatin1String("rediss-sentinel://"), Qt::CaseInsensitive))
        return parseSentinel(trimmed, true, error);
    if (!trimmed.contains(QLatin1String("://")) && !trimmed.startsWith(QLatin1String("unix:"), Qt::CaseInsensitive)) {
        // "127.0.0.1:6379", "localhost:6379", "cache-1": a host without the scheme, taken
        // as redis:// rather than refused.
        const QUrl guess(QStringLiteral("redis://") + trimmed, QUrl::StrictMode);
        bool dbOk = true;
        if (guess.path().size() > 1)
            guess.path().mid(1).toUInt(&dbOk);
        if (guess.isValid() && !guess.host().isEmpty() && guess.port(6379) > 0 && dbOk && !guess.hasFragment()) {
            fail(error, QStringLiteral("'%1' is not a valid Redis URL: it has no scheme; did you mean redis://%2 "
                                       "(or rediss://%2 for TLS)?")
                            .arg(text, redactUrl(trimmed)));
            return ep;
        }
    }
    const QUrl url(trimmed, QUrl::StrictMode);
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
        if (!db.isEmpty() && !parseDb(db, text, &ep.m_db, error))
            return ep;
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
    if (!path.isEmpty() && !parseDb(path, text, &ep.m_db, error))
        return ep;
    // ?db=N as other clients write it (redis-py, Lettuce): honoured; with a /db that differs, refused.
    const QUrlQuery query(url);
    for (const auto &item : query.queryItems()) {
        if (item.first != QLatin1String("db")) {
            fail(error, QStringLiteral("unknown parameter '%1' in '%2': LockScope understands only ?db=N (or /N) "
                                       "in a redis:// URL")
                            .arg(item.first, text));
            return ep;
        }
    }
    if (query.hasQueryItem(QStringLiteral("db"))) {
        int db = 0;
        if (!parseDb(query.queryItemValue(QStringLiteral("db")), text, &db, error))
            return ep;
        if (!path.isEmpty() && db != ep.m_db) {
            fail(error,
                 QStringLiteral("'%1' names two databases (/%2 and ?db=%3): keep one").arg(text).arg(ep.m_db).arg(db));
            return ep;
        }
        ep.m_db = db;
    }
    ep.m_valid = true;
    return ep;
}

RedisEndpoint RedisEndpoint::parseSentinel(const QString &rawText, bool tls, QString *error)
{
    const QString text = redactUrl(rawText); // for messages
    RedisEndpoint ep;
    const QString expected =
        QStringLiteral("expected redis-sentinel://[user[:password]@]host[:port][,host2[:port2]...][/db]#masterName");
    QString rest = rawText.mid(rawText.indexOf(QLatin1String("://")) + 3);
    QString master;
    const int hash = rest.indexOf(QLatin1Char('#'));
    if (hash >= 0) {
        master = QUrl::fromPercentEncoding(rest.mid(hash + 1).toUtf8());
        rest.truncate(hash);
    }
    const int question = rest.indexOf(QLatin1Char('?'));
    if (question >= 0) {
        const QString id =
            QUrlQuery(rest.mid(question + 1)).queryItemValue(QStringLiteral("sentinelMasterId"), QUrl::FullyDecoded);
        if (!id.isEmpty() && !master.isEmpty() && id != master) {
            fail(error, QStringLiteral("'%1' names two masters ('%2' after # and '%3' in sentinelMasterId): keep one")
                            .arg(text, master, id));
            return ep;
        }
        if (!id.isEmpty())
            master = id;
        rest.truncate(question);
    }
    QString path;
    const int slash = rest.indexOf(QLatin1Char('/'));
    if (slash >= 0) {
        path = rest.mid(slash + 1);
        rest.truncate(slash);
    }
    const int at = rest.lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        const QUrl userInfo(QStringLiteral("redis://%1@h").arg(rest.left(at)), QUrl::StrictMode);
        if (!userInfo.isValid()) {
            fail(error, QStringLiteral("the user and password in '%1' are not valid URL text (percent-encode "
                                       "special characters): %2")
                            .arg(text, expected));
            return ep;
        }
        ep.m_username = userInfo.userName();
        ep.m_password = userInfo.password();
        rest = rest.mid(at + 1);
    }
    if (rest.isEmpty()) {
        fail(error, QStringLiteral("'%1' names no sentinel: %2").arg(text, expected));
        return ep;
    }
    for (const QString &item : rest.split(QLatin1Char(','))) {
        const int colon = item.lastIndexOf(QLatin1Char(':'));
        bool numeric = false;
        const qint64 given =
            colon > 0 && !item.endsWith(QLatin1Char(']')) ? item.mid(colon + 1).toLongLong(&numeric) : 0;
        if (numeric && (given <= 0 || given > 65535)) {
            fail(error, QStringLiteral("port %1 in '%2' is out of range 1-65535").arg(given).arg(text));
            return ep;
        }
        const QUrl node(QStringLiteral("redis://%1").arg(item.trimmed()), QUrl::StrictMode);
        if (item.trimmed().isEmpty() || !node.isValid() || node.host().isEmpty()) {
            fail(error,
                 QStringLiteral("'%1' in the sentinel list of '%2' is not host[:port]: %3").arg(item, text, expected));
            return ep;
        }
        const int port = node.port(26379);
        if (port <= 0 || port > 65535) {
            fail(error, QStringLiteral("port %1 in '%2' is out of range 1-65535").arg(port).arg(text));
            return ep;
        }
        ep.m_sentinels.append({node.host(), static_cast<quint16>(port)});
    }
    if (master.isEmpty()) {
        fail(error, QStringLiteral("'%1' names no master: add #masterName, the name in the sentinels' "
                                   "'sentinel monitor <name> ...' line (e.g. redis-sentinel://10.0.0.5:26379#mymaster)")
                        .arg(text));
        return ep;
    }
    if (!path.isEmpty() && !parseDb(path, text, &ep.m_db, error))
        return ep;
    if (ep.m_username.isEmpty())
        ep.m_username = qEnvironmentVariable("LOCKSCOPE_USER");
    ep.m_passwordSource = ep.m_password.isEmpty() ? PasswordSource::None : PasswordSource::Url;
    if (ep.m_password.isEmpty()) {
        ep.m_password = qEnvironmentVariable("LOCKSCOPE_PASSWORD");
        if (!ep.m_password.isEmpty())
            ep.m_passwordSource = PasswordSource::Environment;
    }
    ep.m_transport = tls ? Transport::Tls : Transport::Tcp;
    ep.m_sentinelMaster = master;
    ep.m_host.clear();
    ep.m_port = 0;
    ep.m_valid = true;
    return ep;
}

QList<RedisEndpoint> RedisEndpoint::sentinels() const
{
    QList<RedisEndpoint> out;
    for (const auto &s : m_sentinels) {
        RedisEndpoint ep = masterAt(s.first, s.second);
        ep.m_db = 0; // sentinels have no databases
        out << ep;
    }
    return out;
}

RedisEndpoint RedisEndpoint::masterAt(const QString &host, quint16 port) const
{
    RedisEndpoint ep = *this;
    ep.m_sentinelMaster.clear();
    ep.m_sentinels.clear();
    ep.m_host = host;
    ep.m_port = port;
    ep.m_valid = m_valid && !host.isEmpty() && port > 0;
    return ep;
}

QString RedisEndpoint::hostPort(const QString &host, quint16 port)
{
    if (host.contains(QLatin1Char(':')))
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
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
    if (isSentinel()) {
        QStringList nodes;
        for (const auto &s : m_sentinels)
            nodes << hostPort(s.first, s.second);
        return QStringLiteral("'%1' via sentinels %2").arg(m_sentinelMaster, nodes.join(QLatin1Char(',')));
    }
    return hostPort(m_host, m_port);
}

QString RedisEndpoint::toString() const
{
    if (!m_valid)
        return QStringLiteral("(invalid)");
    if (m_transport == Transport::Unix)
        return QStringLiteral("unix://%1%2").arg(m_socketPath, m_db ? QStringLiteral("?db=%1").arg(m_db) : QString());
    const QString scheme = m_transport == Transport::Tls ? QStringLiteral("rediss") : QStringLiteral("redis");
    const QString user = m_username.isEmpty() ? QString() : m_username + QLatin1Char('@');
    if (isSentinel()) {
        QStringList nodes;
        for (const auto &s : m_sentinels)
            nodes << hostPort(s.first, s.second);
        return QStringLiteral("%1-sentinel://%2%3/%4#%5")
            .arg(scheme, user, nodes.join(QLatin1Char(',')))
            .arg(m_db)
            .arg(QString::fromUtf8(QUrl::toPercentEncoding(m_sentinelMaster)));
    }
    return QStringLiteral("%1://%2%3/%4").arg(scheme, user, address()).arg(m_db);
}

bool RedisEndpoint::operator==(const RedisEndpoint &o) const
{
    return m_valid == o.m_valid && m_transport == o.m_transport && m_host == o.m_host && m_port == o.m_port &&
           m_socketPath == o.m_socketPath && m_db == o.m_db && m_username == o.m_username && m_tls == o.m_tls &&
           m_sentinelMaster == o.m_sentinelMaster && m_sentinels == o.m_sentinels;
}

} // namespace lockscope
