// RedLock and MultiLock across five independent redis-servers (protocol §5.3, §5.4): MultiLock's
// Redisson timing rules, servers that are down counting as failed components, the release of
// granted components when the quorum is missed, the lease rules, and the read-only RedLock view
// on data written by redis-cli (an independent client), plus lockscope-cli redlock.

#include "demo/redisserverprocess.h"
#include "lock/lockclient.h"
#include "lock/multilock.h"
#include "redlock/redlockreader.h"
#include "redlock/redlocksession.h"
#include "redlock/redlockstatus.h"

#include "faultproxy.h"
#include "lockfixture.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

using namespace lockscope;
using lockscope::test::FaultProxy;
using lockscope::test::ProcessResult;

namespace
{

constexpr int kServers = 5;
using Outcome = MultiLockComponentOutcome::Status;

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

} // namespace

class TestRedLock : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void timingRules();
    void allFiveGrant();
    void oneServerStopped();
    void threeServersStoppedReleasesTheTwoGranted();
    void threeStoppedWithWaitRetriesThenReleases();
    void heldByAnotherHolderIsARefusedComponent();
    void multiLockNeedsEveryServer();
    void leaseRulesWithWaitAndLease();
    void viewQuorumOnRedisCliData();
    void viewWithoutQuorum();
    void verdictValidityAndQuorumLoss();
    void cliShowAndAcquire();
    void unwritableAuditLogTouchesNoServer();
    void acquireAndReleaseAreRecordedBeforeTheyAreSent();
    void lostReplyLeavesNoHoldOfOurs();
    void recordOfFiveDownServersEndsWithAnOutcome();

private:
    /** A RedLock (or MultiLock) over the five servers, one LockClient per server, one client id. */
    std::unique_ptr<MultiLock> makeLock(MultiLock::Mode mode, const QString &name);
    MultiLockResult acquire(MultiLock &lock, qint64 leaseMs, qint64 waitMs, int timeoutMs = 20000);
    MultiLockResult unlock(MultiLock &lock);
    RedLockStatus view(const QString &name);
    /** redis-cli EXISTS on server i (an independent check of what is left in Redis). */
    QByteArray existsViaCli(int i, const QString &key);
    QStringList serverUrls() const;
    ProcessResult cli(const QStringList &args, int timeoutMs = 30000);

    std::vector<std::unique_ptr<RedisServerProcess>> m_servers;
    std::vector<std::unique_ptr<test::LockParticipant>> m_participants;
    QString m_clientId;
};

void TestRedLock::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty() || test::redisCliPath().isEmpty())
        QSKIP("redis-server and redis-cli are needed");
    for (int i = 0; i < kServers; ++i) {
        auto s = std::make_unique<RedisServerProcess>();
        s->setNotifyKeyspaceEvents(QString());
        QString error;
        QVERIFY2(s->start(10000, &error), qPrintable(error));
        m_servers.push_back(std::move(s));
    }
}

void TestRedLock::cleanupTestCase()
{
    m_servers.clear();
}

void TestRedLock::init()
{
    m_clientId = test::newClientId();
    for (auto &s : m_servers)
        QCOMPARE(test::redisCli(s->port(), {"FLUSHALL"}).exitCode, 0);
}

void TestRedLock::cleanup()
{
    m_participants.clear();
    for (auto &s : m_servers) {
        if (!s->isRunning()) {
            QString error;
            QVERIFY2(s->start(10000, &error), qPrintable(error));
        }
    }
}

std::unique_ptr<MultiLock> TestRedLock::makeLock(MultiLock::Mode mode, const QString &name)
{
    m_participants.clear();
    QVector<MultiLockComponent> components;
    for (auto &s : m_servers) {
        auto p = std::make_unique<test::LockParticipant>(s->endpoint(), false, m_clientId);
        p->connection->setConnectTimeoutMs(1000);
        p->connection->setCommandTimeoutMs(2000);
        p->connection->open();
        if (s->isRunning())
            test::waitUntil([&] { return p->connection->isReady(); }, 5000);
        components << MultiLockComponent{p->client.get(), name, s->endpoint().address()};
        m_participants.push_back(std::move(p));
    }
    return std::make_unique<MultiLock>(mode, components);
}

