// The parts of "who holds it" that need no service: CLIENT LIST and MONITOR lines parsed as Redis
// writes them (and bad ones refused), identities in JSON and in a lock's JSON, the doctor's
// holder_disconnected rule (warning for a watchdog lease, critical for a fixed one), and the
// tracker against a real redis-server: two raw connections sending scripts, one matched by
// correlation, then closed and reported gone. The services themselves: tst_clientidentity.

#include "demo/redisserverprocess.h"
#include "diagnose/lockdoctor.h"
#include "protocol/clientidentity.h"
#include "redis/clientlistentry.h"
#include "redis/monitorline.h"
#include "redis/redisconnection.h"
#include "testsupport.h"
#include "watch/clienttracker.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QtTest>

using namespace lockscope;
using lockscope::test::SyncClient;

class TestClientTracker : public QObject
{
    Q_OBJECT
private slots:
    void clientListParses();
    void monitorLinesParse_data();
    void monitorLinesParse();
    void identityJsonRoundTrips();
    void lockJsonGetsClients();
    void doctorReportsDisconnectedHolders();
    void correlatesAndFollowsRealConnections();
};

void TestClientTracker::clientListParses()
{
    const QByteArray text =
        "id=3 addr=127.0.0.1:38106 laddr=127.0.0.1:7601 fd=8 name=orders-7 age=4 idle=0 flags=N db=0 sub=0 psub=0 "
        "ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=0 omem=0 tot-mem=1800 events=r "
        "cmd=evalsha user=default redir=-1 resp=2 lib-name=redisson lib-ver=3.27\n"
        "id=9 addr=[::1]:5000 laddr=[::1]:6379 fd=9 name= age=100 idle=7 flags=S db=0 cmd=replconf user=default\n"
        "garbage line without an id\n";
    const QVector<ClientListEntry> list = ClientListEntry::parse(text, QStringLiteral("127.0.0.1:7601"));
    QCOMPARE(list.size(), 2);
    QCOMPARE(list[0].id, 3);
    QCOMPARE(list[0].address, QStringLiteral("127.0.0.1:38106"));
    QCOMPARE(list[0].host(), QStringLiteral("127.0.0.1"));
    QCOMPARE(list[0].name, QStringLiteral("orders-7"));
    QCOMPARE(list[0].command, QStringLiteral("evalsha"));
    QCOMPARE(list[0].libName, QStringLiteral("redisson"));
    QVERIFY(list[0].ranScript());
    QVERIFY(!list[0].isReplicationLink());
    QCOMPARE(list[1].host(), QStringLiteral("::1"));
    QVERIFY(list[1].isReplicationLink());
    QCOMPARE(list[1].server, QStringLiteral("127.0.0.1:7601"));
    QCOMPARE(ClientListEntry::fromJson(list[0].toJson()).toJson(), list[0].toJson());
}

void TestClientTracker::monitorLinesParse_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("address");
    QTest::addColumn<QByteArray>("command");
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::newRow("evalsha")
        << QByteArray(
               R"(1795895601.635 [0 127.0.0.1:38106] "EVALSHA" "abc" "1" "orders:42" "3000" "8743c9c0-0795-4907-87fd-6c719a6b4586:57")")
        << true << QStringLiteral("127.0.0.1:38106") << QByteArray("evalsha")
        << QList<QByteArray>{"abc", "1", "orders:42", "3000", "8743c9c0-0795-4907-87fd-6c719a6b4586:57"};
    QTest::newRow("escapes") << QByteArray(R"(1.0 [0 unix:/tmp/r.sock] "set" "a\"b\\c" "\x00\xff\n")") << true
                             << QStringLiteral("unix:/tmp/r.sock") << QByteArray("set")
                             << QList<QByteArray>{QByteArray("a\"b\\c"), QByteArray("\x00\xff\n", 3)};
    QTest::newRow("lua") << QByteArray(R"(1.0 [0 lua] "hincrby" "k" "f" "1")") << true << QStringLiteral("lua")
                         << QByteArray("hincrby") << QList<QByteArray>{"k", "f", "1"};
    QTest::newRow("ok") << QByteArray("OK") << false << QString() << QByteArray() << QList<QByteArray>{};
    QTest::newRow("truncated") << QByteArray(R"(1.0 [0 127.0.0.1:1] "set" "unterminated)") << false << QString()
                               << QByteArray() << QList<QByteArray>{};
    QTest::newRow("bad hex") << QByteArray(R"(1.0 [0 127.0.0.1:1] "set" "\xZZ")") << false << QString() << QByteArray()
                             << QList<QByteArray>{};
}

