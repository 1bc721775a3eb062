#include "metricsserver.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace lockscope
{

namespace
{

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QHttpServerResponse textResponse(const QByteArray &body, QHttpServerResponse::StatusCode status)
{
    return QHttpServerResponse(QByteArrayLiteral("text/plain; charset=utf-8"), body, status);
}

} // namespace

/** Plain HTTP: each accepted socket is made here and bounded by the server before QHttpServer
 *  sees it (its readyRead slot runs first). */
class GuardedTcpServer : public QTcpServer
{
public:
    GuardedTcpServer(MetricsServer *server) : QTcpServer(server), m_server(server) {}

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            return;
        }
        m_server->adopt(socket);
        addPendingConnection(socket);
    }

private:
    MetricsServer *m_server;
};

/** TLS: QSslServer makes the socket (its newest child) and hands it on once encrypted; the
 *  bounds start at accept, so a handshake that never ends is closed too. */
class GuardedSslServer : public QSslServer
{
public:
    GuardedSslServer(MetricsServer *server) : QSslServer(server), m_server(server) {}

protected:
    void incomingConnection(qintptr descriptor) override
    {
        QSslServer::incomingConnection(descriptor);
        const QList<QSslSocket *> sockets = findChildren<QSslSocket *>(Qt::FindDirectChildrenOnly);
        if (!sockets.isEmpty() && !m_server->m_connections.contains(sockets.last()))
            m_server->adopt(sockets.last());
    }

private:
    MetricsServer *m_server;
};

MetricsServer::MetricsServer(const WebConfig &config, Render render, QObject *parent)
    : MetricsServer(config, std::move(render), Limits(), parent)
{
}

MetricsServer::MetricsServer(const WebConfig &config, Render render, const Limits &limits, QObject *parent)
    : QObject(parent), m_config(config), m_render(std::move(render)), m_server(new QHttpServer(this)), m_limits(limits)
{
    m_clock.start();
    auto *sweeper = new QTimer(this);
    connect(sweeper, &QTimer::timeout, this, &MetricsServer::sweep);
    sweeper->start(qBound(100, qMin(m_limits.requestTimeoutMs, m_limits.idleTimeoutMs) / 4, 1000));
    using Status = QHttpServerResponse::StatusCode;
    m_server->route(QStringLiteral("/metrics"), [this](const QHttpServerRequest &request) {
        if (!authorized(request))
            return refusal();
        if (request.method() != QHttpServerRequest::Method::Get && request.method() != QHttpServerRequest::Method::Head)
            return textResponse("Method Not Allowed\n", Status::MethodNotAllowed);
        ++m_scrapes;
        const PrometheusWriter::Format format = PrometheusWriter::negotiate(request.value("Accept"));
        return QHttpServerResponse(PrometheusWriter::contentType(format), m_render(format));
    });
    m_server->route(QStringLiteral("/scrape"), [this](const QHttpServerRequest &request) {
        if (!authorized(request))
            return refusal();
        if (!m_scrape)
            return textResponse("Not Found: /scrape needs serve --targets\n", Status::NotFound);
        if (request.method() != QHttpServerRequest::Method::Get && request.method() != QHttpServerRequest::Method::Head)
            return textResponse("Method Not Allowed\n", Status::MethodNotAllowed);
        const QString target = request.query().queryItemValue(QStringLiteral("target"), QUrl::FullyDecoded);
        if (target.isEmpty())
            return textResponse("Bad Request: /scrape?target=URI (a target of the targets file, URL-encoded)\n",
                                Status::BadRequest);
        ++m_scrapes;
        const PrometheusWriter::Format format = PrometheusWriter::negotiate(request.value("Accept"));
        QByteArray body;
        const int status = m_scrape(target, format, &body);
        if (status != 200)
            return textResponse(body, QHttpServerResponse::StatusCode(status));
        return QHttpServerResponse(PrometheusWriter::contentType(format), body);
    });
    m_server->route(QStringLiteral("/healthz"), [this](const QHttpServerRequest &request) {
        if (!authorized(request))
            return refusal();
        return textResponse("ok\n", Status::Ok);
    });
    m_server->route(QStringLiteral("/"), [this](const QHttpServerRequest &request) {
        if (!authorized(request))
            return refusal();
        return QHttpServerResponse(
            QByteArrayLiteral("text/html; charset=utf-8"),
            QByteArrayLiteral(
                "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>LockScope exporter</title></head>\n"
                "<body><h1>LockScope exporter</h1>\n"
                "<p>Redisson lock metrics for Prometheus, read from Redis without writing to it.</p>\n"
                "<ul><li><a href=\"metrics\">metrics</a></li><li><a href=\"healthz\">healthz</a></li></ul>\n"
                "</body></html>\n"));
    });
    if (m_config.hasTls()) {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setLocalCertificateChain(QSslCertificate::fromData(readAll(m_config.certFile), QSsl::Pem));
        const QByteArray key = readAll(m_config.keyFile);
        QSslKey k(key, QSsl::Rsa);
        if (k.isNull())
            k = QSslKey(key, QSsl::Ec);
        ssl.setPrivateKey(k);
        ssl.setProtocol(m_config.tls13Only ? QSsl::TlsV1_3OrLater : QSsl::TlsV1_2OrLater);
        if (m_config.clientAuth != WebConfig::ClientAuth::None) {
            ssl.setCaCertificates(QSslCertificate::fromData(readAll(m_config.clientCaFile), QSsl::Pem));
            ssl.setPeerVerifyMode(m_config.clientAuth == WebConfig::ClientAuth::RequireAndVerify
                                      ? QSslSocket::VerifyPeer
                                      : QSslSocket::QueryPeer);
        } else {
            ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
        }
        m_ssl = ssl;
    }
}