MultiLockResult TestRedLock::acquire(MultiLock &lock, qint64 leaseMs, qint64 waitMs, int timeoutMs)
{
    MultiLockResult none;
    none.error = QStringLiteral("test: no answer");
    return test::await<MultiLockResult>(
        [&](std::function<void(const MultiLockResult &)> done) { lock.acquire(1, leaseMs, waitMs, nullptr, done); },
        none, timeoutMs);
}

MultiLockResult TestRedLock::unlock(MultiLock &lock)
{
    MultiLockResult none;
    none.error = QStringLiteral("test: no answer");
    return test::await<MultiLockResult>(
        [&](std::function<void(const MultiLockResult &)> done) { lock.unlock(1, nullptr, done); }, none);
}

RedLockStatus TestRedLock::view(const QString &name)
{
    QVector<RedLockReader::Target> targets;
    for (auto &s : m_servers)
        targets << RedLockReader::Target{s->endpoint(), name};
    RedLockReader reader(targets);
    return test::await<RedLockStatus>(
        [&](std::function<void(const RedLockStatus &)> done) { reader.read(nullptr, done); }, RedLockStatus());
}

QByteArray TestRedLock::existsViaCli(int i, const QString &key)
{
    return test::redisCli(m_servers.at(i)->port(), {"EXISTS", key}).out.trimmed();
}

QStringList TestRedLock::serverUrls() const
{
    QStringList urls;
    for (auto &s : m_servers)
        urls << s->url();
    return urls;
}

ProcessResult TestRedLock::cli(const QStringList &args, int timeoutMs)
{
    return test::runProcess(cliPath(), args, timeoutMs);
}

void TestRedLock::timingRules()
{
    QVector<MultiLockComponent> five(5);
    MultiLock red(MultiLock::Mode::RedLock, five);
    QCOMPARE(red.minLocksAmount(), 3);
    QCOMPARE(red.failedLocksLimit(), 2);
    QCOMPARE(red.lockWaitMs(1000), qint64(200));
    QCOMPARE(red.lockWaitMs(3), qint64(1)); // max(3 / 5, 1)
    QCOMPARE(MultiLock(MultiLock::Mode::RedLock, QVector<MultiLockComponent>(4)).minLocksAmount(), 3);
    MultiLock multi(MultiLock::Mode::MultiLock, five);
    QCOMPARE(multi.minLocksAmount(), 5);
    QCOMPARE(multi.failedLocksLimit(), 0);
    QCOMPARE(multi.lockWaitMs(1000), qint64(1000));
    QCOMPARE(MultiLock::componentLeaseMs(5000, 1000), qint64(2000));
    QCOMPARE(MultiLock::componentLeaseMs(5000, 0), qint64(5000));
    QCOMPARE(MultiLock::componentLeaseMs(0, 1000), qint64(0));
}

void TestRedLock::allFiveGrant()
{
    auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:all"));
    const MultiLockResult r = acquire(*lock, 10000, 0);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(r.grantedCount(), 5);
    QCOMPARE(r.grantedServers().size(), 5);
    const QString field = m_participants.front()->field(1);
    for (int i = 0; i < kServers; ++i) {
        QCOMPARE(test::redisCli(m_servers[i]->port(), {"HGET", "rl:all", field}).out.trimmed(), QByteArray("1"));
        const qint64 pttl = test::redisCli(m_servers[i]->port(), {"PTTL", "rl:all"}).out.trimmed().toLongLong();
        QVERIFY2(pttl > 5000 && pttl <= 10000, qPrintable(QString::number(pttl)));
    }
    const RedLockStatus st = view(QStringLiteral("rl:all"));
    QVERIFY(st.hasQuorum);
    QCOMPARE(st.agreeing, 5);
    QCOMPARE(st.holder, field);

    const MultiLockResult u = unlock(*lock);
    QVERIFY2(u.error.isEmpty(), qPrintable(u.error));
    QCOMPARE(u.grantedCount(), 5);
    for (int i = 0; i < kServers; ++i)
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:all")), QByteArray("0"));
}