void TestClientTracker::monitorLinesParse()
{
    QFETCH(QByteArray, line);
    QFETCH(bool, ok);
    MonitorLine parsed;
    QCOMPARE(MonitorLine::parse(line, &parsed), ok);
    if (!ok)
        return;
    QTEST(parsed.address, "address");
    QTEST(parsed.command, "command");
    QTEST(parsed.args, "args");
    QCOMPARE(MonitorLine::mayBeScript(line), parsed.command.startsWith("eval"));
}

void TestClientTracker::identityJsonRoundTrips()
{
    ClientIdentity c;
    c.clientId = QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586");
    c.state = ClientIdentity::State::Disconnected;
    c.evidence = ClientIdentity::Evidence::Correlated;
    c.eventsMatched = 3;
    c.host = QStringLiteral("10.0.0.5");
    c.name = QStringLiteral("orders-7");
    c.lastAddresses = {QStringLiteral("10.0.0.5:51234")};
    c.disconnectedAtMs = 1795895601635;
    const QJsonObject o = c.toJson();
    QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("disconnected"));
    QCOMPARE(o.value(QStringLiteral("evidence")).toString(), QStringLiteral("correlated"));
    QCOMPARE(ClientIdentity::fromJson(o).toJson(), o);
    QVERIFY(c.summary().contains(QLatin1String("10.0.0.5:51234")));
    QCOMPARE(ClientIdentity().summary(), QStringLiteral("not identified"));
    QCOMPARE(ClientIdentity::clientIdOfField(QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586:57:write")),
             c.clientId);
    QVERIFY(ClientIdentity::clientIdOfField(QStringLiteral("no-colon")).isEmpty());
}

