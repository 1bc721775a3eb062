// The observation engine against a real redis-server: live events from keyspace notifications,
// polling when they are off (and switching to live on request), pattern-filtered and large
// discoveries, recovery after the server drops our connections, and the read-only guard.

#include "demo/redisserverprocess.h"
#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"
#include "session/locksession.h"
#include "watch/lockdiscovery.h"
#include "watch/lockmonitor.h"
#include "watch/snapshotreader.h"

#include "locksessiontestpeer.h"
#include "testsupport.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

/** Everything a LockSession reports, collected for assertions. */
struct SessionLog {
    QVector<LockEvent> events;
    QList<LockMonitor::Mode> modes;
    QStringList modeDetails;
    struct Action {
        QString action, lock, message;
        bool ok = false;
    };
    QVector<Action> actions;
    int idleCount = 0;
    QVector<bool> notificationChecks;

    void attach(LockSession *session)
    {
        QObject::connect(session, &LockSession::eventsOccurred, session,
                         [this](const QVector<LockEvent> &e) { events += e; });
        QObject::connect(session, &LockSession::modeChanged, session, [this](LockMonitor::Mode m, const QString &d) {
            modes << m;
            modeDetails << d;
        });
        QObject::connect(session, &LockSession::actionFinished, session,
                         [this](const QString &a, const QString &l, bool ok, const QString &m) {
                             actions.append({a, l, m, ok});
                         });
        QObject::connect(session, &LockSession::notificationsChecked, session,
                         [this](bool enabled, const QString &) { notificationChecks << enabled; });
        QObject::connect(peer(session).monitor(), &LockMonitor::idle, session, [this] { ++idleCount; });
    }
    bool has(const QString &type, const QString &lock, const QString &holder = QString()) const
    {
        for (const auto &e : events)
            if (e.type == type && e.lock == lock && (holder.isEmpty() || e.holder == holder))
                return true;
        return false;
    }
    const LockEvent *find(const QString &type, const QString &lock) const
    {
        for (const auto &e : events)
            if (e.type == type && e.lock == lock)
                return &e;
        return nullptr;
    }
    QString dump() const
    {
        QStringList out;
        for (const auto &e : events)
            out << QStringLiteral("%1 %2 %3 (%4)").arg(e.type, e.lock, e.holder, e.detail);
        return out.join(QLatin1Char('\n'));
    }
};

/** Pattern subscriptions the session's monitor asked for (unlock channels, keyspace events when
 *  live): when PUBSUB NUMPAT reaches this (and no one else subscribes), they are all active. */
qint64 patternCount(LockSession *session)
{
    return peer(session).client()->subscriber()->patterns().size();
}

/** Another Redisson-style client acting on the locks the monitor watches. */
struct Actor {
    std::unique_ptr<RedisConnection> connection;
    std::unique_ptr<LockClient> client;

    explicit Actor(const RedisEndpoint &endpoint)
    {
        connection = std::make_unique<RedisConnection>(endpoint);
        connection->setReconnectDelaysMs(20, 200);
        connection->open();
        client = std::make_unique<LockClient>(connection.get(), nullptr);
    }
    ~Actor() { client.reset(); }
    bool acquire(const QString &name, qint64 leaseMs, qint64 thread = 1)
    {
        // Shared state: the callback may run after a timed-out wait returned.
        auto state = std::make_shared<std::pair<bool, bool>>(false, false); // done, acquired
        client->tryAcquire(name, thread, leaseMs, nullptr, [state](const AcquireResult &r) {
            state->second = r.acquired;
            state->first = true;
        });
        return waitUntil([state] { return state->first; }) && state->second;
    }
    UnlockResult::Status unlock(const QString &name, qint64 thread = 1)
    {
        auto state = std::make_shared<std::pair<bool, UnlockResult::Status>>(false, UnlockResult::Status::Error);
        client->unlock(name, thread, nullptr, [state](const UnlockResult &r) {
            state->second = r.status;
            state->first = true;
        });
        waitUntil([state] { return state->first; });
        return state->second;
    }
    QString field(qint64 thread = 1) const { return client->holderField(thread); }
};

/** The `calls=` of `cmdstat_<name>` in an INFO commandstats reply; 0 when the command never ran. */
qint64 commandCalls(const QByteArray &stats, const QByteArray &name)
{
    const int at = stats.indexOf("cmdstat_" + name + ":calls=");
    return at < 0 ? 0 : stats.mid(at + name.size() + 15).split(',').first().toLongLong();
}

} // namespace

class TestLockMonitor : public QObject
{
    Q_OBJECT

private slots:
    void releasesTooShortToSeeAreCounted();
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void liveModeReportsEveryEvent();
    void oneShotReadsEachLockOnceAndStops();
    void plainReadsReportWhatTheScriptReports();
    void plainReadsLeaveToTheScriptWhatTheyCannotTell();
    void snapshotBatchesStayWithinBudget();
    void pollPlanKeepsWithinBudget();
    void pollPlanChargesRediscovery();
    void pollingRediscoveryStaysWithinBudget();
    void discoveryScanCountFollowsServerTime();
    void discoveryWalksBothPassesTogether();
    void snapshotAnswersNonLockHashesEarly();
    void readsAlikeWithoutHrandfield();
    void readStreamsBatchesInOrder();
    void sessionActsAsRedissonClient();
    void pollingWhenNotificationsOff();
    void forcedDeleteIsNotARelease();
    void forcedPolling();
    void patternFilter();
    void discoveryFindsThousandsOfLocks();
    void discoveryStepsGoOnTheScanConnection();
    void recoversAfterServerDropsConnections();
    void readOnlySessionWritesNothing();

private:
    std::unique_ptr<LockSession> startSession(const RedisEndpoint &endpoint, SessionLog &log,
                                              const QString &pattern = QStringLiteral("*"), bool readOnly = false,
                                              bool forcePolling = false, int pollIntervalMs = 1000);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    std::unique_ptr<Actor> m_actor;
};

void TestLockMonitor::initTestCase()
{
    QString error;
    m_server.setNotifyKeyspaceEvents(QStringLiteral("KA"));
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestLockMonitor::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestLockMonitor::init()
{
    m_admin->flushall();
    m_actor = std::make_unique<Actor>(m_server.endpoint());
    QVERIFY(waitUntil([this] { return m_actor->connection->isReady(); }));
}

void TestLockMonitor::cleanup()
{
    m_actor.reset();
}

std::unique_ptr<LockSession> TestLockMonitor::startSession(const RedisEndpoint &endpoint, SessionLog &log,
                                                           const QString &pattern, bool readOnly, bool forcePolling,
                                                           int pollIntervalMs)
{
    LockSession::Options options;
    options.endpoint = endpoint;
    options.pattern = pattern;
    options.readOnly = readOnly;
    options.forcePolling = forcePolling;
    options.pollIntervalMs = pollIntervalMs;
    auto session = std::make_unique<LockSession>(options);
    peer(session).connection()->setReconnectDelaysMs(50, 500);
    log.attach(session.get());
    session->start();
    return session;
}

void TestLockMonitor::liveModeReportsEveryEvent()
{
    SessionLog log;
    auto session = startSession(m_server.endpoint(), log);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && log.idleCount > 0; }));
    QVERIFY2(monitor->modeDetail().contains(QLatin1String("keyspace")), qPrintable(monitor->modeDetail()));
    QVERIFY(log.modes.contains(LockMonitor::Mode::Live));
    QCOMPARE(log.notificationChecks.value(0), true);
    QVERIFY(monitor->locks().isEmpty());
    // Both pattern subscriptions are active before anything happens.
    QVERIFY(waitUntil([&] { return m_admin->numpat() == patternCount(session.get()); }));

    const QString name = QStringLiteral("ev:1");
    const QString field = m_actor->field();
    QVERIFY(m_actor->acquire(name, 20000));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), name, field); }), qPrintable(log.dump()));
    QVERIFY(waitUntil([&] { return monitor->locks().value(name).holders.value(0).holdCount == 1; }));

    QVERIFY(m_actor->acquire(name, 20000));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("reentered"), name, field); }), qPrintable(log.dump()));
    QVERIFY(waitUntil([&] { return monitor->locks().value(name).holders.value(0).holdCount == 2; }));

    QCOMPARE(m_actor->unlock(name), UnlockResult::Status::StillHeld);
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("released"), name, field); }), qPrintable(log.dump()));
    QVERIFY(log.find(QStringLiteral("released"), name)->detail.contains(QLatin1String("still held")));
    QVERIFY(waitUntil([&] { return monitor->locks().value(name).holders.value(0).holdCount == 1; }));

    const int before = log.events.size();
    QCOMPARE(m_actor->unlock(name), UnlockResult::Status::Released);
    QVERIFY2(
        waitUntil([&] { return !monitor->locks().contains(name) && log.has(QStringLiteral("unlock_message"), name); }),
        qPrintable(log.dump()));
    bool fullRelease = false;
    for (int i = before; i < log.events.size(); ++i)
        fullRelease |= log.events[i].type == QLatin1String("released") && log.events[i].lock == name;
    QVERIFY2(fullRelease, qPrintable(log.dump()));
    // Causal order: the unlock message follows the release it announces (it arrives first).
    int releasedAt = -1, messageAt = -1;
    for (int i = before; i < log.events.size(); ++i) {
        if (log.events[i].lock != name)
            continue;
        if (releasedAt < 0 && log.events[i].type == QLatin1String("released"))
            releasedAt = i;
        if (messageAt < 0 && log.events[i].type == QLatin1String("unlock_message"))
            messageAt = i;
    }
    QVERIFY2(releasedAt >= 0 && messageAt > releasedAt, qPrintable(log.dump()));

    // renewed: someone raises the TTL well above the countdown (what a watchdog does).
    const QString renewed = QStringLiteral("ev:renew");
    QVERIFY(m_actor->acquire(renewed, 5000));
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("acquired"), renewed); }));
    QCOMPARE(m_admin->cmd({"PEXPIRE", "ev:renew", "60000"}).toInteger(), qint64(1));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("renewed"), renewed, field); }), qPrintable(log.dump()));
    QVERIFY(monitor->locks().value(renewed).pttlMs > 30000);

    // expired: a short lease nobody releases.
    const QString expiring = QStringLiteral("ev:expire");
    QVERIFY(m_actor->acquire(expiring, 300));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("expired"), expiring, field); }, 10000),
             qPrintable(log.dump()));
    QVERIFY(waitUntil([&] { return !monitor->locks().contains(expiring); }));
    QVERIFY(!log.has(QStringLiteral("released"), expiring));

    // force_unlocked: LockScope deletes it on the operator's request.
    const QString forced = QStringLiteral("ev:force");
    QVERIFY(m_actor->acquire(forced, 30000));
    QVERIFY(waitUntil([&] { return monitor->locks().contains(forced); }));
    session->forceUnlock(forced);
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("force_unlocked"), forced, field); }),
             qPrintable(log.dump()));
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("unlock_message"), forced); }));
    QVERIFY(!log.has(QStringLiteral("released"), forced));
    QVERIFY(!m_admin->exists("ev:force"));
    QVERIFY(waitUntil([&] { return !log.actions.isEmpty(); }));
    QCOMPARE(log.actions.last().action, QStringLiteral("force_unlock"));
    QCOMPARE(log.actions.last().lock, forced);
    QVERIFY(log.actions.last().ok);

    // Force unlock of a lock that is already gone: ok=false, nothing reported as unlocked.
    session->forceUnlock(QStringLiteral("ev:absent"));
    QVERIFY(waitUntil([&] { return log.actions.size() == 2; }));
    QVERIFY(!log.actions.last().ok);

    // Every event carries a time and the lock it concerns.
    for (const auto &e : log.events) {
        QVERIFY(e.timeMs > 0);
        QVERIFY(!e.lock.isEmpty());
    }
    QCOMPARE(monitor->mode(), LockMonitor::Mode::Live);
}

