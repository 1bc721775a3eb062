#pragma once

#include "endpoint/redisendpoint.h"
#include "redisreply.h"
#include "respdecoder.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>

class QAbstractSocket;
class QIODevice;

namespace lockscope
{

/**
 * One connection to one Redis server: Qt owns the socket (TCP, TLS or unix socket, event-driven,
 * never blocking), hiredis encodes commands (redisFormatCommandArgv) and decodes replies
 * (redisReader).
 *
 * - Commands are pipelined: `send()` writes at once and replies are matched to callbacks in order.
 *   Arguments are binary-safe byte arrays. Commands sent while replies are being dispatched (from
 *   a reply callback, a pushReceived() handler or anything they call) are collected in an output
 *   buffer and written together, with one write to the socket, when the read handler has
 *   dispatched every complete reply it read: a callback that answers a reply with the next
 *   command costs no extra event-loop pass. (A callback that runs a nested event loop holds
 *   back its connection's batch until it returns, as it holds back the connection's replies.)
 *   On a plain TCP or unix socket that batch goes to the kernel with one send(). Commands sent
 *   from anywhere else are handed to the socket at once.
 * - Errors are values: a server error, a command timeout and a lost connection all reach the
 *   callback as a RedisReply of type Error (transport errors have `isTransportError()`), so every
 *   callback runs exactly once, unless its `context` object was destroyed first.
 * - Handshake on every (re)connect: AUTH (user/password from the endpoint), SELECT db,
 *   CLIENT SETNAME (default "lockscope"; a refusal is ignored). Then `ready()` is emitted.
 *   A refused login (WRONGPASS, NOAUTH) is reported as a sentence naming the ACL user and where
 *   the password came from, never the password; it is retried only at the slowest backoff.
 * - TLS (`rediss://`): the endpoint's RedisTlsOptions (CA, client certificate, verification) are
 *   applied on every connect; verification failures and TLS alerts become sentences that say
 *   what to do (RedisTlsOptions::describeErrors()). Unreadable TLS files stop reconnecting.
 * - A server error from an ACL refusal (NOPERM) reaches the callback reworded as "the ACL user
 *   'viewer' may not run 'set': NOPERM ..." (RedisReply::explainPermissionError()).
 * - A command timeout closes the connection (replies cannot be re-synchronised after one).
 * - With auto-reconnect on (the default), a lost connection is retried with exponential backoff
 *   (initial 100 ms, doubling, max 5 s, +-20% jitter); `ready()` fires again when it is back.
 * - Push mode (for pub/sub connections): after the handshake every reply is emitted as
 *   `pushReceived()` instead of being matched to a callback.
 * - Reply sizes are bounded (ReplyLimits): a reply announcing a bulk string or an array over the
 *   limits fails as soon as its header arrives, before anything that size is buffered or
 *   allocated; the connection is dropped with a sentence naming the size and the limit.
 * - Redis Sentinel: with an endpoint resolver (setEndpointResolver()) the server to connect to is
 *   asked for before every connection attempt (the master the sentinels name now), and
 *   reconnectNow() moves to it at once after a failover. A `redis-sentinel://` endpoint without a
 *   resolver fails with a sentence saying so.
 *
 * Lives on one thread (the thread of its QObject); not thread-safe.
 *
 * Size (the .cpp is about 750 lines, over the ~500 the project aims at): connect, TLS, handshake, pipelined
 * writes, reply dispatch, timeouts, health checks and reconnects are one socket's state machine
 * over the same members (pending callbacks, output buffer, state); split, they would hand that
 * state between classes on every reply. Its failure sentences are ConnectionErrorText's.
 *
 * Why redisconnection.cpp is long: one connection's life (resolve, connect, TLS, AUTH/HELLO/SELECT,
 * health check, reconnect with backoff, in-flight replies failed as unknown) is one state machine
 * around one socket; the codec (RespDecoder, hiredis) and the texts (ConnectionErrorText) are apart.
 */
class RedisConnection : public QObject
{
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Ready };
    Q_ENUM(State)

    using ReplyCallback = std::function<void(const RedisReply &)>;
    /** The answer of an endpoint resolver: the endpoint to connect to, or an invalid one and a
     *  sentence; `retrySlowly` when retrying soon will not help (e.g. an unknown master name). */
    using ResolvedCallback = std::function<void(const RedisEndpoint &endpoint, const QString &error, bool retrySlowly)>;
    using EndpointResolver = std::function<void(ResolvedCallback done)>;
    using PipelineCallback = std::function<void(const QVector<RedisReply> &)>;

    /** Bounds on one reply (RedisReplyLimits, enforced by RespDecoder). A reply over one of them
     *  fails every pending command with a transport error saying so and drops the connection. */
    using ReplyLimits = RedisReplyLimits;

