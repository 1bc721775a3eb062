// Redis Sentinel, as production Redisson often runs: redis-sentinel:// URLs, resolving the master through real
// sentinels, and following a failover without a restart, in the LockSession (what the dashboard runs) and in
// `lockscope-cli watch --json` run as a process. A master, a replica and three sentinels on loopback
// (tests/support/localsentinel).
#include "localsentinel.h"
#include "lockfixture.h"
#include "locksessiontestpeer.h"
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "endpoint/redisendpoint.h"
#include "protocol/lockevent.h"
#include "redis/redisconnection.h"
#include "redis/sentinelresolver.h"
#include "session/locksession.h"
#include "watch/lockmonitor.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace lockscope;
using namespace lockscope::test;

namespace
{

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

struct Resolved {
    RedisEndpoint master;
    QString error;
    bool retrySlowly = false;
    bool answered = false;
};

Resolved resolveOnce(const QString &url, int timeoutMs = 15000)
{
    QString error;
    const RedisEndpoint ep = RedisEndpoint::parse(url, &error);
    Resolved out;
    if (!ep.isValid()) {
        out.error = error;
        return out;
    }
    SentinelResolver resolver(ep);
    auto box = std::make_shared<Resolved>();
    resolver.resolve(nullptr, [box](const RedisEndpoint &m, const QString &e, bool slow) {
        box->master = m;
        box->error = e;
        box->retrySlowly = slow;
        box->answered = true;
    });
    waitUntil([box] { return box->answered; }, timeoutMs);
    return *box;
}

/** A loopback port nobody listens on (a sentinel that is down). */
quint16 deadPort()
{
    return RedisServerProcess::freePort();
}

} // namespace

class TestSentinel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void parsesSentinelUrls();
    void rejectsBadSentinelUrls();
    void resolvesTheMaster();
    void skipsSentinelsThatAreDown();
    void unknownMasterName();
    void noSentinelReachable();
    void cliRejectsBadUrlAndUnknownMaster();
    void sessionFollowsForcedFailover();
    void followsWhenTheWatchedSentinelDies();
    void cliWatchFollowsMasterKill();

private:
    LocalSentinel m_sentinel;
    QTemporaryDir m_tmp;
};

void TestSentinel::initTestCase()
{
    QElapsedTimer clock;
    clock.start();
    QString error;
    QVERIFY2(m_sentinel.start(&error), qPrintable(error));
    qInfo("Sentinel set-up (master, 2 replicas, 3 sentinels) ready in %lld ms: %s", clock.elapsed(),
          qPrintable(m_sentinel.url()));
}

void TestSentinel::cleanupTestCase()
{
    m_sentinel.stop();
}