void TestRedLock::oneServerStopped()
{
    auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:one-down"));
    m_servers[2]->stop();
    const MultiLockResult r = acquire(*lock, 10000, 0);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(r.grantedCount(), 4);
    QCOMPARE(r.components[2].status, Outcome::Error);
    QVERIFY(!r.components[2].error.isEmpty());
    QVERIFY(!r.grantedServers().contains(m_servers[2]->endpoint().address()));
    // Refused at once, not after a connect or command timeout (tests do not assert on timing).
    QVERIFY2(!r.components[2].error.contains(QLatin1String("timed out")) &&
                 !r.components[2].error.contains(QLatin1String("did not answer")),
             qPrintable(r.components[2].error));

    const RedLockStatus st = view(QStringLiteral("rl:one-down"));
    QCOMPARE(st.serverCount(), 5);
    QCOMPARE(st.servers[2].state, RedLockServerState::State::Unreachable);
    QVERIFY(!st.servers[2].error.isEmpty());
    QCOMPARE(st.unreachableCount(), 1);
    QCOMPARE(st.agreeing, 4);
    QVERIFY(st.hasQuorum);
    QCOMPARE(st.holder, m_participants.front()->field(1));
    QVERIFY(st.validityMs > 5000 && st.validityMs <= 10000);
    const QJsonObject json = st.toJson();
    QCOMPARE(json.value("has_quorum").toBool(), true);
    QCOMPARE(json.value("servers").toArray().at(2).toObject().value("state").toString(), QStringLiteral("unreachable"));

    const MultiLockResult u = unlock(*lock);
    QCOMPARE(u.grantedCount(), 4);
    QCOMPARE(u.components[2].status, Outcome::Error);
    for (int i : {0, 1, 3, 4})
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:one-down")), QByteArray("0"));
}

void TestRedLock::threeServersStoppedReleasesTheTwoGranted()
{
    auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:three-down"));
    for (int i : {2, 3, 4})
        m_servers[i]->stop();
    const MultiLockResult r = acquire(*lock, 10000, 0);
    QVERIFY(!r.acquired);
    QVERIFY(!r.error.isEmpty());
    QCOMPARE(r.rounds, 1);
    QCOMPARE(r.components[0].status, Outcome::Released);
    QCOMPARE(r.components[1].status, Outcome::Released);
    for (int i : {2, 3, 4})
        QCOMPARE(r.components[i].status, Outcome::Error);
    for (int i : {0, 1}) // checked by redis-cli: no hash remains
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:three-down")), QByteArray("0"));
}

void TestRedLock::threeStoppedWithWaitRetriesThenReleases()
{
    auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:three-down-wait"));
    for (int i : {2, 3, 4})
        m_servers[i]->stop();
    const MultiLockResult r = acquire(*lock, 0, 600);
    QVERIFY(!r.acquired);
    QVERIFY2(r.rounds > 1, qPrintable(QString::number(r.rounds)));
    QVERIFY(r.elapsedMs >= 600); // the whole wait was used (a lower bound the code guarantees)
    for (int i : {0, 1}) {
        QVERIFY(r.components[i].status != Outcome::Granted);
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:three-down-wait")), QByteArray("0"));
    }
}

void TestRedLock::heldByAnotherHolderIsARefusedComponent()
{
    // Another Redisson client holds the lock on server 1, written by redis-cli.
    const QString other = test::newClientId() + QStringLiteral(":9");
    QCOMPARE(test::redisCli(m_servers[1]->port(), {"HSET", "rl:contended", other, "1"}).exitCode, 0);
    QCOMPARE(test::redisCli(m_servers[1]->port(), {"PEXPIRE", "rl:contended", "30000"}).exitCode, 0);
    auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:contended"));
    const MultiLockResult r = acquire(*lock, 10000, 500); // per-component wait 100 ms
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(r.components[1].status, Outcome::Refused);
    QVERIFY(r.components[1].pttlMs > 20000);
    QCOMPARE(r.grantedCount(), 4);
    QVERIFY(r.elapsedMs >= 100); // server 1 was waited for: max(500 / 5, 1) ms
    QCOMPARE(test::redisCli(m_servers[1]->port(), {"HGETALL", "rl:contended"}).out.split('\n').value(0),
             other.toUtf8());
    const RedLockStatus st = view(QStringLiteral("rl:contended"));
    QCOMPARE(st.agreeing, 4);
    QVERIFY(st.hasQuorum);
    unlock(*lock);
    QCOMPARE(existsViaCli(1, QStringLiteral("rl:contended")), QByteArray("1")); // not ours: untouched
}

