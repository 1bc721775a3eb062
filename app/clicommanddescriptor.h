#pragma once

#include "clicommand.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <functional>
#include <utility>

class QObject;

namespace lockscope
{

/**
 * Every fact about one lockscope-cli command, kept in the command's own file (its class's static
 * descriptor()) and registered with one line in CliCommandTable. LockScopeCli dispatches with it
 * (operands, the options that apply, the option it cannot do without, the factory), and CliHelp
 * makes every text about the command from it: `lockscope-cli --help`, `COMMAND --help`, the man
 * page's COMMANDS section, the bash, zsh and fish completions and docs/reference/cli.md.
 */
struct CliCommandDescriptor {
    /** Makes the command; LockScopeCli connects it and calls CliCommand::begin(). */
    using Factory = std::function<CliCommand *(const CliCommand::Context &, QObject *parent)>;
    /** A usage sentence when an option the command cannot do without is missing, else empty. */
    using Check = std::function<QString(const QCommandLineParser &)>;

    /** The operand that is a lock name (escapes undone, RedisBytes::fromDisplayed; completed from the server). */
    static constexpr const char *kLockName = "lock name";

    QString name;        ///< "list", "set-ttl", ...
    QString synopsis;    ///< after "lockscope-cli [options] ": "show NAME [--holder ID] [--json]"
    QString summary;     ///< one sentence: what it does (the --help list, completions, first line elsewhere)
    QString description; ///< what `COMMAND --help` says after the summary (may be empty)
    /** The reference's paragraph (docs/reference/cli.md and the man page): outputs, exit codes; `code`
     *  and [links](page.md) as in markdown (the man page keeps the link text). May be empty. */
    QString details;
    /** What it takes after its name, in order ("lock name", "waiter field <clientId>:<threadId>"):
     *  LockScopeCli checks the count. Empty with ownOperands. */
    QStringList operands;
    /** Its first operand is one of these words (redlock: show, acquire; workshop: list, run). */
    QStringList subcommands;
    /** A lockscope-cli command whose first column completes the operand after a sub-command
     *  ("workshop list" for workshop run NAME). */
    QString operandWordsFrom;
    /** The shared options (CliOptions::allOptions()) that apply to it, by name, in the order its
     *  help lists them. Options no command names apply to every command (connection, --read-only). */
    QStringList options;
    QStringList examples; ///< command lines after "lockscope-cli " (docs_check parses them)
    Check check;          ///< the option it cannot do without (empty: none)
    Factory create;
    bool ownOperands = false; ///< reads its own operands (workshop's sub-commands): no count check
    bool fleet = false;       ///< with --targets it runs once per target, as child processes (FleetRunner)
    bool outputIsLog = false; ///< its standard output is a log, not its answer (serve): a closed stdout does not end it

    CliCommandDescriptor() = default;
    /** What every command has: its name, synopsis and summary (UTF-8), and what makes it. */
    CliCommandDescriptor(const char *commandName, const char *usage, const char *oneSentence, Factory make)
        : name(QString::fromUtf8(commandName)), synopsis(QString::fromUtf8(usage)),
          summary(QString::fromUtf8(oneSentence)), create(std::move(make))
    {
    }
    /** The descriptor of `Command` (made by factory<Command>()) with its name, synopsis and summary. */
    template <typename Command>
    static CliCommandDescriptor of(const char *commandName, const char *usage, const char *oneSentence)
    {
        return CliCommandDescriptor(commandName, usage, oneSentence, factory<Command>());
    }
    /** Option names (or sub-commands) written as one string: "pattern json holder" is
     *  {"pattern", "json", "holder"}, in that order. */
    static QStringList words(const char *spaceSeparated)
    {
        return QString::fromLatin1(spaceSeparated).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    }

    /** The Factory of `Command` (constructor (const Context &, QObject *)). */
    template <typename Command> static Factory factory()
    {
        return [](const CliCommand::Context &context, QObject *parent) { return new Command(context, parent); };
    }
    /** A Check: `sentence` when `option` is not given. */
    static Check needs(const char *option, const char *sentence)
    {
        return [option, sentence](const QCommandLineParser &parser) {
            return parser.isSet(QLatin1String(option)) ? QString() : QString::fromLatin1(sentence);
        };
    }
};

} // namespace lockscope