void TestSentinel::parsesSentinelUrls()
{
    QString error;
    RedisEndpoint ep = RedisEndpoint::parse(
        QStringLiteral("redis-sentinel://ops:s3cret@10.0.0.5:26380,10.0.0.6,[::1]:26381/2#orders"), &error);
    QVERIFY2(ep.isValid(), qPrintable(error));
    QVERIFY(ep.isSentinel());
    QCOMPARE(ep.sentinelMasterName(), QStringLiteral("orders"));
    QCOMPARE(ep.db(), 2);
    QCOMPARE(ep.username(), QStringLiteral("ops"));
    QCOMPARE(ep.password(), QStringLiteral("s3cret"));
    QCOMPARE(ep.passwordSource(), RedisEndpoint::PasswordSource::Url);
    const QList<RedisEndpoint> sentinels = ep.sentinels();
    QCOMPARE(sentinels.size(), 3);
    QCOMPARE(sentinels.at(0).address(), QStringLiteral("10.0.0.5:26380"));
    QCOMPARE(sentinels.at(1).address(), QStringLiteral("10.0.0.6:26379")); // Sentinel's default port
    QCOMPARE(sentinels.at(2).address(), QStringLiteral("[::1]:26381"));
    QCOMPARE(sentinels.at(0).db(), 0);
    QCOMPARE(sentinels.at(0).password(), QStringLiteral("s3cret")); // same credentials for the sentinels
    QVERIFY(!sentinels.at(0).isSentinel());
    // The password never shows; the URL round-trips without it.
    QVERIFY(!ep.toString().contains(QLatin1String("s3cret")));
    QVERIFY(!ep.address().contains(QLatin1String("s3cret")));
    QCOMPARE(ep.toString(), QStringLiteral("redis-sentinel://ops@10.0.0.5:26380,10.0.0.6:26379,[::1]:26381/2#orders"));
    const RedisEndpoint again = RedisEndpoint::parse(ep.toString());
    QVERIFY(again.isSentinel());
    QCOMPARE(again.sentinels().size(), 3);
    // The master it names keeps transport, credentials and db, and is a plain endpoint.
    const RedisEndpoint master = ep.masterAt(QStringLiteral("10.0.0.7"), 6379);
    QVERIFY(master.isValid());
    QVERIFY(!master.isSentinel());
    QCOMPARE(master.address(), QStringLiteral("10.0.0.7:6379"));
    QCOMPARE(master.db(), 2);
    QCOMPARE(master.password(), QStringLiteral("s3cret"));

    // Lettuce's other spelling of the master name, and TLS.
    ep = RedisEndpoint::parse(QStringLiteral("rediss-sentinel://h1:1,h2:2?sentinelMasterId=cache"), &error);
    QVERIFY2(ep.isValid(), qPrintable(error));
    QCOMPARE(ep.sentinelMasterName(), QStringLiteral("cache"));
    QCOMPARE(ep.transport(), RedisEndpoint::Transport::Tls);
    QCOMPARE(ep.sentinels().at(1).transport(), RedisEndpoint::Transport::Tls);

    // A plain URL is not a sentinel one.
    QVERIFY(!RedisEndpoint::parse(QStringLiteral("redis://127.0.0.1:6379")).isSentinel());

    // A connection given a sentinel URL without a resolver says so instead of connecting anywhere.
    RedisConnection lonely(RedisEndpoint::parse(QStringLiteral("redis-sentinel://127.0.0.1:1#m")));
    QString lost;
    connect(&lonely, &RedisConnection::connectionLost, this, [&lost](const QString &r) { lost = r; });
    lonely.open();
    QVERIFY(waitUntil([&] { return !lost.isEmpty(); }, 3000));
    QVERIFY2(lost.contains(QLatin1String("Sentinel URL")), qPrintable(lost));
}

void TestSentinel::rejectsBadSentinelUrls()
{
    const QList<QPair<QString, QString>> cases{
        {QStringLiteral("redis-sentinel://127.0.0.1:26379"), QStringLiteral("names no master")},
        {QStringLiteral("redis-sentinel://#mymaster"), QStringLiteral("names no sentinel")},
        {QStringLiteral("redis-sentinel://h1:26379,,h2#m"), QStringLiteral("is not host[:port]")},
        {QStringLiteral("redis-sentinel://h1:99999#m"), QStringLiteral("out of range")},
        {QStringLiteral("redis-sentinel://h1:26379/x#m"), QStringLiteral("is not a number")},
        {QStringLiteral("redis-sentinel://h1?sentinelMasterId=b#a"), QStringLiteral("names two masters")},
    };
    for (const auto &c : cases) {
        QString error;
        const RedisEndpoint ep = RedisEndpoint::parse(c.first, &error);
        QVERIFY2(!ep.isValid(), qPrintable(c.first));
        QVERIFY2(error.contains(c.second), qPrintable(QStringLiteral("%1 -> %2").arg(c.first, error)));
    }
}

void TestSentinel::resolvesTheMaster()
{
    const Resolved r = resolveOnce(m_sentinel.url());
    QVERIFY2(r.answered && r.master.isValid(), qPrintable(r.error));
    QCOMPARE(r.master.port(), m_sentinel.masterPort());
    QCOMPARE(r.master.host(), QStringLiteral("127.0.0.1"));
    QVERIFY(!r.master.isSentinel());

    // A password meant for the master: these sentinels have none, so they are asked again without
    // it ("AUTH ... called without any password configured"), and the master keeps it.
    const QString withPassword =
        m_sentinel.url().replace(QLatin1String("redis-sentinel://"), QLatin1String("redis-sentinel://:master-only@"));
    const Resolved p = resolveOnce(withPassword);
    QVERIFY2(p.master.isValid(), qPrintable(p.error));
    QCOMPARE(p.master.port(), m_sentinel.masterPort());
    QCOMPARE(p.master.password(), QStringLiteral("master-only"));
}

void TestSentinel::skipsSentinelsThatAreDown()
{
    // The first sentinel of the URL is down: the next one is asked.
    const QString url = QStringLiteral("redis-sentinel://127.0.0.1:%1,127.0.0.1:%2#%3")
                            .arg(deadPort())
                            .arg(m_sentinel.sentinelPorts().at(1))
                            .arg(m_sentinel.masterName());
    const Resolved r = resolveOnce(url);
    QVERIFY2(r.master.isValid(), qPrintable(r.error));
    QCOMPARE(r.master.port(), m_sentinel.masterPort());
}

