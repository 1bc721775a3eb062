#include "redisconnection.h"
#include "redis/connectionerrortext.h"

#include <atomic>

#include <QDateTime>
#include <QLocalSocket>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>

#include <hiredis/hiredis.h>

#include <vector>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <sys/socket.h>
#endif

namespace lockscope
{

RedisConnection::RedisConnection(const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent), m_endpoint(endpoint), m_decoder(std::make_unique<RespDecoder>())
{
    m_clock.start();
    // Member timers are children too, so moveToThread() takes them along.
    m_connectTimer.setParent(this);
    m_timeoutTimer.setParent(this);
    m_reconnectTimer.setParent(this);
    m_connectTimer.setSingleShot(true);
    connect(&m_connectTimer, &QTimer::timeout, this, [this] {
        auto *ssl = qobject_cast<QSslSocket *>(m_device);
        if (ssl && ssl->state() == QAbstractSocket::ConnectedState && !ssl->isEncrypted()) {
            // TCP is up but the TLS handshake got no answer: a plain Redis reads the ClientHello as
            // the start of an inline command and waits for the rest of the line, so say
            // that rather than time out without a cause.
            handleDisconnect(QStringLiteral("TLS handshake with %1 failed: no TLS answer within %2 ms, so the server "
                                            "is not speaking TLS on this port (a plain Redis port?): use redis:// "
                                            "for a plain port, or the server's tls-port with rediss://.")
                                 .arg(m_endpoint.address())
                                 .arg(m_connectTimeoutMs));
            return;
        }
        handleDisconnect(
            QStringLiteral("connecting to %1 timed out after %2 ms").arg(m_endpoint.address()).arg(m_connectTimeoutMs));
    });
    m_timeoutTimer.setInterval(100);
    connect(&m_timeoutTimer, &QTimer::timeout, this, &RedisConnection::checkTimeouts);
    m_reconnectTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, &RedisConnection::startConnect);
    m_healthTimer.setParent(this);
    connect(&m_healthTimer, &QTimer::timeout, this, &RedisConnection::checkHealth);
}

void RedisConnection::setHealthCheckMs(int intervalMs, int timeoutMs)
{
    m_healthIntervalMs = qMax(0, intervalMs);
    m_healthTimeoutMs = qMax(0, timeoutMs);
    if (m_healthIntervalMs == 0 || m_healthTimeoutMs == 0) {
        m_healthTimer.stop();
        return;
    }
    m_healthTimer.setInterval(qMax(50, qMin(m_healthIntervalMs, m_healthTimeoutMs) / 4));
    if (m_state == State::Ready)
        m_healthTimer.start();
}

void RedisConnection::checkHealth()
{
    if (m_state != State::Ready || !m_device || m_healthIntervalMs == 0 || m_healthTimeoutMs == 0)
        return;
    const qint64 now = m_clock.elapsed();
    // Since when has the oldest thing we wait for made no progress (no byte back)?
    qint64 waitingSince = -1;
    if (!m_pending.empty())
        waitingSince = qMax(m_pending.front().sentAtMs, m_lastReceivedMs);
    if (m_healthPingSentMs >= 0 && m_healthPingSentMs >= m_lastReceivedMs)
        waitingSince = waitingSince < 0 ? m_healthPingSentMs : qMin(waitingSince, m_healthPingSentMs);
    if (waitingSince >= 0 && now - waitingSince > m_healthTimeoutMs) {
        reconnectNow(QStringLiteral("%1 sent nothing for %2 ms although a reply was due: the network or the "
                                    "server is gone (health check)")
                         .arg(m_endpoint.address())
                         .arg(now - waitingSince));
        return;
    }
    if (waitingSince < 0 && now - m_lastReceivedMs >= m_healthIntervalMs) {
        m_healthPingSentMs = now;
        const QByteArray ping = encode({"PING"});
        writeBytes(ping.constData(), ping.size());
        if (!m_pushMode)
            m_pending.push_back(Pending{nullptr, {}, false, now, QByteArray("PING")});
    }
}

RedisConnection::~RedisConnection()
{
    m_closing = true;
    m_autoReconnect = false;
    // Callbacks are not run from the destructor: their owners may be half-destroyed too.
    m_pending.clear();
    m_queued.clear();
    if (m_device) {
        m_device->disconnect(this);
        delete m_device;
        m_device = nullptr;
    }
}

