#pragma once

#include "clicommand.h"

#include <QString>
#include <QStringList>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

class ConnectionOptions;
class InterruptNotifier;

/**
 * Every lockscope-cli command and how it starts, in one table (as tshark registers its taps):
 * LockScopeCli looks the command up and runs its entry, with no branch of its own per command.
 * Adding a command is one row here, its class, and its help in CliOptions.
 *
 * A command on one server (or one cluster) through a LockSession gives `create` (a CliCommand:
 * LockScopeCli resolves the server and the session options first). A command with its own
 * servers or none gives `launch` (redlock: its --servers; workshop: a private redis-server;
 * export: a file).
 */
class CliCommandTable
{
public:
    /** What a `launch` entry is given. */
    struct Launch {
        const QCommandLineParser &parser;
        const ConnectionOptions &connection;
        const CliCommand::Arguments &args;
        QStringList operands;            ///< the positional arguments after the command
        QObject *parent;                 ///< owns what the command creates
        InterruptNotifier *interrupts;   ///< SIGINT / SIGTERM / SIGHUP
        std::function<void(int)> finish; ///< ends the process with an exit code (once)
    };
    struct Entry {
        QStringList names;
        /** A usage sentence when an option the command cannot do without is missing, else empty. */
        std::function<QString(const QCommandLineParser &)> check;
        /** LockSession commands: the command object. */
        std::function<CliCommand *(const QCommandLineParser &, const CliCommand::Arguments &, QObject *)> create;
        /** Other commands: starts it; false with `*exitCode` when it finished already. */
        std::function<bool(const Launch &, int *exitCode)> launch;
        /** It reads its own operands (workshop's sub-commands): launched before the NAME checks. */
        bool ownOperands = false;
        /** Its standard output is a log, not its answer (serve): a closed stdout does not end it. */
        bool outputIsLog = false;
    };

    /** The entry of `command`, or null for a command that does not exist. */
    static const Entry *find(const QString &command);
};

} // namespace lockscope