void TestSentinel::unknownMasterName()
{
    const QString url = QStringLiteral("redis-sentinel://127.0.0.1:%1,127.0.0.1:%2#nosuch")
                            .arg(m_sentinel.sentinelPorts().at(0))
                            .arg(m_sentinel.sentinelPorts().at(1));
    const Resolved r = resolveOnce(url);
    QVERIFY(r.answered);
    QVERIFY(!r.master.isValid());
    QVERIFY2(r.error.contains(QLatin1String("no sentinel knows a master named 'nosuch'")), qPrintable(r.error));
    QVERIFY(r.retrySlowly); // a wrong name does not fix itself
}

void TestSentinel::noSentinelReachable()
{
    const QString url =
        QStringLiteral("redis-sentinel://127.0.0.1:%1,127.0.0.1:%2#mymaster").arg(deadPort()).arg(deadPort());
    const Resolved r = resolveOnce(url);
    QVERIFY(r.answered);
    QVERIFY(!r.master.isValid());
    QVERIFY2(r.error.contains(QLatin1String("no sentinel could name the master 'mymaster'")), qPrintable(r.error));
    QVERIFY2(r.error.contains(QLatin1String("refused"), Qt::CaseInsensitive), qPrintable(r.error));
    QVERIFY(!r.retrySlowly);

    // A Redis server that is not a sentinel is named as such.
    const QString notSentinel = QStringLiteral("redis-sentinel://127.0.0.1:%1#mymaster").arg(m_sentinel.masterPort());
    const Resolved s = resolveOnce(notSentinel);
    QVERIFY(!s.master.isValid());
    QVERIFY2(s.error.contains(QLatin1String("is it a sentinel?")), qPrintable(s.error));
}

void TestSentinel::cliRejectsBadUrlAndUnknownMaster()
{
    ProcessResult bad = runProcess(cliPath(), {"--url", "redis-sentinel://127.0.0.1:26379", "list"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("names no master"), qPrintable(bad.describe()));

    const QString unknown =
        QStringLiteral("redis-sentinel://127.0.0.1:%1#nosuch").arg(m_sentinel.sentinelPorts().at(0));
    ProcessResult u = runProcess(cliPath(), {"--url", unknown, "list"});
    QCOMPARE(u.exitCode, 2);
    QVERIFY2(u.err.contains("no sentinel knows a master named 'nosuch'"), qPrintable(u.describe()));

    const QString down = QStringLiteral("redis-sentinel://127.0.0.1:%1#mymaster").arg(deadPort());
    ProcessResult d = runProcess(cliPath(), {"--url", down, "list"});
    QCOMPARE(d.exitCode, 2);
    QVERIFY2(d.err.contains("no sentinel could name the master"), qPrintable(d.describe()));

    ProcessResult both = runProcess(cliPath(), {"--url", m_sentinel.url(), "--cluster", "list"});
    QCOMPARE(both.exitCode, 1);

    // Through the sentinels, list works like on one server.
    SyncClient master(m_sentinel.endpoint(m_sentinel.masterPort()));
    QVERIFY(master.open());
    master.flushall();
    LockParticipant holder(m_sentinel.endpoint(m_sentinel.masterPort()), false);
    QVERIFY(holder.waitReady());
    QVERIFY(awaitAcquire([&](LockClient::AcquireCallback cb) {
                holder.client->tryAcquire("listed:1", 7, 60000, nullptr, cb);
            }).acquired);
    ProcessResult list = runProcess(cliPath(), {"--url", m_sentinel.url(), "list", "--json"});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("\"name\":\"listed:1\""), qPrintable(list.describe()));
    master.flushall();
}