void TestLockMonitor::sessionActsAsRedissonClient()
{
    SessionLog log;
    auto session = startSession(m_server.endpoint(), log);
    QVERIFY(waitUntil([&] { return peer(session).monitor()->mode() == LockMonitor::Mode::Live && log.idleCount > 0; }));
    const QByteArray field = (session->clientId() + QStringLiteral(":3")).toUtf8();
    QCOMPARE(peer(session).client()->clientId(), session->clientId());

    session->acquire(QStringLiteral("sess:1"), 3, 20000, 0);
    QVERIFY(waitUntil([&] { return log.actions.size() == 1; }));
    QVERIFY2(log.actions[0].ok, qPrintable(log.actions[0].message));
    QCOMPARE(log.actions[0].action, QStringLiteral("acquire"));
    QCOMPARE(m_admin->hget("sess:1", field), QByteArray("1"));
    QVERIFY(waitUntil(
        [&] { return log.has(QStringLiteral("acquired"), QStringLiteral("sess:1"), QString::fromUtf8(field)); }));

    // Held by LockScope: the actor is refused; the session's second acquire of another thread too.
    QVERIFY(!m_actor->acquire(QStringLiteral("sess:1"), 1000));
    session->acquire(QStringLiteral("sess:1"), 4, 20000, 0);
    QVERIFY(waitUntil([&] { return log.actions.size() == 2; }));
    QVERIFY(!log.actions[1].ok);

    m_admin->cmd({"PEXPIRE", "sess:1", "2000"});
    session->renew(QStringLiteral("sess:1"), 3);
    QVERIFY(waitUntil([&] { return log.actions.size() == 3; }));
    QVERIFY2(log.actions[2].ok, qPrintable(log.actions[2].message));
    QVERIFY(m_admin->pttl("sess:1") > 20000); // renewed to the watchdog timeout (30 s)

    session->release(QStringLiteral("sess:1"), 3);
    QVERIFY(waitUntil([&] { return log.actions.size() == 4; }));
    QVERIFY2(log.actions[3].ok, qPrintable(log.actions[3].message));
    QVERIFY(!m_admin->exists("sess:1"));
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("sess:1")); }));

    session->release(QStringLiteral("sess:1"), 3);
    QVERIFY(waitUntil([&] { return log.actions.size() == 5; }));
    QVERIFY(!log.actions[4].ok);
    QVERIFY(log.actions[4].message.contains(QLatin1String("not locked by current thread")));

    // A waiting acquire through the session gets the lock when the actor releases it.
    QVERIFY(m_actor->acquire(QStringLiteral("sess:2"), 30000));
    session->acquire(QStringLiteral("sess:2"), 3, 20000, 15000);
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{sess:2}") == 1; }));
    QCOMPARE(m_actor->unlock(QStringLiteral("sess:2")), UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return log.actions.size() == 6; }, 10000));
    QVERIFY2(log.actions[5].ok, qPrintable(log.actions[5].message));
    QCOMPARE(m_admin->hget("sess:2", field), QByteArray("1"));
}

void TestLockMonitor::pollingWhenNotificationsOff()
{
    RedisServerProcess quiet;
    quiet.setNotifyKeyspaceEvents(QString());
    QString error;
    QVERIFY2(quiet.start(10000, &error), qPrintable(error));
    SyncClient admin(quiet.endpoint());
    QVERIFY(admin.open());
    QCOMPARE(admin.cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray(), QByteArray());
    Actor actor(quiet.endpoint());

    SessionLog log;
    auto session = startSession(quiet.endpoint(), log, QStringLiteral("*"), false, false, 200);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Polling && log.idleCount > 0; }));
    // The mode says why, and what to do about it.
    QVERIFY2(monitor->modeDetail().contains(QLatin1String("notify-keyspace-events")),
             qPrintable(monitor->modeDetail()));
    QVERIFY2(monitor->modeDetail().contains(QLatin1String("polling")), qPrintable(monitor->modeDetail()));
    QCOMPARE(log.notificationChecks.value(0), false);

    // Acquire and release are still seen, by polling.
    QVERIFY(actor.acquire(QStringLiteral("poll:1"), 30000));
    QVERIFY2(
        waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("poll:1"), actor.field()); }, 15000),
        qPrintable(log.dump()));
    QCOMPARE(actor.unlock(QStringLiteral("poll:1")), UnlockResult::Status::Released);
    QVERIFY2(
        waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("poll:1"), actor.field()); }, 15000),
        qPrintable(log.dump()));
    // Polling cannot tell a release from a forced delete (§14.9), and says so rather than blame.
    QVERIFY2(
        log.find(QStringLiteral("released"), QStringLiteral("poll:1"))
            ->detail.contains(QLatin1String("released or force-unlocked, unknown: LockScope polls and cannot tell")),
        qPrintable(log.dump()));
    QVERIFY(waitUntil([&] { return !monitor->locks().contains(QStringLiteral("poll:1")); }));
    QCOMPARE(monitor->mode(), LockMonitor::Mode::Polling);

    // The operator turns notifications on: the monitor goes live, and the change is an audited
    // action like the others (it changes server-wide config).
    session->enableNotifications();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live; }));
    QVERIFY2(waitUntil([&] {
                 return std::any_of(log.actions.cbegin(), log.actions.cend(), [](const SessionLog::Action &a) {
                     return a.action == QLatin1String("enable_notifications") && a.ok;
                 });
             }),
             qPrintable(log.dump()));
    const QByteArray flags = admin.cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray();
    QVERIFY2(flags.contains('K'), flags.constData());
    for (char c : {'g', 'h', 'x'})
        QVERIFY2(flags.contains(c) || flags.contains('A'), flags.constData());
    QVERIFY(waitUntil([&] { return admin.numpat() == patternCount(session.get()); }));
    QVERIFY(actor.acquire(QStringLiteral("poll:2"), 300));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("poll:2")); }),
             qPrintable(log.dump()));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("expired"), QStringLiteral("poll:2")); }, 10000),
             qPrintable(log.dump()));

    session.reset();
    quiet.stop();
}

void TestLockMonitor::forcedPolling()
{
    QVERIFY(m_actor->acquire(QStringLiteral("fp:1"), 30000));
    SessionLog log;
    auto session = startSession(m_server.endpoint(), log, QStringLiteral("*"), false, true, 200);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Polling && log.idleCount > 0; }));
    QVERIFY2(monitor->modeDetail().contains(QLatin1String("requested")), qPrintable(monitor->modeDetail()));
    QVERIFY(monitor->locks().contains(QStringLiteral("fp:1")));
    // The lock found by the first discovery was already there: no "acquired" event for it.
    QVERIFY(!log.has(QStringLiteral("acquired"), QStringLiteral("fp:1")));
    QCOMPARE(m_actor->unlock(QStringLiteral("fp:1")), UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("fp:1")); }, 15000));
}

