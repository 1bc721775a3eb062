#pragma once

#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"
#include "watch/lockwatcher.h"
#include "watch/snapshotreader.h"

#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QRegularExpression>
#include <QSet>
#include <QTimer>

#include <deque>
#include <functional>

namespace lockscope
{

class LockDiscovery;
class RedisConnection;
class RedisSubscriber;
class SnapshotReader;

/**
 * The observation engine: discovery, snapshots and live updates for every lock matching a pattern.
 *
 * - On (re)connect: reads `notify-keyspace-events`. With K plus g, h and x (or A) the monitor is
 *   **live**: it PSUBSCRIBEs `__keyspace@<db>__:*` and re-reads only locks whose keys changed.
 *   Otherwise it is **polling** (every pollIntervalMs, full rediscovery every 5 polls) and says
 *   why. It never changes server configuration unless enableNotifications() is called.
 * - Live: a `del` of a lock hash directly followed by an unlock-latch write of the same name
 *   (`set`, or `expire` from its PX) is reported released; without one, force_unlocked naming
 *   the holder as the victim, once some client was seen writing latches (Redisson 3.24+); else,
 *   and when polling, released with "cannot tell" (§14.9, LockEvent::Removal).
 * - Always PSUBSCRIBEs `redisson_lock__channel:*` (incl. fair per-waiter channels) and
 *   `redisson_rwlock:*` (protocol §9) and reports unlock messages.
 * - Names `x` and `{x}` share every derived key and channel (§14.4): a companion-key event
 *   re-reads both names and the snapshots tell whose the keys are; a channel message is filed
 *   under the listed lock whose hash exists (ownerOf()). When neither hash exists, only one of
 *   the two is listed (the one listed already, else `x`), with LockSnapshot::nameCertain() false.
 * - A lock once seen with a fair queue in this session stays "fair" when its queue empties
 *   (LockSnapshot::kindCertain: with its queue empty it reads like a plain lock).
 * - Dirty locks are coalesced (at most one read per coalesceMs) and read with SnapshotReader;
 *   results leave as one `locksUpdated` batch and one `eventsOccurred` batch per read.
 * - On a lost connection it is **disconnected**, keeps the last snapshots (now stale) and
 *   resumes by itself when the connection is back.
 * - Never "live" while deaf (hearing nothing): the subscriber connection is health-checked
 *   (RedisSubscriber); while it is down the monitor is **polling** and says why, and when it is
 *   back (with its subscriptions) it goes live again and rediscovers what changed meanwhile.
 *   The notification config is re-read every notificationRecheckMs (CONFIG GET, while CONFIG is
 *   allowed) and at once on suspicion (an unlock message without any keyspace event for 2 s, or
 *   a refresh finding a change no notification announced): notifications turned off mid-watch
 *   mean polling (modeChanged with the reason), turned on again mean live plus a rediscover.
 * - Stale data: when the connection is lost, every known lock is re-sent in one
 *   `locksUpdated` batch with LockSnapshot::stale set and staleAsOfMs = when LockScope lost
 *   sight of it; the next read of a lock (after the reconnect) clears it.
 *
 * Size (the .cpp is about 900 lines, over the ~500 past which a file says why): discovery, the
 * dirty-name coalescing, the poll plan and the keyspace-event interpretation all update the same
 * per-lock state (known snapshots, dirty names, removal evidence, pending unlock messages) within
 * one event; its helpers that keep no such state are classes of their own (LockDiscovery,
 * SnapshotReader, LockEvent::diff, LockNames).
 *
 * Why lockmonitor.cpp is long: one state machine of one server's watch (connect, discover, subscribe,
 * live or polling, reconnect, rediscover) whose transitions read each other's state; discovery
 * (LockDiscovery) and snapshot reads (SnapshotReader) are already classes of their own.
 */
class LockMonitor : public LockWatcher
{
    Q_OBJECT
public:
    LockMonitor(RedisConnection *connection, RedisSubscriber *subscriber, QObject *parent = nullptr);
    ~LockMonitor() override;