void RedisConnection::setReconnectDelaysMs(int initialMs, int maxMs)
{
    m_initialDelayMs = qMax(1, initialMs);
    m_maxDelayMs = qMax(m_initialDelayMs, maxMs);
    m_nextDelayMs = m_initialDelayMs;
}

void RedisConnection::setReplyLimits(const ReplyLimits &limits)
{
    m_decoder->setLimits(limits);
}

void RedisConnection::open()
{
    m_closing = false;
    if (m_state != State::Disconnected || m_reconnectTimer.isActive())
        return;
    startConnect();
}

void RedisConnection::reconnectNow(const QString &reason)
{
    if (m_closing)
        return;
    m_nextDelayMs = m_initialDelayMs;
    m_authFailed = false;
    if (m_state != State::Disconnected || m_device) {
        QPointer<RedisConnection> self(this);
        handleDisconnect(reason);
        if (!self)
            return;
    } else if (!m_reconnectTimer.isActive()) {
        return; // never opened, or given up (failWithoutRetry)
    }
    m_reconnectTimer.stop();
    if (!m_closing) // a connectionLost() handler may have closed it
        startConnect();
}

void RedisConnection::close()
{
    m_closing = true;
    m_reconnectTimer.stop();
    handleDisconnect(QStringLiteral("connection closed"));
}

void RedisConnection::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void RedisConnection::startConnect()
{
    if (m_state != State::Disconnected)
        return;
    const quint64 attempt = ++m_attempt;
    if (m_resolver) {
        setState(State::Connecting);
        m_connectTimer.start(m_connectTimeoutMs);
        QPointer<RedisConnection> self(this);
        m_resolver([self, attempt](const RedisEndpoint &endpoint, const QString &error, bool retrySlowly) {
            if (!self || self->m_attempt != attempt || self->m_state != State::Connecting || self->m_device)
                return; // timed out, closed or superseded meanwhile
            if (!endpoint.isValid() || endpoint.isSentinel()) {
                self->m_authFailed = retrySlowly;
                self->m_lastError = error.isEmpty() ? QStringLiteral("no server to connect to") : error;
                self->handleDisconnect(self->m_lastError);
                return;
            }
            self->m_endpoint = endpoint;
            self->connectTransport();
        });
        return;
    }
    if (!m_endpoint.isValid()) {
        m_lastError = QStringLiteral("invalid Redis endpoint");
        failAll(m_lastError);
        emit connectionLost(m_lastError);
        return;
    }
    if (m_endpoint.isSentinel()) {
        failWithoutRetry(QStringLiteral("%1 is a Sentinel URL: the master must be asked of the sentinels first "
                                        "(this connection has no SentinelResolver)")
                             .arg(m_endpoint.toString()));
        return;
    }
    setState(State::Connecting);
    m_connectTimer.start(m_connectTimeoutMs);
    connectTransport();
}