void TestLockMonitor::patternFilter()
{
    QVERIFY(m_actor->acquire(QStringLiteral("app:1"), 60000));
    QVERIFY(m_actor->acquire(QStringLiteral("app:2"), 60000));
    QVERIFY(m_actor->acquire(QStringLiteral("other:1"), 60000));
    m_admin->cmd({"HSET", "app:plain", "foo", "bar"});

    SessionLog log;
    auto session = startSession(m_server.endpoint(), log, QStringLiteral("app:*"));
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && log.idleCount > 0; }));
    QCOMPARE(monitor->pattern(), QStringLiteral("app:*"));
    QStringList names = monitor->locks().keys();
    names.sort();
    QCOMPARE(names, (QStringList{"app:1", "app:2"}));

    // Live changes outside the pattern are ignored, inside it they are reported.
    QVERIFY(m_actor->acquire(QStringLiteral("other:2"), 60000));
    QVERIFY(m_actor->acquire(QStringLiteral("app:3"), 60000));
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("app:3")); }));
    QCOMPARE(m_actor->unlock(QStringLiteral("other:1")), UnlockResult::Status::Released);
    QCOMPARE(m_actor->unlock(QStringLiteral("app:2")), UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("app:2")); }));
    QTest::qWait(200);
    for (const auto &e : log.events)
        QVERIFY2(e.lock.startsWith(QLatin1String("app:")), qPrintable(log.dump()));
    names = monitor->locks().keys();
    names.sort();
    QCOMPARE(names, (QStringList{"app:1", "app:3"}));

    // A new pattern takes effect with the rediscovery setPattern() starts.
    log.idleCount = 0;
    session->setPattern(QStringLiteral("other:*"));
    QVERIFY2(waitUntil([&] {
                 QStringList n = monitor->locks().keys();
                 n.sort();
                 return log.idleCount > 0 && n == QStringList{QStringLiteral("other:2")};
             }),
             qPrintable(monitor->locks().keys().join(QLatin1Char(' '))));
}

void TestLockMonitor::discoveryFindsThousandsOfLocks()
{
    const int n = 3000;
    QList<QList<QByteArray>> seed;
    const QByteArray field = "b983c153-7421-469a-addb-44fb92259a1b:";
    for (int i = 0; i < n; ++i) {
        const QByteArray key = "bulk:" + QByteArray::number(i);
        seed << QList<QByteArray>{"HSET", key, field + QByteArray::number(i % 50), QByteArray::number(1 + i % 3)};
        seed << QList<QByteArray>{"PEXPIRE", key, "600000"};
    }
    for (int i = 0; i < 50; ++i) {
        seed << QList<QByteArray>{"HSET", "bulkhash:" + QByteArray::number(i), "foo", "bar"};
        seed << QList<QByteArray>{"SET", "bulkstring:" + QByteArray::number(i), "x"};
    }
    const QVector<RedisReply> replies = m_admin->pipeline(seed);
    QCOMPARE(replies.size(), seed.size());
    QCOMPARE(m_admin->dbsize(), qint64(n + 100));

    // The discovery alone, in small steps: every lock once; strings and hashes that cannot be
    // locks (the 50 bulkhash:* with a field `foo`) never (scan_step.lua "lockhash").
    {
        RedisConnection conn(m_server.endpoint());
        conn.open();
        LockDiscovery discovery(&conn);
        discovery.setScanCount(100);
        QStringList found;
        bool finished = false;
        qint64 progressCalls = 0;
        connect(&discovery, &LockDiscovery::candidatesFound, this, [&](const QStringList &names) { found += names; });
        connect(&discovery, &LockDiscovery::progress, this, [&](qint64, qint64) { ++progressCalls; });
        connect(&discovery, &LockDiscovery::finished, this, [&](qint64, qint64) { finished = true; });
        discovery.start(QStringLiteral("*"));
        QVERIFY(discovery.isRunning());
        QVERIFY(waitUntil([&] { return finished; }, 30000));
        QVERIFY(!discovery.isRunning());
        QCOMPARE(QSet<QString>(found.begin(), found.end()).size(), n);
        QCOMPARE(found.size(), n);
        QVERIFY(progressCalls > 10); // many small steps, not one big one
    }

    SessionLog log;
    qint64 lastFound = -1;
    bool discoveryFinished = false;
    auto session = startSession(m_server.endpoint(), log);
    connect(session.get(), &LockSession::discoveryProgress, this, [&](qint64, qint64 locksFound, bool finished) {
        lastFound = locksFound;
        discoveryFinished |= finished;
    });
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY2(waitUntil([&] { return log.idleCount > 0 && monitor->locks().size() == n; }, 60000),
             qPrintable(QStringLiteral("%1 discovering %2 idle %3")
                            .arg(monitor->locks().size())
                            .arg(monitor->isDiscovering())
                            .arg(monitor->isIdle())));
    QVERIFY(discoveryFinished);
    QVERIFY(lastFound > 0);
    QVERIFY(monitor->isIdle());
    const LockSnapshot s = monitor->locks().value(QStringLiteral("bulk:77"));
    QCOMPARE(s.holders.value(0).threadId, QStringLiteral("27"));
    QCOMPARE(s.holders.value(0).holdCount, qint64(3));
    // Pre-existing locks are the baseline, not "acquired" events.
    QVERIFY(log.events.isEmpty());
}

// Discovery's SCAN steps run on a connection of their own (RedisConnectionPool::
// scanConnection) so they do not wait behind the snapshot reads; while that connection is not
// ready (here: refused), the steps go on the command connection and discovery still completes.
void TestLockMonitor::discoveryStepsGoOnTheScanConnection()
{
    const int n = 500;
    m_admin->cmd({"EVAL",
                  "for i = 1, " + QByteArray::number(n) +
                      " do redis.call('hset', 'sc:' .. i, 'b983c153-7421-469a-addb-44fb92259a1b:1', 1) end",
                  "0"});
    auto discover = [&](RedisConnection *commands, RedisConnection *scan) {
        LockDiscovery discovery(commands);
        discovery.setScanConnection(scan);
        discovery.setScanCount(50);
        QSet<QString> found;
        bool finished = false;
        connect(&discovery, &LockDiscovery::candidatesFound, this, [&](const QStringList &names) {
            for (const QString &name : names)
                found.insert(name);
        });
        connect(&discovery, &LockDiscovery::finished, this, [&](qint64, qint64) { finished = true; });
        discovery.start(QStringLiteral("sc:*"));
        if (!waitUntil([&] { return finished; }, 30000))
            return -1;
        return int(found.size());
    };
    RedisConnection commands(m_server.endpoint());
    commands.setClientName("test-commands");
    commands.open();
    RedisConnection scan(m_server.endpoint());
    scan.setClientName("test-scan");
    scan.open();
    QVERIFY(waitUntil([&] { return commands.isReady() && scan.isReady(); }));
    QCOMPARE(discover(&commands, &scan), n);
    const QString clients = QString::fromUtf8(m_admin->cmd({"CLIENT", "LIST"}).toByteArray());
    const QRegularExpression scanLine(QStringLiteral("name=test-scan .*cmd=evalsha"));
    const QRegularExpression commandsLine(QStringLiteral("name=test-commands .*cmd=evalsha"));
    QVERIFY2(scanLine.match(clients).hasMatch(), qPrintable(clients));
    QVERIFY2(!commandsLine.match(clients).hasMatch(), qPrintable(clients));

    RedisConnection refused(RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), RedisServerProcess::freePort()));
    refused.setAutoReconnect(false);
    refused.open();
    QCOMPARE(discover(&commands, &refused), n);
}

void TestLockMonitor::recoversAfterServerDropsConnections()
{
    QVERIFY(m_actor->acquire(QStringLiteral("rc:1"), 60000));
    QVERIFY(m_actor->acquire(QStringLiteral("rc:gone"), 60000));
    SessionLog log;
    auto session = startSession(m_server.endpoint(), log);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && log.idleCount > 0; }));
    QCOMPARE(monitor->locks().size(), 2);
    int locksWhileDisconnected = -1;
    connect(session.get(), &LockSession::modeChanged, this, [&](LockMonitor::Mode m, const QString &) {
        if (m == LockMonitor::Mode::Disconnected)
            locksWhileDisconnected = monitor->locks().size();
    });

    // 1) The server drops every normal connection; a lock disappears while we are away.
    log.modes.clear();
    log.modeDetails.clear();
    const QVector<RedisReply> r = m_admin->pipeline({{"CLIENT", "KILL", "TYPE", "normal"}, {"DEL", "rc:gone"}});
    QCOMPARE(r.size(), 2);
    QVERIFY(r[0].toInteger() >= 1);
    QVERIFY2(waitUntil([&] { return log.modes.contains(LockMonitor::Mode::Disconnected); }),
             qPrintable(log.modeDetails.join('\n')));
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live; }, 15000),
             qPrintable(log.modeDetails.join('\n')));
    const int disconnectedAt = log.modes.indexOf(LockMonitor::Mode::Disconnected);
    QVERIFY2(log.modeDetails[disconnectedAt].contains(QLatin1String("reconnecting")),
             qPrintable(log.modeDetails.join('\n')));
    QCOMPARE(locksWhileDisconnected, 2); // the last data stays on screen, marked stale by the mode
    // After the resync the vanished lock is gone and reported.
    QVERIFY2(waitUntil([&] { return !monitor->locks().contains(QStringLiteral("rc:gone")); }), qPrintable(log.dump()));
    QVERIFY(log.has(QStringLiteral("released"), QStringLiteral("rc:gone")) ||
            log.has(QStringLiteral("expired"), QStringLiteral("rc:gone")));
    QVERIFY(monitor->locks().contains(QStringLiteral("rc:1")));

    // 2) The server drops the pub/sub connection: subscriptions come back and live events flow.
    QVERIFY(waitUntil([&] { return m_actor->connection->isReady(); }));
    QVERIFY(m_admin->cmd({"CLIENT", "KILL", "TYPE", "pubsub"}).toInteger() >= 1);
    QVERIFY(waitUntil([&] { return m_admin->numpat() == patternCount(session.get()); }, 15000));
    QVERIFY(m_actor->acquire(QStringLiteral("rc:after"), 60000));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("rc:after")); }),
             qPrintable(log.dump()));
    QCOMPARE(m_actor->unlock(QStringLiteral("rc:1")), UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return log.has(QStringLiteral("unlock_message"), QStringLiteral("rc:1")); }));
    QCOMPARE(monitor->mode(), LockMonitor::Mode::Live);

    // 3) A polling monitor recovers to polling.
    SessionLog pollLog;
    auto polling = startSession(m_server.endpoint(), pollLog, QStringLiteral("*"), false, true, 200);
    QVERIFY(waitUntil(
        [&] { return peer(polling).monitor()->mode() == LockMonitor::Mode::Polling && pollLog.idleCount > 0; }));
    pollLog.modes.clear();
    pollLog.modeDetails.clear();
    QVERIFY(m_admin->cmd({"CLIENT", "KILL", "TYPE", "normal"}).toInteger() >= 1);
    QVERIFY(waitUntil([&] { return pollLog.modes.contains(LockMonitor::Mode::Disconnected); }));
    QVERIFY(waitUntil([&] { return peer(polling).monitor()->mode() == LockMonitor::Mode::Polling; }, 15000));
    QVERIFY(waitUntil([&] { return m_actor->connection->isReady(); }));
    QVERIFY(m_actor->acquire(QStringLiteral("rc:polled"), 60000));
    QVERIFY2(waitUntil([&] { return pollLog.has(QStringLiteral("acquired"), QStringLiteral("rc:polled")); }, 15000),
             qPrintable(pollLog.dump()));
}

