#pragma once

#include "prometheuswriter.h"
#include "webconfig.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QSet>

#include <functional>

class QHttpServer;
class QHttpServerRequest;
class QHttpServerResponse;

namespace lockscope
{

/**
 * The HTTP side of `lockscope-cli serve` (QHttpServer): GET `/metrics` (the exposition the
 * render callback returns, in the format negotiate() picks from `Accept`), `/healthz` ("ok",
 * 200, as long as the process serves) and `/` (a short HTML page linking both). Other paths 404,
 * other methods 405. With a WebConfig: TLS (QSslServer inside QHttpServer) and HTTP basic auth
 * against bcrypt hashes (401 with `WWW-Authenticate` otherwise; a password once verified is
 * remembered by its SHA-256, so a scrape does not pay bcrypt every time).
 */
class MetricsServer : public QObject
{
    Q_OBJECT
public:
    using Render = std::function<QByteArray(PrometheusWriter::Format format)>;

    MetricsServer(const WebConfig &config, Render render, QObject *parent = nullptr);
    ~MetricsServer() override;

    /** Parses "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all addresses). False with `*error` (a
     *  sentence naming --listen) when it is not one, or the host is not an IP address. */
    static bool parseListen(const QString &text, QHostAddress *address, quint16 *port, QString *error);

    /** Binds; false with `*error` (address in use, permission) when it cannot. */
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    /** The port bound (useful with port 0). */
    quint16 port() const { return m_port; }
    /** Scrapes of /metrics answered so far. */
    qint64 scrapes() const { return m_scrapes; }

private:
    /** Whether the request carries a user and password of --web-config basic_auth_users (true without them). */
    bool authorized(const QHttpServerRequest &request);

    WebConfig m_config;
    Render m_render;
    QHttpServer *m_server = nullptr;
    quint16 m_port = 0;
    qint64 m_scrapes = 0;
    QSet<QByteArray> m_verified; ///< SHA-256 of "user:password" that passed bcrypt
};

} // namespace lockscope