void RedisConnection::connectTransport()
{
    m_decoder->reset();
    m_decoding = true;
    m_firstBytes.clear();
    m_out.clear();
    m_directWrite = m_endpoint.transport() != RedisEndpoint::Transport::Tls;

    if (m_endpoint.transport() == RedisEndpoint::Transport::Unix) {
        auto *sock = new QLocalSocket(this);
        m_device = sock;
        connect(sock, &QLocalSocket::connected, this, &RedisConnection::onTransportConnected);
        connect(sock, &QLocalSocket::readyRead, this, &RedisConnection::onReadyRead);
        connect(sock, &QLocalSocket::disconnected, this,
                [this] { handleDisconnect(QStringLiteral("server closed the connection")); });
        connect(sock, &QLocalSocket::errorOccurred, this, [this, sock](QLocalSocket::LocalSocketError e) {
            onTransportError(e == QLocalSocket::PeerClosedError
                                 ? QStringLiteral("server closed the connection")
                                 : ConnectionErrorText::localSocketError(m_endpoint.socketPath(), sock->errorString()));
        });
        if (m_endpoint.socketPath().isEmpty()) { // Qt would only warn "Invalid name"
            QMetaObject::invokeMethod(
                this, [this] { onTransportError(ConnectionErrorText::localSocketError(QString(), QString())); },
                Qt::QueuedConnection);
            return;
        }
        sock->connectToServer(m_endpoint.socketPath());
        return;
    }

    QTcpSocket *sock = nullptr;
    if (m_endpoint.transport() == RedisEndpoint::Transport::Tls) {
        if (!QSslSocket::supportsSsl()) {
            failWithoutRetry(QStringLiteral("TLS (rediss://) is not available: Qt has no TLS backend on this machine"));
            return;
        }
        const RedisTlsOptions &tls = m_endpoint.tlsOptions();
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        QString tlsError;
        if (!tls.applyTo(&config, &tlsError)) {
            failWithoutRetry(tlsError);
            return;
        }
        auto *ssl = new QSslSocket(this);
        ssl->setSslConfiguration(config);
        if (!tls.serverName().isEmpty())
            ssl->setPeerVerifyName(tls.serverName());
        connect(ssl, &QSslSocket::encrypted, this, &RedisConnection::onTransportConnected);
        connect(ssl, &QSslSocket::sslErrors, this, [this, ssl](const QList<QSslError> &errors) {
            if (m_endpoint.tlsOptions().isInsecure()) {
                ssl->ignoreSslErrors();
                return;
            }
            const QString peer = ssl->peerVerifyName().isEmpty() ? m_endpoint.host() : ssl->peerVerifyName();
            m_lastError = RedisTlsOptions::describeErrors(errors, m_endpoint.address(), peer);
            handleDisconnect(m_lastError);
        });
        sock = ssl;
    } else {
        sock = new QTcpSocket(this);
        connect(sock, &QTcpSocket::connected, this, &RedisConnection::onTransportConnected);
    }
    m_device = sock;
    connect(sock, &QTcpSocket::readyRead, this, &RedisConnection::onReadyRead);
    connect(sock, &QTcpSocket::disconnected, this, [this] { handleDisconnect(closedReason()); });
    connect(sock, &QTcpSocket::errorOccurred, this, [this, sock](QAbstractSocket::SocketError error) {
        if (error == QAbstractSocket::RemoteHostClosedError && m_state == State::Connecting) {
            handleDisconnect(closedReason());
            return;
        }
        onTransportError(explainSocketError(sock));
    });
    if (auto *ssl = qobject_cast<QSslSocket *>(sock))
        ssl->connectToHostEncrypted(m_endpoint.host(), m_endpoint.port());
    else
        sock->connectToHost(m_endpoint.host(), m_endpoint.port());
}

void RedisConnection::onTransportConnected()
{
    if (auto *tcp = qobject_cast<QTcpSocket *>(m_device)) {
        tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        // The kernel's last resort against a peer gone without FIN/RST; the health check is faster.
        tcp->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
    }
    m_handshaking = true;
    const QString address = m_endpoint.address();
    auto handshakeStep = [this, address](const QString &what) {
        return [this, address, what](const RedisReply &r) {
            if (r.isError() && !r.isTransportError()) {
                m_lastError = QStringLiteral("%1 on %2 failed: %3").arg(what, address, r.errorMessage());
                handleDisconnect(m_lastError);
            }
        };
    };
    if (!m_endpoint.password().isEmpty() || !m_endpoint.username().isEmpty()) {
        QList<QByteArray> auth{"AUTH"};
        if (!m_endpoint.username().isEmpty())
            auth << m_endpoint.username().toUtf8();
        auth << m_endpoint.password().toUtf8();
        writeCommand(encode(auth), Pending{[this](const RedisReply &r) {
                                               if (r.isError() && !r.isTransportError()) {
                                                   m_authFailed = true;
                                                   m_lastError = explainAuthError(r.errorMessage());
                                                   handleDisconnect(m_lastError);
                                               }
                                           },
                                           {},
                                           false,
                                           m_clock.elapsed(),
                                           {}});
    }
    if (m_endpoint.db() != 0)
        writeCommand(
            encode({"SELECT", QByteArray::number(m_endpoint.db())}),
            Pending{handshakeStep(QStringLiteral("SELECT %1").arg(m_endpoint.db())), {}, false, m_clock.elapsed(), {}});
    // CLIENT SETNAME may be refused by ACLs: that is not worth dropping the connection for.
    writeCommand(encode({"CLIENT", "SETNAME", m_clientName}), Pending{nullptr, {}, false, m_clock.elapsed(), {}});
    // PING is the barrier that ends the handshake. NOAUTH means the server wants a password we did
    // not give; any other refusal (an ACL without +ping) does not stop us.
    writeCommand(encode({"PING"}),
                 Pending{[this](const RedisReply &r) {
                             if (r.isTransportError())
                                 return;
                             if (r.isError() && r.errorMessage().startsWith(QLatin1String("NOAUTH"))) {
                                 m_authFailed = true;
                                 m_lastError = QStringLiteral("Redis at %1 needs a password (%2)%3.")
                                                   .arg(m_endpoint.address(),
                                                        r.errorMessage().trimmed().remove(
                                                            QRegularExpression(QStringLiteral("\\.$"))),
                                                        passwordAdviceSuffix());
                                 handleDisconnect(m_lastError);
                                 return;
                             }
                             finishHandshake();
                         },
                         {},
                         false,
                         m_clock.elapsed(),
                         {}});
}