    /** Redis glob of lock names to watch ("*" = all). Takes effect at the next rediscover(). */
    void setPattern(const QString &glob) override;
    QString pattern() const { return m_pattern; }
    void setPollIntervalMs(int ms) override;
    void setCoalesceMs(int ms) { m_coalesceMs = qMax(0, ms); }
    /** How often the notification config is re-read while connected (default 15000 ms;
     *  tests use less). 0 = only on suspicion. Notices notifications turned off mid-watch. */
    void setNotificationRecheckMs(int ms);
    int notificationRecheckMs() const { return m_notificationRecheckMs; }
    /** Ignore keyspace notifications even when the server has them on (tests, --poll). */
    void setForcePolling(bool on) override { m_forcePolling = on; }
    /**
     * One-shot mode (CLI `list`, `doctor`): one discovery pass and one snapshot read of each lock
     * found, then idle() and nothing more: no poll timer, no subscriptions, no notification
     * check. Call before start().
     */
    void setOneShot(bool on) override { m_oneShot = on; }
    /** The server is a replica (ROLE): it gets its master's expiries as DELs, so a holder gone with
     *  the hash is `removed` ("expired, released or force-unlocked, cannot tell") unless an unlock
     *  latch proves an unlock; never `expired`, `force_unlocked` or a lost lease. */
    void setReplica(bool on) { m_replica = on; }
    /** How many of a lock's unlock-channel subscribers are LockScope watchers, not waiters
     *  (sharded subscriptions of ClusterLockMonitors on this node): taken off each read's
     *  `subscribers`. Empty: none. */
    void setSubscriberDiscount(std::function<qint64(const QString &lock)> discount)
    {
        m_discount = std::move(discount);
    }
    bool isReplica() const { return m_replica; }
    /**
     * Plain reads (default on): names discovery finds as hashes, not known yet, with no companion
     * key (LockDiscovery's second pass names those) and no twin hash, are read with pipelined
     * plain commands (SnapshotReader::read() with plainNames), the rest with the snapshot script;
     * discovery then returns every hash (no "lockhash" prefilter: the plain read tells locks apart
     * for less). Off: every read is the script's, discovery prefilters as before. Before start().
     */
    void setPlainReads(bool on) { m_plainReads = on; }
    bool plainReads() const { return m_plainReads; }
    /** A connection of its own for discovery's SCAN steps (RedisConnectionPool::scanConnection()),
     *  opened with the command connection; while it is not ready the steps go on the command
     *  connection. Set before start(). On one socket each step waited behind the reads. */
    void setScanConnection(RedisConnection *connection);
    /**
     * Polling load budget in Redis commands per second, as INFO counts them (a lock read in the
     * snapshot script counts kCommandsPerLockRead, the commands the script runs for it; a SCAN
     * step counts kCommandsPerScanStep). Each poll tick re-reads the priority locks
     * (setPriorityLocks()) and sweeps the others in turn with what is left of the budget (at least
     * a tenth of it); one full sweep ends with a rediscovery, which reads only the names it finds
     * new (known locks are the sweep's) and whose cost (its SCAN steps and those reads, as the
     * last one measured) is charged to the budget: the sweep slows down by its share.
     * Default 2000.
     */
    void setPollBudget(int commandsPerSecond) override { m_pollBudget = qMax(100, commandsPerSecond); }
    int pollBudget() const { return m_pollBudget; }
    /** Locks re-read every poll tick (what the dashboard shows or has selected). Names not
     *  known to this monitor are ignored. */
    void setPriorityLocks(const QStringList &names) override;