void TestLockMonitor::readOnlySessionWritesNothing()
{
    QVERIFY(m_actor->acquire(QStringLiteral("ro:held"), 60000));
    m_admin->cmd({"CONFIG", "SET", "notify-keyspace-events", "Kg"}); // not enough for live mode
    auto restoreConfig = qScopeGuard([this] { m_admin->cmd({"CONFIG", "SET", "notify-keyspace-events", "KA"}); });

    SessionLog log;
    auto session = startSession(m_server.endpoint(), log, QStringLiteral("*"), true);
    QVERIFY(session->isReadOnly());
    QVERIFY(
        waitUntil([&] { return peer(session).monitor()->mode() == LockMonitor::Mode::Polling && log.idleCount > 0; }));
    const qint64 keysBefore = m_admin->dbsize();
    const QStringList heldBefore = m_admin->hgetall("ro:held");

    session->acquire(QStringLiteral("ro:new"), 1, 10000, 0);
    session->acquire(QStringLiteral("ro:held"), 1, 10000, 5000);
    session->forceUnlock(QStringLiteral("ro:held"));
    session->release(QStringLiteral("ro:held"), 1);
    session->renew(QStringLiteral("ro:held"), 1);
    session->enableNotifications();
    QVERIFY(waitUntil([&] { return log.actions.size() == 6; }));
    const QStringList expected{"acquire", "acquire", "force_unlock", "release", "renew", "enable_notifications"};
    for (int i = 0; i < 6; ++i) {
        QCOMPARE(log.actions[i].action, expected[i]);
        QVERIFY(!log.actions[i].ok);
        QVERIFY2(log.actions[i].message.contains(QLatin1String("read-only")), qPrintable(log.actions[i].message));
    }
    // Give any stray write time to land, then check nothing changed.
    QTest::qWait(300);
    QCOMPARE(m_admin->dbsize(), keysBefore);
    QVERIFY(!m_admin->exists("ro:new"));
    QCOMPARE(m_admin->hgetall("ro:held"), heldBefore);
    QCOMPARE(m_admin->cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray(), QByteArray("gK"));
    QCOMPARE(peer(session).monitor()->mode(), LockMonitor::Mode::Polling);
    QVERIFY(waitUntil([&] { return peer(session).monitor()->locks().contains(QStringLiteral("ro:held")); }));
}

// One-shot mode (CLI list, doctor) is one discovery pass and one read of each lock,
// then idle for good: no poll timer (here one that would fire every 50 ms and re-mark all 3000
// locks), no subscription.
void TestLockMonitor::oneShotReadsEachLockOnceAndStops()
{
    const int n = 3000;
    m_admin->cmd({"EVAL",
                  "for i = 1, " + QByteArray::number(n) +
                      " do redis.call('hset', 'os:' .. i, 'b983c153-7421-469a-addb-44fb92259a1b:1', 1) end",
                  "0"});
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    SessionLog log;
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    options.forcePolling = true;
    options.pollIntervalMs = 50;
    options.oneShot = true;
    LockSession session(options);
    log.attach(&session);
    session.start();
    QVERIFY(waitUntil([&] { return log.idleCount > 0; }, 60000));
    QCOMPARE(peer(session).monitor()->locks().size(), n);
    // Reads: snapshot scripts, plain reads (HRANDFIELD) and SCAN steps.
    auto scriptCalls = [&] {
        const QByteArray stats = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
        qint64 calls = 0;
        for (const QByteArray &line : stats.split('\n'))
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:") ||
                line.startsWith("cmdstat_hrandfield:") || line.startsWith("cmdstat_scan:"))
                calls += line.mid(line.indexOf("calls=") + 6).split(',').first().toLongLong();
        return calls;
    };
    const qint64 afterPass = scriptCalls();
    QVERIFY(afterPass > 0);
    QTest::qWait(500); // ten poll intervals
    QCOMPARE(scriptCalls(), afterPass);
    QCOMPARE(m_admin->numpat(), qint64(0));
    QCOMPARE(log.idleCount, 1);
}

namespace
{

const QByteArray kUuid = "b983c153-7421-469a-addb-44fb92259a1b";

/** A keyspace with every kind of lock and look-alike the read path has to tell apart. */
void seedEveryShape(SyncClient &admin)
{
    const QByteArray f1 = kUuid + ":1";
    const QByteArray f2 = kUuid + ":2";
    const QByteArray later = QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 600000);
    admin.cmd({"HSET", "pr:plain", f1, "1"});
    admin.cmd({"PEXPIRE", "pr:plain", "600000"});
    admin.cmd({"HSET", "pr:forever", f2, "3"}); // no TTL
    admin.cmd({"HSET", "pr:waited", f1, "1"});
    admin.cmd({"PEXPIRE", "pr:waited", "600000"});
    // Fair lock: hash, queue and timeout set.
    admin.cmd({"HSET", "pr:fair", f1, "1"});
    admin.cmd({"PEXPIRE", "pr:fair", "600000"});
    admin.cmd({"RPUSH", "redisson_lock_queue:{pr:fair}", kUuid + ":7", kUuid + ":8"});
    admin.cmd({"ZADD", "redisson_lock_timeout:{pr:fair}", later, kUuid + ":7", later, kUuid + ":8"});
    // Fair waiters whose lock hash is gone.
    admin.cmd({"RPUSH", "redisson_lock_queue:{pr:orphan}", kUuid + ":9"});
    admin.cmd({"ZADD", "redisson_lock_timeout:{pr:orphan}", later, kUuid + ":9"});
    // Fenced lock.
    admin.cmd({"HSET", "pr:fenced", f1, "1"});
    admin.cmd({"SET", "redisson_lock_token:{pr:fenced}", "17"});
    // Read-write lock with two read holds of one thread.
    admin.cmd({"HSET", "pr:rw", "mode", "read", f1, "2"});
    admin.cmd({"SET", "{pr:rw}:" + f1 + ":rwlock_timeout:1", "1", "PX", "600000"});
    admin.cmd({"SET", "{pr:rw}:" + f1 + ":rwlock_timeout:2", "1", "PX", "600000"});
    // Twins x and {x}; a braced name alone.
    admin.cmd({"HSET", "pr:tw", f1, "1"});
    admin.cmd({"HSET", "{pr:tw}", f2, "1"});
    admin.cmd({"HSET", "{pr:solo}", f2, "1"});
    // A hash of 20 holders (sampled), a legacy lock, a faster multilock group.
    for (int i = 0; i < 20; ++i)
        admin.cmd({"HSET", "pr:big", kUuid + ":" + QByteArray::number(100 + i), "1"});
    admin.cmd({"HSET", "pr:legacy", "x:1", "1"});
    admin.cmd({"HSET", "pr:multi", "h", f1, "h:" + f1 + ":expire_time", later, "h:" + f1 + ":lock_count", "1"});
    // No locks.
    admin.cmd({"HSET", "pr:session", "user", "42", "seen", "1700000000"});
    admin.cmd({"SET", "pr:string", "v"});
    admin.cmd({"SET", "redisson_lock_other", "v"});
}

/** A snapshot's JSON without what changes from one read to the next (times, TTLs). */
QJsonValue timeless(const QJsonValue &v)
{
    if (v.isObject()) {
        QJsonObject o;
        const QJsonObject in = v.toObject();
        for (auto it = in.begin(); it != in.end(); ++it)
            if (!it.key().contains(QLatin1String("ttl")) && !it.key().endsWith(QLatin1String("_in_ms")) &&
                it.key() != QLatin1String("server_time_ms"))
                o.insert(it.key(), timeless(it.value()));
        return o;
    }
    if (v.isArray()) {
        QJsonArray a;
        for (const QJsonValue &e : v.toArray())
            a.append(timeless(e));
        return a;
    }
    return v;
}

} // namespace

