#pragma once

#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"
#include "protocol/topologyevent.h"
#include "protocol/watchmode.h"

#include <QHash>
#include <QObject>

#include <QStringList>
#include <QVector>
#include <functional>

namespace lockscope
{

/**
 * What watches the locks of one server or of a whole Redis Cluster, as LockSession, the CLI, the
 * exporter and the GUI see it (LockMonitor and ClusterLockMonitor had the same methods
 * and signals but no common type, so every caller asked "cluster or not").
 *
 * Implemented by LockMonitor (one server: a one-node topology) and ClusterLockMonitor (one
 * LockMonitor per master, merged). Setters take effect at the next start() or rediscover() as
 * each implementation documents; every call returns at once (the work runs on the watcher's
 * thread, results leave as signals).
 */
class LockWatcher : public QObject
{
    Q_OBJECT
public:
    /** How a server (or, in a cluster, each master) is read (WatchMode, a plain value header). */
    using Mode = WatchMode;

    using QObject::QObject;

    /** Redis glob of lock names to watch ("*" = all). Takes effect at the next rediscover(). */
    virtual void setPattern(const QString &glob) = 0;
    /** Ignore keyspace notifications even when the server has them on (tests, --poll). */
    virtual void setForcePolling(bool on) = 0;
    /** One discovery pass and one read of each lock, then idle() and nothing more (CLI `list`,
     *  `doctor`). Call before start(). */
    virtual void setOneShot(bool on) = 0;
    virtual void setPollIntervalMs(int ms) = 0;
    /** Polling load budget, Redis commands per second (LockMonitor::setPollBudget()). */
    virtual void setPollBudget(int commandsPerSecond) = 0;
    /** Locks re-read every poll tick (what a view shows or has selected). */
    virtual void setPriorityLocks(const QStringList &names) = 0;

    /** Starts watching; returns at once. Safe to call before any connection is ready. */
    virtual void start() = 0;
    /** Runs discovery again (progress via discoveryProgress()). */
    virtual void rediscover() = 0;
    /** Stops a running discovery; locks found so far stay, live updates go on. */
    virtual void cancelDiscovery() = 0;
    /** Operator-requested: CONFIG SET of the keyspace notification flags live mode needs, on
     *  every server watched (LockMonitor::enableNotifications()). */
    virtual void enableNotifications() = 0;
    /** Queue `name` for a re-read; `hint` is a keyspace event name or empty. */
    virtual void markDirty(const QString &name, const QString &hint = QString()) = 0;
    /** The next removal of `name` is reported as force_unlocked (LockScope deleted it). */
    virtual void expectForceUnlock(const QString &name) = 0;

    /** Every lock known, by name. A single server's is implicitly shared (no copy); a cluster's
     *  is a new set of every master's snapshots: where all locks are walked once, forEachLock()
     *  spares that copy (at 300k locks it made `list` on a cluster take 1.6 times the memory). */
    virtual QHash<QString, LockSnapshot> locks() const = 0;
    /** Calls `visit` with every lock known, in no order, without copying any; the references stay
     *  valid until the event loop runs again. */
    virtual void forEachLock(const std::function<void(const LockSnapshot &)> &visit) const = 0;
    /** Lock `name` as last read; an unknown name: a snapshot with an empty name and `exists`
     *  false. One hash lookup per master read from, no copy of any set (a per-event lookup). */
    virtual LockSnapshot lock(const QString &name) const = 0;
    /** The watch mode of each server read from (one entry for a single server, one per master). */
    virtual QVector<Mode> serverModes() const = 0;
    /** Nothing left to do: discovery finished, no dirty lock, no read in flight. */
    virtual bool isIdle() const = 0;

signals:
    /** A server's watch mode changed; `detail` says why, in words for an operator. */
    void modeChanged(lockscope::LockWatcher::Mode mode, const QString &detail);
    /** Snapshots read since the last batch, and names no longer locks. */
    void locksUpdated(const QVector<lockscope::LockSnapshot> &changed, const QStringList &removed);
    /** Lock events (acquired, released, expired, ...) in causal order per lock. */
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    /** `approxTotalKeys`: DBSIZE when the pass started (summed over masters; -1 while unknown),
     *  for "scanned 412k of ~1.0M keys"; `finished` once every server finished its scan. */
    void discoveryProgress(qint64 scannedKeys, qint64 locksFound, bool finished, qint64 approxTotalKeys);
    /** Result of the notify-keyspace-events check: whether live mode is possible, and why not. */
    void notificationsChecked(bool enabled, const QString &detail);
    void errorOccurred(const QString &message);
    /** Emitted when the watcher becomes idle (see isIdle()), e.g. after the first full read. */
    void idle();
    /** The set of servers changed (a cluster's failover, slots moved, master down); a single
     *  server never emits it. */
    void topologyChanged(const QVector<lockscope::TopologyEvent> &events);
};

} // namespace lockscope
