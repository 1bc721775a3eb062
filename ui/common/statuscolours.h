#pragma once

#include "protocol/watchmode.h"

#include <QColor>

namespace lockscope
{

/**
 * The dashboard's status colours, one place for every widget that shows a connection state (the
 * status bar, the server tabs, the Cluster tab): connecting amber, live green, polling blue,
 * disconnected red. Holder colours are HolderPalette's.
 */
class StatusColours
{
public:
    /** The colour of connection state `mode`. */
    static QColor mode(WatchMode mode);
};

} // namespace lockscope
