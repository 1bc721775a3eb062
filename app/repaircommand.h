#pragma once

#include "clicommanddescriptor.h"
#include "confirmedwritecommand.h"

namespace lockscope
{

/**
 * The repairs the doctor suggests, each confirmed (or --yes) and sent through the session's
 * audited write path, only if the lock is still what was shown:
 *
 *   set-ttl NAME --ttl-ms N        give a lock without TTL one
 *   remove-waiter NAME FIELD [--wait-ms N]   drop a stale fair-queue waiter
 *   remove-reader NAME FIELD       drop a dead reader of a read-write lock
 *   wake NAME                      publish the unlock message of a free lock
 *
 * The command (Arguments::command) selects the repair. Exit 3 when refused or not confirmed.
 */
class RepairCommand : public ConfirmedWriteCommand
{
    Q_OBJECT
public:
    /** set-ttl, remove-waiter, remove-reader and wake: one class, a descriptor each. */
    static CliCommandDescriptor setTtlDescriptor();
    static CliCommandDescriptor removeWaiterDescriptor();
    static CliCommandDescriptor removeReaderDescriptor();
    static CliCommandDescriptor wakeDescriptor();

    using ConfirmedWriteCommand::ConfirmedWriteCommand;

protected:
    void run() override;
};

} // namespace lockscope