// Plain reads (pipelined HRANDFIELD + PTTL, the script only where they cannot tell) report every
// lock exactly as the snapshot script does: kind, holders, hold counts, TTL, waiters, fair queue,
// token, twins, samples, subscribers.
void TestLockMonitor::plainReadsReportWhatTheScriptReports()
{
    seedEveryShape(*m_admin);
    RedisSubscriber waiter(m_server.endpoint());
    bool subscribed = false;
    connect(&waiter, &RedisSubscriber::subscribed, this, [&](const QByteArray &) { subscribed = true; });
    waiter.open();
    waiter.subscribe("redisson_lock__channel:{pr:waited}");
    QVERIFY(waitUntil([&] { return subscribed; }));
    // Top-level HRANDFIELDs: SLOWLOG logs every command at threshold 0, those a script runs with
    // the peer "?:0".
    auto listWith = [&](bool plain, qint64 *plainReads) {
        m_admin->cmd({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
        m_admin->cmd({"CONFIG", "SET", "slowlog-max-len", "10000"});
        m_admin->cmd({"SLOWLOG", "RESET"});
        LockSession::Options options;
        options.endpoint = m_server.endpoint();
        options.forcePolling = true;
        options.oneShot = true;
        LockSession session(options);
        peer(session).monitor()->setPlainReads(plain);
        bool idle = false;
        connect(peer(session).monitor(), &LockMonitor::idle, this, [&] { idle = true; });
        session.start();
        if (!waitUntil([&] { return idle; }, 30000))
            return QMap<QString, QJsonValue>();
        QMap<QString, QJsonValue> out;
        const auto locks = peer(session).monitor()->locks();
        for (auto it = locks.cbegin(); it != locks.cend(); ++it)
            out.insert(it.key(), timeless(it.value().toJson()));
        *plainReads = 0;
        const RedisReply slowlog = m_admin->cmd({"SLOWLOG", "GET", "10000"});
        for (const RedisReply &e : slowlog.elements())
            if (e.at(3).at(0).toByteArray().toUpper() == "HRANDFIELD" && e.at(4).toByteArray() != "?:0")
                ++*plainReads;
        m_admin->cmd({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
        return out;
    };
    qint64 plainReadsPlain = 0, plainReadsScript = 0;
    const auto byScript = listWith(false, &plainReadsScript);
    const auto byPlain = listWith(true, &plainReadsPlain);
    const QStringList expected{"pr:big",   "pr:fair", "pr:fenced", "pr:forever", "pr:legacy", "pr:multi", "pr:orphan",
                               "pr:plain", "pr:rw",   "pr:tw",     "pr:waited",  "{pr:solo}", "{pr:tw}"};
    QCOMPARE(byScript.keys(), expected);
    QCOMPARE(byPlain.keys(), expected);
    for (const QString &name : expected)
        QVERIFY2(byPlain.value(name) == byScript.value(name),
                 qPrintable(name + QLatin1Char('\n') +
                            QJsonDocument(byPlain.value(name).toObject()).toJson(QJsonDocument::Compact) +
                            QLatin1Char('\n') +
                            QJsonDocument(byScript.value(name).toObject()).toJson(QJsonDocument::Compact)));
    QCOMPARE(byPlain.value("pr:waited").toObject().value("subscribers").toInt(), 1);
    QCOMPARE(byPlain.value("pr:fair").toObject().value("kind").toString(), QStringLiteral("fair_lock"));
    QCOMPARE(plainReadsScript, qint64(0));
    // Every hash but the read-write lock, the one of 20 fields and the twins (read by the script).
    QVERIFY2(plainReadsPlain >= 7, qPrintable(QString::number(plainReadsPlain)));
}

// What a plain read cannot tell alone (another type, a sampled hash, a read-write lock, a hash
// gone meanwhile) the script reads in the same read().
void TestLockMonitor::plainReadsLeaveToTheScriptWhatTheyCannotTell()
{
    seedEveryShape(*m_admin);
    RedisConnection conn(m_server.endpoint());
    conn.open();
    SnapshotReader reader(&conn);
    reader.setPlainBatchSize(3);
    const QStringList plain{"pr:plain",   "pr:forever", "pr:rw",     "pr:big",  "pr:string",
                            "pr:session", "pr:none",    "pr:legacy", "pr:multi"};
    QVector<LockSnapshot> got;
    QString error;
    bool done = false;
    reader.read(
        {QStringLiteral("pr:fair")}, plain, this,
        [&](const QVector<LockSnapshot> &s, const QString &e) {
            got = s;
            error = e;
            done = true;
        },
        nullptr);
    QVERIFY(waitUntil([&] { return done; }));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(got.size(), plain.size() + 1);
    QCOMPARE(reader.plainBatchesSent(), qint64(3));
    QCOMPARE(reader.plainNamesRetried(), qint64(3)); // pr:rw (mode), pr:big (> 16 fields), pr:string (type)
    QHash<QString, LockSnapshot> byName;
    for (const LockSnapshot &s : std::as_const(got))
        byName.insert(s.name, s);
    QCOMPARE(byName.value("pr:rw").kind, LockKind::ReadWriteLock);
    QCOMPARE(byName.value("pr:rw").holders.value(0).holdTtlsMs.size(), 2);
    QCOMPARE(byName.value("pr:big").fieldCount, qint64(20));
    QCOMPARE(byName.value("pr:big").holders.size(), 20);
    QVERIFY(!byName.value("pr:string").isLock);
    QVERIFY(!byName.value("pr:session").isLock);
    QVERIFY(byName.value("pr:session").exists);
    QVERIFY(!byName.value("pr:none").exists);
    QCOMPARE(byName.value("pr:forever").holders.value(0).holdCount, qint64(3));
    QCOMPARE(byName.value("pr:forever").pttlMs, qint64(-1));
    QVERIFY(byName.value("pr:plain").pttlMs > 590000);
    QCOMPARE(byName.value("pr:fair").waiters.size(), 2);
    QCOMPARE(byName.value("pr:multi").kind, LockKind::FasterMultiLock);
    QVERIFY(byName.value("pr:legacy").isLock);
}

// The snapshot script's batches adapt to its own measured run time and stay under
// the budget; a fixed size turns that off.
void TestLockMonitor::snapshotBatchesStayWithinBudget()
{
    const int n = 2000;
    m_admin->cmd({"EVAL",
                  "for i = 1, " + QByteArray::number(n) +
                      " do redis.call('hset', 'sb:' .. i, 'b983c153-7421-469a-addb-44fb92259a1b:1', 1) end",
                  "0"});
    RedisConnection conn(m_server.endpoint());
    conn.open();
    SnapshotReader reader(&conn);
    QCOMPARE(reader.batchSize(), 50);
    QCOMPARE(reader.batchBudgetUs(), qint64(500));
    QStringList names;
    for (int i = 1; i <= n; ++i)
        names << QStringLiteral("sb:%1").arg(i);
    QVector<LockSnapshot> got;
    bool done = false;
    reader.read(names, this, [&](const QVector<LockSnapshot> &s, const QString &error) {
        QVERIFY2(error.isEmpty(), qPrintable(error));
        got = s;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }, 30000));
    QCOMPARE(int(got.size()), n);
    for (int i = 0; i < n; ++i) {
        QCOMPARE(got.at(i).name, names.at(i)); // in input order
        QVERIFY(got.at(i).isLock);
    }
    QVERIFY(reader.slowestBatchUs() > 0); // the script reported its run time
    QVERIFY(reader.callsSent() >= n / 1000);
    QVERIFY(reader.batchSize() >= 1 && reader.batchSize() <= 1000);
    reader.setBatchSize(7);
    QCOMPARE(reader.batchBudgetUs(), qint64(0));
    done = false;
    const qint64 before = reader.callsSent();
    reader.read(names.mid(0, 70), this, [&](const QVector<LockSnapshot> &, const QString &) { done = true; });
    QVERIFY(waitUntil([&] { return done; }, 30000));
    QCOMPARE(reader.callsSent() - before, qint64(10));
    QCOMPARE(reader.batchSize(), 7);
}

// The polling plan (counts, not timings): priority locks every tick, the rest swept
// with what is left of the budget (Redis commands/s, kCommandsPerLockRead per lock read).
void TestLockMonitor::pollPlanKeepsWithinBudget()
{
    const int per = LockMonitor::kCommandsPerLockRead;
    // 5k locks, 40 visible, budget 2000/s, 1 s ticks: 222 reads per tick in all.
    LockMonitor::PollPlan p = LockMonitor::pollPlan(5000, 40, 2000, 1000);
    QCOMPARE(p.priorityReads, 40);
    QCOMPARE(p.sweepReads, 2000 / per - 40);
    QVERIFY(p.commandsPerSecond <= 2000);
    QCOMPARE(p.sweepMs, qint64((4960 + p.sweepReads - 1) / p.sweepReads) * 1000);
    // 200k locks, budget 50000/s: all re-read in about 37 s.
    p = LockMonitor::pollPlan(200000, 50, 50000, 1000);
    QCOMPARE(p.priorityReads + p.sweepReads, 50000 / per);
    QVERIFY(p.commandsPerSecond <= 50000);
    QVERIFY(p.sweepMs >= 30000 && p.sweepMs <= 40000);
    // More priority locks than the budget: they are still read, the sweep keeps a tenth.
    p = LockMonitor::pollPlan(10000, 1000, 2000, 1000);
    QCOMPARE(p.priorityReads, 1000);
    QCOMPARE(p.sweepReads, (2000 / per) / 10);
    // Few locks: all of them every tick.
    p = LockMonitor::pollPlan(30, 5, 2000, 1000);
    QCOMPARE(p.priorityReads + p.sweepReads, 30);
    QCOMPARE(p.sweepMs, qint64(1000));
}

// The rediscovery that ends each sweep (SCAN steps, reads of new names) is charged to
// the budget: the sweep slows down by its share and the plan's commands/s include it.
void TestLockMonitor::pollPlanChargesRediscovery()
{
    const int per = LockMonitor::kCommandsPerLockRead;
    const LockMonitor::PollPlan free = LockMonitor::pollPlan(5000, 40, 2000, 1000);
    // 5k locks among 25k keys: a rediscovery of about 250 SCAN steps.
    const qint64 overhead = 250 * LockMonitor::kCommandsPerScanStep;
    const LockMonitor::PollPlan p = LockMonitor::pollPlan(5000, 40, 2000, 1000, overhead);
    QCOMPARE(p.priorityReads, 40);
    QVERIFY(p.sweepReads < free.sweepReads);
    QVERIFY(p.sweepMs >= free.sweepMs);
    // Reads of a whole sweep plus its rediscovery, per second: within the budget.
    const qint64 ticks = p.sweepMs / 1000;
    const qint64 commands = qint64(p.priorityReads + p.sweepReads) * per * ticks + overhead;
    QVERIFY2(commands * 1000 / p.sweepMs <= 2000, qPrintable(QString::number(commands * 1000 / p.sweepMs)));
    QVERIFY(p.commandsPerSecond <= 2000);
    QVERIFY(p.commandsPerSecond >= 1800); // the budget is used, not wasted
    // No overhead: as before.
    QCOMPARE(LockMonitor::pollPlan(5000, 40, 2000, 1000, 0).sweepReads, free.sweepReads);
    // An overhead bigger than a sweep's reads: the sweep keeps its tenth, never stops.
    QCOMPARE(LockMonitor::pollPlan(5000, 0, 2000, 1000, 10000000).sweepReads, (2000 / per) / 10);
}

// An idle polling monitor, rediscoveries included, sends at most its budget (Redis
// commands/s as INFO counts them, inner script commands included), with a generous margin. On
// main each rediscovery re-read every lock it found and its SCANs were not counted: ~2x over.
void TestLockMonitor::pollingRediscoveryStaysWithinBudget()
{
    m_admin->cmd({"EVAL",
                  "for i = 1, 60 do redis.call('hset', 'pb:' .. i, 'b983c153-7421-469a-addb-44fb92259a1b:1', 1) end "
                  "for i = 1, 3000 do redis.call('set', 'pb:cache:' .. i, 'x') end "
                  "for i = 1, 600 do redis.call('hset', 'pb:session:' .. i, 'user', i) end",
                  "0"});
    SessionLog log;
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    options.forcePolling = true;
    options.pollIntervalMs = 100;
    options.pollBudget = 200;
    auto session = std::make_unique<LockSession>(options);
    log.attach(session.get());
    session->start();
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return log.idleCount > 0 && monitor->locks().size() == 60; }, 20000));
    QTest::qWait(1500); // past the first pass and the doctor's first probe
    auto commands = [this] {
        const QByteArray info = m_admin->cmd({"INFO", "stats"}).toByteArray();
        const int at = info.indexOf("total_commands_processed:");
        return info.mid(at + 25, info.indexOf('\r', at) - at - 25).toLongLong();
    };
    const qint64 before = commands();
    QElapsedTimer clock;
    clock.start();
    QTest::qWait(6000); // a sweep takes about 3-6 s here: at least one rediscovery in the window
    const qint64 after = commands();
    const double perSecond = double(after - before - 1) * 1000.0 / double(clock.elapsed());
    qInfo("polling 60 locks among 3660 keys, budget 200/s: %.0f commands/s; %s", perSecond,
          qPrintable(monitor->modeDetail()));
    QVERIFY2(perSecond <= 200 * 1.5, qPrintable(QString::number(perSecond)));
    QVERIFY2(monitor->modeDetail().contains(QLatin1String("(budget 200/s)")), qPrintable(monitor->modeDetail()));
    // The status line's estimate includes the rediscovery and stays within the budget.
    const QRegularExpression cps(QStringLiteral("~(\\d+) commands/s"));
    const auto m = cps.match(monitor->modeDetail());
    QVERIFY2(m.hasMatch() && m.captured(1).toInt() <= 200, qPrintable(monitor->modeDetail()));
    QCOMPARE(monitor->locks().size(), 60);
}

