#include "session/locksession.h"
#include "redis/redisbytes.h"

#include "act/forceunlocker.h"
#include "act/lockrepairs.h"
#include "diagnose/doctorloop.h"
#include "diagnose/doctorprobe.h"
#include "watch/clusterlockmonitor.h"
#include "watch/snapshotreader.h"

#include "lock/fairlock.h"
#include "lock/fencedlock.h"
#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "lock/readwritelock.h"
#include "redis/clusterrouter.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/redissubscriber.h"
#include "redis/sentinelresolver.h"
#include "redis/shardedsubscriber.h"

#include <QDateTime>
#include <QPointer>
#include <QSysInfo>
#include <QUuid>

#include <memory>

namespace lockscope
{

LockSession::LockSession(const Options &options, QObject *parent)
    : QObject(parent), m_options(options), m_clientId(QUuid::createUuid().toString(QUuid::WithoutBraces)),
      m_audit(options.auditLogPath)
{
    m_pool = new RedisConnectionPool(options.endpoint, this);
    if (options.endpoint.isSentinel())
        setUpSentinel();
    RedisConnection *conn = m_pool->connection();
    // Issue 13.3: a network that drops everything silently is noticed in ~3 s, not never.
    conn->setHealthCheckMs(1000, 3000);
    m_monitor = new LockMonitor(conn, m_pool->subscriber(), this);
    m_single.probe = new DoctorProbe(conn, this);
    if (!options.endpoint.isSentinel()) { // a Sentinel-resolved master would need the resolver too
        m_pool->scanConnection()->setHealthCheckMs(1000, 3000);
        m_monitor->setScanConnection(m_pool->scanConnection()); // the monitor opens it
        m_single.probe->setScanConnection(m_pool->scanConnection());
    }
    m_single.client = new LockClient(conn, m_pool->subscriber(), this, m_clientId);
    m_single.unlocker = new ForceUnlocker(conn, this);
    m_single.repairs = new LockRepairs(conn, this);
    m_single.reader = new SnapshotReader(conn, this);
    qRegisterMetaType<lockscope::LockFinding>();
    qRegisterMetaType<QVector<lockscope::LockFinding>>();
    attachWatcher(m_monitor);
    // The doctor runs on a timer, not per batch: diagnose every 2 s, probe channels and latches every 20 s.
    m_doctorLoop = new DoctorLoop([this] { return m_watcher->locks(); }, this);
    m_doctorLoop->doctor().setCommandConnection(options.commandConnection);
    m_doctorLoop->setProbe([this](DoctorLoop::ProbeDone done) {
        if (m_router || connection()->isReady())
            probeForDoctor(std::move(done));
    });
    connect(m_doctorLoop, &DoctorLoop::findingsUpdated, this, &LockSession::findingsUpdated);

    connect(m_single.client, &LockClient::watchdogLost, this, [this](const QString &name) {
        emit errorOccurred(QStringLiteral("Watchdog stopped renewing %1: LockScope no longer holds it").arg(name));
    });
    watchOwnHolds(m_single.client);
}

LockSession::~LockSession() = default;

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
                if (m_options.oneShot)
                    return; // no doctor loop: `doctor` keeps its own DoctorLoop, `list` needs none (issue 12)
                m_doctorLoop->observe(changed, removed);
            });
    connect(watcher, &LockWatcher::modeChanged, this, &LockSession::modeChanged);
    connect(watcher, &LockWatcher::locksUpdated, this, &LockSession::locksUpdated);
    connect(watcher, &LockWatcher::eventsOccurred, this, &LockSession::eventsOccurred);
    connect(watcher, &LockWatcher::discoveryProgress, this, &LockSession::discoveryProgress);
    connect(watcher, &LockWatcher::notificationsChecked, this, &LockSession::notificationsChecked);
    connect(watcher, &LockWatcher::errorOccurred, this, &LockSession::errorOccurred);
    connect(watcher, &LockWatcher::topologyChanged, this, &LockSession::topologyEventsOccurred);
}