void TestRedLock::multiLockNeedsEveryServer()
{
    auto lock = makeLock(MultiLock::Mode::MultiLock, QStringLiteral("ml:one-down"));
    m_servers[3]->stop();
    const MultiLockResult r = acquire(*lock, 10000, 0);
    QVERIFY(!r.acquired);
    QCOMPARE(r.required, 5);
    for (int i : {0, 1, 2}) {
        QCOMPARE(r.components[i].status, Outcome::Released);
        QCOMPARE(existsViaCli(i, QStringLiteral("ml:one-down")), QByteArray("0"));
    }
    QCOMPARE(r.components[3].status, Outcome::Error);
    QCOMPARE(r.components[4].status, Outcome::NotTried);
}

void TestRedLock::leaseRulesWithWaitAndLease()
{
    {
        // Acquired with lease 2 x 4000 = 8000, then PEXPIREd to 1500.
        auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:lease-short"));
        const MultiLockResult r = acquire(*lock, 1500, 4000);
        QVERIFY2(r.acquired, qPrintable(r.error));
        QCOMPARE(r.leaseMs, qint64(1500));
        for (int i = 0; i < kServers; ++i) {
            const qint64 pttl =
                test::redisCli(m_servers[i]->port(), {"PTTL", "rl:lease-short"}).out.trimmed().toLongLong();
            QVERIFY2(pttl > 0 && pttl <= 1500, qPrintable(QString::number(pttl)));
        }
        unlock(*lock);
    }
    {
        // Acquired with lease 2 x 300 = 600, then PEXPIREd to 20000.
        auto lock = makeLock(MultiLock::Mode::RedLock, QStringLiteral("rl:lease-long"));
        const MultiLockResult r = acquire(*lock, 20000, 300);
        QVERIFY2(r.acquired, qPrintable(r.error));
        for (int i = 0; i < kServers; ++i) {
            const qint64 pttl =
                test::redisCli(m_servers[i]->port(), {"PTTL", "rl:lease-long"}).out.trimmed().toLongLong();
            QVERIFY2(pttl > 15000 && pttl <= 20000, qPrintable(QString::number(pttl)));
        }
        const RedLockStatus st = view(QStringLiteral("rl:lease-long"));
        QVERIFY(st.validityMs > 15000 && st.validityMs <= 20000);
        unlock(*lock);
    }
}

void TestRedLock::viewQuorumOnRedisCliData()
{
    const QString a = test::newClientId() + QStringLiteral(":1");
    const QString b = test::newClientId() + QStringLiteral(":1");
    // Redisson's acquire script (§2.2) run by redis-cli: A on servers 0-2, B on 3-4.
    const QByteArray acquire = lockscope::test::kRedissonAcquireScript;
    const QStringList leases{"30000", "20000", "25000", "40000", "40000"};
    for (int i = 0; i < kServers; ++i) {
        const ProcessResult r =
            test::redisCliEval(m_servers[i]->port(), acquire, {"rl:split"}, {leases[i], i < 3 ? a : b});
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    }
    // The view's signal carries the same verdict as the callback (for a GUI on another thread).
    QVector<RedLockReader::Target> targets;
    for (auto &s : m_servers)
        targets << RedLockReader::Target{s->endpoint(), QStringLiteral("rl:split")};
    RedLockReader reader(targets);
    QSignalSpy spy(&reader, &RedLockReader::statusRead);
    reader.refresh();
    QVERIFY(spy.wait(5000));
    QCOMPARE(spy.first().first().value<RedLockStatus>().holder, a);

    const RedLockStatus st = view(QStringLiteral("rl:split"));
    QCOMPARE(st.quorum, 3);
    QCOMPARE(st.heldCount(), 5);
    QCOMPARE(st.agreeing, 3);
    QVERIFY(st.hasQuorum);
    QCOMPARE(st.holder, a);
    QVERIFY2(st.validityMs > 15000 && st.validityMs <= 20000, qPrintable(QString::number(st.validityMs)));
    QCOMPARE(st.quorumLostInMs, st.validityMs); // exactly a quorum agrees
    QCOMPARE(st.servers[4].holderFields(), QStringList{b});
    const QJsonObject json = st.toJson();
    QCOMPARE(json.value("holder").toString(), a);
    QCOMPARE(json.value("agreeing").toInt(), 3);
    QCOMPARE(json.value("servers").toArray().size(), 5);
}

