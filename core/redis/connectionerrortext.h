#pragma once

#include "endpoint/redisendpoint.h"

#include <QByteArray>
#include <QString>

class QAbstractSocket;

namespace lockscope
{

/**
 * The sentences RedisConnection fails with (their own concern, kept out of the socket's state
 * machine): a refused login (naming the ACL user and where the password came from, never the
 * password), bytes that are not RESP (say an HTTP server, not a bare protocol error), a server that closed the
 * connection before answering (plain vs TLS port, client certificates) and TLS handshake alerts.
 * Each says what to do, in the front end's words: the password advice (setPasswordAdvice()) and
 * the TLS settings (TlsAdviceWords). Pure functions of their arguments; any thread.
 */
class ConnectionErrorText
{
public:
    /** See RedisConnection::setPasswordAdvice() (set once at start-up, not synchronised). */
    static void setPasswordAdvice(const QString &howToGiveAPassword);
    /** ": " + the front end's password advice, or empty when none was set. */
    static QString passwordAdviceSuffix();

    /** AUTH/HELLO refused with `serverMessage` (WRONGPASS, NOAUTH, "without any password configured"). */
    static QString authError(const RedisEndpoint &endpoint, const QString &serverMessage);
    /** The server's bytes are not RESP: `firstBytes` (up to 64) are what it sent first,
     *  `handshaking` true before the handshake finished, `decoderError` the decoder's reason. */
    static QString protocolError(const RedisEndpoint &endpoint, const QByteArray &firstBytes, bool handshaking,
                                 const QString &decoderError);
    /** The server closed the socket; `connecting` true when it did before any answer. */
    static QString closedReason(const RedisEndpoint &endpoint, bool connecting);
    /** A socket error (`socket->error()`, `socket->errorString()`), TLS alerts explained. */
    static QString socketError(const RedisEndpoint &endpoint, QAbstractSocket *socket);
    /** A unix socket (`unix://PATH`) could not be used: what is wrong with PATH, in words (no
     *  such file, not a socket, a directory on the way that is none, permission, nobody listening),
     *  never Qt's own text ("QLocalSocket::connectToServer: Invalid name", "Unknown error 20"). */
    static QString localSocketError(const QString &path, const QString &qtText);
};

} // namespace lockscope
