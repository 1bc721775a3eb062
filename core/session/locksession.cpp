#include "session/locksession.h"
#include "act/auditlog.h"
#include "act/writepermissions.h"
#include "redis/redisbytes.h"

#include "act/forceunlocker.h"
#include "act/lockrepairs.h"
#include "diagnose/doctorloop.h"
#include "diagnose/doctorprobe.h"
#include "diagnose/lockdoctor.h"
#include "session/auditedwrites.h"
#include "session/lockholds.h"
#include "session/replicationwatch.h"
#include "session/sentinelfollower.h"
#include "session/stagetime.h"
#include "watch/clienttracker.h"
#include "watch/clusterlockmonitor.h"
#include "watch/lockmonitor.h"
#include "watch/snapshotreader.h"

#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "redis/clusterrouter.h"
#include "redis/clustertopology.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/redisscript.h"
#include "redis/redissubscriber.h"
#include "redis/sentinelresolver.h"
#include "redis/shardedsubscriber.h"

#include <QDateTime>
#include <QJsonArray>
#include <QSysInfo>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <memory>

namespace lockscope
{

LockSession::LockSession(const Options &options, QObject *parent)
    : QObject(parent), m_options(options), m_clientId(QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    m_pool = new RedisConnectionPool(options.endpoint, this);
    m_singleTopology = std::make_unique<ClusterTopology>(ClusterTopology::singleMaster(m_pool->seed().address()));
    connect(m_pool->connection(), &RedisConnection::ready, this, &LockSession::connectionReady);
    connect(m_pool->connection(), &RedisConnection::ready, this, &LockSession::checkRole);
    connect(m_pool->connection(), &RedisConnection::connectionLost, this, &LockSession::connectionLost);
    // Every write: read-only and audit checks, re-read, perform, audit record, actionFinished.
    AuditedWrites::Setup setup;
    setup.readOnly = options.readOnly;
    setup.server = options.endpoint.toString();
    setup.clientId = m_clientId;
    setup.auditLogPath = options.auditLogPath;
    setup.connectionFor = [this](const QString &name) { return connectionFor(name); };
    setup.readerFor = [this](const QString &name) { return readerFor(name); };
    // Sentinel's master, or the server followServer() moved to: the one written to.
    setup.masterAddress = [this] {
        const QString now = connection()->endpoint().address();
        return m_sentinel || now != m_pool->seed().address() ? now : QString();
    };
    setup.written = [this](const QString &name) { m_watcher->markDirty(name); };
    setup.unknownSettled = [this](const QString &action, const QString &name, const QJsonObject &args,
                                  const LockSnapshot &after) {
        return m_holds->settleUnknown(action, name, args, after);
    };
    m_writes = new AuditedWrites(setup, this);
    connect(m_writes, &AuditedWrites::actionFinished, this, &LockSession::actionFinished);
    // LockScope's own holds (acquire, renew, release by kind) through the one audited write path.
    m_holds = new LockHolds(
        m_clientId, [this](const QString &name) { return clientFor(name); },
        [this](const QString &action, const QString &name, const QJsonObject &args, LockHolds::Perform perform) {
            runWrite(action, name, args, std::move(perform));
        },
        this);
    connect(m_holds, &LockHolds::acquired, this, &LockSession::acquired);
    connect(m_holds, &LockHolds::holdAtRisk, this, &LockSession::holdAtRisk);
    connect(m_holds, &LockHolds::holdRecovered, this, &LockSession::holdRecovered);
    connect(m_holds, &LockHolds::eventsOccurred, this, &LockSession::eventsOccurred);
    connect(m_holds, &LockHolds::errorOccurred, this, &LockSession::errorOccurred);
    if (options.endpoint.isSentinel()) {
        auto *follower = new SentinelFollower(options.endpoint, m_pool, this);
        m_sentinel = follower->resolver();
        connect(follower, &SentinelFollower::masterChanged, this, &LockSession::masterChanged);
        connect(follower, &SentinelFollower::eventsOccurred, this, &LockSession::emitEvents);
        connect(follower, &SentinelFollower::errorOccurred, this, &LockSession::errorOccurred);
    }
    RedisConnection *conn = m_pool->connection();
    // A network that drops everything silently (no RST, no FIN) is noticed in ~3 s, not never.
    conn->setHealthCheckMs(1000, 3000);
    m_monitor = new LockMonitor(conn, m_pool->subscriber(), this);
    if (!options.endpoint.isSentinel()) { // a Sentinel-resolved master would need the resolver too
        m_pool->scanConnection()->setHealthCheckMs(1000, 3000);
        m_monitor->setScanConnection(m_pool->scanConnection()); // the monitor opens it (the doctor probe uses it then)
    }
    qRegisterMetaType<lockscope::LockFinding>();
    qRegisterMetaType<lockscope::ReplicationInfo>();
    ReplicationWatch::Routes routes;
    routes.masters = [this] { return topology().masters(); };
    routes.masterOf = [this](const QString &lock) { return topology().masterForKey(RedisBytes::toBytes(lock)); };
    routes.connectionOf = [this](const QString &master) { return connectionOf(master); };
    m_replication = new ReplicationWatch(std::move(routes), this);
    connect(m_replication, &ReplicationWatch::replicationRead, this, &LockSession::replicationRead);
    connect(m_replication, &ReplicationWatch::noticeOccurred, this, &LockSession::noticeOccurred);
    connect(m_replication, &ReplicationWatch::verdictsChanged, this, [this](const QSet<QString> &names) {
        QVector<LockSnapshot> out;
        m_watcher->forEachLock([this, &names, &out](const LockSnapshot &s) {
            if (names.contains(s.name))
                out << handedOn(s);
        });
        if (!out.isEmpty())
            emit locksUpdated(out, {});
    });
    // A new master (Sentinel, the workshop's failover) has offsets of its own: start over.
    connect(this, &LockSession::masterChanged, m_replication, &ReplicationWatch::clear);
    qRegisterMetaType<QVector<lockscope::LockFinding>>();
    qRegisterMetaType<lockscope::SessionTopology>();
    attachWatcher(m_monitor);
    // The single server's entry of topologyChanged(): its monitor's mode and discovery progress.
    connect(m_monitor, &LockWatcher::modeChanged, this, &LockSession::emitTopology);
    connect(m_monitor, &LockWatcher::discoveryProgress, this,
            [this](qint64 scanned, qint64 found, bool finished, qint64) {
                m_scannedKeys = scanned;
                m_locksFound = found;
                const bool ended = finished && !m_scanFinished;
                m_scanFinished = finished;
                if (ended)
                    emitTopology();
            });
    // The doctor runs on a timer, not per batch: diagnose every 2 s, probe channels and latches every 20 s.
    m_doctorLoop = new DoctorLoop([this] { return locks(); }, this);
    m_doctorLoop->setClock([this] { return steadyNowMs(); });
    m_doctorLoop->doctor().setCommandConnection(options.commandConnection);
    LockDoctor::Thresholds thresholds;
    thresholds.replicationMs = options.replicationThresholdMs;
    m_doctorLoop->doctor().setThresholds(thresholds);
    m_doctorLoop->setProbe([this](DoctorLoop::ProbeDone done) {
        // Not while no master can answer: the last probe's findings stand meanwhile.
        const QStringList masters = topology().masters();
        if (std::any_of(masters.cbegin(), masters.cend(),
                        [this](const QString &m) { return m_pool->connection(endpointOf(m))->isReady(); }))
            probeForDoctor(std::move(done));
    });
    connect(m_doctorLoop, &DoctorLoop::findingsUpdated, this, &LockSession::findingsUpdated);
    // Who the holders are: correlation of lock events with CLIENT LIST, MONITOR samples on demand.
    ClientTracker::Servers servers;
    servers.masters = [this] { return topology().masters(); };
    servers.connection = [this](const QString &master) { return connectionOf(master); };
    servers.endpoint = [this](const QString &master) {
        return m_sentinel ? connection()->endpoint() : endpointOf(master); // a Sentinel's: the master it names
    };
    servers.masterOf = [this](const QString &lock) { return topology().masterForKey(RedisBytes::toBytes(lock)); };
    m_clients = new ClientTracker(servers, this);
    m_clients->setOwnClientId(m_clientId);
    m_clients->setClientListBudget(options.trackClients ? options.clientListBudget : 0);
    m_clientsChanged = new QTimer(this);
    m_clientsChanged->setSingleShot(true);
    m_clientsChanged->setInterval(250);
    qRegisterMetaType<QVector<lockscope::ClientIdentity>>();
    connect(m_clientsChanged, &QTimer::timeout, this, &LockSession::publishClients);
    connect(m_clients, &ClientTracker::identitiesChanged, this, [this] {
        if (!m_clientsChanged->isActive())
            m_clientsChanged->start();
    });
    connect(m_clients, &ClientTracker::clientDisconnected, this, &LockSession::onClientDisconnected);
    connect(m_clients, &ClientTracker::clientIdentified, this, [this](const ClientIdentity &c) {
        LockEvent e;
        e.timeMs = QDateTime::currentMSecsSinceEpoch();
        e.type = QStringLiteral("client_identified");
        e.holder = c.clientId;
        e.detail = QStringLiteral("client %1: %2").arg(c.clientId, c.summary());
        e.extra.insert(QStringLiteral("client"), c.toJson());
        emit eventsOccurred({e});
    });
    connect(m_clients, &ClientTracker::identifyFinished, this, [this](const QString &method, const QString &note) {
        publishClients(); // the findings and views get what the sample learnt before the caller reads it
        emit clientsIdentified(method, note);
    });
    connect(m_clients, &ClientTracker::notice, this, &LockSession::noticeOccurred);
    if (m_sentinel) // the one master's address is the new master's
        connect(this, &LockSession::masterChanged, this, &LockSession::emitTopology);
}

LockSession::~LockSession() = default;

void LockSession::openConnection()
{
    connection()->open();
}

bool LockSession::isConnected() const
{
    return connection()->isReady();
}

QString LockSession::lastConnectionError() const
{
    return connection()->lastError();
}

void LockSession::readLock(const QString &name, QObject *context,
                           std::function<void(const LockSnapshot &, const QString &)> callback)
{
    const bool sharded = m_router && topology().shardedPubSub();
    QPointer<QObject> ctx(context);
    readerFor(name)->read(
        {name}, context,
        [this, name, callback, sharded, ctx](const QVector<LockSnapshot> &snaps, const QString &error) {
            LockSnapshot s = snaps.value(0);
            if (s.name.isEmpty())
                s.name = name;
            if (!sharded || !s.exists || s.subscribers <= 0) {
                callback(s, error);
                return;
            }
            // Sharded pub/sub: LockScope watchers SSUBSCRIBE to held locks' channels;
            // they are no waiters (ClusterLockMonitor::watcherPatterns).
            RedisConnection *conn = connectionFor(name);
            conn->send({"CLIENT", "LIST", "TYPE", "pubsub"}, this,
                       [s, error, callback, ctx](const RedisReply &r) mutable {
                           if (!r.isError())
                               s.subscribers =
                                   std::max<qint64>(0, s.subscribers - ClusterLockMonitor::watchersMatching(
                                                                           ClusterLockMonitor::watcherPatterns(
                                                                               ClientListEntry::parse(r.toByteArray())),
                                                                           s.name));
                           if (ctx)
                               callback(s, error);
                       });
        });
}

qint64 LockSession::watchdogTimeoutMs(const QString &name)
{
    return clientFor(name)->watchdogTimeoutMs();
}

void LockSession::onWatcherError(const QString &message)
{
    emit errorOccurred(message);
    // A read script refused inside ("can't run this command or subcommand") names no command:
    // ask the server once which of the commands the reads use this user may not run, so the
    // operator is told what to grant instead of a guess (acl_probe.lua, Redis 7+).
    if (m_aclProbed || !message.contains(QLatin1String("can't run this command or subcommand")))
        return;
    m_aclProbed = true;
    static const RedisScript probe = RedisScript::fromResource(QStringLiteral("acl_probe"));
    const QString user =
        m_options.endpoint.username().isEmpty() ? QStringLiteral("default") : m_options.endpoint.username();
    probe.eval(connection(), {QByteArrayLiteral("lockscope:acl-probe")}, {}, this, [this, user](const RedisReply &r) {
        if (r.isError() || r.size() == 0)
            return; // before Redis 7 (no redis.acl_check_cmd), or nothing refused: the first sentence stands
        for (const RedisReply &c : r.elements()) {
            const QString command = RedisBytes::toText(c.toByteArray());
            emit errorOccurred(QStringLiteral("the ACL user '%1' may not run '%2' (called by LockScope's Lua script, "
                                              "which every lock read uses): NOPERM grant it with ACL SETUSER %1 +%2")
                                   .arg(user, command));
        }
    });
}

void LockSession::probeWrites()
{
    if (m_writesProbed || m_options.oneShot || m_options.readOnly)
        return;
    m_writesProbed = true;
    static const RedisScript probe = RedisScript::fromResource(QStringLiteral("acl_write_probe"));
    const QString user =
        m_options.endpoint.username().isEmpty() ? QStringLiteral("default") : m_options.endpoint.username();
    // Key and channel of the pattern's own namespace would be better; any name shows the
    // command permissions, which is what a viewer account lacks. Every command a write's scripts
    // may call is asked about, reads too (WritePermissions::commandsOf).
    QList<QByteArray> commands;
    for (const QString &c : WritePermissions::allCommands())
        commands << c.toLatin1();
    probe.eval(
        connection(),
        {QByteArrayLiteral("lockscope:acl-probe"), QByteArrayLiteral("redisson_lock__channel:{lockscope:acl-probe}")},
        commands, this, [this, user](const RedisReply &r) {
            if (r.isError()) {
                // A user that may not run scripts at all can perform no write.
                if (r.isPermissionError())
                    emit writesChecked(user, {QStringLiteral("evalsha")});
                return; // before Redis 7 (no redis.acl_check_cmd), or MOVED in a cluster: nothing known
            }
            // The publish verb is the topology's: SPUBLISH (and SHARDNUMSUB) only with sharded
            // pub/sub, where force unlock also sends a classic PUBLISH. A refusal of the verb not
            // in use refuses nothing.
            const bool sharded = publishCommand().toLower() == "spublish";
            QStringList refused;
            for (const RedisReply &c : r.elements()) {
                const QString name = RedisBytes::toText(c.toByteArray());
                if (sharded || (name != QLatin1String("spublish") && name != QLatin1String("pubsub|shardnumsub")))
                    refused << name;
            }
            emit writesChecked(user, refused);
        });
}

LockSnapshot LockSession::handedOn(LockSnapshot s) const
{
    if (m_stageTime)
        s = m_stageTime->mapped(s);
    m_replication->apply(s, LockSnapshot::steadyNowMs());
    return s;
}

void LockSession::forEachLock(const std::function<void(const LockSnapshot &)> &visit) const
{
    m_watcher->forEachLock(visit);
}

LockSnapshot LockSession::lock(const QString &name) const
{
    return m_watcher->lock(name);
}

QVector<WatchMode> LockSession::serverModes() const
{
    return m_watcher->serverModes();
}

bool LockSession::isCluster() const
{
    return topology().isCluster();
}

QHash<QString, LockSnapshot> LockSession::locks() const
{
    QHash<QString, LockSnapshot> all = m_watcher->locks();
    if (m_options.oneShot)
        return all;
    if (m_stageTime) { // the workshop: a few locks, every one on the stage clock
        for (LockSnapshot &s : all)
            s = handedOn(s);
        return all;
    }
    // The doctor needs the exposed ones (not_replicated); the rest stay shared with the watcher's
    // (no copy of 200k snapshots every 2 s).
    const qint64 now = LockSnapshot::steadyNowMs();
    for (const QString &name : m_replication->exposed()) {
        const auto it = all.find(name);
        if (it != all.end())
            m_replication->apply(it.value(), now);
    }
    return all;
}

void LockSession::judgeReplication(QVector<LockSnapshot> locks, std::function<void(QVector<LockSnapshot>)> done)
{
    m_replication->judge(std::move(locks), std::move(done));
}

void LockSession::setStageTime(std::shared_ptr<const StageTime> time)
{
    m_stageTime = std::move(time);
}

qint64 LockSession::steadyNowMs() const
{
    const qint64 now = LockSnapshot::steadyNowMs();
    return m_stageTime ? m_stageTime->steadyMs(now) : now;
}

void LockSession::resetDiagnosis(const QVector<LockEvent> &oldestFirst)
{
    if (m_options.oneShot)
        return;
    m_doctorLoop->reset();
    m_doctorLoop->observe(locks().values().toVector(), {});
    m_doctorLoop->observeEvents(oldestFirst);
    emit findingsUpdated(m_doctorLoop->diagnose());
}

void LockSession::followServer(const QString &address, const QString &why, bool failover)
{
    RedisConnection *command = m_pool->connection();
    const QString old = command->endpoint().address();
    if (m_router || m_sentinel || address.isEmpty() || address == old)
        return;
    const RedisEndpoint target = ClusterTopology::endpointFor(address, m_pool->seed());
    const RedisConnection::EndpointResolver resolver = [target](RedisConnection::ResolvedCallback done) {
        done(target, QString(), false);
    };
    m_replication->clear(); // another server: its own replicas and offsets
    if (failover) {
        LockEvent e;
        e.timeMs = QDateTime::currentMSecsSinceEpoch();
        e.type = QStringLiteral("failover");
        e.detail =
            QStringLiteral("the master moved from %1 to %2 (%3): LockScope follows it to %2").arg(old, address, why);
        e.extra = QJsonObject{{QStringLiteral("old_master"), old},
                              {QStringLiteral("new_master"), address},
                              {QStringLiteral("source"), why}};
        emitEvents({e});
        emit masterChanged(QString(), old, address, why);
    }
    for (RedisConnection *c : {command, m_pool->scanConnection(), m_pool->subscriber()->connection()}) {
        c->setEndpointResolver(resolver);
        c->reconnectNow(why);
    }
}

void LockSession::emitEvents(const QVector<LockEvent> &events)
{
    // One-shot reads have no doctor loop fed; their events (none in practice) go out as they are.
    QVector<LockEvent> staged;
    if (m_stageTime) {
        const qint64 now = LockSnapshot::steadyNowMs();
        staged.reserve(events.size());
        for (const LockEvent &e : events)
            staged << m_stageTime->mapped(e, now);
    }
    const QVector<LockEvent> &in = m_stageTime ? staged : events;
    if (!m_options.oneShot) {
        // Lock writes: the exposure clock of each starts (ExposureTracker: replicated or not; real time).
        m_replication->observeEvents(in, LockSnapshot::steadyNowMs());
    }
    const QVector<LockEvent> shown = m_options.oneShot ? in : m_doctorLoop->observeEvents(in);
    m_clients->observeEvents(shown);
    emit eventsOccurred(shown);
}

void LockSession::checkRole()
{
    if (m_router || m_sentinel)
        return; // a cluster routes to masters; Sentinel follows the master itself (ROLE there)
    connection()->send({"ROLE"}, this, [this](const RedisReply &r) {
        if (r.isError() || r.size() < 1 || !m_monitor)
            return;
        const bool replica = r.at(0).toByteArray() == "slave";
        if (replica == m_monitor->isReplica())
            return;
        m_monitor->setReplica(replica);
        if (!replica)
            return;
        const QString master =
            r.size() >= 3
                ? QStringLiteral("%1:%2").arg(RedisBytes::toText(r.at(1).toByteArray())).arg(r.at(2).toInteger())
                : QStringLiteral("its master");
        emit noticeOccurred(
            QStringLiteral("%1 is a replica of %2: it shows its master's locks, but gets their expiries "
                           "as deletions, so a lock that expires and one released or force-unlocked "
                           "look alike here (events say 'removed'), and every write is refused "
                           "(READONLY). Connect to %2 to see lost leases and to act.")
                .arg(connection()->endpoint().address(), master));
    });
}

void LockSession::identifyClients(const QStringList &clientIds, qint64 sampleMs)
{
    if (m_clients->clientListBudget() <= 0)
        m_clients->setClientListBudget(std::max(1, m_options.clientListBudget)); // the sample's fallback correlates
    m_clients->start();
    m_clients->identify(clientIds, sampleMs);
}

ClientIdentity LockSession::clientIdentity(const QString &clientId) const
{
    return m_clients->identity(clientId);
}

QVector<ClientIdentity> LockSession::clientIdentities() const
{
    return m_clients->identities();
}

void LockSession::onClientDisconnected(const ClientIdentity &client)
{
    QVector<LockEvent> out;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QHash<QString, LockSnapshot> locks = m_watcher->locks();
    for (const LockSnapshot &s : locks) {
        for (const LockHolder &h : s.holders) {
            if (h.clientId != client.clientId)
                continue;
            LockEvent e;
            e.timeMs = now;
            e.lock = s.name;
            e.type = QStringLiteral("holder_disconnected");
            e.holder = h.field;
            e.detail = QStringLiteral("every connection of its client closed (%1%2) at %3; it still holds the lock "
                                      "(TTL %4 ms at the last read)")
                           .arg(client.lastAddresses.join(QStringLiteral(", ")),
                                client.name.isEmpty() ? QString() : QStringLiteral(", '%1'").arg(client.name),
                                QDateTime::fromMSecsSinceEpoch(client.disconnectedAtMs)
                                    .toString(QStringLiteral("HH:mm:ss.zzz")))
                           .arg(s.pttlMs);
            e.extra.insert(QStringLiteral("client_id"), client.clientId);
            e.extra.insert(QStringLiteral("addresses"), QJsonArray::fromStringList(client.lastAddresses));
            e.extra.insert(QStringLiteral("name"), client.name);
            e.extra.insert(QStringLiteral("host"), client.host);
            e.extra.insert(QStringLiteral("disconnected_at_ms"), client.disconnectedAtMs);
            e.extra.insert(QStringLiteral("pttl_ms"), s.pttlMs);
            out << e;
        }
    }
    publishClients(); // the doctor's holder_disconnected comes with the events
    if (!out.isEmpty())
        emit eventsOccurred(out);
}

void LockSession::publishClients()
{
    m_clientsChanged->stop();
    const QVector<ClientIdentity> all = m_clients->identities();
    m_doctorLoop->doctor().observeClients(all);
    emit clientsUpdated(all);
}

void LockSession::attachWatcher(LockWatcher *watcher)
{
    if (m_watcher)
        m_watcher->disconnect(this);
    m_watcher = watcher;
    watcher->setPattern(m_options.pattern);
    watcher->setForcePolling(m_options.forcePolling);
    watcher->setOneShot(m_options.oneShot);
    watcher->setPollIntervalMs(m_options.pollIntervalMs);
    watcher->setPollBudget(m_options.pollBudget);
    connect(watcher, &LockWatcher::locksUpdated, this,
            [this](const QVector<LockSnapshot> &changed, const QStringList &removed) {
                // No doctor loop, no replication verdicts in one-shot reads: `doctor` keeps its own
                // DoctorLoop, `list` needs none (200k snapshots would pass through it for nothing).
                if (m_options.oneShot) {
                    emit locksUpdated(changed, removed);
                    return;
                }
                // Replication runs on real time, whatever clock the rules use: a replica acknowledges
                // every real second, also while the workshop's stage clock stands still.
                const qint64 now = LockSnapshot::steadyNowMs();
                for (const QString &name : removed)
                    m_replication->forget(name);
                QVector<LockSnapshot> out;
                out.reserve(changed.size());
                for (const LockSnapshot &s : changed) {
                    const LockSnapshot staged = m_stageTime ? m_stageTime->mapped(s) : s;
                    m_replication->observe(s, now); // real time, like the replicas
                    out << staged;
                    m_replication->apply(out.last(), now);
                }
                m_doctorLoop->observe(out, removed);
                emit locksUpdated(out, removed);
            });
    connect(watcher, &LockWatcher::modeChanged, this, [this](LockWatcher::Mode mode, const QString &) {
        // Lease safety: an expiry while LockScope could not see the server is not a lost lease it
        // can vouch for, and a polled renewal may have come up to a poll interval before its read.
        LeaseTracker &leases = m_doctorLoop->doctor().leases();
        leases.setBlind(mode == LockWatcher::Mode::Disconnected, steadyNowMs());
        leases.setReadLagMs(mode == LockWatcher::Mode::Polling ? m_options.pollIntervalMs : 50);
        m_clients->setEventLagMs(mode == LockWatcher::Mode::Polling ? m_options.pollIntervalMs : 50);
        // Which writes this user may perform, asked again after each reconnection (an ACL can
        // change meanwhile), so the dashboard disables what Redis would refuse.
        if (mode == LockWatcher::Mode::Disconnected)
            m_writesProbed = false;
        else if (mode == LockWatcher::Mode::Live || mode == LockWatcher::Mode::Polling)
            probeWrites();
    });
    connect(watcher, &LockWatcher::modeChanged, this, &LockSession::modeChanged);
    connect(watcher, &LockWatcher::eventsOccurred, this, &LockSession::emitEvents);
    connect(watcher, &LockWatcher::topologyChanged, this, [this](const QVector<TopologyEvent> &events) {
        m_doctorLoop->doctor().leases().observeTopology(events, steadyNowMs());
    });
    connect(watcher, &LockWatcher::discoveryProgress, this, &LockSession::discoveryProgress);
    connect(watcher, &LockWatcher::notificationsChecked, this, &LockSession::notificationsChecked);
    connect(watcher, &LockWatcher::errorOccurred, this, &LockSession::onWatcherError);
    connect(watcher, &LockWatcher::errorOccurred, this, &LockSession::readFailed);
    connect(watcher, &LockWatcher::idle, this, &LockSession::watchIdle);
    connect(watcher, &LockWatcher::topologyChanged, this, &LockSession::topologyEventsOccurred);
}

RedisConnection *LockSession::connection() const
{
    return m_pool->connection();
}

const ClusterTopology &LockSession::topology() const
{
    return m_router ? m_router->topology() : *m_singleTopology;
}

RedisConnection *LockSession::connectionOf(const QString &address)
{
    return m_router ? m_router->connectionFor(address) : m_pool->connection();
}

RedisEndpoint LockSession::endpointOf(const QString &address) const
{
    if (address.isEmpty() || address == m_pool->seed().address())
        return m_pool->seed();
    return ClusterTopology::endpointFor(address, m_pool->seed());
}

RedisConnection *LockSession::connectionFor(const QString &name)
{
    return connectionOf(topology().masterForKey(RedisBytes::toBytes(name)));
}

SessionTopology LockSession::sessionTopology() const
{
    SessionTopology t;
    if (m_clusterMonitor) {
        t.kind = SessionTopology::Kind::Cluster;
        t.masters = m_clusterMonitor->nodeStatuses();
        return t;
    }
    t.kind = m_sentinel ? SessionTopology::Kind::Sentinel : SessionTopology::Kind::Single;
    ClusterNodeStatus n;
    n.address = connection()->endpoint().address(); // a Sentinel's: the master it names now
    n.slotRanges = m_singleTopology->slotsOf(m_pool->seed().address());
    n.mode = m_monitor->mode();
    n.detail = m_monitor->modeDetail();
    n.scannedKeys = m_scannedKeys;
    n.locksFound = m_locksFound;
    n.scanFinished = m_scanFinished;
    t.masters << n;
    return t;
}

void LockSession::emitTopology()
{
    emit topologyChanged(sessionTopology());
}

void LockSession::enableCluster(const ClusterTopology &topology)
{
    if (m_router) {
        m_router->setTopology(topology);
        return;
    }
    m_router = new ClusterRouter(m_pool, topology, this);
    // Tools made for the single-master topology (none in practice: detection comes first) keep
    // their single-server settings: the cluster's masters get their own.
    m_nodeTools.clear();
    m_clusterMonitor = new ClusterLockMonitor(m_router, this);
    // The cluster watcher replaces the single-node one (never started: detection comes first).
    attachWatcher(m_clusterMonitor);
    m_monitor->disconnect(this);
    m_monitor->deleteLater();
    m_monitor = nullptr;
    connect(m_clusterMonitor, &ClusterLockMonitor::nodesChanged, this, &LockSession::emitTopology);
    emitTopology();
}

LockSession::NodeTools &LockSession::toolsFor(const QString &name, QString *address)
{
    *address = topology().masterForKey(RedisBytes::toBytes(name));
    return m_nodeTools[*address];
}

SnapshotReader *LockSession::readerFor(const QString &name)
{
    QString node;
    NodeTools &tools = toolsFor(name, &node);
    if (!tools.reader) {
        tools.reader = new SnapshotReader(connectionOf(node), this);
        if (m_router) // a lock of a slot being migrated is read where its keys are (ASK)
            tools.reader->setRoutedSend(m_router->sender());
    }
    return tools.reader;
}

void LockSession::probeForDoctor(std::function<void(const DoctorProbeResult &)> callback)
{
    QVector<DoctorProbe *> probes;
    for (const QString &address : topology().masters()) {
        DoctorProbe *&p = m_nodeTools[address].probe;
        if (!p) {
            p = new DoctorProbe(connectionOf(address), this);
            // Latch SCAN steps on the master's scan connection while its monitor has it open (a
            // single server's; not a Sentinel's nor a cluster master's, which stay closed).
            p->setScanConnection(m_pool->scanConnection(endpointOf(address)));
            p->setServesLock([this, address](const QString &lock) {
                return topology().masterForKey(RedisBytes::toBytes(lock)) == address;
            });
        }
        probes << p; // one still running from an earlier call: this call gets its result
    }
    DoctorProbe::runAll(probes, std::move(callback)); // no master: an empty Result at once
}

QByteArray LockSession::publishCommand() const
{
    return topology().publishCommand();
}

QStringList LockSession::holdsAtRisk() const
{
    QStringList out;
    for (const NodeTools &tools : m_nodeTools)
        if (tools.client)
            out += tools.client->watchdog()->atRisk().keys();
    out.sort();
    out.removeDuplicates();
    return out;
}

LockClient *LockSession::clientFor(const QString &name)
{
    // One client per master, all with LockScope's client id, so holds, renewals and releases of
    // a lock go to the master serving its slot (Redisson routes the same way, §7).
    QString node;
    NodeTools &tools = toolsFor(name, &node);
    LockClient *&c = tools.client;
    if (!c) {
        const RedisEndpoint ep = endpointOf(node);
        const ClusterTopology &topo = topology();
        c = new LockClient(connectionOf(node), m_pool->subscriber(ep), this, m_clientId);
        if (topo.isCluster()) {
            // A cluster master's waits need its pub/sub now (open() opens the seed's only), and
            // Redisson in cluster mode sends renewal scripts of one slot each (a mixed batch
            // fails with CROSSSLOT, §14.2).
            m_pool->subscriber(ep)->open();
            c->watchdog()->setOneSlotPerBatch(true);
        }
        // Unlocks with Redisson's publish verb and, with sharded pub/sub, waits on SSUBSCRIBE at
        // this master (§14.3).
        c->setPublishCommand(topo.publishCommand());
        if (topo.shardedPubSub()) {
            ShardedSubscriber *&sub = tools.sharded;
            if (!sub) {
                sub = new ShardedSubscriber(ep, this);
                sub->open();
            }
            c->setShardedSubscriber(sub);
        }
        connect(c, &LockClient::watchdogLost, this, [this](const QString &lock) {
            emit errorOccurred(QStringLiteral("Watchdog stopped renewing %1: LockScope no longer holds it").arg(lock));
        });
        m_holds->watch(c);
    }
    return c;
}

ForceUnlocker *LockSession::unlockerFor(const QString &name)
{
    QString node;
    ForceUnlocker *&u = toolsFor(name, &node).unlocker;
    if (!u) {
        u = new ForceUnlocker(connectionOf(node), this);
        u->setRouter(m_router); // nullptr outside a cluster
        // Redisson's verb, plus a classic PUBLISH after an SPUBLISH: see setAlsoPublishClassic().
        u->setPublishCommand(publishCommand());
        u->setAlsoPublishClassic(true);
    }
    return u;
}

LockRepairs *LockSession::repairsFor(const QString &name)
{
    QString node;
    LockRepairs *&r = toolsFor(name, &node).repairs;
    if (!r) {
        r = new LockRepairs(connectionOf(node), this);
        r->setPublishCommand(publishCommand());
    }
    return r;
}

void LockSession::open()
{
    m_pool->connection()->open();
    m_pool->subscriber()->open();
    if (m_sentinel)
        m_sentinel->startWatching();
}

void LockSession::prepare(std::function<void(const QString &error)> ready)
{
    const bool ask = m_options.detectCluster || m_options.forceCluster;
    if (m_detecting)
        return;                                            // one question at a time: the first caller's ready() runs
    if (m_prepared || !ask || m_sentinel || isCluster()) { // Sentinel names one master
        m_prepared = true;
        ready(QString());
        return;
    }
    m_detecting = true;
    RedisConnection *seed = connection();
    seed->open();
    auto finish = [this, ready](const QString &error) {
        m_detecting = false;
        m_prepared = true;
        ready(error);
    };
    auto load = [this, seed, finish] {
        ClusterRouter::load(seed, this, [this, finish](const ClusterTopology &topology, const QString &error) {
            if (topology.isValid())
                enableCluster(topology);
            finish(topology.isValid() ? QString() : error);
        });
    };
    if (m_options.forceCluster) {
        load();
        return;
    }
    // A refused or failed INFO (ACL, old server) means a single server, whose own path reports
    // connection errors.
    ClusterRouter::detect(seed, this, [load, finish](bool cluster, const QString &) {
        if (cluster)
            load();
        else
            finish(QString());
    });
}

void LockSession::start()
{
    if (m_prepared) {
        startWatching();
        return;
    }
    prepare([this](const QString &error) {
        if (!error.isEmpty())
            emit errorOccurred(QStringLiteral("This node is in a Redis Cluster but its topology could not be read "
                                              "(%1): watching this node only")
                                   .arg(error));
        startWatching();
    });
}

void LockSession::startWatching()
{
    if (m_options.oneShot) {
        // One pass: the command connection only (no subscriber, no doctor timer).
        m_pool->connection()->open();
        m_watcher->start();
        emitTopology();
        return;
    }
    open();
    m_watcher->start();
    m_doctorLoop->start();
    m_replication->start();
    if (m_options.trackClients)
        m_clients->start();
    emitTopology();
}
void LockSession::setPriorityLocks(const QStringList &names)
{
    m_watcher->setPriorityLocks(names);
}

void LockSession::refresh()
{
    m_watcher->rediscover();
}

void LockSession::cancelScan()
{
    m_watcher->cancelDiscovery();
}

void LockSession::setPattern(const QString &glob)
{
    m_options.pattern = glob; // also for a cluster watcher that replaces this one
    m_watcher->setPattern(glob);
    refresh();
}

void LockSession::runWrite(const QString &action, const QString &name, const QJsonObject &args,
                           std::function<void(const LockSnapshot &before, Done done)> perform)
{
    m_writes->run(action, name, args, std::move(perform));
}

QString LockSession::auditProblem() const
{
    return m_writes->auditProblem();
}

void LockSession::finishWrite(const QString &action, const QString &name, const QJsonObject &args,
                              const LockSnapshot &before, const QString &outcome, const QString &message)
{
    m_writes->finish(action, name, args, before, outcome, message);
}

void LockSession::enableNotifications()
{
    if (m_options.readOnly) {
        emit actionFinished(QStringLiteral("enable_notifications"), QString(), false,
                            QStringLiteral("Refused: LockScope runs read-only, so it changes no server configuration."),
                            QStringLiteral("refused"));
        return;
    }
    // A server-wide configuration change is an action like the others (confirmed, audited): its outcome
    // is audited and reported, whichever comes first of the check that follows the CONFIG SET
    // and a refusal.
    auto done = std::make_shared<bool>(false);
    auto connections = std::make_shared<QVector<QMetaObject::Connection>>();
    auto finish = [this, done, connections](bool ok, const QString &message) {
        if (*done)
            return;
        *done = true;
        for (const auto &c : std::as_const(*connections))
            disconnect(c);
        finishWrite(QStringLiteral("enable_notifications"), QString(),
                    QJsonObject{{QStringLiteral("config"), QStringLiteral("notify-keyspace-events")},
                                {QStringLiteral("adds"), QStringLiteral("K g h x")}},
                    LockSnapshot(), ok ? QStringLiteral("done") : QStringLiteral("error"), message);
    };
    *connections << connect(this, &LockSession::notificationsChecked, this,
                            [finish](bool enabled, const QString &detail) {
                                finish(enabled, !enabled ? detail
                                                : detail.trimmed().isEmpty()
                                                    ? QStringLiteral("Keyspace notifications are on.")
                                                    : QStringLiteral("Keyspace notifications are on: %1").arg(detail));
                            });
    *connections << connect(this, &LockSession::errorOccurred, this, [finish](const QString &message) {
        if (message.contains(QLatin1String("notify-keyspace-events")))
            finish(false, message);
    });
    m_watcher->enableNotifications();
}

void LockSession::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, AcquireKind kind)
{
    m_holds->acquire(name, threadId, leaseMs, waitMs, kind);
}

