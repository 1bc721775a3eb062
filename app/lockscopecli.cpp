#include "lockscopecli.h"

#include "clicommandtable.h"
#include "clioptions.h"
#include "connectionoptions.h"
#include "fleetrunner.h"
#include "interruptnotifier.h"
#include "redlockcommand.h"
#include "servecommand.h"
#include "sessionoptions.h"
#include "workshopcommand.h"

#include "demo/demoworkload.h"
#include "demo/redisserverprocess.h"
#include "protocol/acquireplan.h"
#include "redis/redisbytes.h"

#include <QCoreApplication>

namespace lockscope
{

LockScopeCli::LockScopeCli(QObject *parent) : QObject(parent), m_out(stdout), m_err(stderr) {}

LockScopeCli::~LockScopeCli() = default;

bool LockScopeCli::start(const QStringList &arguments, int *exitCode)
{
    m_parser.setApplicationDescription(CliOptions::description());
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    const ConnectionOptions connection(
        QStringLiteral("redis://127.0.0.1:6379")); // --url, --tls-*, --user, --ask-password
    connection.addTo(m_parser);
    m_parser.addOptions(CliOptions::commandOptions());
    m_parser.addOptions(RedLockCommand::options());  // --servers, --multi
    m_parser.addOptions(WorkshopCommand::options()); // --scenario-file, --pace-ms
    m_parser.addOptions(ServeCommand::options());    // --listen, --web-config, --group, --max-groups, ...
    m_parser.addPositionalArgument(QStringLiteral("command"),
                                   QStringLiteral("list, show, watch, acquire or force-unlock"));
    m_parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("lock name (show, acquire, force-unlock)"),
                                   QStringLiteral("[NAME]"));

    if (!m_parser.parse(arguments)) {
        m_err << "lockscope-cli: " << CliOptions::parseErrorText(m_parser)
              << "\nRun 'lockscope-cli --help' for usage.\n";
        m_err.flush();
        *exitCode = CliCommand::Usage;
        return false;
    }
    if (m_parser.isSet(QStringLiteral("help"))) {
        const QString command = m_parser.positionalArguments().value(0);
        m_out << (CliOptions::isCommand(command) ? CliOptions::commandHelpText(command)
                                                 : CliOptions::withProgramName(m_parser.helpText()));
        m_out.flush();
        *exitCode = CliCommand::Ok;
        return false;
    }
    if (m_parser.isSet(QStringLiteral("version"))) {
        m_out << QCoreApplication::applicationName() << ' ' << QCoreApplication::applicationVersion() << '\n';
        m_out.flush();
        *exitCode = CliCommand::Ok;
        return false;
    }
    const QStringList pos = m_parser.positionalArguments();
    auto usage = [&](const QString &msg) {
        m_err << "lockscope-cli: " << msg << "\nRun 'lockscope-cli "
              << (CliOptions::isCommand(pos.value(0)) ? pos.value(0) + QLatin1Char(' ') : QString())
              << "--help' for usage.\n";
        m_err.flush();
        *exitCode = CliCommand::Usage;
        return false;
    };
    if (pos.isEmpty())
        return usage(QStringLiteral("missing command (list, show, watch, acquire, force-unlock, doctor, set-ttl, "
                                    "remove-waiter, remove-reader, wake, redlock)"));
    CliCommand::Arguments args;
    args.command = pos.first();
    const QString &command = args.command;
    if (!CliOptions::isCommand(command))
        return usage(QStringLiteral("unknown command '%1'%2")
                         .arg(command, CliOptions::didYouMean(command, CliOptions::commandNames(), QString())));
    for (const QString &option : m_parser.optionNames()) {
        const QStringList only = CliOptions::optionCommands(option);
        if (!only.isEmpty() && !only.contains(command))
            return usage(QStringLiteral("--%1 does not apply to '%2' (it is for %3)")
                             .arg(option, command, only.join(QStringLiteral(", "))));
    }
    const CliCommandTable::Entry *entry = CliCommandTable::find(command);
    if (!entry)
        return usage(QStringLiteral("'%1' has no entry in the command table").arg(command));
    auto launch = [&](InterruptNotifier *interrupts) {
        const CliCommandTable::Launch l{
            m_parser, connection, args, pos.mid(1), this, interrupts, [this](int code) { finish(code); }};
        return entry->launch(l, exitCode);
    };
    if (entry->ownOperands) {
        // SIGINT / SIGTERM / SIGHUP end it as they end every command, even when the shell started
        // it with SIGINT ignored (a script's `&` job): a handler replaces an inherited SIG_IGN.
        m_interrupts = new InterruptNotifier(this);
        return launch(m_interrupts);
    }
    const QStringList wanted = CliOptions::positionalArguments(command);
    if (pos.size() - 1 < wanted.size())
        return usage(QStringLiteral("'%1' needs a %2").arg(command, wanted.at(pos.size() - 1)));
    if (pos.size() - 1 > wanted.size())
        return usage(QStringLiteral("unexpected argument '%1'").arg(pos.last()));
    // Names and fields as LockScope displays them: `lock:\xff` is a key whose bytes are not UTF-8
    // (RedisBytes::fromDisplayed), so such a lock can still be named on the command line.
    if (wanted.size() >= 1) {
        args.nameTyped = pos.at(1);
        args.name = wanted.first() == QLatin1String("lock name") ? RedisBytes::fromDisplayed(pos.at(1)) : pos.at(1);
    }
    if (wanted.size() >= 2)
        args.field = RedisBytes::fromDisplayed(pos.at(2));
    if (entry->check)
        if (const QString missing = entry->check(m_parser); !missing.isEmpty())
            return usage(missing);
    if (m_parser.isSet(QStringLiteral("kind"))) {
        const auto kind = AcquirePlan::parseKind(m_parser.value(QStringLiteral("kind")));
        if (!kind || *kind == AcquireKind::Auto)
            return usage(QStringLiteral("--kind needs lock, fair, read, write or fenced, not '%1'")
                             .arg(m_parser.value(QStringLiteral("kind"))));
    }
    const QString rangeError = CliOptions::rangeError(m_parser);
    if (!rangeError.isEmpty())
        return usage(rangeError);
    if (m_parser.isSet(QStringLiteral("holder")) && m_parser.value(QStringLiteral("holder")).trimmed().isEmpty())
        return usage(QStringLiteral("--holder needs a client id, <clientId>:<threadId> or thread id"));