MetricsServer::~MetricsServer() = default;

bool MetricsServer::parseListen(const QString &text, QHostAddress *address, quint16 *port, QString *error)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    auto bad = [&](const QString &why) {
        *error = QStringLiteral("--listen needs HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464 or :9464 for every "
                                "address), not '%1': %2")
                     .arg(text, why);
        return false;
    };
    if (colon < 0)
        return bad(QStringLiteral("no port"));
    QString host = text.left(colon);
    bool ok = false;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (!ok || p > 65535)
        return bad(QStringLiteral("the port must be a number from 0 to 65535"));
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    else if (host.contains(QLatin1Char(':')))
        return bad(QStringLiteral("an IPv6 address goes in brackets"));
    if (host.isEmpty()) {
        *address = QHostAddress::Any;
    } else if (host == QLatin1String("localhost")) {
        *address = QHostAddress::LocalHost;
    } else if (!address->setAddress(host)) {
        return bad(QStringLiteral("'%1' is not an IP address").arg(host));
    }
    *port = quint16(p);
    return true;
}

bool MetricsServer::listen(const QHostAddress &address, quint16 port, QString *error)
{
    // Our own QTcpServer, so a failure to bind can be told (QHttpServer::listen only returns 0),
    // and so each connection is bounded from its accept (see adopt()).
    QTcpServer *tcp = nullptr;
    if (m_config.hasTls()) {
        auto *ssl = new GuardedSslServer(this);
        ssl->setSslConfiguration(m_ssl);
        tcp = ssl;
    } else {
        tcp = new GuardedTcpServer(this);
    }
    if (!tcp->listen(address, port)) {
        *error = QStringLiteral("--listen %1:%2: %3").arg(address.toString()).arg(port).arg(tcp->errorString());
        delete tcp;
        return false;
    }
    m_server->bind(tcp);
    m_port = tcp->serverPort();
    return true;
}

void MetricsServer::adopt(QTcpSocket *socket)
{
    if (int(m_connections.size()) >= m_limits.maxConnections) {
        // Full: close the connection idle longest (one with a request under way only if none is idle).
        QTcpSocket *victim = nullptr;
        bool victimIdle = false;
        qint64 victimActive = 0;
        for (auto it = m_connections.cbegin(); it != m_connections.cend(); ++it) {
            const bool idle = it->requestBytes == 0;
            if (!victim || (idle && !victimIdle) || (idle == victimIdle && it->lastActiveMs < victimActive)) {
                victim = it.key();
                victimIdle = idle;
                victimActive = it->lastActiveMs;
            }
        }
        if (victim) {
            m_connections.remove(victim);
            victim->abort();
            victim->deleteLater();
        }
    }
    // Qt reads whatever the kernel has: bound what one read may hold.
    socket->setReadBufferSize(64 * 1024);
    Connection c;
    c.lastActiveMs = m_clock.elapsed();
    m_connections.insert(socket, c);
    connect(socket, &QObject::destroyed, this, [this, socket] { m_connections.remove(socket); });
    connect(socket, &QAbstractSocket::disconnected, this, [this, socket] { m_connections.remove(socket); });
    connect(socket, &QIODevice::readyRead, this, [this, socket] { onReadyRead(socket); });
    connect(socket, &QIODevice::bytesWritten, this, [this, socket] {
        // An answer went out: the next request starts from nothing.
        const auto it = m_connections.find(socket);
        if (it == m_connections.end() || it->rejectedMs >= 0)
            return;
        it->requestBytes = 0;
        it->requestStartMs = -1;
        it->lastActiveMs = m_clock.elapsed();
    });
}