void TestRedLock::viewWithoutQuorum()
{
    const QString a = test::newClientId() + QStringLiteral(":1");
    const QString b = test::newClientId() + QStringLiteral(":2");
    const QString c = test::newClientId() + QStringLiteral(":3");
    const QStringList holders{a, a, b, b, c};
    for (int i = 0; i < kServers; ++i) {
        QCOMPARE(test::redisCli(m_servers[i]->port(), {"HSET", "rl:nosplit", holders[i], "1"}).exitCode, 0);
        QCOMPARE(test::redisCli(m_servers[i]->port(), {"PEXPIRE", "rl:nosplit", "30000"}).exitCode, 0);
    }
    QCOMPARE(test::redisCli(m_servers[4]->port(), {"SET", "rl:absent-elsewhere", "x"}).exitCode, 0);
    RedLockStatus st = view(QStringLiteral("rl:nosplit"));
    QCOMPARE(st.agreeing, 2);
    QVERIFY(!st.hasQuorum);
    QCOMPARE(st.quorumLostInMs, qint64(-2));
    QCOMPARE(st.toJson().value("has_quorum").toBool(), false);

    st = view(QStringLiteral("rl:absent-elsewhere"));
    QCOMPARE(st.heldCount(), 0);
    QVERIFY(st.holder.isEmpty());
    QCOMPARE(st.servers[0].state, RedLockServerState::State::Free);
    QCOMPARE(st.servers[4].state, RedLockServerState::State::NotALock);
    QVERIFY(!st.hasQuorum);
}

void TestRedLock::verdictValidityAndQuorumLoss()
{
    // Pure evaluation: four of five agree with TTLs 10, 20, 30 s and no expiry; one is down.
    auto held = [](const QString &field, qint64 pttl) {
        RedLockServerState s;
        s.state = RedLockServerState::State::Held;
        s.snapshot.isLock = s.snapshot.exists = true;
        s.snapshot.pttlMs = pttl;
        s.snapshot.readAtSteadyMs = 1000;
        LockHolder h;
        h.field = field;
        h.threadId = field.section(QLatin1Char(':'), 1);
        h.holdCount = 1;
        s.snapshot.holders << h;
        return s;
    };
    RedLockServerState down;
    down.error = QStringLiteral("connection refused");
    const QString a = QStringLiteral("aaaaaaaa-0000-0000-0000-000000000000:1");
    const RedLockStatus st =
        RedLockStatus::evaluate({held(a, 10000), held(a, 30000), down, held(a, -1), held(a, 20000)}, 1500);
    QVERIFY(st.hasQuorum);
    QCOMPARE(st.agreeing, 4);
    QCOMPARE(st.validityMs, qint64(9500));      // the first agreeing server to expire
    QCOMPARE(st.quorumLostInMs, qint64(19500)); // the third largest: then only two remain
    QCOMPARE(st.unreachableCount(), 1);
    const RedLockStatus none = RedLockStatus::evaluate({down, down, held(a, 5000)}, 1000);
    QVERIFY(!none.hasQuorum);
    QCOMPARE(none.quorum, 2);
    QCOMPARE(none.validityMs, qint64(5000));
    QCOMPARE(none.quorumLostInMs, qint64(-2));
    // Redisson RedLocks from several RedissonClients: one thread id, different client ids.
    const RedLockStatus java = RedLockStatus::evaluate(
        {held(QStringLiteral("u1:42"), 5000), held(QStringLiteral("u2:42"), 5000), held(QStringLiteral("u3:42"), 5000)},
        1000);
    QCOMPARE(java.agreeing, 1);
    QVERIFY(!java.hasQuorum);
    QCOMPARE(java.sameThreadServers, 3);
}

