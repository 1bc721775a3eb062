#include "redisserverprocess.h"

#include <QDeadlineTimer>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#endif

namespace lockscope
{

RedisServerProcess::RedisServerProcess(QObject *parent) : QObject(parent)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
#ifdef Q_OS_LINUX
    // If we die without cleaning up (SIGKILL, crash), the kernel stops our private server too.
    m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
#endif
}

RedisServerProcess::~RedisServerProcess()
{
    stop();
}

void RedisServerProcess::setTls(const QString &certFile, const QString &keyFile, const QString &caFile,
                                const QString &authClients, const RedisTlsOptions &client)
{
    m_tlsCert = certFile;
    m_tlsKey = keyFile;
    m_tlsCa = caFile;
    m_tlsAuthClients = authClients;
    m_tlsClient = client;
}

QString RedisServerProcess::findExecutable()
{
    QString path = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (path.isEmpty())
        path = QStandardPaths::findExecutable(
            QStringLiteral("redis-server"),
            {QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/bin")});
    return path;
}

quint16 RedisServerProcess::freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

bool RedisServerProcess::start(int timeoutMs, QString *error)
{
    stop();
    const QString exe = findExecutable();
    if (exe.isEmpty()) {
        if (error)
            *error = QStringLiteral("redis-server is not installed (Debian: apt-get install redis-server)");
        return false;
    }
    QString lastOutput;
    for (int attempt = 0; attempt < (m_samePort ? 1 : 3); ++attempt) {
        m_dir = std::make_unique<QTemporaryDir>();
        if (!m_samePort)
            m_port = freePort();
        if (!m_dir->isValid() || m_port == 0) {
            if (error)
                *error = QStringLiteral("cannot create a temporary directory or find a free port");
            return false;
        }
        QStringList args;
        if (isTls())
            args << QStringLiteral("--port") << QStringLiteral("0") << QStringLiteral("--tls-port")
                 << QString::number(m_port) << QStringLiteral("--tls-cert-file") << m_tlsCert
                 << QStringLiteral("--tls-key-file") << m_tlsKey << QStringLiteral("--tls-ca-cert-file") << m_tlsCa
                 << QStringLiteral("--tls-auth-clients") << m_tlsAuthClients;
        else
            args << QStringLiteral("--port") << QString::number(m_port);
        args << QStringList{QStringLiteral("--bind"),
                            QStringLiteral("127.0.0.1"),
                            QStringLiteral("--save"),
                            QString(),
                            QStringLiteral("--appendonly"),
                            QStringLiteral("no"),
                            QStringLiteral("--dir"),
                            m_dir->path(),
                            QStringLiteral("--notify-keyspace-events"),
                            m_notify,
                            QStringLiteral("--daemonize"),
                            QStringLiteral("no"),
                            QStringLiteral("--loglevel"),
                            QStringLiteral("warning")};
        args << m_extra;
        m_process.start(exe, args);
        if (!m_process.waitForStarted(timeoutMs)) {
            if (error)
                *error = QStringLiteral("redis-server did not start: %1").arg(m_process.errorString());
            return false;
        }
        if (waitForPing(timeoutMs))
            return true;
        lastOutput = QString::fromLocal8Bit(m_process.readAll()).trimmed();
        stop();
    }
    if (error)
        *error = QStringLiteral("redis-server did not answer PING: %1").arg(lastOutput);
    return false;
}

bool RedisServerProcess::restart(int timeoutMs, QString *error)
{
    if (m_port == 0)
        return start(timeoutMs, error);
    m_samePort = true;
    const bool ok = start(timeoutMs, error);
    m_samePort = false;
    return ok;
}

bool RedisServerProcess::waitForPing(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process.state() != QProcess::Running)
            return false;
        if (pingOnce())
            return true;
        QThread::msleep(20);
    }
    return false;
}

bool RedisServerProcess::pingOnce()
{
    if (!isTls()) {
        QTcpSocket s;
        s.connectToHost(QHostAddress::LocalHost, m_port);
        if (!s.waitForConnected(200))
            return false;
        s.write("PING\r\n");
        return s.waitForReadyRead(500) && s.readAll().startsWith("+PONG");
    }
    // Readiness only: the server is ours, so its certificate is not checked here.
    RedisTlsOptions readiness = m_tlsClient;
    readiness.setInsecure(true);
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    if (!readiness.applyTo(&config))
        return false;
    QSslSocket s;
    s.setSslConfiguration(config);
    s.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_port);
    if (!s.waitForEncrypted(1000))
        return false;
    s.write("PING\r\n");
    QByteArray reply;
    QDeadlineTimer deadline(1000);
    while (!reply.contains('\n') && !deadline.hasExpired() && s.waitForReadyRead(int(deadline.remainingTime())))
        reply += s.readAll();
    return reply.startsWith("+PONG");
}

void RedisServerProcess::stop()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(3000)) {
            m_process.kill();
            m_process.waitForFinished(3000);
        }
    }
    m_dir.reset();
}

void RedisServerProcess::kill()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(3000);
    }
    m_dir.reset();
}

bool RedisServerProcess::isRunning() const
{
    return m_process.state() == QProcess::Running;
}
qint64 RedisServerProcess::pid() const
{
    return m_process.processId();
}
QString RedisServerProcess::url() const
{
    return QStringLiteral("%1://127.0.0.1:%2")
        .arg(isTls() ? QStringLiteral("rediss") : QStringLiteral("redis"))
        .arg(m_port);
}

RedisEndpoint RedisServerProcess::endpoint() const
{
    if (!isTls())
        return RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), m_port);
    RedisEndpoint ep = RedisEndpoint::parse(url());
    ep.setPassword(QString()); // not LOCKSCOPE_PASSWORD: the private server has none
    ep.setUsername(QString());
    ep.setTlsOptions(m_tlsClient);
    return ep;
}
QString RedisServerProcess::directory() const
{
    return m_dir ? m_dir->path() : QString();
}

} // namespace lockscope
