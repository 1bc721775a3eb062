#pragma once

#include "clicommanddescriptor.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * Every lockscope-cli command, one registration line each (as tshark registers its taps): the
 * descriptor each command's class gives (CliCommandDescriptor, in the command's own file).
 * LockScopeCli dispatches with it, with no branch of its own per command; CliHelp makes every help
 * text, the man page's command section, the completions and the CLI reference from it.
 *
 * Adding a command: its class (SessionCommand for one server, else CliCommand) with a static
 * descriptor(), its files in app/CMakeLists.txt, and one line in this table's .cpp. Then
 * regenerate the texts: tools/update-cli-docs.sh BUILD_DIR.
 */
class CliCommandTable
{
public:
    /** Every command, in the order the help lists them. */
    static const QVector<CliCommandDescriptor> &all();
    /** The command named `name`, or null for a command that does not exist. */
    static const CliCommandDescriptor *find(const QString &name);
    static QStringList names();
    /** The commands whose descriptor names `option` (without dashes); empty: it applies to every
     *  command (connection and general options). */
    static QStringList commandsTaking(const QString &option);
};

} // namespace lockscope