void RedisConnection::finishHandshake()
{
    if (m_state != State::Connecting)
        return;
    m_handshaking = false;
    m_connectTimer.stop();
    m_nextDelayMs = m_initialDelayMs;
    m_authFailed = false;
    m_lastError.clear();
    m_lostSinceEpochMs = 0;
    m_lastReceivedMs = m_clock.elapsed();
    m_healthPingSentMs = -1;
    setState(State::Ready);
    if (m_healthIntervalMs > 0 && m_healthTimeoutMs > 0)
        m_healthTimer.start();
    const auto queued = std::move(m_queued);
    m_queued.clear();
    for (const auto &q : queued)
        writeCommand(q.first, q.second);
    emit ready();
}

namespace
{

/** hiredis' RESP encoding of `argv` as an sds string (nullptr on failure); free with redisFreeSdsCommand. */
sds encodeSds(const QList<QByteArray> &argv)
{
    constexpr int kInline = 16;
    const char *ptrsInline[kInline];
    size_t lensInline[kInline];
    std::vector<const char *> ptrsHeap;
    std::vector<size_t> lensHeap;
    const char **ptrs = ptrsInline;
    size_t *lens = lensInline;
    if (argv.size() > kInline) {
        ptrsHeap.resize(static_cast<size_t>(argv.size()));
        lensHeap.resize(static_cast<size_t>(argv.size()));
        ptrs = ptrsHeap.data();
        lens = lensHeap.data();
    }
    for (qsizetype i = 0; i < argv.size(); ++i) {
        ptrs[i] = argv[i].constData();
        lens[i] = static_cast<size_t>(argv[i].size());
    }
    sds target = nullptr;
    if (redisFormatSdsCommandArgv(&target, static_cast<int>(argv.size()), ptrs, lens) < 0)
        return nullptr;
    return target;
}

} // namespace

void RedisConnection::send(const QList<QByteArray> &argv, QObject *context, ReplyCallback callback)
{
    Pending p{std::move(callback), context, context != nullptr, m_clock.elapsed(), argv.value(0)};
    if (m_state == State::Ready || m_state == State::Connecting) {
        sds encoded = encodeSds(argv);
        const char *data = encoded ? encoded : "";
        const qsizetype size = encoded ? static_cast<qsizetype>(sdslen(encoded)) : 0;
        if (m_state == State::Ready)
            writeCommand(data, size, std::move(p));
        else
            m_queued.append({QByteArray(data, size), std::move(p)});
        redisFreeSdsCommand(encoded); // sdsfree (hiredis 0.14's sds.h lacks extern "C")
        return;
    }
    const QString reason =
        m_lastError.isEmpty() ? QStringLiteral("not connected to %1").arg(m_endpoint.address()) : m_lastError;
    QPointer<RedisConnection> self(this);
    QMetaObject::invokeMethod(
        this,
        [self, p, reason]() mutable {
            if (self)
                self->deliver(p, RedisReply::makeUnsentError(reason));
        },
        Qt::QueuedConnection);
}