RedisConnection *LockSession::connection() const
{
    return m_pool->connection();
}

RedisConnection *LockSession::connectionFor(const QString &name)
{
    return m_router ? m_router->connectionForKey(RedisBytes::toBytes(name)) : connection();
}

void LockSession::setUpSentinel()
{
    m_sentinel = new SentinelResolver(m_options.endpoint, this);
    auto resolver = [this](RedisConnection::ResolvedCallback done) { m_sentinel->resolve(this, std::move(done)); };
    RedisConnection *conn = m_pool->connection();
    conn->setEndpointResolver(resolver);
    m_pool->subscriber()->connection()->setEndpointResolver(resolver);
    connect(m_sentinel, &SentinelResolver::masterChanged, this, &LockSession::onMasterChanged);
    connect(conn, &RedisConnection::ready, this, &LockSession::verifyMaster);
    connect(conn, &RedisConnection::serverErrorReceived, this, [this](const QString &message) {
        if (message.startsWith(QLatin1String("READONLY")) || message.startsWith(QLatin1String("LOADING")))
            verifyMaster();
    });
}

void LockSession::onMasterChanged(const RedisEndpoint &oldMaster, const RedisEndpoint &newMaster, const QString &how)
{
    const QString name = m_sentinel->masterName();
    LockEvent e;
    e.timeMs = QDateTime::currentMSecsSinceEpoch();
    e.type = QStringLiteral("failover");
    e.detail = QStringLiteral("master '%1' moved from %2 to %3 (%4): LockScope follows it to %3")
                   .arg(name, oldMaster.address(), newMaster.address(), how);
    e.extra = QJsonObject{{QStringLiteral("master_name"), name},
                          {QStringLiteral("old_master"), oldMaster.address()},
                          {QStringLiteral("new_master"), newMaster.address()},
                          {QStringLiteral("source"), how}};
    emit masterChanged(name, oldMaster.address(), newMaster.address(), how);
    emit eventsOccurred({e});
    followMaster(newMaster, QStringLiteral("failover: the master of '%1' is now %2 (was %3)")
                                .arg(name, newMaster.address(), oldMaster.address()));
}

void LockSession::followMaster(const RedisEndpoint &master, const QString &reason)
{
    for (RedisConnection *c : {m_pool->connection(), m_pool->subscriber()->connection()}) {
        if (c->endpoint().address() != master.address())
            c->reconnectNow(reason);
    }
}

void LockSession::verifyMaster()
{
    RedisConnection *conn = m_pool->connection();
    if (!m_sentinel || m_verifyingMaster || !conn->isReady())
        return;
    m_verifyingMaster = true;
    conn->send({"ROLE"}, this, [this, conn](const RedisReply &r) {
        // ROLE refused (ACL) or the connection went away: the sentinels' word stands.
        const QByteArray role = r.isArray() && r.size() > 0 ? r.at(0).toByteArray() : QByteArray("master");
        if (role == "master") {
            m_verifyingMaster = false;
            m_staleMasterReported = false;
            return;
        }
        const QString address = conn->endpoint().address();
        if (!m_staleMasterReported)
            emit errorOccurred(QStringLiteral("%1 answers ROLE '%2': it is no longer the master of '%3'. Asking the "
                                              "sentinels again.")
                                   .arg(address, RedisBytes::toText(role), m_sentinel->masterName()));
        m_staleMasterReported = true;
        m_sentinel->resolve(this, [this, address](const RedisEndpoint &master, const QString &, bool) {
            if (master.isValid() && master.address() != address) {
                m_verifyingMaster = false;
                // After masterChanged() (emitted once this callback returns) had its say.
                QMetaObject::invokeMethod(
                    this,
                    [this, master] {
                        followMaster(
                            master,
                            QStringLiteral("the master of '%1' is %2").arg(m_sentinel->masterName(), master.address()));
                    },
                    Qt::QueuedConnection);
                return;
            }
            // The sentinels still name this server (a failover is under way): look again in a second.
            QTimer::singleShot(1000, this, [this] {
                m_verifyingMaster = false;
                verifyMaster();
            });
        });
    });
}