    if (m_parser.isSet(QStringLiteral("password-file")) && !m_parser.isSet(QStringLiteral("targets")))
        return usage(QStringLiteral("--password-file goes with --targets (one server: --url and LOCKSCOPE_PASSWORD)"));
    if (m_parser.isSet(QStringLiteral("targets")) && FleetRunner::kCommands.contains(command)) {
        // Every target of the file: this command once per target, in child processes.
        m_interrupts = new InterruptNotifier(this);
        auto *runner =
            new FleetRunner(QCoreApplication::arguments(), m_parser.isSet(QStringLiteral("json")), m_out, m_err, this);
        connect(runner, &FleetRunner::finished, this, &LockScopeCli::finish);
        connect(m_interrupts, &InterruptNotifier::interrupted, this, [this](int sig) { finish(128 + sig); });
        QString error;
        if (!runner->start(m_parser.value(QStringLiteral("targets")), m_parser.value(QStringLiteral("password-file")),
                           &error))
            return usage(error);
        return true;
    }
    m_interrupts = new InterruptNotifier(this); // SIGINT / SIGTERM / SIGHUP: 130 / 143 / 129 (every command below)
    // A closed output ends every command (141), but the exporter: its output is a log, not its answer.
    if (!entry->outputIsLog)
        m_interrupts->watchOutput();
    if (entry->launch)
        return launch(m_interrupts);

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
            *exitCode = CliCommand::ServerError;
            return false;
        }
        m_err << "lockscope-cli: demo redis-server on " << demoServer->url() << '\n';
        m_err.flush();
        options.endpoint = demoServer->endpoint();
        auto *workload = new DemoWorkload(options.endpoint, this);
        workload->start();
    } else {
        options.endpoint = connection.endpoint(m_parser, &urlError);
    }
    if (!options.endpoint.isValid())
        return usage(urlError);
    if (options.endpoint.isSentinel() && options.forceCluster)
        return usage(QStringLiteral("--cluster and a redis-sentinel:// URL exclude each other: Sentinel names one "
                                    "master, a cluster has many"));

    CliCommand *cmd = entry->create(m_parser, args, this);
    options.oneShot = cmd->oneShot(); // one discovery pass, one read per lock, then the answer
    m_readOnlyOneShot = cmd->oneShot() && !cmd->writes();
    connect(cmd, &CliCommand::finished, this, &LockScopeCli::finish);
    connect(m_interrupts, &InterruptNotifier::interrupted, cmd, &CliCommand::interrupt);
    if (!cmd->prepare(&options, exitCode))
        return false;
    // With --demo, give the simulated clients a moment to take their locks first.
    return cmd->start(options, demoServer ? 1500 : 0, exitCode);
}

void LockScopeCli::finish(int code)
{
    if (m_finished)
        return;
    m_finished = true;
    m_out.flush();
    m_err.flush();
    emit finished(code);
}

} // namespace lockscope