    explicit RedisConnection(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~RedisConnection() override;

    void setClientName(const QByteArray &name) { m_clientName = name; }
    void setConnectTimeoutMs(int ms) { m_connectTimeoutMs = ms; }
    void setCommandTimeoutMs(int ms) { m_commandTimeoutMs = ms; }
    void setAutoReconnect(bool on) { m_autoReconnect = on; }
    void setReconnectDelaysMs(int initialMs, int maxMs);
    void setPushMode(bool on) { m_pushMode = on; }
    /**
     * Health check (off by default; on for connections that must never be deaf for long): while ready, a PING is sent
     * when nothing was received for `intervalMs`, and the connection is declared dead (reconnectNow(), so
     * connectionLost() with a sentence, then the usual reconnect) when the oldest outstanding
     * command or health PING got no byte back for `timeoutMs`. This catches a network that
     * silently drops everything (NAT or firewall state loss: no FIN, no RST), which otherwise
     * leaves a connection open and deaf forever. Works in push mode too (Redis answers PING in
     * subscribed mode with a `pong` push). 0 turns it off. TCP keep-alive is always set.
     */
    void setHealthCheckMs(int intervalMs, int timeoutMs);
    int healthCheckIntervalMs() const { return m_healthIntervalMs; }
    int healthCheckTimeoutMs() const { return m_healthTimeoutMs; }
    /** Wall-clock time (ms since the epoch) the connection was lost and not ready since, or 0
     *  when ready or never lost (a first connect still under way is not "lost"). */
    qint64 lostSinceEpochMs() const { return m_lostSinceEpochMs; }
    /** Applies from the next reply on (see ReplyLimits). */
    void setReplyLimits(const ReplyLimits &limits);

    /** Asked before every connection attempt for the endpoint to connect to (it replaces
     *  endpoint()); its failure counts as a failed attempt (backoff, connectionLost). The
     *  connect timeout covers the resolution too. SentinelResolver::resolve() is one. */
    void setEndpointResolver(EndpointResolver resolver) { m_resolver = std::move(resolver); }

    /** Starts connecting (no-op when already connecting or ready). Returns immediately. */
    void open();
    /** Drops the connection (pending commands fail with `reason`, connectionLost(reason) is
     *  emitted) and connects again at once (even with auto-reconnect off), asking the endpoint
     *  resolver anew: after a Sentinel failover. Resets the backoff. No-op after close() or
     *  before the first open(). */
    void reconnectNow(const QString &reason);
    /** Closes the socket, fails pending commands ("connection closed") and stops reconnecting. */
    void close();

    State state() const { return m_state; }
    bool isReady() const { return m_state == State::Ready; }
    const RedisEndpoint &endpoint() const { return m_endpoint; }
    /** Last connection-level error as a sentence ("connection refused by 127.0.0.1:6390"). */
    QString lastError() const { return m_lastError; }
    int pendingCount() const { return static_cast<int>(m_pending.size()); }

    /**
     * Sends one command. While connecting, it is queued and sent after the handshake; when
     * disconnected (and not connecting), `callback` gets a transport error at once (from the
     * event loop, never re-entrantly). `callback` is skipped if `context` is destroyed first;
     * pass nullptr for no context.
     */
    void send(const QList<QByteArray> &argv, QObject *context, ReplyCallback callback);
    /** Fire-and-forget variant (the reply is read and dropped). */
    void send(const QList<QByteArray> &argv) { send(argv, nullptr, nullptr); }
    /** Sends several commands back to back (hiredis encodes each into one buffer, written at
     *  once) as one pending entry; `callback` gets all replies, in order, once: one per command,
     *  server errors as values, and a transport error (isTransportError()) for each reply that
     *  never came when the connection fails or times out meanwhile. Skipped when `context` is
     *  destroyed first. An empty list calls back asynchronously with no replies. */
    void pipeline(const QList<QList<QByteArray>> &commands, QObject *context, PipelineCallback callback);

    /** RESP encoding of one command (hiredis redisFormatSdsCommandArgv). */
    static QByteArray encode(const QList<QByteArray> &argv);
    /** Commands written to Redis by every RedisConnection of this process since it started
     *  (handshakes and subscriptions included; a script call counts once). Thread-safe. For
     *  LockScope's own load (lockscope_redis_commands_sent_total). */
    static qint64 totalCommandsSent();
    /**
     * How the front-end lets a user give a password, appended to the "needs a password" and
     * "refused the login ... without a password" sentences (after ": "), e.g. the CLI's "give it
     * with --ask-password, LOCKSCOPE_PASSWORD or in the URL". Empty (the default): the sentence
     * ends with the cause, and the front-end says what to do itself (the GUI asks in a dialog).
     * Set once at start-up, before any connection (without it a GUI user would be told to
     * pass command-line flags).
     */
    static void setPasswordAdvice(const QString &howToGiveAPassword);

signals:
    void stateChanged(lockscope::RedisConnection::State state);
    /** Handshake completed: the connection accepts commands (after every reconnect too). */
    void ready();
    /** The connection dropped or could not be made; `reason` is a readable sentence. */
    void connectionLost(const QString &reason);
    /** In push mode: an unsolicited reply (pub/sub message, subscribe confirmation). */
    void pushReceived(const lockscope::RedisReply &reply);
    /** A command got an error reply from the server (not a transport error), e.g. READONLY
     *  (the server is now a replica) or LOADING; emitted before the command's callback runs. */
    void serverErrorReceived(const QString &message);

private:
    struct Pending {
        ReplyCallback callback;
        QPointer<QObject> context;
        bool hasContext = false;
        qint64 sentAtMs = 0;
        QByteArray command; ///< argv[0], for permission errors
        /** A pipeline (pipeline()): one entry for all its commands, whose replies are collected
         *  here until the last one arrived; then pipelineCallback gets them all. */
        bool isPipeline = false;
        int expected = 1;
        QVector<RedisReply> collected{};
        PipelineCallback pipelineCallback{};
        QList<QByteArray> commands{}; ///< argv[0] of each command of a pipeline
    };

    void startConnect();
    void connectTransport();
    void onTransportConnected();
    void onReadyRead();
    void onTransportError(const QString &message);
    void handleDisconnect(const QString &reason);
    void scheduleReconnect();
    void setState(State state);
    void writeCommand(const QByteArray &encoded, Pending pending);
    /** `commands`: how many commands `encoded` holds (counted by totalCommandsSent()). */
    void writeCommand(const char *encoded, qsizetype size, Pending pending, int commands = 1);
    /** Writes bytes to the socket, or to m_out while replies are dispatched (or m_out still holds
     *  bytes: the order on the wire must be the order of m_pending). */
    void writeBytes(const char *data, qsizetype size);
    /** Writes m_out to the socket with one write and flushes it. */
    void flushOut();
    void deliver(Pending &pending, const RedisReply &reply);
    /** Delivers a pipeline's collected replies, `fill` standing for each that never came. */
    void deliverPipeline(Pending &pending, const RedisReply &fill);
    void failAll(const QString &reason);
    void checkTimeouts();
    void finishHandshake();
    void failWithoutRetry(const QString &reason);
    QString explainAuthError(const QString &serverMessage) const;
    /** ": " + the front-end's password advice, or empty (setPasswordAdvice()). */
    static QString passwordAdviceSuffix();
    QString explainSocketError(QAbstractSocket *socket) const;
    QString closedReason() const;
    /** Why the bytes from the server are not RESP: an HTTP server, or something else, rather than a bare protocol
     * error. */
    QString explainProtocolError(const QString &decoderError) const;
    void checkHealth();

    RedisEndpoint m_endpoint;
    EndpointResolver m_resolver;
    quint64 m_attempt = 0; ///< connection attempts so far: a late resolver answer is ignored
    QByteArray m_clientName = "lockscope";
    int m_connectTimeoutMs = 5000;
    int m_commandTimeoutMs = 10000;
    bool m_autoReconnect = true;
    bool m_pushMode = false;
    int m_initialDelayMs = 100;
    int m_maxDelayMs = 5000;
    int m_nextDelayMs = 100;

    State m_state = State::Disconnected;
    bool m_handshaking = false;
    bool m_closing = false;
    bool m_authFailed = false; ///< last handshake failed on credentials: reconnect slowly
    QString m_lastError;
    QIODevice *m_device = nullptr;
    std::unique_ptr<RespDecoder> m_decoder;
    bool m_decoding = false;    ///< a transport is up and its bytes go to m_decoder
    QByteArray m_firstBytes;    ///< the first bytes the server sent on this transport (non-Redis servers)
    int m_dispatchDepth = 0;    ///< > 0 while onReadyRead() dispatches replies: writes go to m_out
    QByteArray m_out;           ///< commands sent during the dispatch, written at its end
    bool m_directWrite = false; ///< plain TCP or unix socket: flushOut() may send() to the descriptor itself
    std::deque<Pending> m_pending;
    QList<QPair<QByteArray, Pending>> m_queued; // sent after the handshake
    QTimer m_connectTimer;
    QTimer m_timeoutTimer;
    QTimer m_reconnectTimer;
    QTimer m_healthTimer;
    int m_healthIntervalMs = 0;
    int m_healthTimeoutMs = 0;
    qint64 m_lastReceivedMs = 0;    ///< m_clock time of the last bytes read
    qint64 m_healthPingSentMs = -1; ///< push mode: m_clock time of the health PING awaiting an answer
    qint64 m_lostSinceEpochMs = 0;
    QElapsedTimer m_clock;
};

} // namespace lockscope
