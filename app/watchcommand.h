#pragma once

#include "clicommanddescriptor.h"
#include "sessioncommand.h"

#include "protocol/lockevent.h"

namespace lockscope
{

/**
 * `lockscope-cli watch [--pattern GLOB] [--holder ID] [--json] [--duration-ms N]`: events as
 * they happen (acquired, released, expired, ...; in a cluster also failovers and slot moves), one
 * line each, until --duration-ms ends or Ctrl-C (130 / 143). Reconnects to a server that was
 * reached once; exit 2 when it never was, or is not reachable when --duration-ms ends. The
 * summary on stderr says how many releases were too short to see, rather than
 * lose them silently.
 */
class WatchCommand : public SessionCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using SessionCommand::SessionCommand;

protected:
    ConnectionLoss connectionLoss() const override { return ConnectionLoss::ReconnectOnceReached; }
    void run() override;
    void onFinishing() override;

private:
    /** --holder: an event whose holder matches, or of a lock the holder holds or waits for. */
    bool wantEvent(const LockEvent &event) const;

    qint64 m_events = 0;    ///< events printed
    qint64 m_coalesced = 0; ///< releases too short to see, counted so the summary can say so
};

} // namespace lockscope
