#include "metricsserver.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QTcpServer>

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

MetricsServer::MetricsServer(const WebConfig &config, Render render, QObject *parent)
    : QObject(parent), m_config(config), m_render(std::move(render)), m_server(new QHttpServer(this))
{
    using Status = QHttpServerResponse::StatusCode;
    m_server->route(QStringLiteral("/metrics"), [this](const QHttpServerRequest &request) {
        if (!authorized(request)) {
            QHttpServerResponse r = textResponse("Unauthorized\n", Status::Unauthorized);
            r.setHeader("WWW-Authenticate", "Basic realm=\"lockscope\", charset=\"UTF-8\"");
            return r;
        }
        if (request.method() != QHttpServerRequest::Method::Get && request.method() != QHttpServerRequest::Method::Head)
            return textResponse("Method Not Allowed\n", Status::MethodNotAllowed);
        ++m_scrapes;
        const PrometheusWriter::Format format = PrometheusWriter::negotiate(request.value("Accept"));
        return QHttpServerResponse(PrometheusWriter::contentType(format), m_render(format));
    });
    m_server->route(QStringLiteral("/healthz"), [this](const QHttpServerRequest &request) {
        if (!authorized(request)) {
            QHttpServerResponse r = textResponse("Unauthorized\n", Status::Unauthorized);
            r.setHeader("WWW-Authenticate", "Basic realm=\"lockscope\", charset=\"UTF-8\"");
            return r;
        }
        return textResponse("ok\n", Status::Ok);
    });
    m_server->route(QStringLiteral("/"), [this](const QHttpServerRequest &request) {
        if (!authorized(request)) {
            QHttpServerResponse r = textResponse("Unauthorized\n", Status::Unauthorized);
            r.setHeader("WWW-Authenticate", "Basic realm=\"lockscope\", charset=\"UTF-8\"");
            return r;
        }
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
        m_server->sslSetup(ssl);
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
    // Our own QTcpServer, so a failure to bind can be told (QHttpServer::listen only returns 0).
    if (m_config.hasTls()) {
        m_port = m_server->listen(address, port);
        if (m_port == 0) {
            *error = QStringLiteral("--listen %1:%2: cannot listen there (address in use, or not this host's)")
                         .arg(address.toString())
                         .arg(port);
            return false;
        }
        return true;
    }
    auto *tcp = new QTcpServer(this);
    if (!tcp->listen(address, port)) {
        *error = QStringLiteral("--listen %1:%2: %3").arg(address.toString()).arg(port).arg(tcp->errorString());
        delete tcp;
        return false;
    }
    m_server->bind(tcp);
    m_port = tcp->serverPort();
    return true;
}

bool MetricsServer::authorized(const QHttpServerRequest &request)
{
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
    if (it == m_config.basicAuthUsers.cend())
        return false;
    const QByteArray digest = QCryptographicHash::hash(it.value() + '\n' + decoded, QCryptographicHash::Sha256);
    if (m_verified.contains(digest))
        return true;
    if (!WebConfig::verifyBcrypt(password, it.value()))
        return false;
    if (m_verified.size() < 1000)
        m_verified.insert(digest);
    return true;
}

} // namespace lockscope