    /** Server time one snapshot script call of the monitor may take (µs; SnapshotReader's
     *  batchBudgetUs()), snapshot batches in flight (SnapshotReader::maxInFlight()), and the
     *  server time of one discovery SCAN step (LockDiscovery::stepBudgetUs()): another client's
     *  command waits behind about 1 ms of ours at most. Explored with
     *  `lockscope-bench --only engine --read-budget-us --read-in-flight --scan-budget-us` on a
     *  loaded 2-core machine: 4 in flight at 500 us read ~30 % faster but gave another client a
     *  p99 of 5-6 ms, these 2.6-4.5 ms, 1 in flight at 150-200 us 0.6-3 ms; but with 1 in flight
     *  a live monitor of 3000 locks never became idle (tst_lockmonitor discoveryFindsThousandsOfLocks),
     *  not understood yet, so 2 it is. The SCAN step budget is 500 us (250 us per pass while the
     *  hash and companion passes share a step; each SCAN stays far below SLOWLOG's 1 ms): at 250
     *  us, 1M keys took 17k SCANs and Redis spent 0.5 s more CPU on them than on the 1000 SCANs of
     *  a naive script (lockscope-bench --only reads). */
    static constexpr int kReadBudgetUs = 300;
    static constexpr int kReadsInFlight = 2;
    static constexpr int kScanBudgetUs = 500;
    /** Redis commands one lock read costs in snapshot.lua (TYPE, HGETALL, PTTL, LLEN, ZCARD, GET,
     *  PUBSUB NUMSUB and SHARDNUMSUB, TYPE of the twin). */
    static constexpr int kCommandsPerLockRead = 9;
    /** Redis commands one discovery step costs as INFO counts them (EVALSHA of scan_step.lua,
     *  TIME, SCAN, TIME). */
    static constexpr int kCommandsPerScanStep = 4;
    /** What a poll tick reads: `priorityReads` (every tick), `sweepReads` of the others, and how
     *  long a full sweep of `locks` takes (ms); pure arithmetic, for the status line and tests.
     *  `rediscoveryCommands`: what the rediscovery that ends each sweep costs (its SCAN steps and
     *  the reads of the new names it found, in commands); it is charged to the budget,
     *  so the sweep slows down by its share. `commandsPerSecond` includes it. */
    struct PollPlan {
        int priorityReads = 0;
        int sweepReads = 0;
        qint64 sweepMs = 0;
        int commandsPerSecond = 0;
    };
    static PollPlan pollPlan(int locks, int priorityLocks, int budget, int pollIntervalMs,
                             qint64 rediscoveryCommands = 0);
    bool isOneShot() const { return m_oneShot; }

    /**
     * Redis Cluster: this monitor watches one master. Only names for which `ownsName` holds are
     * read and reported (unlock messages are broadcast to every node), and snapshot batches hold
     * one hash slot each. A name this node's SCAN or keyspace notifications show although another
     * master serves its slot (a key of a slot this node is importing, mid-resharding) goes to
     * `foreignName(name, hint)`, for that master's monitor, never dropped. Batches refused because
     * their slot is being migrated are read key by key with `routedSend`
     * (SnapshotReader::setRoutedSend()). Call before start().
     */
    void setClusterNode(std::function<bool(const QString &)> ownsName,
                        std::function<void(const QString &name, const QString &hint)> foreignName,
                        SnapshotReader::RoutedSend routedSend);

    /** Starts watching; returns at once. Safe to call before the connection is ready. */
    void start() override;
    /** Runs discovery again (progress via discoveryProgress). */
    void rediscover() override;
    /** Stops a running discovery (locks found so far stay; live updates go on). Reports
     *  discoveryProgress(..., finished = true). */
    void cancelDiscovery() override;
    /** Operator-requested: adds K, g, h and x to notify-keyspace-events with CONFIG SET. The
     *  request holds for this monitor's life: after a reconnect (e.g. to the new master after a
     *  Sentinel failover, whose configuration may differ) the flags are checked and added again. */
    void enableNotifications() override;
    /** The next removal of `name` is reported as force_unlocked (LockScope deleted it). */
    void expectForceUnlock(const QString &name) override { m_forceUnlockExpected.insert(name); }
    /** Queue `name` for a re-read; `hint` is a keyspace event name or empty. */
    void markDirty(const QString &name, const QString &hint = QString()) override;

    /**
     * Redis Cluster handover (failover, slot migration): forgets `names` without reporting them
     * removed and returns their last snapshots, for the monitor of the master that serves them
     * now (adoptLocks()). Reads of them still in flight are dropped when they return.
     */
    QVector<LockSnapshot> takeLocks(const QStringList &names);
    /**
     * Counterpart of takeLocks(): `locks` become known (no `locksUpdated`) and are re-read, so a
     * lock still held is not reported again and one gone meanwhile is reported released or
     * expired. The node's slots count as watched already: a lock found later is "acquired".
     */
    void adoptLocks(const QVector<LockSnapshot> &locks);

