#pragma once

#include "prometheuswriter.h"
#include "webconfig.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QSet>
#include <QSslConfiguration>

#include <functional>

class QHttpServer;
class QHttpServerRequest;
class QHttpServerResponse;
class QTcpServer;
class QTcpSocket;

namespace lockscope
{

/**
 * The HTTP side of `lockscope-cli serve` (QHttpServer): GET `/metrics` (the exposition the
 * render callback returns, in the format negotiate() picks from `Accept`), `/healthz` ("ok",
 * 200, as long as the process serves) and `/` (a short HTML page linking both). Other paths 404,
 * other methods 405. With a WebConfig: TLS (QSslServer inside QHttpServer) and HTTP basic auth
 * against bcrypt hashes (401 with `WWW-Authenticate` otherwise; a password once verified is
 * remembered by its SHA-256, so a scrape does not pay bcrypt every time).
 *
 * Bounded against clients that never finish (the limits are Limits' defaults): a request whose
 * headers exceed 16 KiB gets 431 and the connection is closed; a request not complete within
 * 10 s, or a connection idle for 60 s, is closed; at most 128 connections are open (a new one
 * closes the one idle longest, so a scrape always gets in); bcrypt runs at most 4 times a second
 * (each ~80 ms on the event loop: beyond that, 429 with Retry-After), a wrong password is
 * remembered (401 at once next time), and an unknown user costs a bcrypt too (no timing oracle
 * for user names).
 */
class MetricsServer : public QObject
{
    Q_OBJECT
public:
    using Render = std::function<QByteArray(PrometheusWriter::Format format)>;
    /** `/scrape?target=URI` (fleet mode, FleetExporter::renderTarget): the HTTP status and body
     *  for `target` (URL-decoded). */
    using Scrape = std::function<int(const QString &target, PrometheusWriter::Format format, QByteArray *body)>;

    /** The bounds above; tests may narrow them. */
    struct Limits {
        qint64 maxRequestBytes = 16 * 1024; ///< request line + headers (+ body) before 431
        int requestTimeoutMs = 10000;       ///< from a request's first byte to its answer
        int idleTimeoutMs = 60000;          ///< a connection with no request under way
        int maxConnections = 128;
        int bcryptPerSecond = 4;
    };

    MetricsServer(const WebConfig &config, Render render, QObject *parent = nullptr);
    MetricsServer(const WebConfig &config, Render render, const Limits &limits, QObject *parent = nullptr);
    ~MetricsServer() override;

    /** Parses "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all addresses). False with `*error` (a
     *  sentence naming --listen) when it is not one, or the host is not an IP address. */
    static bool parseListen(const QString &text, QHostAddress *address, quint16 *port, QString *error);

    /** Binds; false with `*error` (address in use, permission) when it cannot. */
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    /** Serves `/scrape?target=URI` with `scrape` (400 without a target; else its status). Without
     *  it, `/scrape` is 404. */
    void setScrape(Scrape scrape) { m_scrape = std::move(scrape); }
    /** The port bound (useful with port 0). */
    quint16 port() const { return m_port; }
    /** Scrapes of /metrics answered so far. */
    qint64 scrapes() const { return m_scrapes; }
    /** Connections open now. */
    int connections() const { return int(m_connections.size()); }

private:
    /** Whether the request carries a user and password of --web-config basic_auth_users (true without them). */
    bool authorized(const QHttpServerRequest &request);
    /** Why authorized() said no: 401, or 429 when the bcrypt budget of this second was spent. */
    QHttpServerResponse refusal() const;
    /** A connection accepted by our QTcpServer / QSslServer: its bounds start now. */
    void adopt(QTcpSocket *socket);
    void onReadyRead(QTcpSocket *socket);
    void sweep();
    /** Spends one bcrypt of this second's budget; false when it is spent. */
    bool takeBcrypt();

    struct Connection {
        qint64 requestBytes = 0;    ///< since the last answer
        qint64 requestStartMs = -1; ///< m_clock time of the current request's first byte
        qint64 lastActiveMs = 0;
        qint64 rejectedMs = -1; ///< m_clock time of a 431 answer (closed a second later)
    };
    WebConfig m_config;
    Render m_render;
    Scrape m_scrape;
    QHttpServer *m_server = nullptr;
    quint16 m_port = 0;
    qint64 m_scrapes = 0;
    QSet<QByteArray> m_verified; ///< SHA-256 of "user:password" that passed bcrypt
    QSslConfiguration m_ssl;     ///< with TLS: what GuardedSslServer is set up with
    QSet<QByteArray> m_failed;   ///< ... and that failed it (at most 1000, then forgotten)
    Limits m_limits;
    QHash<QTcpSocket *, Connection> m_connections;
    QElapsedTimer m_clock;
    qint64 m_bcryptSecond = -1; ///< m_clock second of the budget below
    int m_bcryptSpent = 0;
    bool m_rateLimited = false; ///< the last authorized() said no for want of budget
    friend class GuardedTcpServer;
    friend class GuardedSslServer;
};

} // namespace lockscope