void LockSession::renew(const QString &name, qint64 threadId)
{
    m_holds->renew(name, threadId);
}

void LockSession::release(const QString &name, qint64 threadId)
{
    m_holds->release(name, threadId);
}

void LockSession::forceUnlock(const QString &name, const std::optional<QString> &confirmed)
{
    QJsonObject args;
    if (confirmed)
        args.insert(QStringLiteral("confirmed_state"), *confirmed);
    runWrite(QStringLiteral("force_unlock"), name, args,
             [this, name, confirmed](const LockSnapshot &before, Done done) {
                 const QString confirmedState = confirmed ? *confirmed : before.stateFingerprint();
                 m_watcher->expectForceUnlock(name);
                 unlockerFor(name)->forceUnlock(
                     name, this,
                     [this, name, done](const ForceUnlockResult &r) {
                         if (r.deleted)
                             clientFor(name)->watchdog()->remove(name); // if LockScope itself held it, stop renewing
                         const QString outcome = !r.error.isEmpty() ? QStringLiteral("error")
                                                 : r.changed        ? QStringLiteral("changed")
                                                 : r.deleted        ? QStringLiteral("done")
                                                                    : QStringLiteral("refused");
                         done(outcome, ForceUnlocker::describe(name, r));
                     },
                     confirmedState);
             });
}

