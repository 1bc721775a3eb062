#pragma once

#include "diagnose/doctorproberesult.h"
#include "endpoint/redisendpoint.h"
#include "protocol/acquireplan.h"
#include "protocol/clientidentity.h"
#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"
#include "protocol/replicationinfo.h"
#include "protocol/sessiontopology.h"
#include "protocol/topologyevent.h"
#include "protocol/watchmode.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QVector>

#include <functional>
#include <memory>
#include <optional>

class QTimer;

namespace lockscope
{

class AuditedWrites;
class ClientTracker;
class ClusterLockMonitor;
class ClusterRouter;
class ClusterTopology;
class DoctorLoop;
class DoctorProbe;
class ForceUnlocker;
class LockClient;
class LockHolds;
class LockMonitor;
class LockRepairs;
class LockSessionTestPeer;
class LockWatcher;
class RedisConnection;
class RedisConnectionPool;
class ReplicationWatch;
class SentinelResolver;
class ShardedSubscriber;
class SnapshotReader;
class StageTime;

/**
 * Everything one LockScope window or CLI command needs against one Redis: the connection pool,
 * the LockMonitor and LockScope's own LockClient (one client UUID per process), plus the
 * read-only guard. The GUI moves it to its `redis-io` thread and talks to it only through
 * queued invocations of its slots and its signals (value types only); the CLI uses it directly.
 *
 * Every write goes through one path (runWrite, AuditedWrites): refuse in read-only mode; re-read the lock;
 * perform the change in one atomic script which, for force unlock and repairs, first checks that
 * the lock is still in the state the operator confirmed (else it stops and reports the new state);
 * append an audit record (time, operator, server, action, lock, arguments, the snapshot before,
 * the result) to the AuditLog, fsync'd, and only then report through actionFinished().
 * Nothing is ever written to Redis except by these slots.
 *
 * Redis Sentinel (a `redis-sentinel://` endpoint): the command and pub/sub connections ask a
 * SentinelResolver for the master before every connection attempt, move to the new master when
 * the sentinels announce `+switch-master` (or name another master when asked again), and check
 * with ROLE after each connect, and on a READONLY or LOADING reply, that the server is still the
 * master. Each switch is reported as a `failover` LockEvent (eventsOccurred, so the event log and
 * `watch --json` show it) and as masterChanged(); the LockMonitor then re-reads everything on the
 * new master (and turns keyspace notifications on there too if enableNotifications() was asked).
 *
 * One path for one server and for a cluster: the session reads and writes through a ClusterTopology.
 * A single server (or the master a Sentinel names) is ClusterTopology::singleMaster(), one master
 * serving all 16384 slots; a Redis Cluster is the topology its ClusterRouter keeps. A lock goes to
 * the master serving its slot, and each master has its tools (NodeTools: reader, lock client,
 * force unlocker, repairs, doctor probe), made on first use on that master's command connection.
 * What differs is read from the topology: the publish verb (PUBLISH, or SPUBLISH in a cluster with
 * sharded pub/sub), one renewal script per slot in a cluster. Only the watcher differs by kind
 * (one LockMonitor, or a ClusterLockMonitor with one LockMonitor per master), behind LockWatcher.
 * Every session reports its masters with topologyChanged().
 *
 * Parts, by concern (one class each, so a change to writes or holds reads in one file): AuditedWrites (the write path
 * and audit records), LockHolds (LockScope's own holds: acquire, renew, release with the client of each kind),
 * SentinelFollower (Sentinel), DoctorLoop (the doctor every 2 s), ReplicationWatch (which held locks no replica
 * has), NodeTools (the per-master tools). This class composes them, routes a lock to its master and is the one
 * API of both front ends.
 *
 * This header shows intents only: what a front end asks (read, watch, diagnose, write) and what it
 * is told (signals of value types). The connections, the lock clients and the watcher stay inside
 * (tests reach them through LockSessionTestPeer, tests/support), so a front end compiles against no
 * connection, monitor or router header.
 *
 * Why locksession.cpp is long: it is the composition itself (routing a lock to its master, the
 * per-master tools, cluster detection, the watcher's signals handed on through the stage clock and
 * the replication verdicts, the write intents on the one audited path); each concern it composes is
 * a class of its own (see Parts).
 *
 * Threads: every member runs on the session's own thread (the thread it lives on: the dashboard's
 * `redis-io` thread, reached through queued invocations and signals; the CLI's main thread). Only
 * auditProblem(), clientId(), isReadOnly() and options() may be called from any thread.
 */
class LockSession : public QObject
{
    Q_OBJECT
public:
    struct Options {
        RedisEndpoint endpoint;
        QString pattern = QStringLiteral("*");
        bool readOnly = false;
        bool forcePolling = false;
        int pollIntervalMs = 1000;
        QString auditLogPath; ///< empty = AuditLog::defaultPath()
        /** prepare() (and so start()) first asks the server whether it is a Redis Cluster node
         *  (INFO cluster) and, if so, watches every master (enableCluster()). */
        bool detectCluster = false;
        /** prepare() loads the cluster topology without asking (CLI --cluster). */
        bool forceCluster = false;
        /** One discovery pass and one read per lock, then the monitor is idle for good
         *  (LockMonitor::setOneShot): no subscriptions, no polling, no doctor timer. CLI one-shot
         *  commands (list, doctor without --observe-ms). */
        bool oneShot = false;
        /** Polling load budget, Redis commands/s (LockMonitor::setPollBudget). */
        int pollBudget = 2000;
        /** The connection arguments the doctor's suggested commands end with, as the front end
         *  wants them pasted (LockDoctor::setCommandConnection: advice an operator pastes must reach this server), e.g.
         * "--url redis://h:6380". */
        QString commandConnection;
        /** Learn who each holder's client id is and follow it (ClientTracker: lock events matched
         *  with CLIENT LIST, at most clientListBudget calls per second per master; connections
         *  re-read every second). Off in one-shot sessions (nothing to correlate). */
        bool trackClients = true;
        int clientListBudget = 4;
        /** not_replicated turns critical after this long (ms; LockDoctor::Thresholds::replicationMs);
         *  0: a third of the lock's lease. */
        qint64 replicationThresholdMs = 0;
    };