// Each SCAN step runs in scan_step.lua and its COUNT follows the server's own time for
// the step (not the round trip, not capped at 4000): with an unlimited budget it doubles to
// LockDiscovery::kMaxCount; the slowest step's server time is known.
void TestLockMonitor::discoveryScanCountFollowsServerTime()
{
    m_admin->cmd(
        {"EVAL",
         "for i = 1, 60000 do redis.call('set', 'sc:' .. i, 'x') end "
         "for i = 1, 30 do redis.call('hset', 'sc:lock:' .. i, 'b983c153-7421-469a-addb-44fb92259a1b:1', 1) end",
         "0"});
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    RedisConnection conn(m_server.endpoint());
    conn.open();
    LockDiscovery discovery(&conn);
    QCOMPARE(discovery.stepBudgetUs(), qint64(LockMonitor::kScanBudgetUs));
    discovery.setStepBudgetUs(1000000000);
    QStringList found;
    bool done = false;
    connect(&discovery, &LockDiscovery::candidatesFound, this, [&](const QStringList &n) { found += n; });
    connect(&discovery, &LockDiscovery::finished, this, [&] { done = true; });
    discovery.start(QStringLiteral("*"));
    QVERIFY(waitUntil([&] { return done; }, 60000));
    found.removeDuplicates();
    QCOMPARE(found.size(), 30);
    QVERIFY2(discovery.scanCount() > 4000, qPrintable(QString::number(discovery.scanCount())));
    QVERIFY(discovery.scanCount() <= LockDiscovery::kMaxCount);
    QVERIFY(discovery.slowestStepUs() > 0);
    // Every step was one SCAN inside one script call.
    const QByteArray stats = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
    auto calls = [&stats](const QByteArray &name) { return commandCalls(stats, name); };
    QCOMPARE(calls("scan"), discovery.steps());
    // One call advances the hash pass and the fair-queue pass together: at most two SCANs each.
    QVERIFY(calls("evalsha") + calls("eval") >= (discovery.steps() + 1) / 2);
    QVERIFY(calls("evalsha") + calls("eval") < discovery.steps()); // and they did share calls
    // The pure arithmetic: 80 % of the budget at the measured cost per key, at most doubling.
    QCOMPARE(LockDiscovery::nextScanCount(1000, 1000, 250), 200); // 1 us/key -> 200 keys
    QCOMPARE(LockDiscovery::nextScanCount(100, 10, 250), 200);    // cheap: at most double
    QCOMPARE(LockDiscovery::nextScanCount(100, 100000, 250), LockDiscovery::kMinCount);
}

// The hash pass and the fair-queue pass walk with one cursor and one COUNT (the second SCAN of a
// step walks the buckets the first has just read, which costs Redis a third less CPU than two
// walks apart), and still find everything each finds alone: locks, and fair queues whose hash is
// gone. The server's time for both SCANs of a step stays within the one step budget.
void TestLockMonitor::discoveryWalksBothPassesTogether()
{
    m_admin->cmd(
        {"EVAL",
         "for i = 1, 40000 do redis.call('set', 'wt:' .. i, 'x') end "
         "for i = 1, 25 do redis.call('hset', 'wt:lock:' .. i, 'b983c153-7421-469a-addb-44fb92259a1b:1', 1) end "
         "for i = 1, 5 do redis.call('rpush', 'redisson_lock_queue:{wt:gone:' .. i .. '}', "
         "'b983c153-7421-469a-addb-44fb92259a1b:7') end",
         "0"});
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    RedisConnection conn(m_server.endpoint());
    conn.open();
    LockDiscovery discovery(&conn);
    discovery.setPrefilterHashes(false);
    QStringList hashes;
    QStringList byCompanion;
    bool done = false;
    connect(&discovery, &LockDiscovery::candidatesFound, this,
            [&](const QStringList &n, bool fromCompanion) { (fromCompanion ? byCompanion : hashes) += n; });
    connect(&discovery, &LockDiscovery::finished, this, [&] { done = true; });
    discovery.start(QStringLiteral("wt:*"));
    QVERIFY(discovery.passesWalkTogether());
    QVERIFY(waitUntil([&] { return done; }, 60000));
    QVERIFY(discovery.passesWalkTogether()); // Redis 7.0: the filters never change the walk
    hashes.removeDuplicates();
    QCOMPARE(hashes.size(), 25);
    for (int i = 1; i <= 5; ++i)
        QVERIFY2(byCompanion.contains(QStringLiteral("wt:gone:%1").arg(i)), qPrintable(byCompanion.join(' ')));
    // Every step sent both SCANs (they ended together), so the count is even.
    const QByteArray stats = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
    QVERIFY(stats.contains("cmdstat_scan:calls="));
    const qint64 scans = commandCalls(stats, "scan");
    QCOMPARE(scans, discovery.steps());
    QCOMPARE(scans % 2, qint64(0));

    // Walked apart (as after a split: each pass its own cursor and half the budget), the same
    // names are found.
    QStringList apartHashes;
    QStringList apartCompanion;
    done = false;
    disconnect(&discovery, &LockDiscovery::candidatesFound, this, nullptr);
    connect(&discovery, &LockDiscovery::candidatesFound, this,
            [&](const QStringList &n, bool fromCompanion) { (fromCompanion ? apartCompanion : apartHashes) += n; });
    discovery.setWalkTogether(false);
    const qint64 stepsBefore = discovery.steps();
    discovery.start(QStringLiteral("wt:*"));
    QVERIFY(!discovery.passesWalkTogether());
    QVERIFY(waitUntil([&] { return done; }, 60000));
    apartHashes.removeDuplicates();
    apartHashes.sort();
    hashes.sort();
    QCOMPARE(apartHashes, hashes);
    for (int i = 1; i <= 5; ++i)
        QVERIFY(apartCompanion.contains(QStringLiteral("wt:gone:%1").arg(i)));
    QVERIFY(discovery.steps() > stepsBefore);
}

