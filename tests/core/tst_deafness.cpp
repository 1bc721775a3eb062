// Never "live" while deaf, never act on stale data: an operator trusts what is shown as live. A real redis-server
// behind a FaultProxy: the network black-holes (no FIN, no RST), notifications are turned off
// mid-watch, and writes are tried while LockScope cannot see the server.
//
// Assertions are on mode changes and events, never on timings; the recovery time after the
// network returns is measured and printed (qInfo) for the issue note.

#include "demo/redisserverprocess.h"
#include "redis/redisconnection.h"
#include "session/locksession.h"
#include "watch/lockmonitor.h"

#include "faultproxy.h"
#include "locksessiontestpeer.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::FaultProxy;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

struct Log {
    QList<LockMonitor::Mode> modes;
    QStringList details;
    QVector<LockEvent> events;
    QVector<LockSnapshot> updates;
    struct Action {
        QString action, lock, message, outcome;
        bool ok = false;
    };
    QVector<Action> actions;

    void attach(LockSession *s)
    {
        QObject::connect(s, &LockSession::modeChanged, s, [this](LockMonitor::Mode m, const QString &d) {
            modes << m;
            details << d;
        });
        QObject::connect(s, &LockSession::eventsOccurred, s, [this](const QVector<LockEvent> &e) { events += e; });
        QObject::connect(s, &LockSession::locksUpdated, s,
                         [this](const QVector<LockSnapshot> &c, const QStringList &) { updates += c; });
        QObject::connect(s, &LockSession::actionFinished, s,
                         [this](const QString &a, const QString &l, bool ok, const QString &m, const QString &o) {
                             actions.append({a, l, m, o, ok});
                         });
    }
    bool has(const QString &type, const QString &lock) const
    {
        for (const auto &e : events)
            if (e.type == type && e.lock == lock)
                return true;
        return false;
    }
    QString dump() const
    {
        QStringList out;
        for (int i = 0; i < modes.size(); ++i)
            out << QStringLiteral("mode %1: %2").arg(LockMonitor::modeName(modes[i]), details[i]);
        for (const auto &e : events)
            out << QStringLiteral("event %1 %2").arg(e.type, e.lock);
        return out.join(QLatin1Char('\n'));
    }
};

} // namespace

class TestDeafness : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void blackHoleLeavesLiveAndRecovers();
    void notificationsOffMidWatchFallBackToPolling();
    void writesRefusedWhileDisconnected();
    void cliWatchLeavesLiveAndRecovers();

private:
    std::unique_ptr<LockSession> startSession(const QString &url, Log &log);
    void createLock(const QByteArray &name);

    RedisServerProcess m_server;
    QTemporaryDir m_dir;
};

void TestDeafness::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    QVERIFY(m_dir.isValid());
}

std::unique_ptr<LockSession> TestDeafness::startSession(const QString &url, Log &log)
{
    LockSession::Options options;
    options.endpoint = RedisEndpoint::parse(url);
    options.pollIntervalMs = 200;
    options.auditLogPath = m_dir.filePath(QStringLiteral("audit.jsonl"));
    auto session = std::make_unique<LockSession>(options);
    log.attach(session.get());
    session->start();
    return session;
}

void TestDeafness::createLock(const QByteArray &name)
{
    SyncClient c(m_server.endpoint());
    QVERIFY(c.open());
    QVERIFY(!c.cmd({"HSET", name, "6f1c2e9a-0000-4000-8000-000000000013:1", "1"}).isError());
    QVERIFY(!c.cmd({"PEXPIRE", name, "120000"}).isError());
}

void TestDeafness::blackHoleLeavesLiveAndRecovers()
{
    FaultProxy proxy(QHostAddress::LocalHost, m_server.port());
    QVERIFY(proxy.start());
    Log log;
    auto session = startSession(proxy.url(), log);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && monitor->isIdle(); }),
             qPrintable(log.dump()));
    createLock("deaf:before");
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("deaf:before")); }),
             qPrintable(log.dump()));

    // The network goes away silently: the monitor must stop saying "live".
    const int modesBefore = log.modes.size();
    proxy.setMode(FaultProxy::Mode::BlackHole);
    QVERIFY2(waitUntil([&] { return monitor->mode() != LockMonitor::Mode::Live; }, 10000), qPrintable(log.dump()));
    QVERIFY(log.modes.size() > modesBefore);
    QVERIFY2(!log.details.last().isEmpty(), qPrintable(log.dump()));
    // ... and the data connection is noticed dead too: rows go stale.
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Disconnected; }, 10000),
             qPrintable(log.dump()));
    QVERIFY(monitor->locks().value(QStringLiteral("deaf:before")).stale);
    bool staleSent = false;
    for (const auto &u : std::as_const(log.updates))
        staleSent = staleSent || (u.name == QLatin1String("deaf:before") && u.stale && u.staleAsOfMs > 0);
    QVERIFY(staleSent);

    // A lock taken during the outage is reported once the network is back, and the mode is live again.
    createLock("deaf:during");
    QTest::qWait(2000); // the black hole lasts about 5 s in all
    QVERIFY(!log.has(QStringLiteral("acquired"), QStringLiteral("deaf:during")));
    QElapsedTimer recovery;
    proxy.setMode(FaultProxy::Mode::Pass);
    recovery.start();
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live; }, 15000), qPrintable(log.dump()));
    const qint64 liveMs = recovery.elapsed();
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("deaf:during")); }, 15000),
             qPrintable(log.dump()));
    const qint64 reportedMs = recovery.elapsed();
    qInfo("black hole: live again %lld ms and the lock taken meanwhile reported %lld ms after the network returned",
          liveMs, reportedMs);
    QVERIFY(waitUntil([&] { return !monitor->locks().value(QStringLiteral("deaf:before")).stale; }));

    // Live for real: a new lock is announced by notifications again.
    createLock("deaf:after");
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("deaf:after")); }),
             qPrintable(log.dump()));
    SyncClient c(m_server.endpoint());
    QVERIFY(c.open());
    c.cmd({"DEL", "deaf:before", "deaf:during", "deaf:after"});
}

