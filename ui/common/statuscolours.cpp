#include "common/statuscolours.h"

namespace lockscope
{

QColor StatusColours::mode(WatchMode mode)
{
    switch (mode) {
    case WatchMode::Live:
        return QColor(0x2e, 0x9d, 0x5b);
    case WatchMode::Polling:
        return QColor(0x1e, 0x88, 0xe5);
    case WatchMode::Disconnected:
        return QColor(0xc0, 0x39, 0x2b);
    case WatchMode::Connecting:
        break;
    }
    return QColor(0xe6, 0x9b, 0x00);
}

} // namespace lockscope
