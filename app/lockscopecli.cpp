#include "lockscopecli.h"

#include "clicommandtable.h"
#include "clihelp.h"
#include "clioptions.h"
#include "fleetrunner.h"
#include "interruptnotifier.h"

#include "protocol/acquireplan.h"
#include "redis/redisbytes.h"

#include <QCoreApplication>

namespace lockscope
{

LockScopeCli::LockScopeCli(QObject *parent)
    : QObject(parent), m_connection(QStringLiteral("redis://127.0.0.1:6379")), m_out(stdout), m_err(stderr)
{
}

LockScopeCli::~LockScopeCli() = default;

bool LockScopeCli::start(const QStringList &arguments, int *exitCode)
{
    m_parser.setApplicationDescription(CliHelp::description());
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    m_connection.addTo(m_parser); // --url, --tls-*, --user, --ask-password
    m_parser.addOptions(CliOptions::allOptions());
    // The texts kept in the repository that come from the command descriptors (tools/update-cli-docs.py).
    QCommandLineOption helpFormat(
        QStringLiteral("help-format"),
        QStringLiteral("Print a generated text: %1.").arg(CliHelp::formats().join(QStringLiteral(", "))),
        QStringLiteral("FORMAT"));
    helpFormat.setFlags(QCommandLineOption::HiddenFromHelp);
    m_parser.addOption(helpFormat);
    m_parser.addPositionalArgument(QStringLiteral("command"), CliCommandTable::names().join(QStringLiteral(", ")));
    QStringList namedLock;
    for (const CliCommandDescriptor &d : CliCommandTable::all())
        if (d.operands.value(0) == QLatin1String(CliCommandDescriptor::kLockName))
            namedLock << d.name;
    m_parser.addPositionalArgument(QStringLiteral("name"),
                                   QStringLiteral("lock name (%1)").arg(namedLock.join(QStringLiteral(", "))),
                                   QStringLiteral("[NAME]"));

    if (!m_parser.parse(arguments)) {
        m_err << "lockscope-cli: " << CliOptions::parseErrorText(m_parser)
              << "\nRun 'lockscope-cli --help' for usage.\n";
        m_err.flush();
        *exitCode = CliCommand::Usage;
        return false;
    }
    if (m_parser.isSet(helpFormat)) {
        const QString text = CliHelp::generate(m_parser.value(helpFormat));
        if (text.isEmpty()) {
            m_err << "lockscope-cli: --help-format needs one of " << CliHelp::formats().join(QStringLiteral(", "))
                  << '\n';
            m_err.flush();
            *exitCode = CliCommand::Usage;
            return false;
        }
        m_out << text;
        m_out.flush();
        *exitCode = CliCommand::Ok;
        return false;
    }
    if (m_parser.isSet(QStringLiteral("help"))) {
        const CliCommandDescriptor *command = CliCommandTable::find(m_parser.positionalArguments().value(0));
        m_out << (command ? CliHelp::commandHelp(*command) : CliOptions::withProgramName(m_parser.helpText()));
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
    const CliCommandDescriptor *entry = CliCommandTable::find(pos.value(0));
    auto usage = [&](const QString &msg) {
        m_err << "lockscope-cli: " << msg << "\nRun 'lockscope-cli "
              << (entry ? pos.value(0) + QLatin1Char(' ') : QString()) << "--help' for usage.\n";
        m_err.flush();
        *exitCode = CliCommand::Usage;
        return false;
    };
    if (pos.isEmpty())
        return usage(QStringLiteral("missing command (%1)").arg(CliCommandTable::names().join(QStringLiteral(", "))));
    CliCommand::Arguments args;
    args.command = pos.first();
    const QString &command = args.command;
    if (!entry)
        return usage(QStringLiteral("unknown command '%1'%2")
                         .arg(command, CliOptions::didYouMean(command, CliCommandTable::names(), QString())));
    for (const QString &option : m_parser.optionNames()) {
        const QStringList only = CliCommandTable::commandsTaking(option);
        if (!only.isEmpty() && !only.contains(command))
            return usage(QStringLiteral("--%1 does not apply to '%2' (it is for %3)")
                             .arg(option, command, only.join(QStringLiteral(", "))));
    }
    auto begin = [&](CliCommand *cmd) {
        m_readOnlyOneShot = cmd->mayLeaveWithoutTeardown();
        connect(cmd, &CliCommand::finished, this, &LockScopeCli::finished);
        connect(m_interrupts, &InterruptNotifier::interrupted, cmd, &CliCommand::interrupt);
        return cmd->begin(exitCode);
    };
    const auto context = [&] { return CliCommand::Context{m_parser, m_connection, args, pos.mid(1)}; };
    if (entry->ownOperands) {
        // SIGINT / SIGTERM / SIGHUP end it as they end every command, even when the shell started
        // it with SIGINT ignored (a script's `&` job): a handler replaces an inherited SIG_IGN.
        m_interrupts = new InterruptNotifier(this);
        return begin(entry->create(context(), this));
    }
    const QStringList wanted = entry->operands;
    if (pos.size() - 1 < wanted.size())
        return usage(QStringLiteral("'%1' needs a %2").arg(command, wanted.at(pos.size() - 1)));
    if (pos.size() - 1 > wanted.size())
        return usage(QStringLiteral("unexpected argument '%1'").arg(pos.last()));
    // Names and fields as LockScope displays them: `lock:\xff` is a key whose bytes are not UTF-8
    // (RedisBytes::fromDisplayed), so such a lock can still be named on the command line.
    if (wanted.size() >= 1) {
        args.nameTyped = pos.at(1);
        args.name = wanted.first() == QLatin1String(CliCommandDescriptor::kLockName)
                        ? RedisBytes::fromDisplayed(pos.at(1))
                        : pos.at(1);
    }
    if (wanted.size() >= 2)
        args.field = RedisBytes::fromDisplayed(pos.at(2));
    if (entry->check)
        if (const QString missing = entry->check(m_parser); !missing.isEmpty())
            return usage(missing);
    if (m_parser.isSet(QStringLiteral("kind"))) {
        const auto kind = AcquirePlan::parseKind(m_parser.value(QStringLiteral("kind")));
        if (!kind || *kind == AcquireKind::Auto)
            return usage(QStringLiteral("--kind needs %1, not '%2'")
                             .arg(CliOptions::kindChoices(), m_parser.value(QStringLiteral("kind"))));
    }
    const QString rangeError = CliOptions::rangeError(m_parser);
    if (!rangeError.isEmpty())
        return usage(rangeError);
    if (m_parser.isSet(QStringLiteral("holder")) && m_parser.value(QStringLiteral("holder")).trimmed().isEmpty())
        return usage(QStringLiteral("--holder needs a client id, <clientId>:<threadId> or thread id"));

    if (m_parser.isSet(QStringLiteral("password-file")) && !m_parser.isSet(QStringLiteral("targets")))
        return usage(QStringLiteral("--password-file goes with --targets (one server: --url and LOCKSCOPE_PASSWORD)"));
    if (m_parser.isSet(QStringLiteral("targets")) && entry->fleet) {
        // Every target of the file: this command once per target, in child processes.
        m_interrupts = new InterruptNotifier(this);
        return begin(new FleetRunner(context(), this));
    }
    m_interrupts = new InterruptNotifier(this); // SIGINT / SIGTERM / SIGHUP: 130 / 143 / 129 (every command below)
    // A closed output ends every command (141), but the exporter: its output is a log, not its answer.
    if (!entry->outputIsLog)
        m_interrupts->watchOutput();
    return begin(entry->create(context(), this));
}

} // namespace lockscope