    explicit LockSession(const Options &options, QObject *parent = nullptr);
    ~LockSession() override;

    /** Why the audit log cannot take a record now (AuditLog::check: path and cause), or empty when
     *  it can. Every write is refused while it cannot. File system only: safe to call from any
     *  thread, e.g. by the dashboard before it shows a confirmation. */
    QString auditProblem() const;
    /** LockScope's own Redisson client id (fixed at construction; safe to read from any thread). */
    QString clientId() const { return m_clientId; }
    bool isReadOnly() const { return m_options.readOnly; }
    const Options &options() const { return m_options; }

    // --- Intents: what the CLI and the dashboard ask of a session (they hold no connection,
    // --- lock client or monitor of their own).

    /** Opens the command connection without watching (`show`: one read, no discovery);
     *  connectionReady() / connectionLost() follow. start() opens it too. */
    void openConnection();
    /** True while the command connection is ready for commands. */
    bool isConnected() const;
    /** The last connection error as a sentence (empty when none). */
    QString lastConnectionError() const;
    /**
     * Reads lock `name` once, atomically (SnapshotReader, the snapshot script), from the node
     * serving it. `callback(snapshot, error)` once, on this session's thread, not at all when
     * `context` is destroyed first: `error` is empty on success; an absent lock is a snapshot
     * with `exists` false (and its companions, if any, described in it).
     */
    void readLock(const QString &name, QObject *context,
                  std::function<void(const LockSnapshot &snapshot, const QString &error)> callback);
    /** The watchdog timeout of LockScope's own client for `name`, ms (Redisson's
     *  lockWatchdogTimeout, 30000 by default; renewed every third of it). */
    qint64 watchdogTimeoutMs(const QString &name);

