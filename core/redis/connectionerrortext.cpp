#include "redis/connectionerrortext.h"
#include "endpoint/tlsadvicewords.h"

#include <QAbstractSocket>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>

namespace lockscope
{

namespace
{
QString &passwordAdvice()
{
    static QString advice;
    return advice;
}
} // namespace

void ConnectionErrorText::setPasswordAdvice(const QString &howToGiveAPassword)
{
    passwordAdvice() = howToGiveAPassword;
}

QString ConnectionErrorText::passwordAdviceSuffix()
{
    return passwordAdvice().isEmpty() ? QString() : QStringLiteral(": ") + passwordAdvice();
}

QString ConnectionErrorText::authError(const RedisEndpoint &endpoint, const QString &serverMessage)
{
    const QString source = RedisEndpoint::describe(endpoint.passwordSource());
    if (serverMessage.contains(QLatin1String("without any password configured")))
        return QStringLiteral("Redis at %1 has no password set for the default user, but LockScope sent one%2: "
                              "connect without a password, or name the ACL user (user@ in the URL).")
            .arg(endpoint.address(), source.isEmpty() ? QString() : QStringLiteral(" (from %1)").arg(source));
    if (endpoint.password().isEmpty())
        return QStringLiteral("Redis at %1 refused the login of ACL user '%2' without a password (%3)%4.")
            .arg(endpoint.address(), endpoint.aclUser(), serverMessage.trimmed(), passwordAdviceSuffix());
    return QStringLiteral("Redis at %1 refused the login of ACL user '%2' (%3): check the user name and the "
                          "password (from %4).")
        .arg(endpoint.address(), endpoint.aclUser(), serverMessage.trimmed(), source);
}

QString ConnectionErrorText::protocolError(const RedisEndpoint &endpoint, const QByteArray &firstBytes,
                                           bool handshaking, const QString &decoderError)
{
    const QByteArray head = firstBytes.trimmed();
    QByteArray firstLine = head.left(head.indexOf('\n') < 0 ? head.size() : head.indexOf('\n')).trimmed();
    const QByteArray lower = firstLine.toLower();
    if (firstLine.startsWith("HTTP/") || lower.startsWith("<!doctype html") || lower.startsWith("<html"))
        return QStringLiteral("%1 is not a Redis server (it answered like HTTP: '%2'): check the host and port of the "
                              "Redis URL")
            .arg(endpoint.address(), QString::fromLatin1(firstLine.left(60)));
    if (handshaking) {
        QString shown;
        for (char c : firstBytes.left(24))
            shown += c >= 0x20 && c < 0x7f ? QString(QLatin1Char(c))
                                           : QStringLiteral("\\x%1").arg(uchar(c), 2, 16, QLatin1Char('0'));
        return QStringLiteral("%1 is not a Redis server: it does not answer in the Redis protocol (its first bytes: "
                              "'%2'; %3): check the host and port of the Redis URL")
            .arg(endpoint.address(), shown, decoderError);
    }
    return QStringLiteral("protocol error from %1: %2").arg(endpoint.address(), decoderError);
}

namespace
{
/** The front end's "give the client certificate and key" (CLI: "pass --tls-cert and --tls-key"). */
QString giveClientCertificate()
{
    using W = TlsAdviceWords::Word;
    return TlsAdviceWords::name(W::Give, TlsAdviceWords::name(W::CertFile) + QStringLiteral(" and ") +
                                             TlsAdviceWords::name(W::KeyFile));
}
} // namespace

QString ConnectionErrorText::closedReason(const RedisEndpoint &endpoint, bool connecting)
{
    if (connecting && endpoint.transport() == RedisEndpoint::Transport::Tcp)
        return QStringLiteral("%1 closed the connection before answering: if it serves TLS on this port, use "
                              "rediss:// instead of redis://.")
            .arg(endpoint.address());
    if (connecting && endpoint.transport() == RedisEndpoint::Transport::Tls &&
        endpoint.tlsOptions().certFile().isEmpty())
        return QStringLiteral("%1 closed the TLS connection before answering: if it requires client certificates "
                              "(tls-auth-clients yes), %2; if it is a plain port (not speaking TLS), use redis://.")
            .arg(endpoint.address(), giveClientCertificate());
    return QStringLiteral("server closed the connection");
}

QString ConnectionErrorText::socketError(const RedisEndpoint &endpoint, QAbstractSocket *socket)
{
    const QString text = socket->errorString();
    const QString lower = text.toLower();
    if (lower.contains(QLatin1String("key values mismatch")) ||
        lower.contains(QLatin1String("private key does not match")))
        return QStringLiteral("the client key does not belong to the client certificate (%1): %2.")
            .arg(text, TlsAdviceWords::name(TlsAdviceWords::Word::Give,
                                            QStringLiteral("the matching ") +
                                                TlsAdviceWords::name(TlsAdviceWords::Word::KeyFile)));
    if (socket->error() != QAbstractSocket::SslHandshakeFailedError &&
        socket->error() != QAbstractSocket::SslInternalError)
        return text;
    if (lower.contains(QLatin1String("wrong version number")) ||
        lower.contains(QLatin1String("packet length too long")) ||
        lower.contains(QLatin1String("record layer failure")) || lower.contains(QLatin1String("unknown protocol")))
        return QStringLiteral("this port does not speak TLS (%1): use redis:// for a plain port, or the server's "
                              "tls-port with rediss://.")
            .arg(text);
    if (lower.contains(QLatin1String("certificate required")) ||
        (endpoint.tlsOptions().certFile().isEmpty() && lower.contains(QLatin1String("handshake failure"))))
        return QStringLiteral("the server requires a client certificate (%1): %2.").arg(text, giveClientCertificate());
    if (lower.contains(QLatin1String("unknown ca")) || lower.contains(QLatin1String("bad certificate")) ||
        lower.contains(QLatin1String("certificate unknown")) ||
        lower.contains(QLatin1String("unsupported certificate")))
        return QStringLiteral("the server refused LockScope's client certificate (%1): it must be signed by a CA in "
                              "the server's tls-ca-cert-file and be valid for client authentication.")
            .arg(text);
    return QStringLiteral("TLS handshake failed: %1").arg(text);
}

QString ConnectionErrorText::localSocketError(const QString &path, const QString &qtText)
{
    if (path.isEmpty())
        return QStringLiteral("the unix:// URL names no socket: give its path, e.g. unix:///var/run/redis/redis.sock");
    // The path itself says most: check it rather than trust the transport's text.
    QString prefix;
    for (const QString &part : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        prefix += QLatin1Char('/') + part;
        if (prefix == path || (!path.startsWith(QLatin1Char('/')) && prefix.mid(1) == path))
            break;
        const QFileInfo dir(path.startsWith(QLatin1Char('/')) ? prefix : prefix.mid(1));
        if (dir.exists() && !dir.isDir())
            return QStringLiteral("cannot reach the unix socket %1: %2 is a file, not a directory")
                .arg(path, dir.filePath());
    }
    const QFileInfo info(path);
    if (!info.exists())
        return QStringLiteral("there is no unix socket %1: is redis-server running with 'unixsocket %1'?").arg(path);
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) == 0 && !S_ISSOCK(st.st_mode))
        return QStringLiteral("%1 is not a unix socket (it is a %2): give the path redis-server's 'unixsocket' names")
            .arg(path, info.isDir() ? QStringLiteral("directory") : QStringLiteral("file"));
    if (!info.isWritable())
        return QStringLiteral("this user may not connect to the unix socket %1 (permission denied: see its mode, "
                              "redis-server's 'unixsocketperm')")
            .arg(path);
    if (qtText.contains(QLatin1String("refused"), Qt::CaseInsensitive))
        return QStringLiteral("nothing listens on the unix socket %1 (a socket file left behind by a redis-server that "
                              "stopped?)")
            .arg(path);
    return QStringLiteral("the unix socket %1 failed: %2").arg(path, qtText);
}

} // namespace lockscope
