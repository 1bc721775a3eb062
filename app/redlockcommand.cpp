#include "redlockcommand.h"
#include "locktable.h"

#include "interruptnotifier.h"

#include "redlock/redlocksession.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <cstdio>

namespace lockscope
{

CliCommandDescriptor RedLockCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<RedLockCommand>(
        "redlock",
        "redlock show|acquire NAME --servers URL1,URL2,... [--json] [--wait-ms N] [--lease-ms N] "
        "[--hold-ms N] [--multi]",
        "RedLock view (holder and TTL per server, quorum verdict), or take a RedLock (MultiLock with "
        "--multi), hold, release.");
    d.details = QStringLiteral(
        "`redlock show` writes nothing. Exit 0: a quorum agrees on one holder; 3: no quorum; 2: no "
        "quorum, but the unreachable servers could have made one. `redlock acquire` exit: 0 acquired and "
        "released, 3 not acquired or `--read-only`, 2 not acquired with a server down. See "
        "[Connections](../connections.md#redlock-and-multilock-several-independent-servers).");
    d.operands = {QStringLiteral("redlock command (show or acquire)"), QStringLiteral("lock name")};
    d.subcommands = CliCommandDescriptor::words("show acquire");
    d.options = CliCommandDescriptor::words("json lease-ms hold-ms wait-ms thread-id servers multi");
    d.examples = {
        QStringLiteral("redlock show orders:42 --servers "
                       "redis://127.0.0.1:6380,redis://127.0.0.1:6381,redis://127.0.0.1:6382"),
        QStringLiteral("redlock acquire orders:42 --servers "
                       "redis://127.0.0.1:6380,redis://127.0.0.1:6381,redis://127.0.0.1:6382 --hold-ms 5000")};
    return d;
}

namespace
{

constexpr int kConnectTimeoutMs = 1000;
constexpr int kCommandTimeoutMs = 2000;

QString formatTtl(qint64 ttlMs)
{
    return CliCommand::ttlText(ttlMs);
}

/** Left-justified columns, two spaces apart, the last one not padded (as `list`'s table). */
QString table(const QVector<QStringList> &rows)
{
    return LockTable::columns(rows);
}

} // namespace

QList<QCommandLineOption> RedLockCommand::options()
{
    return {
        {QStringLiteral("servers"),
         QStringLiteral("redlock: the independent servers, as comma-separated URLs (redis://host:port,...)."),
         QStringLiteral("URLS")},
        {QStringLiteral("multi"),
         QStringLiteral("redlock acquire: MultiLock rules (every server must grant it) instead of RedLock's quorum.")},
    };
}

RedLockCommand::RedLockCommand(const Context &context, QObject *parent)
    : CliCommand(context, parent), m_interrupted([] { return InterruptNotifier::received() != 0; })
{
    // A signal: the hold is released by the acquire loop (it polls m_interrupted); a second at most.
    m_onInterrupt = [] {};
}

RedLockCommand::~RedLockCommand() = default;

bool RedLockCommand::begin(int *exitCode)
{
    const QString &action = m_args.name;
    const QString &name = m_args.field;
    auto usage = [&](const QString &msg) { return CliCommand::usage(msg, exitCode); };
    if (action != QLatin1String("show") && action != QLatin1String("acquire"))
        return usage(QStringLiteral("unknown redlock command '%1' (show or acquire)").arg(action));
    if (!m_parser.isSet(QStringLiteral("servers")))
        return usage(
            QStringLiteral("'redlock %1' needs --servers URL1,URL2,... (the independent servers)").arg(action));
    if (ConnectionOptions::isUrlSet(m_parser))
        return usage(QStringLiteral("'redlock' reads its servers from --servers; --url does not apply"));
    if (action == QLatin1String("acquire") && m_parser.value(QStringLiteral("wait-ms")).toLongLong() < 0)
        return usage(QStringLiteral("'redlock acquire' needs --wait-ms >= 0: a RedLock that waits forever could "
                                    "hold a minority of servers indefinitely; give a wait and retry instead"));
    if (m_parser.isSet(QStringLiteral("multi")) && action != QLatin1String("acquire"))
        return usage(QStringLiteral("--multi applies to 'redlock acquire' only"));
    m_name = name;
    m_threadId = m_parser.value(QStringLiteral("thread-id")).toLongLong();
    const QStringList urls = m_parser.value(QStringLiteral("servers")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &raw : urls) {
        const QString url = raw.trimmed();
        QString error;
        RedisEndpoint endpoint = RedisEndpoint::parse(url, &error);
        if (!endpoint.isValid() || !m_connection.applyTo(&endpoint, m_parser, &error))
            return usage(QStringLiteral("--servers: '%1': %2").arg(RedisEndpoint::redactUrl(url), error));
        for (const auto &e : std::as_const(m_endpoints))
            if (e.address() == endpoint.address() && e.db() == endpoint.db())
                return usage(QStringLiteral("--servers names %1 twice: a RedLock needs independent servers")
                                 .arg(endpoint.address()));
        m_endpoints << endpoint;
    }
    if (m_endpoints.isEmpty())
        return usage(QStringLiteral("--servers is empty"));

    if (action == QLatin1String("acquire") && m_parser.isSet(QStringLiteral("read-only"))) {
        m_err
            << "lockscope-cli: refused: 'redlock acquire' writes to Redis and --read-only is set. Nothing was sent.\n";
        m_err.flush();
        *exitCode = Refused;
        return false;
    }
    RedLockSession::Options options;
    options.servers = m_endpoints;
    options.name = m_name;
    options.multi = m_parser.isSet(QStringLiteral("multi"));
    options.readOnly = m_parser.isSet(QStringLiteral("read-only"));
    options.auditLogPath = m_parser.value(QStringLiteral("audit-log"));
    options.connectTimeoutMs = kConnectTimeoutMs;
    options.commandTimeoutMs = kCommandTimeoutMs;
    m_session = new RedLockSession(options, this);
    QTimer::singleShot(0, this,
                       action == QLatin1String("show") ? &RedLockCommand::runShow : &RedLockCommand::runAcquire);
    return true;
}

