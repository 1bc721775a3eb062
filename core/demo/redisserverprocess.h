#pragma once

#include "endpoint/redisendpoint.h"

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace lockscope
{

/**
 * A private `redis-server` on a free loopback port, with its own temporary directory and no
 * persistence (`--save "" --appendonly no`). Used by the demo, the tests and the benchmark.
 * Stopped (and its directory removed) by stop() or the destructor, so nothing outlives us.
 */
class RedisServerProcess : public QObject
{
    Q_OBJECT
public:
    explicit RedisServerProcess(QObject *parent = nullptr);
    ~RedisServerProcess() override;

    /** Value for `--notify-keyspace-events` ("" = off). Default "KA" (all keyspace events). */
    void setNotifyKeyspaceEvents(const QString &flags) { m_notify = flags; }
    void setExtraArguments(const QStringList &args) { m_extra = args; }
    /**
     * Serve TLS only: `--port 0 --tls-port <port>` with the server's PEM certificate and key, and
     * the CA certificate that client certificates must chain to. `authClients` is the value of
     * `--tls-auth-clients`: "no", "optional" or "yes". Then url() is `rediss://...`, endpoint()
     * carries `client` (the options a client uses: CA, client certificate), and the readiness
     * check speaks TLS with `client`'s certificate but without verifying the server, so with
     * "yes" `client` must hold a client certificate. Call before start().
     */
    void setTls(const QString &certFile, const QString &keyFile, const QString &caFile,
                const QString &authClients = QStringLiteral("no"), const RedisTlsOptions &client = RedisTlsOptions());
    bool isTls() const { return !m_tlsCert.isEmpty(); }

    /**
     * Starts the server and waits (blocking, up to `timeoutMs`) until it answers PING.
     * Returns false with `*error` set when redis-server is missing or does not come up;
     * retries with another port if the chosen one was taken meanwhile.
     */
    bool start(int timeoutMs = 10000, QString *error = nullptr);
    /** Starts a stopped server again on the same port (one attempt: the port must still be free),
     *  so clients that knew its address reconnect to it; an empty server (no persistence).
     *  Blocking like start(); false with `*error`. */
    bool restart(int timeoutMs = 10000, QString *error = nullptr);
    /** SIGTERM, then SIGKILL after 3 s: a clean shutdown (Redis 7 waits up to its
     *  shutdown-timeout for lagging replicas first, so this can block for those 3 s). */
    void stop();
    /** SIGKILL (`kill -9`): the server dies at once, losing what it had not sent to its replicas.
     *  Blocks only until the process is reaped (milliseconds). */
    void kill();
    bool isRunning() const;

    quint16 port() const { return m_port; }
    qint64 pid() const;
    QString url() const;
    RedisEndpoint endpoint() const;
    QString directory() const;

    /** Path of redis-server from PATH (also /usr/bin, /usr/sbin), empty when not installed. */
    static QString findExecutable();
    /** A loopback TCP port that was free a moment ago. */
    static quint16 freePort();

private:
    bool waitForPing(int timeoutMs);
    bool pingOnce();

    QString m_notify = QStringLiteral("KA");
    QStringList m_extra;
    QString m_tlsCert;
    QString m_tlsKey;
    QString m_tlsCa;
    QString m_tlsAuthClients;
    RedisTlsOptions m_tlsClient;
    std::unique_ptr<QTemporaryDir> m_dir;
    QProcess m_process;
    quint16 m_port = 0;
    bool m_samePort = false; ///< restart(): keep m_port, one attempt
};

} // namespace lockscope