void LockSession::enableCluster(const ClusterTopology &topology)
{
    if (m_router) {
        m_router->setTopology(topology);
        return;
    }
    m_router = new ClusterRouter(m_pool, topology, this);
    m_clusterMonitor = new ClusterLockMonitor(m_router, this);
    // The cluster watcher replaces the single-node one (never started: detection comes first).
    attachWatcher(m_clusterMonitor);
    m_monitor->deleteLater();
    m_monitor = nullptr;
    connect(m_clusterMonitor, &ClusterLockMonitor::nodesChanged, this,
            [this] { emit clusterNodesChanged(m_clusterMonitor->nodeStatuses()); });
    emit clusterNodesChanged(m_clusterMonitor->nodeStatuses());
}

LockSession::NodeTools &LockSession::toolsFor(const QString &name, QString *address)
{
    address->clear();
    if (!m_router)
        return m_single;
    *address = m_router->topology().masterForKey(RedisBytes::toBytes(name));
    return address->isEmpty() ? m_single : m_nodeTools[*address];
}

SnapshotReader *LockSession::readerFor(const QString &name)
{
    QString node;
    NodeTools &tools = toolsFor(name, &node);
    if (!tools.reader)
        tools.reader = new SnapshotReader(m_router->connectionFor(node), this);
    return tools.reader;
}

void LockSession::probeForDoctor(std::function<void(const DoctorProbe::Result &)> callback)
{
    if (!m_router) {
        m_single.probe->run(std::move(callback));
        return;
    }
    const QStringList masters = m_router->topology().masters();
    if (masters.isEmpty()) {
        callback(DoctorProbe::Result());
        return;
    }
    struct Merge {
        int pending = 0;
        DoctorProbe::Result result;
        std::function<void(const DoctorProbe::Result &)> callback;
    };
    auto merge = std::make_shared<Merge>();
    merge->callback = std::move(callback);
    QVector<DoctorProbe *> probes;
    for (const QString &address : masters) {
        DoctorProbe *&p = m_nodeTools[address].probe;
        if (!p) {
            p = new DoctorProbe(m_router->connectionFor(address), this);
            ClusterRouter *router = m_router;
            p->setServesLock([router, address](const QString &lock) {
                return router->topology().masterForKey(RedisBytes::toBytes(lock)) == address;
            });
        }
        if (!p->isRunning())
            probes << p;
    }
    merge->pending = int(probes.size());
    if (probes.isEmpty()) {
        merge->callback(merge->result);
        return;
    }
    for (DoctorProbe *p : probes) {
        p->run([merge](const DoctorProbe::Result &r) {
            for (auto it = r.orphanSubscribers.cbegin(); it != r.orphanSubscribers.cend(); ++it)
                merge->result.orphanSubscribers[it.key()] += it.value();
            merge->result.latches += r.latches;
            merge->result.latchCount += r.latchCount;
            if (merge->result.error.isEmpty())
                merge->result.error = r.error;
            if (--merge->pending == 0)
                merge->callback(merge->result);
        });
    }
}

QByteArray LockSession::publishCommand() const
{
    return m_router ? m_router->topology().publishCommand() : QByteArrayLiteral("publish");
}

QStringList LockSession::holdsAtRisk() const
{
    QStringList out = m_single.client->watchdog()->atRisk().keys();
    for (const NodeTools &tools : m_nodeTools)
        if (tools.client)
            out += tools.client->watchdog()->atRisk().keys();
    out.sort();
    out.removeDuplicates();
    return out;
}