void RedLockCommand::runShow()
{
    m_session->read(this, [this](const RedLockStatus &st) {
        if (m_json) {
            m_out << QJsonDocument(st.toJson()).toJson(QJsonDocument::Compact) << '\n';
        } else {
            QVector<QStringList> rows;
            rows << QStringList{
                QStringLiteral("SERVER"), QStringLiteral("STATE"), QStringLiteral("HOLDER (client id:thread id)"),
                QStringLiteral("HOLDS"),  QStringLiteral("TTL"),   QStringLiteral("ERROR")};
            for (const auto &s : st.servers) {
                const QStringList fields = s.holderFields();
                rows << QStringList{s.server,
                                    RedLockServerState::stateName(s.state),
                                    fields.isEmpty() ? QStringLiteral("-") : fields.join(QLatin1Char(' ')),
                                    s.state == RedLockServerState::State::Held
                                        ? QString::number(s.snapshot.totalHoldCount())
                                        : QStringLiteral("-"),
                                    formatTtl(s.remainingTtlMs(st.evaluatedAtSteadyMs)),
                                    s.error};
            }
            m_out << "RedLock " << m_name << " on " << st.serverCount() << " servers (quorum " << st.quorum << ")\n";
            m_out << table(rows);
            if (st.hasQuorum) {
                m_out
                    << "Quorum: yes, " << st.agreeing << " of " << st.serverCount() << " servers agree on holder "
                    << st.holder << "; valid for " << formatTtl(st.validityMs)
                    << (st.quorumLostInMs != st.validityMs
                            ? QStringLiteral(" (the quorum is lost by expiry in %1)").arg(formatTtl(st.quorumLostInMs))
                            : QString())
                    << '\n';
            } else if (st.holder.isEmpty()) {
                m_out << "Quorum: no, no server holds " << m_name << '\n';
            } else {
                m_out << "Quorum: no, needs " << st.quorum << " of " << st.serverCount() << "; at most " << st.agreeing
                      << " agree on holder " << st.holder << '\n';
            }
            if (!st.hasQuorum && st.sameThreadServers >= st.quorum)
                m_out << "Note: " << st.sameThreadServers
                      << " servers have holders with the same thread id but different client ids. A Java "
                         "RedissonRedLock built from several RedissonClients looks like this (one client id per "
                         "client); agreement is judged by the whole holder field only.\n";
            if (st.unreachableCount() > 0)
                m_out << st.unreachableCount() << " server(s) unreachable: they count against the quorum.\n";
        }
        if (st.hasQuorum)
            finish(Ok);
        else if (st.agreeing + st.unreachableCount() >= st.quorum)
            fail(ServerError,
                 QStringLiteral("no quorum for %1 among the servers that answered; %2 unreachable server(s) could "
                                "change that")
                     .arg(m_name)
                     .arg(st.unreachableCount()));
        else
            finish(Refused);
    });
}