    /**
     * Who the holders are: a bounded MONITOR sample on every master for `clientIds` (empty: every
     * client id seen sending a lock script), for at most `sampleMs`, ended early once each is
     * identified (ClientTracker::identify). A user without +monitor runs no MONITOR: the sample
     * matches lock events with CLIENT LIST for the same time instead (which needs start(): the
     * events come from watching). clientsIdentified() when it ends.
     */
    void identifyClients(const QStringList &clientIds, qint64 sampleMs);
    /**
     * Forgets what the doctor and the lease-safety rules derived (DoctorLoop::reset) and takes
     * `oldestFirst` instead, as one batch of events just seen, then reports the findings at once
     * (findingsUpdated). The workshop's step back and restart: the findings become those of the
     * checkpoint's events, and nothing the restore's own writes caused (a fencing token put back
     * is no regression) nor an undone step's lease loss stays.
     */
    void resetDiagnosis(const QVector<LockEvent> &oldestFirst);
    /**
     * A single-server session moves to the server at `address` ("host:port", the seed's user,
     * password, TLS and db): its command, scan and pub/sub connections reconnect there at once
     * and the watch re-reads. With `failover` set it is a master change, as Sentinel reports one:
     * a `failover` event first (the lease-safety rules then check which held locks the new master
     * lacks: lost_in_failover) and masterChanged(). The workshop follows its scenario's master
     * with it. No-op in a cluster, with Sentinel, or when already there.
     */
    void followServer(const QString &address, const QString &why, bool failover);
    /**
     * The workshop: from now on every snapshot and event this session hands on (locksUpdated,
     * eventsOccurred) and every time its lease-safety rules and doctor use is on `time`, the
     * stage clock (StageTime), not real time. Null: real time (the default). Set before start().
     */
    void setStageTime(std::shared_ptr<const StageTime> time);
    /**
     * Every lock as last read (LockWatcher::locks()), each with its replication verdict
     * (ExposureTracker::apply: LockSnapshot::replication, replicatedOn, exposedMs) and, in the
     * workshop, on the stage clock. What the doctor diagnoses.
     */
    QHash<QString, LockSnapshot> locks() const;
    /**
     * One-shot commands (`show`, `list`), which did not see the locks written: what can be known of
     * `locks` (read just before) from each master's INFO replication, read now and, unless a
     * replica already has the master's offset, once more after ExposureTracker::kAckIntervalMs +
     * kMarginMs. Replicated when a replica has reached the offset of the first reading;
     * otherwise Unknown with a note (a replica silent for N s: writes of the last N s may be
     * missing there; no replica at all). Never NotReplicated: the write may be old. `done` gets
     * the locks with their replication fields; a master that does not answer leaves its locks
     * Unknown.
     */
    void judgeReplication(QVector<LockSnapshot> locks, std::function<void(QVector<LockSnapshot>)> done);
    /** What is known of one client id (ClientIdentity; unknown when nothing). Any thread that owns
     *  the session (its own). */
    ClientIdentity clientIdentity(const QString &clientId) const;
    /** Every client id known so far. */
    QVector<ClientIdentity> clientIdentities() const;
    /** Calls `visit` for every lock as last read, without a copy (200k locks: `list --json`),
     *  as the watcher holds them (no replication verdict, real time). */
    void forEachLock(const std::function<void(const LockSnapshot &)> &visit) const;
    /** Lock `name` as last read, as the watcher holds it (no replication verdict); an unknown name:
     *  a snapshot with an empty name and `exists` false. One hash lookup per master (no merged copy),
     *  fit for a per-event lookup. */
    LockSnapshot lock(const QString &name) const;
    /** How each server is read now: one mode for a single server, one per master of a cluster. */
    QVector<WatchMode> serverModes() const;
    /** Redis Cluster mode (after prepare() found one); front ends use topologyChanged() for the
     *  masters; isCluster() only words the CLI's suggested commands with --cluster. */
    bool isCluster() const;
    /** The session's masters with their monitor state now (what topologyChanged() reports). */
    SessionTopology sessionTopology() const;
    /**
     * The doctor's extra reads (DoctorProbe: orphaned waiters, unlock latches) on every master of
     * the topology (each for the locks it serves; the server alone outside a cluster), merged.
     * `callback` once; Result::error holds the first error met (partial results kept). A master
     * whose probe still runs from an earlier call gives that run's result (DoctorProbe::run).
     */
    void probeForDoctor(std::function<void(const DoctorProbeResult &)> callback);

