#pragma once

#include <QMetaType>
#include <QString>

namespace lockscope
{

/**
 * How a server (or, in a cluster, each master) is read, as every face shows it: connecting;
 * live (keyspace notifications: a change is seen within milliseconds); polling (re-reads within
 * a command budget, no notifications or --poll); disconnected (the last data is kept, stale).
 * A plain value, so the dashboard and the CLI name a watcher's state without including it.
 */
enum class WatchMode { Connecting, Live, Polling, Disconnected };

/** "connecting", "live", "polling", "disconnected" (the JSON and text name of `mode`). */
QString watchModeName(WatchMode mode);

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::WatchMode)
