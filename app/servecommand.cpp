#include "servecommand.h"

#include "metrics/fleetexporter.h"
#include "metrics/lockmetrics.h"
#include "metrics/metricsserver.h"
#include "session/locksession.h"

#include <QCommandLineParser>

namespace lockscope
{

CliCommandDescriptor ServeCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<ServeCommand>(
        "serve",
        "serve [--listen HOST:PORT] [--web-config FILE] [--group REGEX=NAME]... [--max-groups N] "
        "[--max-named-findings N] [--pattern GLOB] [--replication-threshold-ms N] [--targets FILE "
        "[--password-file FILE]]",
        "Prometheus exporter: /metrics (lock groups, events, doctor findings), /healthz and / on "
        "--listen (default 127.0.0.1:9464).");
    d.description = QStringLiteral("Read-only: it never writes to Redis. Runs until SIGINT / SIGTERM.");
    d.details =
        QStringLiteral("Watches as `watch` does (live or polling, every master of a cluster, Sentinel failovers) and "
                       "runs the doctor every 2 s; keeps serving while Redis is unreachable (`lockscope_up` 0). "
                       "Read-only (`--enable-notifications` is refused). A malformed `--listen`, `--group` or "
                       "`--web-config` exits 1; an address that cannot be bound exits 2. See [the "
                       "exporter](../exporter.md).");
    d.options = CliCommandDescriptor::words("pattern client-list-budget listen web-config group max-groups "
                                            "max-named-findings replication-threshold-ms targets password-file");
    d.examples = {
        QStringLiteral("serve --listen 127.0.0.1:9464"),
        QStringLiteral("serve --targets /etc/lockscope/targets.json --password-file /etc/lockscope/passwords.json")};
    d.outputIsLog = true;
    return d;
}

QList<QCommandLineOption> ServeCommand::options()
{
    return {
        {QStringLiteral("listen"),
         QStringLiteral("serve: the address and port to serve /metrics on: HOST:PORT, [IPv6]:PORT or :PORT for "
                        "every address (default %1).")
             .arg(QLatin1String(kDefaultListen)),
         QStringLiteral("HOST:PORT"), QLatin1String(kDefaultListen)},
        {QStringLiteral("web-config"),
         QStringLiteral("serve: TLS and basic auth, a Prometheus exporter-toolkit web config (subset: "
                        "tls_server_config cert_file, key_file, client_auth_type, client_ca_file, min_version; "
                        "basic_auth_users with bcrypt hashes)."),
         QStringLiteral("FILE")},
        {QStringLiteral("group"),
         QStringLiteral("serve: a lock group rule REGEX=NAME (the whole lock name must match; NAME may use $1..$9); "
                        "repeatable, first match wins. Default: digits and UUIDs in a name become '*'."),
         QStringLiteral("REGEX=NAME")},
        {QStringLiteral("max-groups"),
         QStringLiteral("serve: at most N lock groups; locks of further groups are counted in group \"(other)\" "
                        "(default %1).")
             .arg(LockGrouper::kDefaultMaxGroups),
         QStringLiteral("N"), QString::number(LockGrouper::kDefaultMaxGroups)},
        {QStringLiteral("max-named-findings"),
         QStringLiteral("serve: at most N locks named in lockscope_finding_info, the most severe first (default 20)."),
         QStringLiteral("N"), QStringLiteral("20")},
        {QStringLiteral("targets"),
         QStringLiteral(
             "serve: watch every Redis of FILE (Prometheus file_sd, JSON or .yml/.yaml: [{\"targets\": "
             "[URL, ...], \"labels\": {...}}]) and answer /scrape?target=URL for each; re-read on change and SIGHUP. "
             "/metrics then has the exporter's own metrics. list, doctor, clients: run against every "
             "target (4 at once), rows prefixed with the target, JSON with \"target\"."),
         QStringLiteral("FILE")},
        {QStringLiteral("password-file"),
         QStringLiteral("with --targets: passwords by target, JSON {\"redis://host:port\": \"password\"} "
                        "(redis_exporter's format); the file must be readable by its owner only."),
         QStringLiteral("FILE")},
    };
}

ServeCommand::ServeCommand(const Context &context, QObject *parent) : SessionCommand(context, parent) {}

ServeCommand::~ServeCommand() = default;

