#include "protocol/watchmode.h"

#include "text/enumwords.h"

namespace lockscope
{

namespace
{

const EnumWords<WatchMode> kModeWords{{WatchMode::Connecting, "connecting"},
                                      {WatchMode::Live, "live"},
                                      {WatchMode::Polling, "polling"},
                                      {WatchMode::Disconnected, "disconnected"}};

} // namespace

QString watchModeName(WatchMode mode)
{
    return kModeWords.word(mode);
}

} // namespace lockscope