// The scripts read a hash with one HRANDFIELD of 17 fields where HLEN and HGETALL (or
// HKEYS) were two. Redis before 6.2 has no HRANDFIELD: a server where it is unknown (renamed away)
// must give the same discovery and the same snapshots, by the two-command path.
void TestLockMonitor::readsAlikeWithoutHrandfield()
{
    RedisServerProcess old;
    old.setExtraArguments({QStringLiteral("--rename-command"), QStringLiteral("HRANDFIELD"), QString()});
    QString error;
    QVERIFY2(old.start(10000, &error), qPrintable(error));
    SyncClient oldAdmin(old.endpoint(), "test-admin");
    QVERIFY(oldAdmin.open());
    QVERIFY(oldAdmin.cmd({"HRANDFIELD", "x"}).isError());
    const QByteArray holder = "b983c153-7421-469a-addb-44fb92259a1b:1";
    QList<QList<QByteArray>> seed{
        {"HSET", "ra:lock", holder, "2"},
        {"PEXPIRE", "ra:lock", "30000"},
        {"HSET", "ra:rw", "mode", "read", holder, "1"},
        {"SET", "{ra:rw}:" + holder + ":rwlock_timeout:1", "1", "PX", "30000"},
        {"HSET", "ra:session", "user", "u", "seen", "1700000000"},
        {"HSET", "ra:fair", holder, "1"},
        {"RPUSH", "redisson_lock_queue:{ra:fair}", "b983c153-7421-469a-addb-44fb92259a1b:7"},
        {"ZADD", "redisson_lock_timeout:{ra:fair}", "1800000000000", "b983c153-7421-469a-addb-44fb92259a1b:7"},
        {"HSET", "ra:twin", holder, "1"},
        {"HSET", "{ra:twin}", holder, "1"},
        {"SET", "ra:string", "x"},
        {"RPUSH", "ra:list", "x"},
    };
    QList<QByteArray> sixteen{"HSET", "ra:sixteen"}, seventeen{"HSET", "ra:seventeen"}, huge{"HSET", "ra:huge"};
    for (int i = 0; i < 17; ++i) {
        if (i < 16)
            sixteen << "f" + QByteArray::number(i) << "v";
        seventeen << "f" + QByteArray::number(i) << "v";
    }
    for (int i = 0; i < 3000; ++i)
        huge << "b983c153-7421-469a-addb-44fb92259a1b:" + QByteArray::number(i + 1) << "1"; // any sample: holders
    seed << sixteen << seventeen << huge;
    QCOMPARE(m_admin->pipeline(seed).size(), seed.size());
    QCOMPARE(oldAdmin.pipeline(seed).size(), seed.size());

    // Discovery with the hash prefilter: the same candidates and the same hashes told apart.
    auto discover = [this](const RedisEndpoint &endpoint) {
        RedisConnection conn(endpoint);
        conn.open();
        LockDiscovery discovery(&conn);
        QSet<QString> candidates, notLocks;
        bool done = false;
        connect(&discovery, &LockDiscovery::candidatesFound, this, [&](const QStringList &n) {
            for (const auto &name : n)
                candidates.insert(name);
        });
        connect(&discovery, &LockDiscovery::hashesNotLocksFound, this, [&](const QStringList &n) {
            for (const auto &name : n)
                notLocks.insert(name);
        });
        connect(&discovery, &LockDiscovery::finished, this, [&] { done = true; });
        connect(&discovery, &LockDiscovery::failed, this, [&](const QString &e) {
            candidates.insert(QStringLiteral("failed: ") + e);
            done = true;
        });
        discovery.start(QStringLiteral("*"));
        waitUntil([&] { return done; }, 20000);
        return qMakePair(candidates, notLocks);
    };
    const auto now = discover(m_server.endpoint());
    const auto before = discover(old.endpoint());
    QCOMPARE(before.first, now.first);
    QCOMPARE(before.second, now.second);
    QVERIFY(now.first.contains(QStringLiteral("ra:lock")));
    QVERIFY(now.first.contains(QStringLiteral("ra:seventeen"))); // over 16 fields: read to tell
    QVERIFY(now.second.contains(QStringLiteral("ra:session")));
    QVERIFY(now.second.contains(QStringLiteral("ra:sixteen")));

    // Snapshots: every kind of name reads alike on both servers.
    const QStringList names{"ra:lock",   "ra:rw",   "ra:session", "ra:fair",    "ra:twin",      "{ra:twin}",
                            "ra:string", "ra:list", "ra:missing", "ra:sixteen", "ra:seventeen", "ra:huge"};
    auto read = [this, &names](const RedisEndpoint &endpoint) {
        RedisConnection conn(endpoint);
        conn.open();
        SnapshotReader reader(&conn);
        QStringList out;
        bool done = false;
        reader.read(names, this, [&](const QVector<LockSnapshot> &got, const QString &error) {
            if (!error.isEmpty())
                out << error;
            for (const LockSnapshot &s : got) {
                QStringList holders;
                for (const auto &h : s.holders)
                    holders << h.field + QLatin1Char('=') + QString::number(h.holdCount);
                holders.sort();
                out << QStringLiteral("%1 exists=%2 lock=%3 kind=%4 fields=%5 sampled=%6 queue=%7 twin=%8 ttl=%9 [%10]")
                           .arg(s.name)
                           .arg(s.exists)
                           .arg(s.isLock)
                           .arg(s.kindDisplay())
                           .arg(s.fieldCount)
                           .arg(s.sampled)
                           .arg(s.queueLength)
                           .arg(s.twinExists)
                           .arg(s.pttlMs > 0 ? QStringLiteral("set") : QString::number(s.pttlMs))
                           // A sample: 16 random fields, or one HSCAN step of about 16 before 6.2.
                           .arg(s.sampled ? QString::number(qMin(1, int(holders.size())))
                                          : holders.join(QLatin1Char(',')));
            }
            done = true;
        });
        waitUntil([&] { return done; }, 20000);
        return out;
    };
    const QStringList expected = read(m_server.endpoint());
    QCOMPARE(expected.size(), names.size());
    QCOMPARE(read(old.endpoint()), expected);
    QVERIFY2(expected.filter(QStringLiteral("ra:huge exists=1 lock=1")).size() == 1, qPrintable(expected.join('\n')));
    QVERIFY2(expected.filter(QStringLiteral("sampled=1")).size() == 1, qPrintable(expected.join('\n')));
    QVERIFY2(expected.filter(QStringLiteral("ra:twin exists=1 lock=1")).first().contains(QStringLiteral("twin=1")),
             qPrintable(expected.join('\n')));
    old.stop();
}