void RedLockCommand::runAcquire()
{
    const qint64 lease = m_parser.value(QStringLiteral("lease-ms")).toLongLong();
    const qint64 wait = m_parser.value(QStringLiteral("wait-ms")).toLongLong();
    const QString holder = m_session->holderField(m_threadId);
    m_session->acquire(m_threadId, lease, wait, this, [this, holder, lease](const RedLockSession::WriteResult &w) {
        if (!w.sent) { // refused before any server was touched (audit log, read-only)
            fail(Refused, w.message);
            return;
        }
        warnIfNotAudited(QStringLiteral("redlock_acquire"), w);
        const MultiLockResult &r = w.result;
        QJsonObject json = r.toJson();
        json.insert(QStringLiteral("action"), QStringLiteral("acquire"));
        json.insert(QStringLiteral("lock"), m_name);
        json.insert(QStringLiteral("holder"), holder);
        json.insert(QStringLiteral("outcome"), w.outcome);
        const QString kind = r.redLock ? QStringLiteral("RedLock") : QStringLiteral("MultiLock");
        if (m_json) {
            m_out << QJsonDocument(json).toJson(QJsonDocument::Compact) << '\n';
        } else {
            m_out << (r.acquired ? "acquired " : "not acquired: ") << kind << ' ' << m_name << " on "
                  << r.grantedCount() << " of " << r.components.size() << " servers (" << r.required << " needed)";
            if (r.acquired)
                m_out << " as " << holder << ' '
                      << (lease > 0 ? QStringLiteral("(lease %1 ms)").arg(lease)
                                    : QStringLiteral("(watchdog: %1 ms, renewed every %2 ms)")
                                          .arg(RedLockSession::watchdogTimeoutMs())
                                          .arg(RedLockSession::watchdogTimeoutMs() / 3));
            if (r.rounds > 1)
                m_out << " after " << r.rounds << " rounds in " << r.elapsedMs << " ms";
            m_out << '\n';
            for (const auto &c : r.components) {
                m_out << "  " << c.server.leftJustified(22) << MultiLockComponentOutcome::statusName(c.status);
                if (c.status == MultiLockComponentOutcome::Status::Refused)
                    m_out << " (held by another holder, TTL " << formatTtl(c.pttlMs) << ')';
                if (!c.error.isEmpty())
                    m_out << ": " << c.error;
                if (c.attempts > 1)
                    m_out << " (" << c.attempts << " attempts)";
                m_out << '\n';
            }
        }
        m_out.flush();
        if (!r.acquired) {
            bool serverTrouble = false;
            for (const auto &c : r.components)
                serverTrouble |= c.status == MultiLockComponentOutcome::Status::Error ||
                                 c.status == MultiLockComponentOutcome::Status::Unknown || !c.error.isEmpty();
            fail(serverTrouble ? ServerError : Refused,
                 QStringLiteral("%1 %2 not acquired: %3").arg(kind, m_name, r.error));
            return;
        }
        if (m_parser.isSet(QStringLiteral("hold-ms"))) {
            QTimer::singleShot(m_parser.value(QStringLiteral("hold-ms")).toInt(), this, [this, r] { release(r); });
            return;
        }
        m_err << "holding " << m_name << "; Ctrl-C to release\n";
        m_err.flush();
        auto *tick = new QTimer(this);
        connect(tick, &QTimer::timeout, this, [this, tick, r] {
            if (m_interrupted && m_interrupted()) {
                tick->stop();
                release(r);
            }
        });
        tick->start(100);
    });
}

void RedLockCommand::release(const MultiLockResult &acquired)
{
    m_session->release(m_threadId, this, [this, acquired](const RedLockSession::WriteResult &w) {
        if (!w.sent) {
            fail(Refused, QStringLiteral("%1 is still held: the release was refused: %2").arg(m_name, w.message));
            return;
        }
        warnIfNotAudited(QStringLiteral("redlock_release"), w);
        const MultiLockResult &u = w.result;
        // A component that was not granted answers NotHeld or fails: that is expected. A granted
        // one that could not be released keeps its lease (or dies with its watchdog).
        QStringList stuck;
        for (int i = 0; i < u.components.size(); ++i)
            if (acquired.components.at(i).status == MultiLockComponentOutcome::Status::Granted &&
                u.components.at(i).status != MultiLockComponentOutcome::Status::Unlocked)
                stuck << QStringLiteral("%1 (%2)").arg(u.components.at(i).server, u.components.at(i).error);
        QJsonObject json = u.toJson();
        json.remove(QStringLiteral("acquired"));
        json.insert(QStringLiteral("action"), QStringLiteral("release"));
        json.insert(QStringLiteral("lock"), m_name);
        json.insert(QStringLiteral("released"), stuck.isEmpty());
        json.insert(QStringLiteral("servers_released"), json.take(QStringLiteral("servers_granted")));
        json.remove(QStringLiteral("granted"));
        json.remove(QStringLiteral("rounds"));
        json.remove(QStringLiteral("lease_ms"));
        if (m_json)
            m_out << QJsonDocument(json).toJson(QJsonDocument::Compact) << '\n';
        else
            m_out << "released " << m_name << " on " << u.grantedCount() << " server(s)\n";
        if (!stuck.isEmpty()) {
            fail(ServerError, QStringLiteral("could not release %1 on %2: it stays held there until its lease ends")
                                  .arg(m_name, stuck.join(QStringLiteral(", "))));
            return;
        }
        finish(Ok);
    });
}

void RedLockCommand::warnIfNotAudited(const QString &action, const RedLockSession::WriteResult &w)
{
    if (w.auditError.isEmpty())
        return;
    m_err << "lockscope-cli: WARNING: the outcome of " << action
          << " could not be recorded (its record says \"sending\"): " << w.auditError << '\n';
    m_err.flush();
}

} // namespace lockscope