bool ServeCommand::prepare(LockSession::Options *options, int *exitCode)
{
    auto usage = [&](const QString &msg) {
        m_err << "lockscope-cli: " << msg << "\nRun 'lockscope-cli serve --help' for usage.\n";
        m_err.flush();
        *exitCode = Usage;
        return false;
    };
    // Read-only by construction: the session refuses every write, and serve asks for none.
    if (m_parser.isSet(QStringLiteral("enable-notifications")))
        return usage(QStringLiteral("--enable-notifications does not apply to 'serve': the exporter never writes to "
                                    "Redis (turn notifications on once with 'lockscope-cli --enable-notifications "
                                    "watch --duration-ms 1', or CONFIG SET notify-keyspace-events KA)"));
    options->readOnly = true;
    options->replicationThresholdMs = m_parser.value(QStringLiteral("replication-threshold-ms")).toLongLong();
    QString error;
    if (!MetricsServer::parseListen(m_parser.value(QStringLiteral("listen")), &m_address, &m_port, &error))
        return usage(error);
    for (const QString &text : m_parser.values(QStringLiteral("group"))) {
        LockGrouper::Rule rule;
        if (!LockGrouper::parseRule(text, &rule, &error))
            return usage(error);
        m_rules.append(rule);
    }
    for (const char *name : {"max-groups", "max-named-findings"}) {
        const QString option = QString::fromLatin1(name);
        bool ok = false;
        const int n = m_parser.value(option).toInt(&ok);
        const int min = option == QLatin1String("max-groups") ? 1 : 0;
        if (!ok || n < min || n > 100000)
            return usage(QStringLiteral("--%1 must be a whole number between %2 and 100000, not '%3'")
                             .arg(option)
                             .arg(min)
                             .arg(m_parser.value(option)));
        (option == QLatin1String("max-groups") ? m_maxGroups : m_maxNamedFindings) = n;
    }
    if (m_parser.isSet(QStringLiteral("web-config")) &&
        !WebConfig::load(m_parser.value(QStringLiteral("web-config")), &m_webConfig, &error))
        return usage(error);

    if (m_parser.isSet(QStringLiteral("targets"))) {
        // A fleet: a session per target of the file, this command's own (--url) session unused.
        m_fleet = new FleetExporter(*options, LockGrouper(m_rules, m_maxGroups), m_maxNamedFindings, this);
        if (!m_fleet->start(m_parser.value(QStringLiteral("targets")), m_parser.value(QStringLiteral("password-file")),
                            &error))
            return usage(error);
        connect(m_fleet, &FleetExporter::reloaded, this, [this](const QStringList &added, const QStringList &removed) {
            m_err << "lockscope-cli: targets reloaded: " << added.size() << " added, " << removed.size() << " removed, "
                  << m_fleet->targets().size() << " in all\n";
            m_err.flush();
        });
        connect(m_fleet, &FleetExporter::reloadFailed, this, [this](const QString &why) {
            m_err << "lockscope-cli: " << why << " (the targets stay as they were)\n";
            m_err.flush();
        });
        m_server = new MetricsServer(
            m_webConfig, [this](PrometheusWriter::Format format) { return m_fleet->renderSelf(format); }, this);
        m_server->setScrape([this](const QString &target, PrometheusWriter::Format format, QByteArray *body) {
            return m_fleet->renderTarget(target, format, body);
        });
    } else {
        m_metrics = new LockMetrics(LockGrouper(m_rules, m_maxGroups), m_maxNamedFindings, this);
        m_server = new MetricsServer(
            m_webConfig,
            [this](PrometheusWriter::Format format) { return m_metrics->render(format, LockSnapshot::steadyNowMs()); },
            this);
    }
    if (!m_server->listen(m_address, m_port, &error)) {
        m_err << "lockscope-cli: " << error << '\n';
        m_err.flush();
        *exitCode = ServerError;
        return false;
    }
    return true;
}

bool ServeCommand::onHangup()
{
    if (!m_fleet)
        return false;
    QString error;
    if (!m_fleet->reload(&error)) {
        m_err << "lockscope-cli: SIGHUP: " << error << " (the targets stay as they were)\n";
        m_err.flush();
    }
    return true;
}

void ServeCommand::run()
{
    const QString host = m_address.protocol() == QAbstractSocket::IPv6Protocol
                             ? QStringLiteral("[%1]").arg(m_address.toString())
                             : m_address.toString();
    if (m_fleet) {
        m_err << "lockscope-cli: serving metrics of " << m_fleet->targets().size() << " target(s) of "
              << m_parser.value(QStringLiteral("targets")) << " on " << (m_webConfig.hasTls() ? "https" : "http")
              << "://" << host << ':' << m_server->port() << "/scrape?target=URL (the exporter's own: " << host << ':'
              << m_server->port() << "/metrics)" << (m_webConfig.hasBasicAuth() ? " (basic auth)" : "")
              << "; read-only; SIGHUP re-reads the targets; Ctrl-C to stop\n";
        m_err.flush();
        return; // the sessions of the targets run already; this command's own (--url) one stays idle
    }
    LockSession *session = m_session;
    m_metrics->attach(session);
    m_err << "lockscope-cli: serving metrics of " << session->options().endpoint.address() << " on "
          << (m_webConfig.hasTls() ? "https" : "http") << "://" << host << ':' << m_server->port() << "/metrics"
          << (m_webConfig.hasBasicAuth() ? " (basic auth)" : "") << "; read-only; Ctrl-C to stop\n";
    m_err.flush();
    session->start();
}

} // namespace lockscope