void LockSession::watchOwnHolds(LockClient *client)
{
    QPointer<LockClient> c(client);
    connect(
        client, &LockClient::watchdogRenewalFailed, this, [this, c](const QStringList &names, const QString &error) {
            if (!c)
                return;
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            const QHash<QString, LockWatchdog::Risk> risks = c->watchdog()->atRisk();
            QVector<LockEvent> events;
            for (const QString &name : names) {
                const qint64 lastRenewed = risks.value(name).lastRenewedEpochMs;
                LockEvent e;
                e.timeMs = now;
                e.lock = name;
                e.type = QStringLiteral("renewal_failed");
                e.holder = c->watchdog()->fieldOf(name);
                e.detail =
                    QStringLiteral("LockScope's watchdog could not renew its hold (%1): the hold is at risk and "
                                   "expires unless a renewal succeeds within the %2 ms lease (last renewed %3 ms ago)")
                        .arg(error)
                        .arg(c->watchdogTimeoutMs())
                        .arg(now - lastRenewed);
                e.extra = QJsonObject{{QStringLiteral("error"), error},
                                      {QStringLiteral("at_risk"), true},
                                      {QStringLiteral("last_renewed_ms"), lastRenewed},
                                      {QStringLiteral("lease_ms"), c->watchdogTimeoutMs()}};
                events << e;
                emit holdAtRisk(name, error, lastRenewed);
            }
            emit eventsOccurred(events);
            QString cause = error.trimmed();
            while (cause.endsWith(QLatin1Char('.')))
                cause.chop(1);
            emit errorOccurred(
                QStringLiteral("Watchdog renewal of %1 failed: %2. LockScope's hold is at risk: it expires "
                               "unless a renewal succeeds within %3 ms; retrying every %4 ms.")
                    .arg(names.join(QStringLiteral(", ")), cause)
                    .arg(c->watchdogTimeoutMs())
                    .arg(c->watchdogTimeoutMs() / 3));
        });
    connect(client, &LockClient::watchdogRecovered, this, [this, c](const QStringList &names) {
        QVector<LockEvent> events;
        for (const QString &name : names) {
            LockEvent e;
            e.timeMs = QDateTime::currentMSecsSinceEpoch();
            e.lock = name;
            e.type = QStringLiteral("renewal_recovered");
            e.holder = c ? c->watchdog()->fieldOf(name) : QString();
            e.detail = QStringLiteral("LockScope's watchdog renewed its hold again: no longer at risk");
            events << e;
            emit holdRecovered(name);
        }
        emit eventsOccurred(events);
    });
}