void TestSentinel::sessionFollowsForcedFailover()
{
    QString error;
    QElapsedTimer ready;
    ready.start();
    QVERIFY2(m_sentinel.waitReady(30000, &error), qPrintable(error));
    qInfo("Sentinel set-up ready for a failover after %lld ms: every sentinel knows a replica with a working link",
          ready.elapsed());
    const quint16 oldPort = m_sentinel.masterPort();
    {
        SyncClient old(m_sentinel.endpoint(oldPort));
        QVERIFY(old.open());
        old.flushall();
    }

    LockSession::Options options;
    options.endpoint = RedisEndpoint::parse(m_sentinel.url(), &error);
    QVERIFY2(options.endpoint.isValid(), qPrintable(error));
    options.auditLogPath = m_tmp.filePath(QStringLiteral("audit.jsonl"));
    LockSession session(options);
    QVector<LockEvent> events;
    connect(&session, &LockSession::eventsOccurred, this, [&events](const QVector<LockEvent> &e) { events += e; });
    QStringList switches;
    connect(&session, &LockSession::masterChanged, this,
            [&switches](const QString &, const QString &from, const QString &to, const QString &) {
                switches << from + " -> " + to;
            });
    LockMonitor::Mode mode = LockMonitor::Mode::Connecting;
    connect(&session, &LockSession::modeChanged, this, [&mode](LockMonitor::Mode m, const QString &) { mode = m; });
    session.enableNotifications(); // the servers start with notifications off
    session.start();
    QVERIFY2(waitUntil([&] { return mode == LockMonitor::Mode::Live; }, 15000),
             qPrintable(peer(session).monitor()->modeDetail()));
    QCOMPARE(peer(session).connection()->endpoint().port(), oldPort);

    auto hasEvent = [&events](const QString &type, const QString &lock) {
        for (const auto &e : events)
            if (e.type == type && e.lock == lock)
                return true;
        return false;
    };
    {
        LockParticipant before(m_sentinel.endpoint(oldPort), false);
        QVERIFY(before.waitReady());
        QVERIFY(awaitAcquire([&](LockClient::AcquireCallback cb) {
                    before.client->tryAcquire("before:1", 1, 60000, nullptr, cb);
                }).acquired);
        QVERIFY(waitUntil([&] { return hasEvent(QStringLiteral("acquired"), QStringLiteral("before:1")); }, 10000));
    }

    QElapsedTimer clock;
    clock.start();
    QVERIFY2(m_sentinel.forceFailover(&error), qPrintable(error));
    QVERIFY2(waitUntil([&] { return hasEvent(QStringLiteral("failover"), QString()); }, 20000), "no failover event");
    const qint64 failoverSeenMs = clock.elapsed();
    const quint16 newPort = m_sentinel.waitNewMaster(oldPort, 5000);
    QVERIFY(newPort != 0);
    QCOMPARE(switches.size(), 1);
    QCOMPARE(switches.first(), QStringLiteral("127.0.0.1:%1 -> 127.0.0.1:%2").arg(oldPort).arg(newPort));
    for (const auto &e : events) {
        if (e.type != QLatin1String("failover"))
            continue;
        const QJsonObject json = e.toJson();
        QCOMPARE(json.value(QStringLiteral("type")).toString(), QStringLiteral("failover"));
        QCOMPARE(json.value(QStringLiteral("new_master")).toString(), QStringLiteral("127.0.0.1:%1").arg(newPort));
        QCOMPARE(json.value(QStringLiteral("old_master")).toString(), QStringLiteral("127.0.0.1:%1").arg(oldPort));
        QCOMPARE(json.value(QStringLiteral("master_name")).toString(), m_sentinel.masterName());
        QVERIFY(json.value(QStringLiteral("lock")).isNull());
    }

    // Live again, on the new master, with notifications turned on there too (operator asked).
    QVERIFY2(
        waitUntil(
            [&] { return peer(session).connection()->endpoint().port() == newPort && mode == LockMonitor::Mode::Live; },
            15000),
        qPrintable(peer(session).monitor()->modeDetail()));
    const qint64 liveAgainMs = clock.elapsed();
    SyncClient promoted(m_sentinel.endpoint(newPort));
    QVERIFY(promoted.open());
    QVERIFY(promoted.cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray().contains('K'));

    LockParticipant after(m_sentinel.endpoint(newPort), false);
    QVERIFY(after.waitReady());
    QElapsedTimer eventClock;
    eventClock.start();
    QVERIFY(awaitAcquire([&](LockClient::AcquireCallback cb) {
                after.client->tryAcquire("after:1", 1, 60000, nullptr, cb);
            }).acquired);
    QVERIFY(waitUntil([&] { return hasEvent(QStringLiteral("acquired"), QStringLiteral("after:1")); }, 10000));
    qInfo("LockSession: SENTINEL FAILOVER -> failover event %lld ms, live on the new master %lld ms; a lock acquired "
          "there reported after %lld ms",
          failoverSeenMs, liveAgainMs, eventClock.elapsed());
    // The lock taken before the failover is still known (replicated), not reported as released.
    QVERIFY(peer(session).monitor()->locks().contains(QStringLiteral("before:1")));
    QVERIFY(!hasEvent(QStringLiteral("released"), QStringLiteral("before:1")));

    // A write asked of the session goes to the new master, and the audit record names it.
    bool finished = false;
    bool ok = false;
    connect(&session, &LockSession::actionFinished, this,
            [&](const QString &, const QString &, bool done, const QString &, const QString &) {
                finished = true;
                ok = done;
            });
    session.acquire(QStringLiteral("audited:1"), 3, 30000, 0);
    QVERIFY(waitUntil([&] { return finished; }, 10000));
    QVERIFY(ok);
    QVERIFY(promoted.exists("audited:1"));
    QFile audit(options.auditLogPath);
    QVERIFY(audit.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = audit.readAll().trimmed().split('\n');
    const QJsonObject record = QJsonDocument::fromJson(lines.last()).object();
    QCOMPARE(record.value(QStringLiteral("master")).toString(), QStringLiteral("127.0.0.1:%1").arg(newPort));
    QVERIFY(record.value(QStringLiteral("server")).toString().startsWith(QLatin1String("redis-sentinel://")));
    promoted.flushall();
}

void TestSentinel::followsWhenTheWatchedSentinelDies()
{
    QString error;
    QElapsedTimer ready;
    ready.start();
    QVERIFY2(m_sentinel.waitReady(30000, &error), qPrintable(error));
    qInfo("Sentinel set-up ready for a failover after %lld ms: every sentinel knows a replica with a working link",
          ready.elapsed());
    const quint16 oldPort = m_sentinel.masterPort();
    LockSession::Options options;
    options.endpoint = RedisEndpoint::parse(m_sentinel.url(), &error); // sentinel 0 first: the one watched
    options.auditLogPath = m_tmp.filePath(QStringLiteral("audit2.jsonl"));
    options.forcePolling = true;
    LockSession session(options);
    QStringList switches;
    connect(&session, &LockSession::masterChanged, this,
            [&switches](const QString &, const QString &from, const QString &to, const QString &how) {
                switches << QStringLiteral("%1 -> %2 (%3)").arg(from, to, how);
            });
    session.start();
    const QString first = QStringLiteral("127.0.0.1:%1").arg(m_sentinel.sentinelPorts().at(0));
    QVERIFY(waitUntil([&] { return peer(session).sentinel()->watchedSentinel() == first; }, 10000));
    QVERIFY(waitUntil([&] { return peer(session).connection()->isReady(); }, 10000));

    // The watched sentinel dies: the +switch-master subscription moves to another one.
    m_sentinel.killSentinel(0);
    QVERIFY2(waitUntil(
                 [&] {
                     const QString w = peer(session).sentinel()->watchedSentinel();
                     return !w.isEmpty() && w != first;
                 },
                 10000),
             "the +switch-master subscription did not move to another sentinel");
    QElapsedTimer clock;
    clock.start();
    QVERIFY2(m_sentinel.forceFailover(&error, m_sentinel.firstLiveSentinel()), qPrintable(error));
    const quint16 newPort = m_sentinel.waitNewMaster(oldPort, 20000);
    QVERIFY(newPort != 0);
    QVERIFY2(waitUntil(
                 [&] {
                     return peer(session).connection()->isReady() &&
                            peer(session).connection()->endpoint().port() == newPort;
                 },
                 15000),
             qPrintable(switches.join(QLatin1Char('\n'))));
    qInfo("Watched sentinel killed, SENTINEL FAILOVER on another: commands on the new master after %lld ms (%s)",
          clock.elapsed(), qPrintable(switches.join(QStringLiteral("; "))));
    QCOMPARE(switches.size(), 1);
    QVERIFY2(switches.first().contains(QLatin1String("+switch-master")), qPrintable(switches.first()));
}

void TestSentinel::cliWatchFollowsMasterKill()
{
    QString error;
    QElapsedTimer ready;
    ready.start();
    QVERIFY2(m_sentinel.waitReady(30000, &error), qPrintable(error));
    qInfo("Sentinel set-up ready for a failover after %lld ms: every sentinel knows a replica with a working link",
          ready.elapsed());
    const quint16 oldPort = m_sentinel.masterPort();
    // Notifications off everywhere again: --enable-notifications must turn them on on each master.
    for (quint16 port : m_sentinel.serverPorts()) {
        SyncClient c(m_sentinel.endpoint(port));
        QVERIFY(c.open());
        QVERIFY(!c.cmd({"CONFIG", "SET", "notify-keyspace-events", ""}).isError());
        if (port == oldPort)
            c.flushall();
    }

    QProcess watch;
    watch.start(cliPath(), {"--url", m_sentinel.url(), "--audit-log", m_tmp.filePath(QStringLiteral("cli-audit.jsonl")),
                            "--enable-notifications", "watch", "--json"});
    QVERIFY(watch.waitForStarted(10000));
    auto guard = qScopeGuard([&] {
        if (watch.state() != QProcess::NotRunning) {
            watch.kill();
            watch.waitForFinished(3000);
        }
    });
    QByteArray out;
    QByteArray err;
    auto pump = [&] {
        out += watch.readAllStandardOutput();
        err += watch.readAllStandardError();
    };
    QVERIFY2(waitUntil(
                 [&] {
                     pump();
                     return err.contains("watching");
                 },
                 15000),
             err.constData());

    // A lock on the first master is seen.
    {
        LockParticipant before(m_sentinel.endpoint(oldPort), false);
        QVERIFY(before.waitReady());
        QVERIFY(awaitAcquire([&](LockClient::AcquireCallback cb) {
                    before.client->tryAcquire("cli:before", 1, 60000, nullptr, cb);
                }).acquired);
        QVERIFY2(waitUntil(
                     [&] {
                         pump();
                         return out.contains("\"lock\":\"cli:before\"");
                     },
                     10000),
                 out.constData());
    }

    // The master dies (SIGKILL): the sentinels agree it is down and promote the replica.
    QElapsedTimer clock;
    clock.start();
    QVERIFY2(m_sentinel.killMaster(&error), qPrintable(error));
    QVERIFY2(
        waitUntil(
            [&] {
                pump();
                return out.contains("\"type\":\"failover\"");
            },
            30000),
        qPrintable(QStringLiteral("stdout:\n%1\nstderr:\n%2").arg(QString::fromUtf8(out), QString::fromUtf8(err))));
    const qint64 failoverLineMs = clock.elapsed();
    const quint16 newPort = m_sentinel.waitNewMaster(oldPort, 5000);
    QVERIFY(newPort != 0);

    // The failover line, as a JSON object with the usual event fields plus the masters.
    QJsonObject failover;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("type")).toString() == QLatin1String("failover"))
            failover = o;
    }
    QCOMPARE(failover.value(QStringLiteral("old_master")).toString(), QStringLiteral("127.0.0.1:%1").arg(oldPort));
    QCOMPARE(failover.value(QStringLiteral("new_master")).toString(), QStringLiteral("127.0.0.1:%1").arg(newPort));
    QCOMPARE(failover.value(QStringLiteral("master_name")).toString(), m_sentinel.masterName());
    QVERIFY(failover.contains(QStringLiteral("time_ms")));
    QVERIFY(failover.contains(QStringLiteral("detail")));

    // Then events from a lock acquired on the new master, without a restart.
    QVERIFY2(waitUntil(
                 [&] {
                     pump();
                     return err.lastIndexOf("live:") > err.lastIndexOf("failover") && err.count("live:") >= 2;
                 },
                 15000),
             err.constData());
    const qint64 liveAgainMs = clock.elapsed();
    LockParticipant after(m_sentinel.endpoint(newPort), false);
    QVERIFY(after.waitReady());
    QElapsedTimer eventClock;
    eventClock.start();
    QVERIFY(awaitAcquire([&](LockClient::AcquireCallback cb) {
                after.client->tryAcquire("cli:after", 1, 60000, nullptr, cb);
            }).acquired);
    QVERIFY2(
        waitUntil(
            [&] {
                pump();
                return out.contains("\"lock\":\"cli:after\"");
            },
            10000),
        qPrintable(QStringLiteral("stdout:\n%1\nstderr:\n%2").arg(QString::fromUtf8(out), QString::fromUtf8(err))));
    qInfo("lockscope-cli watch: master SIGKILLed -> failover line %lld ms, live on the new master %lld ms; a lock "
          "acquired there printed after %lld ms",
          failoverLineMs, liveAgainMs, eventClock.elapsed());
    QVERIFY(out.indexOf("\"type\":\"failover\"") < out.indexOf("\"lock\":\"cli:after\""));
    SyncClient promoted(m_sentinel.endpoint(newPort));
    QVERIFY(promoted.open());
    QVERIFY(promoted.cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray().contains('K'));
}

QTEST_GUILESS_MAIN(TestSentinel)
#include "tst_sentinel.moc"
