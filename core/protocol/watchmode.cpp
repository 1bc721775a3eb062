#include "protocol/watchmode.h"

namespace lockscope
{

QString watchModeName(WatchMode mode)
{
    switch (mode) {
    case WatchMode::Connecting:
        return QStringLiteral("connecting");
    case WatchMode::Live:
        return QStringLiteral("live");
    case WatchMode::Polling:
        return QStringLiteral("polling");
    case WatchMode::Disconnected:
        return QStringLiteral("disconnected");
    }
    return {};
}

} // namespace lockscope
