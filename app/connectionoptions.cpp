#include "connectionoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include "diagnose/lockdoctor.h"

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace lockscope
{

namespace
{

const QString kUrl = QStringLiteral("url");
const QString kTlsCa = QStringLiteral("tls-ca");
const QString kTlsCert = QStringLiteral("tls-cert");
const QString kTlsKey = QStringLiteral("tls-key");
const QString kTlsServerName = QStringLiteral("tls-server-name");
const QString kTlsInsecure = QStringLiteral("tls-insecure");
const QString kUser = QStringLiteral("user");
const QString kAskPassword = QStringLiteral("ask-password");

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

// The terminal state to restore if the prompt is interrupted (Ctrl-C while echo is off).
int g_ttyFd = -1;
struct termios g_savedTty;

void restoreTtyAndDie(int sig)
{
    if (g_ttyFd >= 0) {
        ::tcsetattr(g_ttyFd, TCSAFLUSH, &g_savedTty);
        (void)!::write(g_ttyFd, "\n", 1);
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

} // namespace

ConnectionOptions::ConnectionOptions(const QString &defaultUrl) : m_defaultUrl(defaultUrl), m_prompt(&askOnTerminal) {}

QList<QCommandLineOption> ConnectionOptions::options() const
{
    QCommandLineOption url(
        kUrl,
        QStringLiteral("Redis URL: redis://[user[:password]@]host[:port][/db], rediss://... (TLS), "
                       "unix:///path.sock, or redis-sentinel://host:port[,host2:port2...][/db]#master "
                       "to follow a Sentinel-managed master across failovers. Default: "
                       "LOCKSCOPE_URL when set. User and password also from LOCKSCOPE_USER and "
                       "LOCKSCOPE_PASSWORD. A password in the URL is "
                       "visible to other local users in 'ps': prefer --ask-password, the keychain "
                       "(saved connections) or LOCKSCOPE_PASSWORD."),
        QStringLiteral("URL"));
    if (!m_defaultUrl.isEmpty())
        url.setDefaultValue(m_defaultUrl);
    return {
        url,
        {kTlsCa, QStringLiteral("rediss://: trust the CA certificate(s) in FILE (PEM) instead of the system's."),
         QStringLiteral("FILE")},
        {kTlsCert, QStringLiteral("rediss://: client certificate (PEM), for servers that ask for one."),
         QStringLiteral("FILE")},
        {kTlsKey,
         QStringLiteral("rediss://: private key of --tls-cert (unencrypted PEM; default: in the --tls-cert file)."),
         QStringLiteral("FILE")},
        {kTlsServerName,
         QStringLiteral("rediss://: the name the server certificate must carry, when it is not the URL host "
                        "(e.g. through a tunnel)."),
         QStringLiteral("NAME")},
        {kTlsInsecure,
         QStringLiteral("rediss://: do not verify the server certificate or its name. Encrypts, but anyone on the "
                        "path could pose as the server: for sandboxes only.")},
        {kUser, QStringLiteral("ACL user name (overrides the URL's user and LOCKSCOPE_USER)."), QStringLiteral("NAME")},
        {kAskPassword,
         QStringLiteral("Ask for the password (echo off) instead of taking it from the URL or LOCKSCOPE_PASSWORD.")},
    };
}

void ConnectionOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOptions(options());
}

bool ConnectionOptions::isUrlSet(const QCommandLineParser &parser)
{
    return parser.isSet(kUrl);
}

QString ConnectionOptions::urlFromEnvironment()
{
    return qEnvironmentVariable("LOCKSCOPE_URL").trimmed();
}

QString ConnectionOptions::commandArguments(const RedisEndpoint &endpoint, bool cluster)
{
    QStringList args{QStringLiteral("--url"), LockDoctor::shellQuoted(endpoint.toString())};
    const RedisTlsOptions &tls = endpoint.tlsOptions();
    if (endpoint.transport() == RedisEndpoint::Transport::Tls) {
        if (!tls.caFile().isEmpty())
            args << QStringLiteral("--tls-ca") << LockDoctor::shellQuoted(tls.caFile());
        if (!tls.certFile().isEmpty())
            args << QStringLiteral("--tls-cert") << LockDoctor::shellQuoted(tls.certFile());
        if (!tls.keyFile().isEmpty())
            args << QStringLiteral("--tls-key") << LockDoctor::shellQuoted(tls.keyFile());
        if (!tls.serverName().isEmpty())
            args << QStringLiteral("--tls-server-name") << LockDoctor::shellQuoted(tls.serverName());
        if (tls.isInsecure())
            args << QStringLiteral("--tls-insecure");
    }
    // A password typed at a prompt or written in the URL is not in the command: ask for it again.
    // One from LOCKSCOPE_PASSWORD is still in the environment of the same shell.
    const auto source = endpoint.passwordSource();
    if (source == RedisEndpoint::PasswordSource::Url || source == RedisEndpoint::PasswordSource::Prompt ||
        source == RedisEndpoint::PasswordSource::Keychain)
        args << QStringLiteral("--ask-password");
    if (cluster)
        args << QStringLiteral("--cluster");
    return args.join(QLatin1Char(' '));
}

bool ConnectionOptions::isTlsSet(const QCommandLineParser &parser)
{
    for (const QString &name : {kTlsCa, kTlsCert, kTlsKey, kTlsServerName, kTlsInsecure}) {
        if (parser.isSet(name))
            return true;
    }
    return false;
}

RedisEndpoint ConnectionOptions::endpoint(const QCommandLineParser &parser, QString *error) const
{
    QString url = parser.isSet(kUrl) || !m_defaultUrl.isEmpty() ? parser.value(kUrl) : QString();
    const QString fromEnvironment = urlFromEnvironment();
    if (!parser.isSet(kUrl) && !fromEnvironment.isEmpty())
        url = fromEnvironment;
    if (url.isEmpty()) {
        fail(error, QStringLiteral("no Redis URL: pass --url redis://host:port or set LOCKSCOPE_URL"));
        return RedisEndpoint();
    }
    RedisEndpoint ep = RedisEndpoint::parse(url, error);
    if (!ep.isValid()) {
        if (error && !parser.isSet(kUrl) && !fromEnvironment.isEmpty())
            *error = QStringLiteral("LOCKSCOPE_URL: ") + *error;
        return ep;
    }
    if (!applyTo(&ep, parser, error))
        return RedisEndpoint();
    return ep;
}

bool ConnectionOptions::applyTo(RedisEndpoint *endpoint, const QCommandLineParser &parser, QString *error) const
{
    if (isTlsSet(parser) && endpoint->transport() != RedisEndpoint::Transport::Tls) {
        return fail(error, QStringLiteral("--tls-ca, --tls-cert, --tls-key, --tls-server-name and --tls-insecure "
                                          "need a TLS URL, but %1 is not one: use rediss://host:port.")
                               .arg(endpoint->toString()));
    }
    RedisTlsOptions tls = endpoint->tlsOptions();
    if (parser.isSet(kTlsCa))
        tls.setCaFile(parser.value(kTlsCa));
    if (parser.isSet(kTlsCert))
        tls.setCertFile(parser.value(kTlsCert));
    if (parser.isSet(kTlsKey))
        tls.setKeyFile(parser.value(kTlsKey));
    if (parser.isSet(kTlsServerName))
        tls.setServerName(parser.value(kTlsServerName));
    if (parser.isSet(kTlsInsecure))
        tls.setInsecure(true);
    if (endpoint->transport() == RedisEndpoint::Transport::Tls) {
        if (!tls.validate(error))
            return false;
        endpoint->setTlsOptions(tls);
        if (tls.isInsecure())
            std::fprintf(stderr,
                         "%s: warning: the TLS certificate of %s is not verified (--tls-insecure): the connection is "
                         "encrypted, but anyone on the network path could pose as the server.\n",
                         qPrintable(QCoreApplication::applicationName()), qPrintable(endpoint->address()));
    }
    if (parser.isSet(kUser)) {
        const QString user = parser.value(kUser).trimmed();
        if (user.isEmpty())
            return fail(error, QStringLiteral("--user needs an ACL user name"));
        endpoint->setUsername(user);
    }
    if (parser.isSet(kAskPassword)) {
        QString password;
        if (!m_prompt || !m_prompt(passwordQuestion(*endpoint), &password, error))
            return false;
        endpoint->setPassword(password, RedisEndpoint::PasswordSource::Prompt);
    }
    return true;
}

QString ConnectionOptions::passwordQuestion(const RedisEndpoint &endpoint)
{
    return QStringLiteral("Password for ACL user '%1' at %2: ").arg(endpoint.aclUser(), endpoint.address());
}

bool ConnectionOptions::askOnTerminal(const QString &question, QString *password, QString *error)
{
    const int fd = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail(error, QStringLiteral("--ask-password needs a terminal, and there is none: set LOCKSCOPE_PASSWORD "
                                          "in the environment instead."));
    struct termios saved;
    if (::tcgetattr(fd, &saved) != 0) {
        ::close(fd);
        return fail(error, QStringLiteral("--ask-password cannot turn off echo on this terminal: set "
                                          "LOCKSCOPE_PASSWORD in the environment instead."));
    }
    g_ttyFd = fd;
    g_savedTty = saved;
    auto oldInt = std::signal(SIGINT, restoreTtyAndDie);
    auto oldTerm = std::signal(SIGTERM, restoreTtyAndDie);
    // Echo off before the question appears, so nothing typed after it can be echoed.
    struct termios silent = saved;
    silent.c_lflag &= ~tcflag_t(ECHO);
    silent.c_lflag |= ICANON;
    ::tcsetattr(fd, TCSAFLUSH, &silent);
    const QByteArray prompt = question.toLocal8Bit();
    (void)!::write(fd, prompt.constData(), size_t(prompt.size()));

    QByteArray line;
    bool gotLine = false;
    char c = 0;
    while (::read(fd, &c, 1) == 1) {
        if (c == '\n' || c == '\r') {
            gotLine = true;
            break;
        }
        line.append(c);
    }
    ::tcsetattr(fd, TCSAFLUSH, &saved);
    (void)!::write(fd, "\n", 1);
    std::signal(SIGINT, oldInt);
    std::signal(SIGTERM, oldTerm);
    g_ttyFd = -1;
    ::close(fd);

    if (!gotLine && line.isEmpty()) {
        line.fill('\0');
        return fail(error, QStringLiteral("no password was entered (end of input at the prompt)"));
    }
    *password = QString::fromLocal8Bit(line);
    line.fill('\0'); // do not leave the password in freed memory longer than needed
    return true;
}

} // namespace lockscope