// A streaming read hands each batch over as it arrives, in order, and ends with an
// empty callback; names of every kind (lock, other hash, string, missing) are classified as before.
void TestLockMonitor::readStreamsBatchesInOrder()
{
    QStringList names;
    for (int i = 0; i < 7; ++i) {
        m_admin->cmd({"HSET", "sb:lock:" + QByteArray::number(i), "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
        names << QStringLiteral("sb:lock:%1").arg(i);
    }
    m_admin->cmd({"HSET", "sb:other", "user", "u"});
    m_admin->cmd({"SET", "sb:string", "x"});
    names << QStringLiteral("sb:other") << QStringLiteral("sb:string") << QStringLiteral("sb:missing");
    RedisConnection conn(m_server.endpoint());
    conn.open();
    SnapshotReader reader(&conn);
    reader.setBatchSize(3);
    QVector<int> sizes;
    QVector<LockSnapshot> got;
    bool done = false;
    int finalSize = -1;
    reader.read(
        names, this,
        [&](const QVector<LockSnapshot> &s, const QString &error) {
            QVERIFY2(error.isEmpty(), qPrintable(error));
            finalSize = int(s.size());
            done = true;
        },
        [&](const QVector<LockSnapshot> &batch, const QString &) {
            QVERIFY(!done);
            sizes << int(batch.size());
            got += batch;
        });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(finalSize, 0);
    QCOMPARE(sizes, (QVector<int>{3, 3, 3, 1}));
    QCOMPARE(got.size(), names.size());
    for (int i = 0; i < names.size(); ++i)
        QCOMPARE(got[i].name, names[i]);
    for (int i = 0; i < 7; ++i)
        QVERIFY(got[i].isLock);
    QVERIFY(got[7].exists && !got[7].isLock);
    QVERIFY(!got[8].exists && !got[8].isLock); // `exists`: the lock's hash exists
    QVERIFY(!got[9].exists && !got[9].isLock);
}

// The script snapshot.lua answers a hash that cannot be a lock (no `mode`, no field with a `:`)
// and has no fair queue or timeout set without reading its token, channels or twin; such a
// hash with a fair queue is still read whole (a fair lock, §3.1). Subscriber counts come from
// one PUBSUB NUMSUB per batch and stay right per lock.
void TestLockMonitor::snapshotAnswersNonLockHashesEarly()
{
    for (int i = 0; i < 10; ++i)
        m_admin->cmd({"HSET", "na:session:" + QByteArray::number(i), "user", "u", "seen", "1700000000"});
    m_admin->cmd({"HSET", "na:fair", "user", "u"});
    m_admin->cmd({"RPUSH", "redisson_lock_queue:{na:fair}", "b983c153-7421-469a-addb-44fb92259a1b:7"});
    m_admin->cmd({"HSET", "na:lock:1", "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    m_admin->cmd({"HSET", "na:lock:2", "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    m_admin->cmd({"HSET", "na:rw", "mode", "read", "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    RedisSubscriber waiter(m_server.endpoint());
    waiter.open();
    waiter.subscribe("redisson_lock__channel:{na:lock:2}");
    waiter.subscribe("redisson_rwlock:{na:rw}");
    QVERIFY(waitUntil([&] {
        const RedisReply r =
            m_admin->cmd({"PUBSUB", "NUMSUB", "redisson_lock__channel:{na:lock:2}", "redisson_rwlock:{na:rw}"});
        return r.at(1).toInteger() == 1 && r.at(3).toInteger() == 1;
    }));
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    RedisConnection conn(m_server.endpoint());
    conn.open();
    SnapshotReader reader(&conn);
    reader.setBatchSize(100); // one batch
    QStringList sessions;
    for (int i = 0; i < 10; ++i)
        sessions << QStringLiteral("na:session:%1").arg(i);
    QVector<LockSnapshot> got;
    bool done = false;
    reader.read(sessions, this, [&](const QVector<LockSnapshot> &s, const QString &error) {
        QVERIFY2(error.isEmpty(), qPrintable(error));
        got = s;
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(got.size(), 10);
    for (const LockSnapshot &s : std::as_const(got)) {
        QVERIFY(s.exists);
        QVERIFY(!s.isLock);
    }
    const QByteArray stats = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
    QVERIFY2(!stats.contains("cmdstat_get:"), stats.constData());           // no token read
    QVERIFY2(!stats.contains("cmdstat_pubsub|numsub:"), stats.constData()); // no channel read
    // HLEN answers the type of a hash (TYPE is not needed, neither for it nor for a twin), one
    // EXISTS finds no fair queue or timeout set, and a hash that is no lock needs no TTL.
    QVERIFY2(!stats.contains("cmdstat_type:"), stats.constData());
    QVERIFY2(stats.contains("cmdstat_exists:calls=10,"), stats.constData());
    QVERIFY2(!stats.contains("cmdstat_pttl:"), stats.constData());

    done = false;
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    reader.read(
        {QStringLiteral("na:fair"), QStringLiteral("na:lock:1"), QStringLiteral("na:lock:2"), QStringLiteral("na:rw")},
        this, [&](const QVector<LockSnapshot> &s, const QString &error) {
            QVERIFY2(error.isEmpty(), qPrintable(error));
            got = s;
            done = true;
        });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(got.size(), 4);
    QVERIFY(got[0].isLock);
    QCOMPARE(got[0].kind, LockKind::FairLock);
    QCOMPARE(got[0].queueLength, qint64(1));
    QCOMPARE(got[1].subscribers, qint64(0));
    QCOMPARE(got[2].subscribers, qint64(1));
    QCOMPARE(got[3].kind, LockKind::ReadWriteLock);
    QCOMPARE(got[3].subscribers, qint64(1)); // the rwlock channel's
    const QByteArray stats2 = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
    QVERIFY2(stats2.contains("cmdstat_pubsub|numsub:calls=1,"), stats2.constData()); // once per batch
}

// A hold that begins and ends between two reads vanished without a word. Its unlock
// message still comes: each one no read explains is reported as a `coalesced` event and counted.
void TestLockMonitor::releasesTooShortToSeeAreCounted()
{
    SessionLog log;
    auto session = startSession(m_server.endpoint(), log, QStringLiteral("short:*"), false, true, 1000); // polling, 1 s
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Polling && log.idleCount > 0; }));

    // A hold long enough to be read: its release is reported, nothing is coalesced.
    QVERIFY(m_actor->acquire(QStringLiteral("short:seen"), 30000));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("short:seen")); }, 20000),
             qPrintable(log.dump()));
    QCOMPARE(m_actor->unlock(QStringLiteral("short:seen")), UnlockResult::Status::Released);
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("short:seen")); }, 20000),
             qPrintable(log.dump()));
    QTest::qWait(300);
    QCOMPARE(monitor->coalescedTotal(), 0);
    QVERIFY(!log.has(QStringLiteral("coalesced"), QStringLiteral("short:seen")));

    // Five holds of a few ms each, far shorter than the 1 s between polls.
    for (int i = 0; i < 5; ++i) {
        QVERIFY(m_actor->acquire(QStringLiteral("short:1"), 30000));
        QCOMPARE(m_actor->unlock(QStringLiteral("short:1")), UnlockResult::Status::Released);
    }
    auto releasesSeen = [&] {
        int n = 0;
        for (const auto &e : log.events)
            if (e.lock == QLatin1String("short:1") && e.type == QLatin1String("released"))
                ++n;
        return n;
    };
    // Every release is either reported or counted as too short to see (a poll may catch one).
    QVERIFY2(waitUntil([&] { return monitor->coalescedTotal() + releasesSeen() >= 5; }, 10000), qPrintable(log.dump()));
    QTest::qWait(500);
    QCOMPARE(monitor->coalescedTotal() + releasesSeen(), 5);
    QVERIFY(monitor->coalescedTotal() >= 4);
    const LockEvent *coalesced = log.find(QStringLiteral("coalesced"), QStringLiteral("short:1"));
    QVERIFY2(coalesced, qPrintable(log.dump()));
    QVERIFY(coalesced->extra.value(QStringLiteral("count")).toInteger() >= 1);
    QVERIFY2(coalesced->detail.contains(QLatin1String("too short to see")), qPrintable(coalesced->detail));
}

QTEST_GUILESS_MAIN(TestLockMonitor)
void TestLockMonitor::forcedDeleteIsNotARelease()
{
    // Redisson's RLock unlock (§2.3, 3.24+): DEL, publish, then the unlock latch, in one script.
    static const char *const redissonUnlock =
        "local v = redis.call('get', KEYS[3]); if v ~= false then return tonumber(v); end; "
        "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; "
        "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
        "if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); "
        "redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; "
        "else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); "
        "redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end; return nil;";
    // Redisson's forceUnlock (§2.4): DEL and publish, no latch.
    static const char *const redissonForceUnlock =
        "if (redis.call('del', KEYS[1]) == 1) then redis.call(ARGV[2], KEYS[2], ARGV[1]); return 1 "
        "else return 0 end";
    // Only K, g, h, x (what enableNotifications() sets): the latch's SET ... PX shows as `expire`.
    QCOMPARE(m_admin->cmd({"CONFIG", "SET", "notify-keyspace-events", "Kghx"}).isError(), false);
    auto restore = qScopeGuard([this] { m_admin->cmd({"CONFIG", "SET", "notify-keyspace-events", "KA"}); });
    const quint16 port = m_server.port();
    const QString holder = test::newClientId() + QStringLiteral(":1");
    auto acquire = [&](const QString &name) {
        return test::redisCliEval(port, test::kRedissonAcquireScript, {name}, {QStringLiteral("30000"), holder})
                   .exitCode == 0;
    };
    SessionLog log;
    auto session = startSession(m_server.endpoint(), log);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && log.idleCount > 0; }));
    QVERIFY(waitUntil([&] { return m_admin->numpat() == patternCount(session.get()); }));
    auto removalOf = [&](const QString &type, const QString &lock) {
        const LockEvent *e = log.find(type, lock);
        return e ? e->extra.value(QStringLiteral("removal")).toString() : QString();
    };

    // No client was seen writing a latch yet (it could be older than 3.24): unknown, no blame.
    QVERIFY(acquire(QStringLiteral("fd:old")));
    QVERIFY(waitUntil([&] { return monitor->locks().contains(QStringLiteral("fd:old")); }));
    QCOMPARE(m_admin->cmd({"DEL", "fd:old"}).toInteger(), qint64(1));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("fd:old"), holder); }),
             qPrintable(log.dump()));
    QCOMPARE(removalOf(QStringLiteral("released"), QStringLiteral("fd:old")), QStringLiteral("unknown"));
    QVERIFY2(
        log.find(QStringLiteral("released"), QStringLiteral("fd:old"))->detail.contains(QLatin1String("cannot tell")),
        qPrintable(log.dump()));

    // A Redisson unlock by its holder: released.
    QVERIFY(acquire(QStringLiteral("fd:unlock")));
    QVERIFY(waitUntil([&] { return monitor->locks().contains(QStringLiteral("fd:unlock")); }));
    QCOMPARE(test::redisCliEval(port, redissonUnlock,
                                {QStringLiteral("fd:unlock"), QStringLiteral("redisson_lock__channel:{fd:unlock}"),
                                 QStringLiteral("redisson_unlock_latch:{fd:unlock}:0123456789abcdef0123456789abcdef")},
                                {QStringLiteral("0"), QStringLiteral("30000"), holder, QStringLiteral("publish"),
                                 QStringLiteral("13500")})
                 .out.trimmed(),
             QByteArray("1"));
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("released"), QStringLiteral("fd:unlock"), holder); }),
             qPrintable(log.dump()));
    QCOMPARE(removalOf(QStringLiteral("released"), QStringLiteral("fd:unlock")), QStringLiteral("unlock"));
    QVERIFY(!log.has(QStringLiteral("force_unlocked"), QStringLiteral("fd:unlock")));

    // A bare DEL, and Redisson's forceUnlock(), by someone else: force_unlocked, the holder the victim.
    for (const QString &name : {QStringLiteral("fd:del"), QStringLiteral("fd:force")}) {
        QVERIFY(acquire(name));
        QVERIFY(waitUntil([&] { return monitor->locks().contains(name); }));
        if (name == QLatin1String("fd:del"))
            QCOMPARE(m_admin->cmd({"DEL", name.toUtf8()}).toInteger(), qint64(1));
        else
            QCOMPARE(test::redisCliEval(port, redissonForceUnlock,
                                        {name, QStringLiteral("redisson_lock__channel:{%1}").arg(name)},
                                        {QStringLiteral("0"), QStringLiteral("publish")})
                         .out.trimmed(),
                     QByteArray("1"));
        QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("force_unlocked"), name, holder); }),
                 qPrintable(log.dump()));
        const LockEvent *e = log.find(QStringLiteral("force_unlocked"), name);
        QCOMPARE(e->extra.value(QStringLiteral("victim")).toString(), holder);
        QCOMPARE(e->extra.value(QStringLiteral("removal")).toString(), QStringLiteral("forced"));
        QVERIFY2(
            e->detail.contains(QStringLiteral("holder %1 was force-unlocked / deleted by another client").arg(holder)),
            qPrintable(e->detail));
        QVERIFY(!log.has(QStringLiteral("released"), name));
    }
}

#include "tst_lockmonitor.moc"