LockClient *LockSession::clientFor(const QString &name)
{
    // One client per master, all with LockScope's client id, so holds, renewals and releases of
    // a lock go to the master serving its slot (Redisson routes the same way, §7).
    QString node;
    NodeTools &tools = toolsFor(name, &node);
    LockClient *&c = tools.client;
    if (!c) {
        const RedisEndpoint ep = m_router->endpointFor(node);
        c = new LockClient(m_router->connectionFor(node), m_router->pool()->subscriber(ep), this, m_clientId);
        m_router->pool()->subscriber(ep)->open();
        // Redisson in cluster mode: renewal scripts of one slot each (a mixed batch fails with
        // CROSSSLOT, §14.2); unlocks with Redisson's publish verb and, with sharded pub/sub,
        // waits on SSUBSCRIBE at this master (§14.3).
        c->watchdog()->setOneSlotPerBatch(true);
        c->setPublishCommand(publishCommand());
        if (m_router->topology().shardedPubSub()) {
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
        watchOwnHolds(c);
    }
    return c;
}

ForceUnlocker *LockSession::unlockerFor(const QString &name)
{
    QString node;
    ForceUnlocker *&u = toolsFor(name, &node).unlocker;
    if (!u) {
        u = new ForceUnlocker(m_router->connectionFor(node), this);
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
        r = new LockRepairs(m_router->connectionFor(node), this);
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
        return;                                         // one question at a time: the first caller's ready() runs
    if (m_prepared || !ask || m_sentinel || m_router) { // Sentinel names one master
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
        return;
    }
    open();
    m_watcher->start();
    m_doctorLoop->start();
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
    if (m_options.readOnly) {
        finishWrite(action, name, args, LockSnapshot(), QStringLiteral("refused"),
                    QStringLiteral("Refused: LockScope runs read-only, so it writes nothing to Redis."));
        return;
    }
    // No write without its audit record: the log must be writable before anything is sent.
    const QString auditError = auditProblem();
    if (!auditError.isEmpty()) {
        emit actionFinished(action, name, false,
                            QStringLiteral("Refused: %1. Nothing was sent to Redis: every write is recorded in the "
                                           "audit log first; make it writable or choose another one.")
                                .arg(auditError),
                            QStringLiteral("refused"));
        return;
    }
    // Issue 13.9: no write while LockScope cannot see the lock's server (its data is stale).
    if (RedisConnection *conn = connectionFor(name); conn && conn->lostSinceEpochMs() != 0) {
        finishWrite(
            action, name, args, LockSnapshot(), QStringLiteral("refused"),
            QStringLiteral("Refused: not connected to %1 since %2 (%3): LockScope writes nothing while it "
                           "cannot see the lock; it reconnects by itself, try again when it is back.")
                .arg(conn->endpoint().address(),
                     QDateTime::fromMSecsSinceEpoch(conn->lostSinceEpochMs()).toString(QStringLiteral("HH:mm:ss")),
                     conn->lastError()));
        return;
    }
    // Re-read the lock first: the audit record shows the state just before the change.
    readerFor(name)->read(
        {name}, this, [this, action, name, args, perform](const QVector<LockSnapshot> &snaps, const QString &) {
            const LockSnapshot before = snaps.value(0);
            // §14.4: never aim a repair at `x` when the keys it touches are `{x}`'s (or the reverse).
            if (const QString refusal = LockRepairs::targetRefusal(action, before); !refusal.isEmpty()) {
                finishWrite(action, name, args, before, QStringLiteral("refused"), refusal);
                return;
            }
            perform(before, [this, action, name, args, before](const QString &outcome, const QString &message) {
                finishWrite(action, name, args, before, outcome, message);
                m_watcher->markDirty(name);
            });
        });
}

QString LockSession::auditProblem() const
{
    QString error;
    return m_audit.check(&error) ? QString() : error;
}

void LockSession::finishWrite(const QString &action, const QString &name, const QJsonObject &args,
                              const LockSnapshot &before, const QString &outcome, const QString &message)
{
    QJsonObject record;
    record.insert(QStringLiteral("time_ms"), QDateTime::currentMSecsSinceEpoch());
    record.insert(QStringLiteral("operator"), AuditLog::operatorName());
    record.insert(QStringLiteral("host"), QSysInfo::machineHostName());
    record.insert(QStringLiteral("server"), m_options.endpoint.toString());
    if (m_sentinel) // which master the sentinels named at the time: the one written to
        record.insert(QStringLiteral("master"), connection()->endpoint().address());
    record.insert(QStringLiteral("client_id"), m_clientId);
    record.insert(QStringLiteral("action"), action);
    record.insert(QStringLiteral("lock"), name);
    record.insert(QStringLiteral("args"), args);
    record.insert(QStringLiteral("before"), before.name.isEmpty() ? QJsonValue() : QJsonValue(before.toJson()));
    record.insert(QStringLiteral("result"), outcome);
    record.insert(QStringLiteral("message"), message);
    QString auditError;
    if (!m_audit.append(record, &auditError)) {
        emit actionFinished(
            action, name, false,
            QStringLiteral("%1. BUT the audit record could not be written: %2").arg(message, auditError),
            QStringLiteral("audit_failed"));
        return;
    }
    emit actionFinished(action, name, outcome == QLatin1String("done"), message, outcome);
}

void LockSession::enableNotifications()
{
    if (m_options.readOnly) {
        emit actionFinished(QStringLiteral("enable_notifications"), QString(), false,
                            QStringLiteral("Refused: LockScope runs read-only, so it changes no server configuration."),
                            QStringLiteral("refused"));
        return;
    }
    // A server-wide configuration change is an action like the others (issue 15.9): its outcome
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
    *connections << connect(
        this, &LockSession::notificationsChecked, this, [finish](bool enabled, const QString &detail) {
            finish(enabled, enabled ? QStringLiteral("Keyspace notifications are on: %1").arg(detail) : detail);
        });
    *connections << connect(this, &LockSession::errorOccurred, this, [finish](const QString &message) {
        if (message.contains(QLatin1String("notify-keyspace-events")))
            finish(false, message);
    });
    m_watcher->enableNotifications();
}

namespace
{
QString heldKey(const QString &name, qint64 threadId)
{
    return name + QLatin1Char('\n') + QString::number(threadId);
}

/** What one acquire attempt or wait should call, for the resolved kind. */
using AcquireCall = std::function<void(LockClient::AcquireCallback)>;
} // namespace

FairLock *LockSession::fairLockFor(const QString &name)
{
    LockClient *c = clientFor(name);
    FairLock *&f = m_fairLocks[c];
    if (!f)
        f = new FairLock(c, c);
    return f;
}

ReadWriteLock *LockSession::readWriteLockFor(const QString &name)
{
    LockClient *c = clientFor(name);
    ReadWriteLock *&rw = m_readWriteLocks[c];
    if (!rw) {
        rw = new ReadWriteLock(c, c);
        connect(rw, &ReadWriteLock::readWatchdogLost, this, [this](const QString &lock) {
            emit errorOccurred(
                QStringLiteral("Watchdog stopped renewing the read hold of %1: LockScope no longer holds it")
                    .arg(lock));
        });
        connect(rw, &ReadWriteLock::readWatchdogError, this, [this](const QString &message) {
            emit errorOccurred(QStringLiteral("Read-lock renewal failed: %1").arg(message));
        });
    }
    return rw;
}

FencedLock *LockSession::fencedLockFor(const QString &name)
{
    LockClient *c = clientFor(name);
    FencedLock *&f = m_fencedLocks[c];
    if (!f)
        f = new FencedLock(c, c);
    return f;
}

AcquireKind LockSession::ownHoldKind(const LockSnapshot &before, qint64 threadId) const
{
    if (before.exists && (before.rwMode == QLatin1String("read") || before.rwMode == QLatin1String("write"))) {
        const QString writer = QStringLiteral("%1:%2:write").arg(m_clientId).arg(threadId);
        for (const auto &h : before.holders)
            if (h.field == writer)
                return AcquireKind::Write;
        return AcquireKind::Read;
    }
    const AcquireKind known = m_heldKinds.value(heldKey(before.name, threadId), AcquireKind::Auto);
    if (known == AcquireKind::Fair || known == AcquireKind::Lock || known == AcquireKind::Fenced)
        return known;
    if (before.queueLength > 0 || before.timeoutSetSize > 0)
        return AcquireKind::Fair;
    return before.token >= 0 ? AcquireKind::Fenced : AcquireKind::Lock;
}

void LockSession::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, AcquireKind kind)
{
    const QJsonObject args{{QStringLiteral("thread_id"), threadId},
                           {QStringLiteral("lease_ms"), leaseMs},
                           {QStringLiteral("wait_ms"), waitMs},
                           {QStringLiteral("kind"), AcquirePlan::kindName(kind)}};
    runWrite(
        QStringLiteral("acquire"), name, args,
        [this, name, threadId, leaseMs, waitMs, kind](const LockSnapshot &before, Done done) {
            if (before.name != name) {
                done(QStringLiteral("error"),
                     QStringLiteral("Acquire of %1 not attempted: it could not be re-read to tell its kind").arg(name));
                return;
            }
            AcquireKind requested = kind;
            // Re-entering a hold LockScope took itself: the same kind as the first acquire (a fair
            // lock with an empty queue reads as a plain one).
            const AcquireKind known = m_heldKinds.value(heldKey(name, threadId), AcquireKind::Auto);
            if (requested == AcquireKind::Auto && known != AcquireKind::Auto &&
                !AcquirePlan::decide(before, known).isRefused())
                requested = known;
            const AcquirePlan plan = AcquirePlan::decide(before, requested);
            if (plan.isRefused()) {
                done(QStringLiteral("refused"), QStringLiteral("Acquire refused: %1").arg(plan.refusal));
                return;
            }
            LockClient *client = clientFor(name);
            const AcquireKind taken = plan.kind;
            QString field = client->holderField(threadId);
            AcquireCall call;
            const bool once = waitMs == 0;
            switch (taken) {
            case AcquireKind::Fair: {
                FairLock *fair = fairLockFor(name);
                call = [this, fair, name, threadId, leaseMs, waitMs, once](LockClient::AcquireCallback cb) {
                    once ? fair->tryAcquire(name, threadId, leaseMs, this, cb)
                         : fair->acquire(name, threadId, leaseMs, waitMs, this, cb);
                };
                break;
            }
            case AcquireKind::Read:
            case AcquireKind::Write: {
                ReadWriteLock *rw = readWriteLockFor(name);
                const bool write = taken == AcquireKind::Write;
                if (write)
                    field = rw->writerField(threadId);
                call = [this, rw, write, name, threadId, leaseMs, waitMs, once](LockClient::AcquireCallback cb) {
                    if (write)
                        once ? rw->tryAcquireWrite(name, threadId, leaseMs, this, cb)
                             : rw->acquireWrite(name, threadId, leaseMs, waitMs, this, cb);
                    else
                        once ? rw->tryAcquireRead(name, threadId, leaseMs, this, cb)
                             : rw->acquireRead(name, threadId, leaseMs, waitMs, this, cb);
                };
                break;
            }
            case AcquireKind::Fenced: {
                FencedLock *fenced = fencedLockFor(name);
                call = [this, fenced, name, threadId, leaseMs, waitMs, once](LockClient::AcquireCallback cb) {
                    once ? fenced->tryAcquire(name, threadId, leaseMs, this, cb)
                         : fenced->acquire(name, threadId, leaseMs, waitMs, this, cb);
                };
                break;
            }
            case AcquireKind::Auto:
            case AcquireKind::Lock:
                call = [this, client, name, threadId, leaseMs, waitMs, once](LockClient::AcquireCallback cb) {
                    once ? client->tryAcquire(name, threadId, leaseMs, this, cb)
                         : client->acquire(name, threadId, leaseMs, waitMs, this, cb);
                };
                break;
            }
            const QString kindName = AcquirePlan::kindName(taken);
            call([this, name, threadId, field, taken, kindName, leaseMs, client, done](const AcquireResult &r) {
                if (!r.error.isEmpty()) {
                    done(QStringLiteral("error"),
                         QStringLiteral("Acquire of %1 (%2) failed: %3").arg(name, kindName, r.error));
                    return;
                }
                if (!r.acquired) {
                    const QString ttl = r.pttlMs == -1   ? QStringLiteral("no expiry")
                                        : r.pttlMs == -2 ? QStringLiteral("free, but another waiter is first in line")
                                                         : QStringLiteral("TTL %1 ms").arg(r.pttlMs);
                    done(
                        QStringLiteral("refused"),
                        QStringLiteral("%1 is held by someone else (%2): not acquired as %3").arg(name, ttl, kindName));
                    return;
                }
                m_heldKinds.insert(heldKey(name, threadId), taken);
                const QString lease =
                    leaseMs > 0 ? QStringLiteral("lease %1 ms").arg(leaseMs)
                                : QStringLiteral("watchdog renews every %1 ms").arg(client->watchdogTimeoutMs() / 3);
                const QString token =
                    taken == AcquireKind::Fenced ? QStringLiteral(", fencing token %1").arg(r.token) : QString();
                emit acquired(name, field, kindName, taken == AcquireKind::Fenced ? r.token : -1);
                done(QStringLiteral("done"),
                     QStringLiteral("Acquired %1 as %2 (%3 lock, %4%5)").arg(name, field, kindName, lease, token));
            });
        });
}

void LockSession::renew(const QString &name, qint64 threadId)
{
    runWrite(
        QStringLiteral("renew"), name, {{QStringLiteral("thread_id"), threadId}},
        [this, name, threadId](const LockSnapshot &before, Done done) {
            if (before.name != name) {
                done(QStringLiteral("error"),
                     QStringLiteral("Renew of %1 not attempted: it could not be re-read to tell its kind").arg(name));
                return;
            }
            const AcquireKind kind = ownHoldKind(before, threadId);
            auto result = [this, name, done](bool ok, const QString &error) {
                if (!error.isEmpty())
                    done(QStringLiteral("error"), QStringLiteral("Renew of %1 failed: %2").arg(name, error));
                else if (ok)
                    done(QStringLiteral("done"),
                         QStringLiteral("Renewed %1 to %2 ms").arg(name).arg(clientFor(name)->watchdogTimeoutMs()));
                else
                    done(QStringLiteral("refused"),
                         QStringLiteral("%1 is not held by LockScope: nothing renewed").arg(name));
            };
            if (kind == AcquireKind::Write)
                readWriteLockFor(name)->renewWrite(name, threadId, 0, this, result);
            else if (kind == AcquireKind::Read)
                readWriteLockFor(name)->renewRead(name, {threadId}, 0, this, result);
            else
                clientFor(name)->renew(name, threadId, 0, this, result);
        });
}

void LockSession::release(const QString &name, qint64 threadId)
{
    runWrite(
        QStringLiteral("release"), name, {{QStringLiteral("thread_id"), threadId}},
        [this, name, threadId](const LockSnapshot &before, Done done) {
            if (before.name != name) {
                done(QStringLiteral("error"),
                     QStringLiteral("Release of %1 not attempted: it could not be re-read to tell its kind").arg(name));
                return;
            }
            const AcquireKind kind = ownHoldKind(before, threadId);
            const QString kindName = AcquirePlan::kindName(kind);
            auto result = [this, name, threadId, kindName, done](const UnlockResult &r) {
                switch (r.status) {
                case UnlockResult::Status::Released:
                    m_heldKinds.remove(heldKey(name, threadId));
                    done(QStringLiteral("done"), QStringLiteral("Released %1 (%2 unlock)").arg(name, kindName));
                    break;
                case UnlockResult::Status::StillHeld:
                    done(QStringLiteral("done"),
                         QStringLiteral("Released one hold of %1 (%2 unlock); still held").arg(name, kindName));
                    break;
                case UnlockResult::Status::NotHeld:
                    m_heldKinds.remove(heldKey(name, threadId));
                    done(QStringLiteral("refused"), QStringLiteral("Release of %1 refused: %2").arg(name, r.error));
                    break;
                case UnlockResult::Status::Error:
                    done(QStringLiteral("error"), QStringLiteral("Release of %1 failed: %2").arg(name, r.error));
                    break;
                }
            };
            switch (kind) {
            case AcquireKind::Write:
                readWriteLockFor(name)->unlockWrite(name, threadId, this, result);
                break;
            case AcquireKind::Read:
                readWriteLockFor(name)->unlockRead(name, threadId, this, result);
                break;
            case AcquireKind::Fair:
                fairLockFor(name)->unlock(name, threadId, this, result);
                break;
            default:
                clientFor(name)->unlock(name, threadId, this, result);
                break;
            }
        });
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