    Mode mode() const { return m_mode; }
    QString modeDetail() const { return m_modeDetail; }
    QHash<QString, LockSnapshot> locks() const override { return m_locks; }
    void forEachLock(const std::function<void(const LockSnapshot &)> &visit) const override
    {
        for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it)
            visit(it.value());
    }
    LockSnapshot lock(const QString &name) const override { return m_locks.value(name); }
    QVector<Mode> serverModes() const override { return {m_mode}; }
    bool isDiscovering() const;
    /** Nothing left to do: discovery finished, no dirty lock, no read in flight. */
    bool isIdle() const override;

    static QString modeName(Mode mode);
    /** Whether notify-keyspace-events `flags` give what live mode needs (K plus g, h, x or A). */
    static bool notificationFlagsSuffice(const QString &flags);

    /** Releases announced by unlock messages but never seen by a read (short holds), live or
     *  polling: the sum of every `coalesced` event's count since start(). */
    qint64 coalescedTotal() const { return m_coalescedTotal; }

private:
    void onReady();
    void onConnectionLost(const QString &reason);
    void checkNotifications();
    // Deafness (a subscriber that hears nothing) and notification changes.
    void onSubscriberLost(const QString &reason);
    void onSubscriberBack();
    void recheckNotifications();
    void suspectNotifications();
    /** Re-sends every known lock marked stale (connection lost), so none passes for current. */
    void markStale();
    /** Nothing left to read: the baseline is done; a pass whose lock count changed as its reads
     *  landed is reported once more (discoveryProgress, finished); then idle(). */
    void becomeIdle();
    void setMode(Mode mode, const QString &detail);
    void onMessage(const QByteArray &channel, const QByteArray &payload, const QByteArray &pattern);
    void scheduleFlush();
    /** A name of discovery's hash pass: read plainly when nothing says it needs the script. */
    void markFoundHash(const QString &name);
    void flush();
    void flushPendingMessages();
    /** Puts the unlock messages held for `name` into `events` (this read's start at `first`),
     *  after the holders the read found gone (a message arrives before the release it follows). */
    void insertPendingMessages(const QString &name, int first, QVector<LockEvent> *events);
    void onPollTick();
    void applySnapshots(const QVector<LockSnapshot> &snapshots, const QHash<QString, QString> &hints);
    /** The delete evidence of `name` since a holder was last reported gone (§14.9). */
    LockEvent::Removal removalOf(const QString &name) const;
    /** Which of `candidates` (LockNames::withTwin(), §14.4) a channel message is about: the
     *  listed lock whose hash exists, else a listed one, else the first (plain) name. */
    QString ownerOf(const QStringList &candidates) const;

    QPointer<RedisConnection> m_connection;
    QPointer<RedisConnection> m_scanConnection;
    QPointer<RedisSubscriber> m_subscriber;
    std::function<bool(const QString &)> m_ownsName;                     ///< cluster: names this node serves
    std::function<void(const QString &, const QString &)> m_foreignName; ///< cluster: another master's
    LockDiscovery *m_discovery = nullptr;
    SnapshotReader *m_reader = nullptr;

