#pragma once

#include "session/locksession.h"

class QCommandLineParser;

namespace lockscope
{

/**
 * LockSession::Options from the command line, built in this one place for lockscope and
 * lockscope-cli, so both read the same flags the same way: --pattern, --read-only, --poll and --poll-budget (at least
 * 100 commands/s) for both; for the CLI also --audit-log, --cluster and cluster detection. The endpoint is left to the
 * caller (a URL, the demo server, a saved connection or a recording), as is what only one command decides (oneShot, a
 * forced read-only).
 */
class SessionOptions
{
public:
    enum class Front { Dashboard, Cli };

    /** The options `parser` holds (it must have parsed the options of `front`). */
    static LockSession::Options fromCommandLine(const QCommandLineParser &parser, Front front);
};

} // namespace lockscope