void RedisConnection::pipeline(const QList<QList<QByteArray>> &commands, QObject *context, PipelineCallback callback)
{
    if (commands.isEmpty()) {
        if (callback)
            QMetaObject::invokeMethod(
                this, [callback] { callback({}); }, Qt::QueuedConnection);
        return;
    }
    if (m_state != State::Ready && m_state != State::Connecting) {
        // Not connected: each command fails as send() fails it, and the callback gets them all.
        auto collected = std::make_shared<QVector<RedisReply>>();
        const int total = int(commands.size());
        for (const auto &argv : commands)
            send(argv, context, [collected, total, callback](const RedisReply &r) {
                collected->append(r);
                if (collected->size() == total && callback)
                    callback(*collected);
            });
        return;
    }
    // One pending entry and one encoded buffer for the whole pipeline (hiredis encodes each
    // command): a read of 500 locks is about 1000 commands, and a callback, a context guard and
    // a write per command cost the client more than the commands cost Redis.
    Pending p{nullptr, context, context != nullptr, m_clock.elapsed(), commands.first().value(0)};
    p.isPipeline = true;
    p.expected = int(commands.size());
    p.collected.reserve(commands.size());
    p.pipelineCallback = std::move(callback);
    p.commands.reserve(commands.size());
    QByteArray encoded;
    qsizetype estimate = 0; // RESP: "*N\r\n", then "$len\r\n<arg>\r\n" per argument
    for (const auto &argv : commands) {
        estimate += 16;
        for (const QByteArray &arg : argv)
            estimate += arg.size() + 16;
    }
    encoded.reserve(estimate); // one buffer for the whole pipeline, not a doubling per few commands
    for (const auto &argv : commands) {
        p.commands << argv.value(0);
        sds one = encodeSds(argv);
        if (one) {
            encoded.append(one, static_cast<qsizetype>(sdslen(one)));
            redisFreeSdsCommand(one);
        }
    }
    if (m_state == State::Ready)
        writeCommand(encoded.constData(), encoded.size(), std::move(p), int(commands.size()));
    else
        m_queued.append({encoded, std::move(p)});
}

void RedisConnection::writeCommand(const QByteArray &encoded, Pending pending)
{
    const int commands = pending.expected;
    writeCommand(encoded.constData(), encoded.size(), std::move(pending), commands);
}

namespace
{
std::atomic<qint64> g_commandsSent{0};
} // namespace

qint64 RedisConnection::totalCommandsSent()
{
    return g_commandsSent.load(std::memory_order_relaxed);
}

void RedisConnection::writeCommand(const char *encoded, qsizetype size, Pending pending, int commands)
{
    if (!m_device)
        return;
    g_commandsSent.fetch_add(commands, std::memory_order_relaxed);
    pending.sentAtMs = m_clock.elapsed();
    const bool push = m_pushMode && !m_handshaking;
    if (!push)
        m_pending.push_back(std::move(pending));
    writeBytes(encoded, size);
    if (!m_pending.empty() && !m_timeoutTimer.isActive())
        m_timeoutTimer.start();
}

void RedisConnection::writeBytes(const char *data, qsizetype size)
{
    if (!m_device || size <= 0)
        return;
    if (m_dispatchDepth > 0 || !m_out.isEmpty()) {
        m_out.append(data, size);
        return;
    }
    m_device->write(data, size);
}

void RedisConnection::flushOut()
{
    if (m_out.isEmpty())
        return;
    if (!m_device) {
        m_out.clear();
        return;
    }
    qsizetype offset = 0;
#ifdef Q_OS_UNIX
    // A plain TCP or unix socket with nothing in Qt's write buffer: one send() straight to the
    // kernel. Going through QIODevice::write() + flush() would switch Qt's write notifier on and
    // off around it, and with the glib event dispatcher each switch writes to its wake-up fd and
    // costs the next poll a wasted round: three more syscalls per batch, as many as the batch itself.
    // Whatever the kernel does not take (a full socket buffer, an error) goes to Qt as before,
    // which writes it later or reports the error; the order on the wire is kept.
    if (m_directWrite) {
        qintptr fd = -1;
        qint64 queued = 0;
        if (auto *tcp = qobject_cast<QTcpSocket *>(m_device)) {
            fd = tcp->socketDescriptor();
            queued = tcp->bytesToWrite();
        } else if (auto *local = qobject_cast<QLocalSocket *>(m_device)) {
            fd = local->socketDescriptor();
            queued = local->bytesToWrite();
        }
        if (fd >= 0 && queued == 0) {
            ssize_t n;
            do
                n = ::send(static_cast<int>(fd), m_out.constData(), static_cast<size_t>(m_out.size()),
                           MSG_NOSIGNAL | MSG_DONTWAIT);
            while (n < 0 && errno == EINTR);
            offset = n > 0 ? static_cast<qsizetype>(n) : 0;
        }
    }
#endif
    if (offset < m_out.size()) {
        m_device->write(m_out.constData() + offset, m_out.size() - offset);
        // Hand the bytes to the kernel now rather than on the next event-loop pass.
        if (auto *sock = qobject_cast<QAbstractSocket *>(m_device))
            sock->flush();
        else if (auto *local = qobject_cast<QLocalSocket *>(m_device))
            local->flush();
    }
    m_out.truncate(0); // keeps the capacity for the next batch
}

