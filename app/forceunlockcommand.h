#pragma once

#include "clicommanddescriptor.h"
#include "confirmedwritecommand.h"

namespace lockscope
{

/**
 * `lockscope-cli force-unlock NAME [--yes]`: shows the lock, asks (the lock name typed when it is
 * held) unless --yes, then deletes it and wakes its waiters through the session's audited write
 * path, only if it is still exactly what was shown. Exit 3 when refused, not confirmed or changed.
 */
class ForceUnlockCommand : public ConfirmedWriteCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using ConfirmedWriteCommand::ConfirmedWriteCommand;

protected:
    void run() override;
};

} // namespace lockscope