    /**
     * Finds out what the server is, once (the CLI and the session each had their own
     * cluster detection): with Options::detectCluster asks the first node (INFO cluster; a
     * refused or failed INFO means a single server), with forceCluster does not ask; for a cluster
     * node loads the topology and calls enableCluster(). Opens the command connection only.
     * `ready(error)` once, on this object's thread: `error` empty, or why the topology of a
     * cluster node could not be read (the session then watches that node only). Sentinel:
     * ready at once (Sentinel names one master). A call while one runs is ignored.
     */
    void prepare(std::function<void(const QString &)> ready);

public slots:
    /** Opens the command and pub/sub connections (on this object's thread) without monitoring. */
    void open();
    /** prepare() unless done, then open() plus the watcher: discovery, then live updates or
     *  polling. A topology that could not be read is reported with errorOccurred(). */
    void start();
    void refresh();
    /** Stops a running scan (see LockMonitor::cancelDiscovery()). */
    void cancelScan();
    void setPattern(const QString &glob);
    /** Locks to re-read every poll tick: the ones the dashboard shows, filters to or has
     *  selected (LockMonitor::setPriorityLocks); the rest are swept within the poll budget. */
    void setPriorityLocks(const QStringList &names);
    void enableNotifications();
    /**
     * Acquire as LockScope's client with the client of the lock's kind (protocol §14.1):
     * LockClient (RLock, §2.2), FairLock (§3.2: queues behind the waiters, waits on its own
     * channel), ReadWriteLock read or write half (§4.2, §4.4), FencedLock (§5.2: INCRs the token,
     * reported in acquired()). The kind is decided from the lock re-read just before
     * (AcquirePlan::decide): `kind` Auto takes the kind the data says (`lock` for a free name;
     * refused on a read-write lock, where the operator must choose read or write), and a kind that
     * contradicts the data is refused ("refused", nothing written, a sentence saying what is
     * there). leaseMs <= 0 = watchdog; waitMs 0 = one attempt (a fair lock then never queues),
     * < 0 = forever. The audit record's args carry "kind" as asked; its message names the
     * kind taken ("Acquired NAME as FIELD (read lock, ...)").
     */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                 lockscope::AcquireKind kind = lockscope::AcquireKind::Auto);
    /** Renews LockScope's own hold of `threadId` to the watchdog timeout with the renewal of its
     *  kind: read-write lock: write renew if LockScope's ":write" field is there, else the read
     *  renewal of its rwlock_timeout keys (§4.6); fair, fenced, plain: the RLock renew (§2.6).
     *  "refused" when LockScope does not hold it. */
    void renew(const QString &name, qint64 threadId);
    /** Releases one hold of LockScope's `threadId` with the unlock of its kind: read-write lock:
     *  unlockWrite if LockScope's ":write" field is there, else unlockRead (§4.3, §4.5: the
     *  other readers' holds stay); fair lock (as acquired by LockScope, or a queue in the data):
     *  FairLock::unlock (§3.5, wakes the head waiter on its own channel); fenced and plain:
     *  LockClient::unlock (§2.3). */
    void release(const QString &name, qint64 threadId);
    /** Kind-aware force unlock (ForceUnlocker, protocol §9): atomic DEL + the wake-up message
     *  each kind's waiters listen for, so they acquire at once instead of after the TTL. Only if
     *  the lock still has `confirmedState` (LockSnapshot::stateFingerprint() of what the operator
     *  confirmed; without one, the state re-read just before is used); otherwise nothing is done
     *  and the result is "changed". */
    void forceUnlock(const QString &name, const std::optional<QString> &confirmedState = std::nullopt);
    /** Repair: give a lock without TTL one of `ttlMs` (only in the confirmed state). */
    void setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState);
    /** Repair: remove one waiter from a fair queue and timeout set (acquireFailed semantics). */
    void removeWaiter(const QString &name, const QString &field, qint64 waitMs);
    /** Repair: remove a dead reader (all its rwlock_timeout keys gone) from a read-write lock. */
    void removeReader(const QString &name, const QString &field);
    /** Repair: publish the unlock message for clients waiting on a lock that is free. */
    void wake(const QString &name);