void RedisConnection::deliver(Pending &pending, const RedisReply &reply)
{
    if (!pending.callback)
        return;
    if (pending.hasContext && !pending.context)
        return;
    pending.callback(reply);
}

void RedisConnection::deliverPipeline(Pending &pending, const RedisReply &fill)
{
    while (pending.collected.size() < pending.expected)
        pending.collected.append(fill);
    if (!pending.pipelineCallback)
        return;
    if (pending.hasContext && !pending.context)
        return;
    pending.pipelineCallback(pending.collected);
}

void RedisConnection::onReadyRead()
{
    if (!m_device || !m_decoding)
        return;
    const QByteArray data = m_device->readAll();
    if (m_firstBytes.size() < 64)
        m_firstBytes += data.left(64 - m_firstBytes.size());
    if (!data.isEmpty()) {
        m_lastReceivedMs = m_clock.elapsed();
        m_healthPingSentMs = -1; // any byte proves the connection alive
    }
    QString error;
    if (!m_decoder->feed(data.constData(), data.size(), &error)) {
        handleDisconnect(explainProtocolError(error));
        return;
    }
    QPointer<RedisConnection> self(this);
    // Commands the callbacks send meanwhile go to m_out and leave with one write at the end.
    struct DispatchScope {
        RedisConnection *c;
        QPointer<RedisConnection> &self;
        ~DispatchScope()
        {
            if (!self)
                return;
            if (--c->m_dispatchDepth == 0)
                c->flushOut();
        }
    };
    ++m_dispatchDepth;
    DispatchScope scope{this, self};
    while (self && m_decoding) {
        RedisReply reply;
        const RespDecoder::Result result = m_decoder->next(&reply, &error);
        if (result == RespDecoder::Result::Error) {
            handleDisconnect(explainProtocolError(error));
            return;
        }
        if (result == RespDecoder::Result::NeedMore)
            break;
        if (m_pushMode && !m_handshaking) {
            emit pushReceived(reply);
            continue;
        }
        if (m_pending.empty())
            continue; // a reply nobody asked for: ignore rather than mis-assign
        // The entry this reply answers: a command of its own, or the next command of a pipeline,
        // whose replies are collected until its last one.
        Pending &front = m_pending.front();
        const QByteArray command = front.isPipeline ? front.commands.value(front.collected.size()) : front.command;
        const bool reportError = reply.isError() && !m_handshaking;
        const QString serverMessage = reportError ? reply.errorMessage() : QString();
        if (reply.isPermissionError()) {
            // Say who may not do what, in the words of the ACL, for every caller at once.
            reply = RedisReply::makeError(
                RedisReply::explainPermissionError(reply.errorMessage(), m_endpoint.aclUser(), command));
        }
        if (front.isPipeline)
            front.collected.append(reply);
        const bool complete = !front.isPipeline || front.collected.size() == front.expected;
        Pending p;
        if (complete) {
            p = std::move(front);
            m_pending.pop_front();
        }
        if (reportError) {
            emit serverErrorReceived(serverMessage);
            if (!self)
                return;
        }
        if (!complete)
            continue;
        if (p.isPipeline)
            deliverPipeline(p, RedisReply());
        else
            deliver(p, reply);
    }
    if (self && m_pending.empty())
        m_timeoutTimer.stop();
}

void RedisConnection::checkTimeouts()
{
    if (m_pending.empty()) {
        m_timeoutTimer.stop();
        return;
    }
    if (m_commandTimeoutMs > 0 && m_clock.elapsed() - m_pending.front().sentAtMs > m_commandTimeoutMs) {
        handleDisconnect(
            QStringLiteral("%1 did not answer within %2 ms").arg(m_endpoint.address()).arg(m_commandTimeoutMs));
    }
}

void RedisConnection::failWithoutRetry(const QString &reason)
{
    m_connectTimer.stop();
    setState(State::Disconnected);
    m_lastError = reason;
    failAll(m_lastError);
    emit connectionLost(m_lastError);
}

// The sentences live in ConnectionErrorText; these keep RedisConnection's private interface.
void RedisConnection::setPasswordAdvice(const QString &howToGiveAPassword)
{
    ConnectionErrorText::setPasswordAdvice(howToGiveAPassword);
}

QString RedisConnection::passwordAdviceSuffix()
{
    return ConnectionErrorText::passwordAdviceSuffix();
}

