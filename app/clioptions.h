#pragma once

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace lockscope
{

/**
 * lockscope-cli's command table and options, and its command-line conventions, so a
 * mistyped command is explained before anything reaches Redis:
 * per-command help, "did you mean", options that do not apply to the command refused, every
 * number range-checked, Usage with the program name. Parsing itself stays QCommandLineParser's;
 * LockScopeCli dispatches with what this says.
 */
class CliOptions
{
public:
    /** The --help description: the commands, conventions and exit codes. */
    static QString description();
    /** The options of the commands that talk to one server (beside ConnectionOptions'). */
    static QList<QCommandLineOption> commandOptions();
    /** commandOptions() and those of RedLockCommand, WorkshopCommand and ServeCommand. */
    static QList<QCommandLineOption> allOptions();

    static bool isCommand(const QString &name);
    static QStringList commandNames();
    /** The commands an option applies to; empty = every command (connection and general options). */
    static QStringList optionCommands(const QString &option);
    /** What a command takes after its name ("lock name", ...), in order. */
    static QStringList positionalArguments(const QString &command);
    /** Why a number option is out of range or not a number ("--ttl-ms must be ..."), else empty. */
    static QString rangeError(const QCommandLineParser &parser);

    /** " (did you mean 'list'?)" for the nearest candidate within a few edits, else "". */
    static QString didYouMean(const QString &given, const QStringList &candidates, const QString &prefix);
    /** QCommandLineParser's error, with "did you mean" for an unknown option. */
    static QString parseErrorText(const QCommandLineParser &parser);
    /** QCommandLineParser's help with "Usage: lockscope-cli" instead of the path the program was run by. */
    static QString withProgramName(QString help);
    /** `lockscope-cli COMMAND --help`: its synopsis, what it does and the options that belong to it. */
    static QString commandHelpText(const QString &command);
};

} // namespace lockscope