void TestDeafness::notificationsOffMidWatchFallBackToPolling()
{
    Log log;
    auto session = startSession(m_server.url(), log);
    LockMonitor *monitor = peer(session).monitor();
    monitor->setNotificationRecheckMs(300);
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && monitor->isIdle(); }),
             qPrintable(log.dump()));
    SyncClient c(m_server.endpoint());
    QVERIFY(c.open());
    const QByteArray before = c.cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray();
    auto restore = qScopeGuard([&] { c.cmd({"CONFIG", "SET", "notify-keyspace-events", before}); });

    QVERIFY(!c.cmd({"CONFIG", "SET", "notify-keyspace-events", ""}).isError());
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Polling; }), qPrintable(log.dump()));
    QVERIFY2(log.details.last().contains(QLatin1String("notify-keyspace-events")), qPrintable(log.dump()));
    createLock("deaf:polled");
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("deaf:polled")); }),
             qPrintable(log.dump()));

    QVERIFY(!c.cmd({"CONFIG", "SET", "notify-keyspace-events", before}).isError());
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live; }), qPrintable(log.dump()));
    createLock("deaf:live-again");
    QVERIFY2(waitUntil([&] { return log.has(QStringLiteral("acquired"), QStringLiteral("deaf:live-again")); }),
             qPrintable(log.dump()));
    c.cmd({"DEL", "deaf:polled", "deaf:live-again"});
}

void TestDeafness::writesRefusedWhileDisconnected()
{
    createLock("deaf:victim");
    FaultProxy proxy(QHostAddress::LocalHost, m_server.port());
    QVERIFY(proxy.start());
    Log log;
    auto session = startSession(proxy.url(), log);
    LockMonitor *monitor = peer(session).monitor();
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live && monitor->isIdle(); }),
             qPrintable(log.dump()));
    const LockSnapshot seen = monitor->locks().value(QStringLiteral("deaf:victim"));
    QVERIFY(seen.isHeld());

    proxy.setMode(FaultProxy::Mode::BlackHole);
    QVERIFY2(waitUntil([&] { return peer(session).connection()->lostSinceEpochMs() != 0; }, 10000),
             qPrintable(log.dump()));
    session->forceUnlock(QStringLiteral("deaf:victim"), seen.stateFingerprint());
    QVERIFY(waitUntil([&] { return !log.actions.isEmpty(); }));
    QCOMPARE(log.actions.last().outcome, QStringLiteral("refused"));
    QVERIFY2(log.actions.last().message.contains(QLatin1String("not connected to")),
             qPrintable(log.actions.last().message));
    proxy.setMode(FaultProxy::Mode::Pass);
    QVERIFY2(waitUntil([&] { return monitor->mode() == LockMonitor::Mode::Live; }, 15000), qPrintable(log.dump()));
    SyncClient c(m_server.endpoint());
    QVERIFY(c.open());
    QVERIFY(c.exists("deaf:victim")); // nothing was written
    c.cmd({"DEL", "deaf:victim"});
}

void TestDeafness::cliWatchLeavesLiveAndRecovers()
{
    FaultProxy proxy(QHostAddress::LocalHost, m_server.port());
    QVERIFY(proxy.start());
    QProcess watch;
    watch.start(QStringLiteral(LOCKSCOPE_CLI_PATH), {"--url", proxy.url(), "watch", "--json", "--pattern", "cli:*"});
    QVERIFY(watch.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (watch.state() != QProcess::NotRunning) {
            watch.kill();
            watch.waitForFinished(3000);
        }
    });
    QByteArray err, out;
    auto pump = [&] {
        err += watch.readAllStandardError();
        out += watch.readAllStandardOutput();
    };
    QVERIFY2(waitUntil([&] {
                 pump();
                 return err.contains("watching");
             }),
             err.constData());
    QVERIFY2(err.contains("live"), err.constData());
    const int mark = err.size();
    proxy.setMode(FaultProxy::Mode::BlackHole);
    QVERIFY2(waitUntil(
                 [&] {
                     pump();
                     const QByteArray since = err.mid(mark);
                     return since.contains("lockscope-cli: polling") || since.contains("lockscope-cli: disconnected");
                 },
                 10000),
             err.constData());
    createLock("cli:during");
    QTest::qWait(3000);
    pump();
    QVERIFY(!out.contains("cli:during"));
    const int mark2 = err.size();
    QElapsedTimer recovery;
    proxy.setMode(FaultProxy::Mode::Pass);
    recovery.start();
    QVERIFY2(waitUntil(
                 [&] {
                     pump();
                     return out.contains("\"cli:during\"") && out.contains("acquired");
                 },
                 15000),
             (err + out).constData());
    const qint64 reportedMs = recovery.elapsed();
    QVERIFY2(waitUntil(
                 [&] {
                     pump();
                     return err.mid(mark2).contains("lockscope-cli: live");
                 },
                 15000),
             err.constData());
    qInfo("cli watch: the lock taken during the black hole reported %lld ms after the network returned", reportedMs);
    SyncClient c(m_server.endpoint());
    QVERIFY(c.open());
    c.cmd({"DEL", "cli:during"});
}

QTEST_GUILESS_MAIN(TestDeafness)
#include "tst_deafness.moc"