QString RedisConnection::explainAuthError(const QString &serverMessage) const
{
    return ConnectionErrorText::authError(m_endpoint, serverMessage);
}

QString RedisConnection::explainProtocolError(const QString &decoderError) const
{
    return ConnectionErrorText::protocolError(m_endpoint, m_firstBytes, m_handshaking, decoderError);
}

QString RedisConnection::closedReason() const
{
    // A server that refuses with an error line and then closes (maxclients reached, protected
    // mode) said why: its words, not a guess about TLS.
    QByteArray said = m_firstBytes;
    if (said.isEmpty() && m_device)
        said = m_device->peek(64);
    if (said.startsWith('-')) {
        QString line = QString::fromUtf8(said.mid(1).split('\r').first());
        for (QChar &c : line)
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                c = QLatin1Char('?');
        return QStringLiteral("%1 refused the connection: %2").arg(m_endpoint.address(), line);
    }
    return ConnectionErrorText::closedReason(m_endpoint, m_state == State::Connecting);
}

QString RedisConnection::explainSocketError(QAbstractSocket *socket) const
{
    return ConnectionErrorText::socketError(m_endpoint, socket);
}

void RedisConnection::onTransportError(const QString &message)
{
    if (m_state == State::Disconnected)
        return;
    handleDisconnect(QStringLiteral("%1: %2").arg(m_endpoint.address(), message));
}

void RedisConnection::handleDisconnect(const QString &reason)
{
    if (m_state == State::Disconnected && !m_device)
        return;
    m_connectTimer.stop();
    m_timeoutTimer.stop();
    m_healthTimer.stop();
    m_healthPingSentMs = -1;
    if (m_lostSinceEpochMs == 0)
        m_lostSinceEpochMs = QDateTime::currentMSecsSinceEpoch();
    m_handshaking = false;
    if (!m_closing || m_lastError.isEmpty())
        m_lastError = reason;
    if (m_device) {
        QIODevice *dev = m_device;
        m_device = nullptr;
        dev->disconnect(this);
        if (auto *tcp = qobject_cast<QAbstractSocket *>(dev))
            tcp->abort();
        else if (auto *local = qobject_cast<QLocalSocket *>(dev))
            local->abort();
        dev->deleteLater();
    }
    m_out.clear(); // never written to the next connection; their callbacks fail below
    m_decoding = false;
    m_decoder->reset();
    setState(State::Disconnected);
    QPointer<RedisConnection> self(this);
    failAll(reason);
    if (!self)
        return;
    emit connectionLost(reason);
    if (self)
        scheduleReconnect();
}

void RedisConnection::failAll(const QString &reason)
{
    std::deque<Pending> pending;
    pending.swap(m_pending);
    const size_t written = pending.size(); // sent: the server may have run them
    for (auto &q : m_queued)
        pending.push_back(std::move(q.second));
    m_queued.clear();
    const RedisReply err = RedisReply::makeError(reason, true);
    const RedisReply unsent = RedisReply::makeUnsentError(reason);
    QPointer<RedisConnection> self(this);
    size_t i = 0;
    for (auto &p : pending) {
        const RedisReply &e = i++ < written ? err : unsent;
        if (p.isPipeline)
            deliverPipeline(p, e);
        else
            deliver(p, e);
        if (!self)
            return;
    }
}

void RedisConnection::scheduleReconnect()
{
    if (!m_autoReconnect || m_closing || m_reconnectTimer.isActive())
        return;
    if (m_authFailed) {
        // Wrong credentials do not fix themselves: retry slowly, so the server's ACL log is not flooded.
        m_nextDelayMs = m_maxDelayMs;
    }
    const double jitter = 0.8 + 0.4 * QRandomGenerator::global()->generateDouble();
    const int delay = static_cast<int>(m_nextDelayMs * jitter);
    m_nextDelayMs = qMin(m_nextDelayMs * 2, m_maxDelayMs);
    m_reconnectTimer.start(delay);
}

QByteArray RedisConnection::encode(const QList<QByteArray> &argv)
{
    sds encoded = encodeSds(argv);
    if (!encoded)
        return {};
    QByteArray out(encoded, static_cast<qsizetype>(sdslen(encoded)));
    redisFreeSdsCommand(encoded); // sdsfree (hiredis 0.14's sds.h lacks extern "C")
    return out;
}

} // namespace lockscope
