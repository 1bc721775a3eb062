#include "sessioncommand.h"

#include "connectionoptions.h"
#include "sessionoptions.h"

#include "act/auditlog.h"
#include "demo/demoworkload.h"
#include "demo/redisserverprocess.h"
#include "protocol/locknames.h"
#include "redis/redisreply.h"
#include "text/displaytext.h"
#include "text/durationtext.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QSysInfo>
#include <QTimer>

#include <csignal>
#include <memory>
#include <unistd.h>

namespace lockscope
{

SessionCommand::SessionCommand(const Context &context, QObject *parent)
    : CliCommand(context, parent), m_name(context.arguments.name)
{
}

SessionCommand::~SessionCommand() = default;

bool SessionCommand::begin(int *exitCode)
{
    // The server: --demo (a private redis-server with simulated clients), else --url / LOCKSCOPE_URL.
    LockSession::Options options = SessionOptions::fromCommandLine(m_parser, SessionOptions::Front::Cli);
    RedisServerProcess *demoServer = nullptr;
    QString urlError;
    if (m_parser.isSet(QStringLiteral("demo"))) {
        demoServer = new RedisServerProcess(this);
        QString error;
        if (!demoServer->start(10000, &error)) {
            m_err << "lockscope-cli: cannot start the demo: " << error << '\n';
            m_err.flush();
            *exitCode = ServerError;
            return false;
        }
        m_err << "lockscope-cli: demo redis-server on " << demoServer->url() << '\n';
        m_err.flush();
        options.endpoint = demoServer->endpoint();
        auto *workload = new DemoWorkload(options.endpoint, this);
        workload->start();
    } else {
        options.endpoint = m_connection.endpoint(m_parser, &urlError);
    }
    if (!options.endpoint.isValid())
        return usage(urlError, exitCode);
    if (options.endpoint.isSentinel() && options.forceCluster)
        return usage(QStringLiteral("--cluster and a redis-sentinel:// URL exclude each other: Sentinel names one "
                                    "master, a cluster has many"),
                     exitCode);
    options.oneShot = oneShot(); // one discovery pass, one read per lock, then the answer
    if (!prepare(&options, exitCode))
        return false;
    // With --demo, give the simulated clients a moment to take their locks first.
    return start(options, demoServer ? 1500 : 0, exitCode);
}

bool SessionCommand::prepare(LockSession::Options *, int *)
{
    return true;
}

bool SessionCommand::start(const LockSession::Options &options, int delayMs, int *exitCode)
{
    const bool notifications = m_parser.isSet(QStringLiteral("enable-notifications"));
    const bool writing = writes() || notifications;
    if (writing && options.readOnly) {
        m_err << "lockscope-cli: refused: '" << m_args.command
              << "' writes to Redis and --read-only is set. Nothing was sent.\n";
        m_err.flush();
        *exitCode = Refused;
        return false;
    }
    if (writing) { // no write without its audit record: check the log before anything is sent
        QString auditError;
        if (!AuditLog(options.auditLogPath).check(&auditError)) {
            m_err << "lockscope-cli: refused: " << auditError
                  << ". Nothing was sent to Redis: every write is recorded in the audit log first (make it "
                     "writable or pass --audit-log PATH).\n";
            m_err.flush();
            *exitCode = Refused;
            return false;
        }
    }

    m_session = new LockSession(options, this);
    connect(m_session, &LockSession::connectionReady, this, [this] { m_everReady = true; });
    connect(m_session, &LockSession::connectionLost, this, [this](const QString &reason) {
        switch (connectionLoss()) {
        case ConnectionLoss::KeepServing:
            // The exporter keeps serving (lockscope_up 0) until Redis is back, reached once or not.
            m_err << "lockscope-cli: " << reason << " (reconnecting; lockscope_up is 0 meanwhile)\n";
            m_err.flush();
            return;
        case ConnectionLoss::ReconnectOnceReached:
            // Reconnect only to a server that was reached once: never reached is exit 2, so a
            // wrong address fails at once instead of retrying forever.
            if (m_everReady) {
                m_err << "lockscope-cli: " << reason << " (reconnecting)\n";
                m_err.flush();
                return;
            }
            break;
        case ConnectionLoss::Fail:
            break;
        }
        if (m_writeSent) {
            // A write is under way: its outcome is settled (re-read once the server is back) and
            // audited before the process ends.
            m_err << "lockscope-cli: " << reason << " (reconnecting to settle the write under way)\n";
            m_err.flush();
            return;
        }
        fail(ServerError, QStringLiteral("cannot reach Redis: %1").arg(reason));
    });
    connect(m_session, &LockSession::errorOccurred, this, [this, notifications](const QString &msg) {
        if (notifications && RedisReply::isPermissionError(msg)) {
            fail(Refused, msg); // CONFIG refused by the ACL
            return;
        }
        m_err << "lockscope-cli: " << msg << '\n';
        m_err.flush();
    });
    connect(m_session, &LockSession::noticeOccurred, this, [this](const QString &msg) {
        m_err << "lockscope-cli: " << msg << '\n';
        m_err.flush();
    });
    if (m_parser.isSet(QStringLiteral("progress")) || ::isatty(STDERR_FILENO)) {
        // "scanned 412k of ~1.0M keys, 83k locks" on one line, at most every 200 ms.
        auto clock = std::make_shared<QElapsedTimer>();
        connect(m_session, &LockSession::discoveryProgress, this,
                [this, clock](qint64 scanned, qint64 found, bool finished, qint64 total) {
                    if (m_finished || (!finished && clock->isValid() && clock->elapsed() < 200))
                        return;
                    clock->start();
                    m_err << "\rlockscope-cli: scanned " << DisplayText::compactCount(scanned)
                          << (total >= 0 ? QStringLiteral(" of ~%1").arg(DisplayText::compactCount(total)) : QString())
                          << " keys, " << DisplayText::compactCount(found) << " locks" << (finished ? "\n" : "   ");
                    m_err.flush();
                });
    }
    if (notifications) {
        m_session->open(); // CONFIG GET/SET wait for the handshake instead of failing "not connected"
        m_session->enableNotifications();
    }

    QTimer::singleShot(delayMs, this, [this] {
        // Redis Cluster: detected from the first node (INFO cluster), or forced with --cluster.
        m_session->prepare([this](const QString &error) {
            if (!error.isEmpty()) {
                fail(ServerError, QStringLiteral("cannot read the cluster topology: %1").arg(error));
                return;
            }
            run(); // also when INFO failed or was refused: the single-server path decides
        });
    });
    return true;
}

bool SessionCommand::connectedAtDurationEnd()
{
    if (!m_session || m_session->isConnected())
        return true;
    m_durationEndedDisconnected = true;
    m_err << "lockscope-cli: --duration-ms ended while not connected to " << m_session->options().endpoint.address()
          << " (" << m_session->lastConnectionError() << "): what was seen is incomplete\n";
    m_err.flush();
    return false;
}

int SessionCommand::failureCode(int code, const QString &message) const
{
    if (code == ServerError && RedisReply::isPermissionError(message))
        return Refused; // an ACL refused it (NOPERM): a refusal, not a failure
    if (code == Refused && m_session && !m_everReady)
        return ServerError; // "not connected": the server was never reached, a wrong address
    return code;
}

LockFilter SessionCommand::holderFilter() const
{
    return LockFilter(QString(), m_parser.value(QStringLiteral("holder")));
}

void SessionCommand::readOne(const QString &name, std::function<void(const LockSnapshot &)> then)
{
    m_session->readLock(name, this, [this, name, then](const LockSnapshot &s, const QString &error) {
        if (!error.isEmpty()) {
            fail(ServerError, QStringLiteral("reading %1 failed: %2").arg(name, error));
            return;
        }
        if (s.companionsOfTwin()) {
            fail(Refused, QStringLiteral("no lock named '%1': the keys Redisson derives for it (%2, %3) belong to lock "
                                         "'%4', whose hash exists (protocol §14.4)")
                              .arg(name, LockNames::fairQueueKey(name), LockNames::unlockChannel(name), s.twinName));
            return;
        }
        if (!s.exists && name == m_name && m_args.nameTyped != m_name) {
            // `lock:\xff` typed, but no key with that byte: the name may hold those characters
            // literally (RedisBytes::fromDisplayed is a guess for text with backslashes).
            m_name = m_args.nameTyped;
            readOne(m_name, then);
            return;
        }
        if (!s.isLock) {
            const QString why = s.exists ? QStringLiteral("'%1' exists but is not a Redisson lock (not a hash of "
                                                          "<clientId>:<threadId> -> hold count)")
                                               .arg(name)
                                         : QStringLiteral("no lock named '%1' (it is free or never existed)").arg(name);
            if (writes()) {
                // A write refused because there is nothing to write to is recorded like every refusal.
                const QJsonObject record{{QStringLiteral("time_ms"), QDateTime::currentMSecsSinceEpoch()},
                                         {QStringLiteral("operator"), AuditLog::operatorName()},
                                         {QStringLiteral("host"), QSysInfo::machineHostName()},
                                         {QStringLiteral("server"), m_session->options().endpoint.toString()},
                                         {QStringLiteral("client_id"), m_session->clientId()},
                                         {QStringLiteral("action"), m_args.command},
                                         {QStringLiteral("lock"), name},
                                         {QStringLiteral("result"), QStringLiteral("refused")},
                                         {QStringLiteral("message"), why + QStringLiteral(". Nothing was sent.")}};
                QString auditError;
                if (!AuditLog(m_session->options().auditLogPath).append(record, &auditError))
                    m_err << "lockscope-cli: " << auditError << '\n';
            }
            fail(Refused, why);
            return;
        }
        then(s);
    });
}

bool SessionCommand::identifies() const
{
    return m_parser.isSet(QStringLiteral("identify-ms"));
}

void SessionCommand::identifyThen(const QStringList &clientIds, std::function<void()> then)
{
    connect(m_session, &LockSession::clientsIdentified, this, [this, then](const QString &method, const QString &note) {
        m_err << "lockscope-cli: identified by " << method << ": " << note << '\n';
        m_err.flush();
        then();
    });
    m_session->identifyClients(clientIds, m_parser.value(QStringLiteral("identify-ms")).toLongLong());
}

} // namespace lockscope