void TestClientTracker::lockJsonGetsClients()
{
    LockSnapshot s;
    s.name = QStringLiteral("orders:42");
    s.exists = true;
    s.kind = LockKind::FairLock;
    LockHolder h;
    h.field = QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586:57");
    h.clientId = QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586");
    h.threadId = QStringLiteral("57");
    h.holdCount = 1;
    s.holders << h;
    LockWaiter w;
    w.field = QStringLiteral("11111111-2222-3333-4444-555555555555:9");
    w.position = 1;
    s.waiters << w;
    QJsonObject o = s.toJson();
    ClientIdentity::annotateLockJson(&o, [](const QString &id) {
        ClientIdentity c;
        c.clientId = id;
        c.name = id.startsWith(QLatin1Char('8')) ? QStringLiteral("orders-7") : QString();
        return c;
    });
    QCOMPARE(o.value(QStringLiteral("holders"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("client"))
                 .toObject()
                 .value(QStringLiteral("name"))
                 .toString(),
             QStringLiteral("orders-7"));
    QCOMPARE(o.value(QStringLiteral("waiters"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("client"))
                 .toObject()
                 .value(QStringLiteral("client_id"))
                 .toString(),
             QStringLiteral("11111111-2222-3333-4444-555555555555"));
}

void TestClientTracker::doctorReportsDisconnectedHolders()
{
    LockSnapshot s;
    s.name = QStringLiteral("payments:9");
    s.exists = true;
    s.pttlMs = 50000;
    s.readAtSteadyMs = LockSnapshot::steadyNowMs();
    LockHolder h;
    h.field = QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586:5");
    h.clientId = QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586");
    h.threadId = QStringLiteral("5");
    h.holdCount = 1;
    s.holders << h;
    LockDoctor doctor;
    doctor.observe(s);
    QHash<QString, LockSnapshot> locks{{s.name, s}};
    ClientIdentity gone;
    gone.clientId = h.clientId;
    gone.state = ClientIdentity::State::Disconnected;
    gone.evidence = ClientIdentity::Evidence::Monitor;
    gone.lastAddresses = {QStringLiteral("127.0.0.1:51234")};
    doctor.observeClients({gone});
    auto finding = [&] {
        for (const auto &f : doctor.diagnose(locks, LockSnapshot::steadyNowMs()))
            if (f.code == QLatin1String("holder_disconnected"))
                return f;
        return LockFinding{};
    };
    // No renewal seen: a fixed lease, its waiters blocked until it ends.
    QCOMPARE(finding().severity, LockFinding::Severity::Critical);
    QVERIFY(finding().title.contains(QLatin1String("127.0.0.1:51234")));
    QVERIFY(finding().action.contains(QLatin1String("force-unlock payments:9")));
    // A renewal seen: a watchdog lease, which expires by itself.
    LockSnapshot renewed = s;
    renewed.pttlMs = 59000;
    renewed.serverTimeMs = s.serverTimeMs + 1000;
    renewed.readAtSteadyMs = s.readAtSteadyMs + 1000;
    doctor.observe(renewed);
    locks[s.name] = renewed;
    QCOMPARE(finding().severity, LockFinding::Severity::Warning);
    // Back: no finding.
    gone.state = ClientIdentity::State::Connected;
    doctor.observeClients({gone});
    QVERIFY(finding().code.isEmpty());
}

void TestClientTracker::correlatesAndFollowsRealConnections()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    SyncClient lockscope(server.endpoint()); // "lockscope-test": LockScope's own, never a candidate
    QVERIFY(lockscope.open());
    auto *holder = new SyncClient(server.endpoint(), "billing-3");
    QVERIFY(holder->open());
    SyncClient other(server.endpoint(), "other");
    QVERIFY(other.open());

    ClientTracker::Servers servers;
    servers.masters = [&] { return QStringList{server.endpoint().address()}; };
    servers.connection = [&](const QString &) { return lockscope.connection(); };
    servers.endpoint = [&](const QString &) { return server.endpoint(); };
    servers.masterOf = [&](const QString &) { return server.endpoint().address(); };
    ClientTracker tracker(servers);
    tracker.setFollowIntervalMs(200);
    tracker.setDisconnectGraceMs(300);
    tracker.start();
    QSignalSpy identified(&tracker, &ClientTracker::clientIdentified);
    QSignalSpy disconnected(&tracker, &ClientTracker::clientDisconnected);

    const QString id = QStringLiteral("8743c9c0-0795-4907-87fd-6c719a6b4586");
    // Its script (what a renewal is), and an event of it; the other client sent no script.
    QVERIFY(!holder->cmd({"EVAL", "return 1", "0"}).isError());
    QVERIFY(!other.cmd({"PING"}).isError());
    LockEvent e;
    e.lock = QStringLiteral("billing:7");
    e.type = QStringLiteral("renewed");
    e.holder = id + QStringLiteral(":3");
    tracker.observeEvents({e});
    QTRY_COMPARE(identified.size(), 1);
    ClientIdentity c = tracker.identity(id);
    QCOMPARE(c.evidence, ClientIdentity::Evidence::Correlated);
    QCOMPARE(c.name, QStringLiteral("billing-3"));
    QCOMPARE(c.connections.size(), 1);
    QVERIFY(tracker.clientListCalls() >= 1);

    // Its connection closes: gone after the grace, with the address it had.
    const QString address = c.connections.first().address;
    delete holder;
    QTRY_COMPARE_WITH_TIMEOUT(disconnected.size(), 1, 5000);
    c = tracker.identity(id);
    QCOMPARE(c.state, ClientIdentity::State::Disconnected);
    QCOMPARE(c.lastAddresses, QStringList{address});

    // A CLIENT LIST over its time limit (here 0 µs) stops correlation, with one notice.
    QSignalSpy notices(&tracker, &ClientTracker::notice);
    tracker.setMaxClientListUs(0);
    SyncClient another(server.endpoint(), "another");
    QVERIFY(another.open());
    QVERIFY(!another.cmd({"EVAL", "return 1", "0"}).isError());
    e.holder = QStringLiteral("11111111-2222-3333-4444-555555555555:1");
    tracker.observeEvents({e});
    QTRY_COMPARE(notices.size(), 1);
    QVERIFY(notices.first().first().toString().contains(QLatin1String("stopped matching")));
    QCOMPARE(tracker.clientListBudget(), 0);
    const qint64 calls = tracker.clientListCalls();
    e.holder = QStringLiteral("11111111-2222-3333-4444-666666666666:1");
    tracker.observeEvents({e});
    QTest::qWait(300);
    QVERIFY(tracker.clientListCalls() - calls <= 2); // follow reads only (CLIENT LIST ID), no correlation
    server.stop();
}

QTEST_GUILESS_MAIN(TestClientTracker)
#include "tst_clienttracker.moc"