signals:
    /** `action`: "acquire", "renew", "release", "force_unlock", "set_ttl", "remove_waiter",
     *  "remove_reader", "wake", "enable_notifications". `ok` = done and audited. `outcome`:
     *  "done", "changed" (refused: the lock changed since it was confirmed), "refused" (read-only,
     *  not held, nothing to do), "error" (server/transport), "audit_failed" (done, but the audit
     *  record could not be written). */
    void actionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                        const QString &outcome = QString());
    /** A successful acquire (emitted just before its actionFinished): the hash field of the hold
     *  (`<clientId>:<threadId>`, `...:write` for a write hold), the kind taken ("lock", "fair",
     *  "read", "write", "fenced") and, for a fenced lock, the fencing token of this acquire
     *  (else -1). */
    void acquired(const QString &lock, const QString &field, const QString &kind, qint64 token);
    /** How the server (in a cluster: a master) is read changed: connecting, live, polling,
     *  disconnected, with a sentence why. */
    void modeChanged(lockscope::WatchMode mode, const QString &detail);
    /** The watcher has nothing in flight: the first full read (a discovery pass and every read it
     *  asked) is done, and again after each rediscovery. One-shot commands print then. */
    void watchIdle();
    /** Reading the locks failed (a refused or failed scan or snapshot read, as the watcher said
     *  it; errorOccurred() says it too, with the ACL's missing commands). */
    void readFailed(const QString &message);
    void locksUpdated(const QVector<lockscope::LockSnapshot> &changed, const QStringList &removed);
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    /** See LockMonitor::discoveryProgress (`approxTotalKeys`: DBSIZE, -1 unknown). */
    void discoveryProgress(qint64 scannedKeys, qint64 locksFound, bool finished, qint64 approxTotalKeys);
    void notificationsChecked(bool enabled, const QString &detail);
    void errorOccurred(const QString &message);
    /** The doctor's current findings (LockDoctor over the monitor's snapshots), at most every 2 s. */
    void findingsUpdated(const QVector<lockscope::LockFinding> &findings);
    /** Redis Cluster mode: the masters changed (failover, slots moved, master down or added). */
    void topologyEventsOccurred(const QVector<lockscope::TopologyEvent> &events);
    /** The session's masters (sessionTopology()): for a single server or a Sentinel name one
     *  master serving every slot, emitted when watching starts, when its monitor's mode changes,
     *  when a discovery ends and when Sentinel names another master; for a Redis Cluster every
     *  master with its slots, replicas and monitor state, emitted when cluster mode starts and
     *  whenever one of them changes. */
    void topologyChanged(const lockscope::SessionTopology &topology);
    /** Redis Sentinel: the master of `masterName` moved from `oldAddress` to `newAddress`
     *  ("host:port"); `how` says who told us ("+switch-master from sentinel 127.0.0.1:26379").
     *  The connections are already moving to the new master. */
    void masterChanged(const QString &masterName, const QString &oldAddress, const QString &newAddress,
                       const QString &how);
    /** The watchdog of LockScope's own hold on `lock` could not renew it (`error`: the reply, e.g.
     *  CROSSSLOT, NOPERM, a lost connection): the hold is at risk and expires if no renewal
     *  succeeds within the lease. `lastRenewedEpochMs`: local epoch ms of its last good renewal.
     *  Also a `renewal_failed` LockEvent (eventsOccurred) and errorOccurred(). */
    void holdAtRisk(const QString &lock, const QString &error, qint64 lastRenewedEpochMs);
    /** A hold reported by holdAtRisk() was renewed again (also a `renewal_recovered` LockEvent). */
    void holdRecovered(const QString &lock);
    /** What is known of the clients changed (at most every 250 ms): every identity. */
    void clientsUpdated(const QVector<lockscope::ClientIdentity> &clients);
    /** identifyClients() ended: `method` "monitor" or "correlation" (MONITOR not allowed), `note`
     *  a sentence saying what was found or why MONITOR did not run. */
    void clientsIdentified(const QString &method, const QString &note);
    /** A sentence worth saying once that is no error (e.g. CLIENT LIST refused by the ACL: holders
     *  cannot be identified, everything else works). Never a reason to stop. */
    void noticeOccurred(const QString &message);
    /** A master's INFO replication, read about once a second while watching (its offset, each
     *  replica's acknowledged offset and lag): the exporter's replica lag gauges. */
    void replicationRead(const QString &master, const lockscope::ReplicationInfo &info);
    /** The command connection is ready (after each connect and reconnect). */
    void connectionReady();
    /** The command connection was lost: `reason` as a sentence; it reconnects by itself. */
    void connectionLost(const QString &reason);
    /** Once per connection (dashboard sessions that may write): the write commands the server
     *  refuses the ACL user `user` (acl_write_probe.lua; lower case, "config|set"). An empty
     *  list: every write allowed. Not emitted when the server cannot say (before Redis 7). Feed
     *  to WritePermissions. */
    void writesChecked(const QString &user, const QStringList &refused);