    QString m_pattern = QStringLiteral("*");
    QRegularExpression m_patternRegex;
    bool m_matchAll = true; ///< the pattern is "*": no regex match per snapshot
    Mode m_mode = Mode::Connecting;
    QString m_modeDetail;
    bool m_forcePolling = false;
    bool m_oneShot = false;
    qint64 m_approxTotalKeys = -1;     ///< DBSIZE at the start of the current discovery pass
    qint64 m_passScanned = 0;          ///< keys the last finished pass reported as scanned
    qsizetype m_passFoundReported = 0; ///< locks reported when the last pass finished
    bool m_passReadsPending = false;   ///< the last pass's reads had not all landed when it finished
    bool m_started = false;
    bool m_notificationsOn = false;
    bool m_notificationsRequested = false; ///< enableNotifications() was called: re-apply on reconnect
    int m_pollIntervalMs = 1000;
    int m_coalesceMs = 16; // at most one read per frame
    int m_pollTicks = 0;
    int m_pollBudget = 2000;
    int m_lastDiscoveryTick = 0;
    bool m_pollDiscovery = false;      ///< the running discovery is polling's rediscovery
    qint64 m_discoveryNewReads = 0;    ///< names the running discovery marked dirty
    qint64 m_rediscoveryCommands = -1; ///< what the last discovery cost (commands), -1 = none yet
    QSet<QString> m_priority;
    std::deque<QString> m_sweep; ///< names left in the current polling sweep
    QString m_pollWhy;           ///< why polling (notifications off, requested)
    QByteArray m_keyspacePattern;

    QHash<QString, LockSnapshot> m_locks;
    QHash<QString, QString> m_dirty; // name -> strongest keyspace hint
    QSet<QString> m_dirtyPlain;      // of m_dirty: names a plain read may read (setPlainReads())
    bool m_plainReads = true;
    std::deque<QString> m_dirtyOrder; // FIFO of the keys of m_dirty (QHash::erase while iterating is slow)
    QSet<QString> m_notLocks;         // hashes read and found not to be locks
    QSet<QString> m_seenInScan;
    bool m_trackSeenInScan = true; ///< m_seenInScan is filled in this pass (not one-shot's first)
    QSet<QString> m_forceUnlockExpected;
    // Release or forced delete (§14.9): every unlock() of Redisson 3.24+ deletes the hash and then
    // writes its unlock latch in the same script, so their keyspace events come adjacent.
    /** Coalesced transitions: per lock, unlock messages "0" on its own channel (one
     *  per full release of an RLock or fenced lock, protocol §2.4) minus the full releases its
     *  reads reported. A hold that begins and ends between two reads (polling, or a burst) leaves
     *  a message no read can explain: the balance goes positive and is reported as a `coalesced`
     *  event. Entries at 0 are dropped; fair and read-write locks publish elsewhere and are not
     *  counted (an undercount, never a false one). */
    QHash<QString, int> m_removalBalance;
    /** unlock_message events waiting for the read of their lock, so they follow its release
     *  (it arrives first); m_messageTimer sends those no read took within kMessageHoldMs. */
    QHash<QString, QVector<LockEvent>> m_pendingMessages;
    QTimer m_messageTimer;
    qint64 m_coalescedTotal = 0;
    void accountRemovals(const QString &name, int reportedThisRead, QVector<LockEvent> *events);
    QString m_lastDeletedLock;                         ///< the last keyspace event was a `del` of this lock hash
    QHash<QString, LockEvent::Removal> m_removals;     ///< deletes seen since the lock's last read
    bool m_latchWritesSeen = false;                    ///< some client here writes unlock latches
    bool m_replica = false;                            ///< setReplica()
    std::function<qint64(const QString &)> m_discount; ///< setSubscriberDiscount()
    QSet<QString> m_removalDeferred;                   ///< read once more after a `del` (see applySnapshots)
    QSet<QString> m_seenFair;                          // names seen with a fair queue or timeout set (kindCertain)
    bool m_readInFlight = false;
    bool m_baselineDone = false; ///< first full read done: new locks from now on are "acquired" events
    QTimer m_flushTimer;
    QTimer m_pollTimer;
    // Deafness (a subscriber that hears nothing) and notification changes.
    QTimer m_recheckTimer;
    int m_notificationRecheckMs = 15000;
    bool m_subscriberLost = false; ///< the subscriber dropped and is not back yet
    QString m_subscriberLostReason;
    bool m_configUnreadable = false; ///< CONFIG GET refused: no periodic re-check
    bool m_recheckInFlight = false;
    QElapsedTimer m_sinceKeyspaceEvent; ///< invalid until the first keyspace event
    QElapsedTimer m_sinceSuspicion;     ///< rate limit of suspectNotifications()
};

} // namespace lockscope