void TestRedLock::cliShowAndAcquire()
{
    if (!QFile::exists(cliPath()))
        QSKIP("lockscope-cli not built");
    const QString servers = serverUrls().join(QLatin1Char(','));
    // acquire, hold, release; JSON says which servers granted it
    m_servers[0]->stop();
    const QString servers0 = serverUrls().join(QLatin1Char(','));
    ProcessResult r = cli({"redlock", "acquire", "cli:rl", "--servers", servers0, "--lease-ms", "5000", "--hold-ms",
                           "100", "--json", "--audit-log", QDir::temp().filePath("lockscope-tst-redlock-audit.jsonl")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QVERIFY2(lines.size() >= 2, qPrintable(r.describe()));
    const QJsonObject acquired = QJsonDocument::fromJson(lines.first()).object();
    QCOMPARE(acquired.value("acquired").toBool(), true);
    QCOMPARE(acquired.value("servers_granted").toArray().size(), 4);
    QCOMPARE(acquired.value("components").toArray().at(0).toObject().value("status").toString(),
             QStringLiteral("error"));
    for (int i = 1; i < kServers; ++i)
        QCOMPARE(existsViaCli(i, QStringLiteral("cli:rl")), QByteArray("0"));

    // show: table and JSON, exit codes 0 (quorum), 3 (no quorum)
    for (int i = 1; i < 4; ++i) {
        test::redisCli(m_servers[i]->port(), {"HSET", "cli:shown", "11111111-2222-3333-4444-555555555555:1", "1"});
        test::redisCli(m_servers[i]->port(), {"PEXPIRE", "cli:shown", "30000"});
    }
    r = cli({"redlock", "show", "cli:shown", "--servers", servers0, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QJsonObject shown = QJsonDocument::fromJson(r.out.trimmed()).object();
    QCOMPARE(shown.value("has_quorum").toBool(), true);
    QCOMPARE(shown.value("holder").toString(), QStringLiteral("11111111-2222-3333-4444-555555555555:1"));
    QCOMPARE(shown.value("unreachable").toInt(), 1);
    r = cli({"redlock", "show", "cli:shown", "--servers", servers0});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("unreachable") && r.out.contains("quorum"), r.out.constData());
    r = cli({"redlock", "show", "cli:nothing", "--servers", servers0});
    QCOMPARE(r.exitCode, 3);
    // usage errors: no servers, bad URL
    QCOMPARE(cli({"redlock", "show", "x"}).exitCode, 1);
    QCOMPARE(cli({"redlock", "show", "x", "--servers", "redis://127.0.0.1:1,nonsense://"}).exitCode, 1);
    QCOMPARE(cli({"redlock", "show", "x", "--servers", servers, "--url", "redis://127.0.0.1:1"}).exitCode, 1);
    QCOMPARE(cli({"redlock", "acquire", "x", "--servers", servers, "--wait-ms", "-1"}).exitCode, 1);
    QCOMPARE(cli({"redlock", "acquire", "x", "--servers", servers, "--read-only"}).exitCode, 3);
    for (int i = 1; i < kServers; ++i) // neither the refusals nor the usage errors wrote anything
        QCOMPARE(existsViaCli(i, QStringLiteral("x")), QByteArray("0"));
}

namespace
{
/** Connections each server has accepted so far (INFO stats). */
QList<qint64> connectionsReceived(const std::vector<std::unique_ptr<RedisServerProcess>> &servers)
{
    QList<qint64> out;
    for (const auto &s : servers) {
        const QByteArray info = test::redisCli(s->port(), {"INFO", "stats"}).out;
        const int at = info.indexOf("total_connections_received:");
        out << (at < 0 ? -1 : info.mid(at + 27, info.indexOf('\r', at) - at - 27).toLongLong());
    }
    return out;
}
} // namespace

void TestRedLock::unwritableAuditLogTouchesNoServer()
{
    // A RedLock write is refused before any server is touched when the audit log cannot take its
    // record: no connection is opened, nothing is written (a file where the log's directory
    // should be: unwritable even for root).
    QTemporaryDir dir;
    QFile blocker(dir.filePath(QStringLiteral("not-a-dir")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const QString log = dir.filePath(QStringLiteral("not-a-dir/audit.jsonl"));
    const QList<qint64> before = connectionsReceived(m_servers);

    // The session itself, as the dashboard would use it.
    RedLockSession::Options options;
    for (const auto &s : m_servers)
        options.servers << s->endpoint();
    options.name = QStringLiteral("rl:unaudited");
    options.auditLogPath = log;
    RedLockSession session(options);
    QVERIFY(!session.auditProblem().isEmpty());
    bool called = false;
    RedLockSession::WriteResult result;
    session.acquire(1, 5000, 0, this, [&](const RedLockSession::WriteResult &w) {
        called = true;
        result = w;
    });
    QTRY_VERIFY_WITH_TIMEOUT(called, 5000);
    QCOMPARE(result.outcome, QStringLiteral("refused"));
    QVERIFY(!result.sent);
    QVERIFY2(result.message.contains(QStringLiteral("Nothing was sent")), qPrintable(result.message));

    // The CLI: exit 3, the reason, nothing written.
    if (QFile::exists(cliPath())) {
        const ProcessResult r =
            cli({"redlock", "acquire", "rl:unaudited", "--servers", serverUrls().join(QLatin1Char(',')), "--lease-ms",
                 "5000", "--hold-ms", "100", "--audit-log", log});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("audit log"), qPrintable(r.describe()));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.describe()));
    }
    QTest::qWait(200);
    // The only connection each server saw since is the one of this INFO itself.
    QList<qint64> expected;
    for (qint64 n : before)
        expected << n + 1;
    QCOMPARE(connectionsReceived(m_servers), expected);
    for (int i = 0; i < kServers; ++i)
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:unaudited")), QByteArray("0"));
}

void TestRedLock::acquireAndReleaseAreRecordedBeforeTheyAreSent()
{
    // Each write has one record, written before it was sent and completed with its outcome.
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("audit.jsonl"));
    RedLockSession::Options options;
    for (const auto &s : m_servers)
        options.servers << s->endpoint();
    options.name = QStringLiteral("rl:audited");
    options.auditLogPath = log;
    RedLockSession session(options);
    auto lines = [&log] {
        QFile f(log);
        QList<QJsonObject> out;
        if (f.open(QIODevice::ReadOnly))
            for (const QByteArray &l : f.readAll().split('\n'))
                if (!l.trimmed().isEmpty())
                    out << QJsonDocument::fromJson(l).object();
        return out;
    };
    bool called = false;
    session.acquire(7, 5000, 1000, this, [&](const RedLockSession::WriteResult &w) {
        // The record was in the log, "sending", before the servers answered: it is completed now.
        QCOMPARE(w.outcome, QStringLiteral("done"));
        QVERIFY(w.result.acquired);
        QVERIFY(w.auditError.isEmpty());
        called = true;
    });
    // Right after the call, before any reply: the record is already there.
    QCOMPARE(lines().size(), 1);
    QCOMPARE(lines().first().value("result").toString(), QStringLiteral("sending"));
    QTRY_VERIFY_WITH_TIMEOUT(called, 10000);
    QCOMPARE(lines().size(), 1);
    QCOMPARE(lines().first().value("result").toString(), QStringLiteral("done"));
    QCOMPARE(lines().first().value("action").toString(), QStringLiteral("redlock_acquire"));
    QCOMPARE(lines().first().value("args").toObject().value("holder").toString(), session.holderField(7));
    for (int i = 0; i < kServers; ++i)
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:audited")), QByteArray("1"));
    called = false;
    session.release(7, this, [&](const RedLockSession::WriteResult &w) {
        QCOMPARE(w.outcome, QStringLiteral("done"));
        called = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(called, 10000);
    QCOMPARE(lines().size(), 2);
    QCOMPARE(lines().at(1).value("action").toString(), QStringLiteral("redlock_release"));
    QCOMPARE(lines().at(1).value("result").toString(), QStringLiteral("done"));
    for (int i = 0; i < kServers; ++i)
        QCOMPARE(existsViaCli(i, QStringLiteral("rl:audited")), QByteArray("0"));
}

// Issue 37, failure 1: server 0 is held by another client, server 1 runs the acquire but its
// reply is lost, server 2 is down: no quorum. The acquire on server 1 ran: LockScope's own hold
// must not stay there for its lease. The component is "released" (it had taken it), not "error".
void TestRedLock::lostReplyLeavesNoHoldOfOurs()
{
    const QString name = QStringLiteral("rl:lost-reply");
    QCOMPARE(
        test::redisCli(m_servers.at(0)->port(), {"HSET", name, "5f0e2d1c-2222-4b3c-8d4e-abcdef012345:9", "1"}).exitCode,
        0);
    QCOMPARE(test::redisCli(m_servers.at(0)->port(), {"PEXPIRE", name, "60000"}).exitCode, 0);
    {
        // Server 1 knows the acquire script already (EVALSHA runs it; a NOSCRIPT would mean it did not).
        test::SyncClient warm(m_servers.at(1)->endpoint());
        QVERIFY(warm.open());
        QVERIFY(!warm.evalResource(QStringLiteral("lock_acquire"), {"rl:warm-up"}, {"1000", "x:1"}).isError());
    }
    FaultProxy proxy(QHostAddress::LocalHost, m_servers.at(1)->port());
    QVERIFY(proxy.start());
    m_servers.at(2)->stop();
    m_participants.clear();
    QVector<MultiLockComponent> components;
    const QVector<RedisEndpoint> endpoints{m_servers.at(0)->endpoint(), RedisEndpoint::parse(proxy.url()),
                                           m_servers.at(2)->endpoint()};
    for (const RedisEndpoint &e : endpoints) {
        auto p = std::make_unique<test::LockParticipant>(e, false, m_clientId);
        p->connection->setConnectTimeoutMs(1000);
        p->connection->setCommandTimeoutMs(1000);
        p->connection->setReconnectDelaysMs(50, 200);
        p->connection->open();
        test::waitUntil([&] { return p->connection->isReady(); }, 2000);
        components << MultiLockComponent{p->client.get(), name, e.address()};
        m_participants.push_back(std::move(p));
    }
    MultiLock lock(MultiLock::Mode::RedLock, components);
    proxy.setMode(FaultProxy::Mode::DropReplies); // server 1 runs the acquire; its reply is lost
    QTimer::singleShot(1500, this, [&proxy] { proxy.setMode(FaultProxy::Mode::Pass); }); // the network heals
    const MultiLockResult r = acquire(lock, 20000, 0, 30000);
    QVERIFY(!r.acquired);
    QCOMPARE(r.components.at(0).status, MultiLockComponentOutcome::Status::Refused);
    QVERIFY2(r.components.at(1).status == MultiLockComponentOutcome::Status::Released,
             qPrintable(QJsonDocument(r.toJson()).toJson()));
    QCOMPARE(existsViaCli(1, name), QByteArray("0")); // nothing of ours left on server 1
    QCOMPARE(test::redisCli(m_servers.at(0)->port(), {"HLEN", name}).out.trimmed(), QByteArray("1")); // theirs stays
}

// Issue 37, failure 5: five servers that all refuse the connection. The record is completed with
// an outcome (it would not fit its reserved line with every component's error and the servers read
// again), never left "sending", and the CLI prints no warning about it.
void TestRedLock::recordOfFiveDownServersEndsWithAnOutcome()
{
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("audit.jsonl"));
    QStringList urls;
    for (int i = 0; i < 5; ++i) {
        QTcpServer closed; // a port nobody listens on once it is closed again
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        urls << QStringLiteral("redis://127.0.0.1:%1").arg(closed.serverPort());
    }
    const ProcessResult r = cli({"redlock", "acquire", "rl:nowhere", "--servers", urls.join(QLatin1Char(',')),
                                 "--lease-ms", "5000", "--hold-ms", "100", "--audit-log", log},
                                60000);
    QVERIFY2(r.finished && r.exitCode != 0, qPrintable(r.describe()));
    QVERIFY2(!r.err.contains("audit"), qPrintable(r.describe()));
    QFile f(log);
    QVERIFY(f.open(QIODevice::ReadOnly));
    bool sawRecord = false;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        QVERIFY2(o.value(QStringLiteral("result")).toString() != QLatin1String("sending"), line.constData());
        sawRecord = true;
    }
    QVERIFY(sawRecord);
}

QTEST_GUILESS_MAIN(TestRedLock)
#include "tst_redlock.moc"