private:
    friend class LockSessionTestPeer; // tests/support: the parts behind the intents

    // --- Behind the intents: core/session's own parts, and tests through LockSessionTestPeer.

    /** What watches the locks: the single server's LockMonitor, or after enableCluster() the
     *  ClusterLockMonitor of every master (its signals feed this session's signals). */
    LockWatcher *watcher() const { return m_watcher; }
    /** The single server's monitor; nullptr once the session found a Redis Cluster. */
    LockMonitor *monitor() const { return m_monitor; }
    /** LockScope's lock client on the master serving slot 0 (the server's, outside a cluster). */
    LockClient *client() { return clientFor(QString()); }
    /** The seed's command connection (the server's, outside a cluster; follows a Sentinel's master). */
    RedisConnection *connection() const;
    /** The masters and slots the session routes by: ClusterTopology::singleMaster() of the server
     *  until enableCluster(), then the cluster's, as its router keeps it. */
    const ClusterTopology &topology() const;
    /** The cluster's router (follows MOVED and ASK, re-reads the topology); nullptr outside a cluster. */
    ClusterRouter *router() const { return m_router; }
    /** LockScope's lock client on the master serving `name`: one client per master, all with
     *  clientId(), created on first use (one for a single server). */
    LockClient *clientFor(const QString &name);
    /** The command connection of the master serving `name` (connection() outside a cluster). */
    RedisConnection *connectionFor(const QString &name);
    /** The publish verb of every unlock, force unlock and repair, Redisson's rule (§1.3, §14.3):
     *  "spublish" in a Redis 7+ cluster with sharded pub/sub (ClusterTopology::shardedPubSub()),
     *  else "publish" (ClusterTopology::publishCommand()). In the first case LockScope's own
     *  waiters SSUBSCRIBE too. */
    QByteArray publishCommand() const;
    /** LockScope's own watchdog holds whose last renewal failed (they may expire while LockScope
     *  believes it holds them; see holdAtRisk()). */
    QStringList holdsAtRisk() const;
    /** Redis Sentinel mode (a `redis-sentinel://` endpoint): the resolver; nullptr otherwise. */
    SentinelResolver *sentinel() const { return m_sentinel; }
    /** Switches to Redis Cluster mode with `topology` (ClusterRouter::load() of the seed). Call
     *  before start(); reads and writes of a lock then go to the master serving its slot. With
     *  sharded pub/sub (topology.shardedPubSub(), Redis 7+) unlocks, force unlocks and repairs
     *  publish with SPUBLISH and LockScope's own waiters SSUBSCRIBE, as Redisson does (§14.3);
     *  force unlock also sends a classic PUBLISH (ForceUnlocker::setAlsoPublishClassic()). */
    void enableCluster(const lockscope::ClusterTopology &topology);

    void startWatching();
    /** The rules' monotonic clock (ms): real steady time, or the stage's (setStageTime). */
    qint64 steadyNowMs() const;
    /** The watcher's snapshot `s` as handed on: replication verdict applied, stage clock. */
    LockSnapshot handedOn(LockSnapshot s) const;
    /** Emits eventsOccurred() with the watcher's (or Sentinel's) `events` as the lease-safety
     *  rules show them (DoctorLoop::observeEvents: lease_lost, lost_in_failover, ...). */
    void emitEvents(const QVector<lockscope::LockEvent> &events);
    /** Forwards a watcher error; a read refused inside a script (no command named) is followed,
     *  once, by one sentence per command the ACL user may not run (acl_probe.lua). */
    void onWatcherError(const QString &message);
    bool m_aclProbed = false;
    /** Asks the server which write commands the ACL user may not run (writesChecked()). */
    void probeWrites();
    bool m_writesProbed = false;
    using Done = std::function<void(const QString &outcome, const QString &message)>;
    /** The one write path: read-only check, re-read, perform, audit, report (LockHolds too). */
    void runWrite(const QString &action, const QString &name, const QJsonObject &args,
                  std::function<void(const LockSnapshot &before, Done done)> perform);
    void finishWrite(const QString &action, const QString &name, const QJsonObject &args, const LockSnapshot &before,
                     const QString &outcome, const QString &message);

    /** Emits topologyChanged(sessionTopology()). */
    void emitTopology();
    SnapshotReader *readerFor(const QString &name);
    ForceUnlocker *unlockerFor(const QString &name);
    LockRepairs *repairsFor(const QString &name);

    Options m_options;
    /** The single server as a one-master topology (its address: the seed's, the pool's key, also
     *  for a Sentinel name); topology() until a cluster replaces it. */
    std::unique_ptr<ClusterTopology> m_singleTopology;
    ClusterRouter *m_router = nullptr; ///< a cluster's (enableCluster()); nullptr for a single server
    ClusterLockMonitor *m_clusterMonitor = nullptr;
    LockWatcher *m_watcher = nullptr; ///< m_monitor, or m_clusterMonitor in a cluster
    /** Makes `watcher` the one this session follows: options applied, signals forwarded. */
    void attachWatcher(LockWatcher *watcher);
    bool m_detecting = false; ///< prepare() is asking whether the server is a cluster node
    bool m_prepared = false;  ///< prepare() finished
    /** What LockScope reads and writes one master with (one record instead of five per-master caches),
     *  each tool made on first use on the master's own command connection. */
    struct NodeTools {
        SnapshotReader *reader = nullptr;
        ForceUnlocker *unlocker = nullptr;
        LockClient *client = nullptr;
        DoctorProbe *probe = nullptr;
        LockRepairs *repairs = nullptr;
        ShardedSubscriber *sharded = nullptr; ///< cluster with sharded pub/sub: own waiters
    };
    /** By master address of topology() (the seed's alone for a single server; empty: a cluster
     *  slot no known master serves, reached on the seed). */
    QHash<QString, NodeTools> m_nodeTools;
    /** The tools of the master serving `name`; `address` gets that master's address. */
    NodeTools &toolsFor(const QString &name, QString *address);
    /** The command connection of master `address`: a cluster's through its router (opened, and
     *  its loss makes the router re-read the topology); the single server's is the pool's seed
     *  connection, opened by open() / openConnection() only, as before the topology was one. */
    RedisConnection *connectionOf(const QString &address);
    /** The endpoint of master `address` (the seed itself for the seed's address, else the seed's
     *  credentials and TLS with that host and port). */
    RedisEndpoint endpointOf(const QString &address) const;
    /** The single server's progress (topologyChanged() of a single server carries it). */
    qint64 m_scannedKeys = 0;
    qint64 m_locksFound = 0;
    bool m_scanFinished = false;
    LockHolds *m_holds = nullptr; ///< LockScope's own holds: acquire, renew, release by kind
    QString m_clientId;
    RedisConnectionPool *m_pool = nullptr;
    LockMonitor *m_monitor = nullptr;
    AuditedWrites *m_writes = nullptr;            ///< the one write path: checks, re-read, audit record
    std::shared_ptr<const StageTime> m_stageTime; ///< the workshop's stage clock; null: real time
    ReplicationWatch *m_replication = nullptr;    ///< which held locks no replica has (watching only)
    DoctorLoop *m_doctorLoop = nullptr;           ///< diagnose every 2 s, probe every 20 s (not in one-shot)
    SentinelResolver *m_sentinel = nullptr;       ///< Sentinel mode: SentinelFollower's resolver
    ClientTracker *m_clients = nullptr;           ///< who the holders are (identity, connected or gone)
    QTimer *m_clientsChanged = nullptr;           ///< coalesces clientsUpdated()
    /** holder_disconnected events for every lock `client` holds, then eventsOccurred(). */
    void onClientDisconnected(const lockscope::ClientIdentity &client);
    /** Every identity to the doctor (holder_disconnected) and out with clientsUpdated(), now. */
    void publishClients();
    /** ROLE after each connect: a replica is said so at once (noticeOccurred) and its monitor
     *  reads deletions as "expired or deleted, cannot tell" (LockMonitor::setReplica). */
    void checkRole();
};

} // namespace lockscope