void MetricsServer::onReadyRead(QTcpSocket *socket)
{
    const auto it = m_connections.find(socket);
    if (it == m_connections.end())
        return;
    const qint64 now = m_clock.elapsed();
    if (it->rejectedMs >= 0) {
        socket->readAll(); // answered 431: what still comes is read and dropped, never kept
        return;
    }
    if (it->requestBytes == 0)
        it->requestStartMs = now;
    it->requestBytes += socket->bytesAvailable(); // QHttpServer reads all of it after this slot
    it->lastActiveMs = now;
    if (it->requestBytes <= m_limits.maxRequestBytes)
        return;
    // Never buffered further: say why, then drop what still comes for a second before closing
    // (closing with unread bytes would reset the connection, and the client might lose the 431).
    it->rejectedMs = now;
    socket->readAll();
    socket->write("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
                  "Content-Length: 32\r\nConnection: close\r\n\r\nRequest header fields too large\n");
}

void MetricsServer::sweep()
{
    const qint64 now = m_clock.elapsed();
    QList<QTcpSocket *> late;
    for (auto it = m_connections.cbegin(); it != m_connections.cend(); ++it) {
        if (it->rejectedMs >= 0) {
            if (now - it->rejectedMs > 1000)
                late << it.key();
            continue;
        }
        const bool slowRequest = it->requestStartMs >= 0 && now - it->requestStartMs > m_limits.requestTimeoutMs;
        const bool idle = it->requestBytes == 0 && now - it->lastActiveMs > m_limits.idleTimeoutMs;
        if (slowRequest || idle)
            late << it.key();
    }
    for (QTcpSocket *socket : late) {
        m_connections.remove(socket);
        socket->abort();
        socket->deleteLater();
    }
}

bool MetricsServer::takeBcrypt()
{
    const qint64 second = m_clock.elapsed() / 1000;
    if (second != m_bcryptSecond) {
        m_bcryptSecond = second;
        m_bcryptSpent = 0;
    }
    if (m_bcryptSpent >= m_limits.bcryptPerSecond)
        return false;
    ++m_bcryptSpent;
    return true;
}

QHttpServerResponse MetricsServer::refusal() const
{
    using Status = QHttpServerResponse::StatusCode;
    if (m_rateLimited) {
        QHttpServerResponse r =
            textResponse("Too many password checks: try again in a second\n", Status::TooManyRequests);
        r.setHeader("Retry-After", "1");
        return r;
    }
    QHttpServerResponse r = textResponse("Unauthorized\n", Status::Unauthorized);
    r.setHeader("WWW-Authenticate", "Basic realm=\"lockscope\", charset=\"UTF-8\"");
    return r;
}

bool MetricsServer::authorized(const QHttpServerRequest &request)
{
    m_rateLimited = false;
    if (!m_config.hasBasicAuth())
        return true;
    const QByteArray header = request.value("Authorization");
    if (!header.startsWith("Basic "))
        return false;
    const QByteArray decoded = QByteArray::fromBase64(header.mid(6).trimmed());
    const qsizetype colon = decoded.indexOf(':');
    if (colon <= 0)
        return false;
    const QString user = QString::fromUtf8(decoded.left(colon));
    const QByteArray password = decoded.mid(colon + 1);
    const auto it = m_config.basicAuthUsers.constFind(user);
    const bool known = it != m_config.basicAuthUsers.cend();
    const QByteArray hash = known ? it.value() : m_config.basicAuthUsers.cbegin().value();
    const QByteArray digest =
        QCryptographicHash::hash(user.toUtf8() + '\n' + hash + '\n' + decoded, QCryptographicHash::Sha256);
    if (m_verified.contains(digest))
        return true;
    if (m_failed.contains(digest))
        return false;
    // bcrypt takes ~80 ms on this thread, which also serves scrapes and watches Redis: a budget.
    if (!takeBcrypt()) {
        m_rateLimited = true;
        return false;
    }
    // An unknown user pays the same bcrypt (against a real hash), so the time tells no user names.
    const bool ok = WebConfig::verifyBcrypt(password, hash) && known;
    QSet<QByteArray> &memory = ok ? m_verified : m_failed;
    if (memory.size() >= 1000)
        memory.clear();
    memory.insert(digest);
    return ok;
}

} // namespace lockscope