void LockSession::setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState)
{
    runWrite(QStringLiteral("set_ttl"), name,
             {{QStringLiteral("ttl_ms"), ttlMs}, {QStringLiteral("confirmed_state"), confirmedState}},
             [this, name, ttlMs, confirmedState](const LockSnapshot &, Done done) {
                 repairsFor(name)->setTtl(name, ttlMs, confirmedState, this,
                                          [done](const RepairResult &r) { done(r.outcome, r.message); });
             });
}

void LockSession::removeWaiter(const QString &name, const QString &field, qint64 waitMs)
{
    runWrite(QStringLiteral("remove_waiter"), name,
             {{QStringLiteral("field"), field}, {QStringLiteral("wait_ms"), waitMs}},
             [this, name, field, waitMs](const LockSnapshot &, Done done) {
                 repairsFor(name)->removeWaiter(name, field, waitMs, this,
                                                [done](const RepairResult &r) { done(r.outcome, r.message); });
             });
}

void LockSession::removeReader(const QString &name, const QString &field)
{
    runWrite(QStringLiteral("remove_reader"), name, {{QStringLiteral("field"), field}},
             [this, name, field](const LockSnapshot &, Done done) {
                 repairsFor(name)->removeReader(name, field, this,
                                                [done](const RepairResult &r) { done(r.outcome, r.message); });
             });
}

void LockSession::wake(const QString &name)
{
    runWrite(QStringLiteral("wake"), name, {}, [this, name](const LockSnapshot &, Done done) {
        repairsFor(name)->wake(name, this, [done](const RepairResult &r) { done(r.outcome, r.message); });
    });
}

} // namespace lockscope
