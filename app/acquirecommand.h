#pragma once

#include "clicommanddescriptor.h"
#include "sessioncommand.h"

namespace lockscope
{

/**
 * `lockscope-cli acquire NAME [--kind lock|fair|read|write|fenced] [--lease-ms N] [--hold-ms N]
 * [--wait-ms N] [--thread-id N]`: takes the lock as LockScope's Redisson client with the client
 * of its kind, through the session's audited write path; holds it for --hold-ms or until Ctrl-C,
 * then releases it (also audited). Exit 0 acquired and released, 3 not acquired or refused,
 * 2 a server error or a missing audit record; 130 / 143 after a signal, once released.
 */
class AcquireCommand : public SessionCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using SessionCommand::SessionCommand;

    bool writes() const override { return true; }

protected:
    ConnectionLoss connectionLoss() const override { return ConnectionLoss::ReconnectOnceReached; }
    void run() override;
};

} // namespace lockscope
