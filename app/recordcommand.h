#pragma once

#include "clicommanddescriptor.h"
#include "sessioncommand.h"

namespace lockscope
{

/**
 * `lockscope-cli record --out FILE [--pattern GLOB] [--duration-ms N]`: what the session sees
 * (lock snapshots and events) as a recording (SessionRecorder; JSON lines, gzip for .gz) until
 * --duration-ms ends or Ctrl-C; the file is closed whole either way. Exit 2 when the file cannot
 * be written or the server is not reachable when --duration-ms ends.
 */
class RecordCommand : public SessionCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using SessionCommand::SessionCommand;

protected:
    void run() override;
};

} // namespace lockscope
