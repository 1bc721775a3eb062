#pragma once

#include "clicommanddescriptor.h"
#include "listingcommand.h"

#include <QVector>

namespace lockscope
{

/**
 * `lockscope-cli list [--pattern GLOB] [--holder ID] [--json] [--wide]`: every lock after one
 * discovery pass (a cluster: every master), sorted by name, as a table fitted to the terminal
 * (LockTable) or one JSON object per line. With --identify-ms N the holders are identified first
 * (LockSession::identifyClients), the table gets HOST and NAME, and each holder in JSON its
 * `client`. Exit 0, or 2 when the server cannot be read.
 */
class ListCommand : public ListingCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using ListingCommand::ListingCommand;

protected:
    /** Prints the locks read (table or JSON lines) and finishes. */
    void print() override;

private:
    /** `list --json`: one compact JSON object per lock and line, in the order given, to stdout. */
    static void writeJsonLines(const QVector<const LockSnapshot *> &locks);
};

} // namespace lockscope
