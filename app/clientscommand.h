#pragma once

#include "clicommanddescriptor.h"
#include "listingcommand.h"

namespace lockscope
{

/**
 * `lockscope-cli clients [--pattern GLOB] [--json] [--identify-ms N]`: the CLI twin of the
 * dashboard's Clients tab. Every Redisson client id that holds or waits for a lock (one discovery
 * pass), with what is known of it (ClientIdentity: connections, host, client name, connected or
 * not, evidence) and its locks: held (thread, hold count) and queued for (place). With
 * --identify-ms, the holders are identified first (LockSession::identifyClients). JSON: one
 * object per client id and line, ClientIdentity's fields plus `holds` [{lock, field, thread_id,
 * hold_count, mode}] and `waits` [{lock, field, position}]. Exit 0, 2 when the server cannot be read.
 */
class ClientsCommand : public ListingCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using ListingCommand::ListingCommand;

protected:
    /** The holders' and the waiters' client ids. */
    QStringList clientIds() const override;
    void print() override;
};

} // namespace lockscope
