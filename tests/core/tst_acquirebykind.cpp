// Acquire follows the kind of the lock that is there (protocol §14.1: another kind's script corrupts
// the lock): with a
// "Java" client running Redisson's own scripts (redis-cli EVAL with Redisson's KEYS/ARGV) holding a
// read-write, fair or fenced lock, lockscope-cli's acquire and LockSession::acquire/renew/release
// use the client of that kind or refuse, never overlap a Java hold, and audit every acquire and
// every release.

#include "demo/redisserverprocess.h"
#include "protocol/acquireplan.h"
#include "session/locksession.h"
#include "text/advicewords.h"

#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::kRedissonFairAcquireScript;
using lockscope::test::ProcessResult;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

const QString kJava = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b");
const QString kJava2 = QStringLiteral("5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60");

// RedissonReadLock.tryLockInnerAsync (§4.2, 4.7). KEYS = name, timeoutPrefix
// ("{name}:<clientId>:<threadId>:rwlock_timeout"); ARGV = lease, lockName, lockName + ":write".
const char *const kRedissonReadAcquire =
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == false) then "
    "redis.call('hset', KEYS[1], 'mode', 'read'); "
    "redis.call('hset', KEYS[1], ARGV[2], 1); "
    "redis.call('set', KEYS[2] .. ':1', 1); "
    "redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then "
    "local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "local key = KEYS[2] .. ':' .. ind;"
    "redis.call('set', key, 1); "
    "redis.call('pexpire', key, ARGV[1]); "
    "local remainTime = redis.call('pttl', KEYS[1]); "
    "redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1])); "
    "return nil; "
    "end;"
    "return redis.call('pttl', KEYS[1]);";

// RedissonReadLock.unlockInnerAsync (§4.3, 3.24+/4.7). KEYS = name, "redisson_rwlock:{name}",
// timeoutPrefix, keyPrefix ("{name}"), latch; ARGV = "0", lockName, publish command, latch ttl.
const char *const kRedissonReadUnlock =
    "local val = redis.call('get', KEYS[5]); "
    "if val ~= false then return tonumber(val); end; "
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == false) then "
    "redis.call(ARGV[3], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[5], 1, 'px', ARGV[4]); "
    "return nil; "
    "end; "
    "local lockExists = redis.call('hexists', KEYS[1], ARGV[2]); "
    "if (lockExists == 0) then return nil; end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1); "
    "if (counter == 0) then redis.call('hdel', KEYS[1], ARGV[2]); end;"
    "redis.call('del', KEYS[3] .. ':' .. (counter+1)); "
    "if (redis.call('hlen', KEYS[1]) > 1) then "
    "local maxRemainTime = -3; "
    "local keys = redis.call('hkeys', KEYS[1]); "
    "for n, key in ipairs(keys) do "
    "counter = tonumber(redis.call('hget', KEYS[1], key)); "
    "if type(counter) == 'number' then "
    "for i=counter, 1, -1 do "
    "local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i); "
    "maxRemainTime = math.max(remainTime, maxRemainTime);"
    "end; "
    "end; "
    "end; "
    "if maxRemainTime > 0 then "
    "redis.call('pexpire', KEYS[1], maxRemainTime); "
    "redis.call('set', KEYS[5], 0, 'px', ARGV[4]); "
    "return 0; "
    "end;"
    "if mode == 'write' then "
    "redis.call('set', KEYS[5], 0, 'px', ARGV[4]); "
    "return 0;"
    "end; "
    "end; "
    "redis.call('del', KEYS[1]); "
    "redis.call(ARGV[3], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[5], 1, 'px', ARGV[4]); "
    "return 1; ";

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

using Outcome = lockscope::test::ActionOutcome;

} // namespace

class TestAcquireByKind : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void planFollowsTheData();
    void cliReadWriteLockWithJavaReader();
    void cliFairLockQueuesBehindWaiters();
    void cliFreeFairQueueIsAFairLock();
    void cliFencedAcquireTakesAndPrintsToken();
    void cliFreeNameKinds();
    void cliUnknownKindIsUsageError();
    void sessionAcquireRenewReleaseByKind();

private:
    ProcessResult cli(const QStringList &args, int timeoutMs = 30000);
    QStringList cliArgs(const QStringList &args) const;
    /** The Java reader kJava:1 takes a read hold on `name` (lease 60 s) with Redisson's script. */
    void javaRead(const QString &name, const QString &clientId = kJava);
    QByteArray redis(const QStringList &args);
    QList<QJsonObject> audit() const;
    std::unique_ptr<LockSession> session();
    Outcome run(LockSession *s, const std::function<void()> &action);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    QTemporaryDir m_dir;
};

void TestAcquireByKind::initTestCase()
{
    // The plan's sentences in lockscope-cli's words, as cli_main installs them (core names no flag).
    lockscope::AdviceWords::setNamer([](lockscope::AdviceWords::Choice choice, const QString &value) {
        return choice == lockscope::AdviceWords::Choice::LockKind ? QStringLiteral("--kind %1").arg(value)
                                                                  : QStringLiteral("pass --wait-ms");
    });
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QVERIFY2(!lockscope::test::redisCliPath().isEmpty(), "redis-cli is not installed (Debian: redis-tools)");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestAcquireByKind::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestAcquireByKind::init()
{
    m_admin->flushall();
    QFile::remove(m_dir.filePath(QStringLiteral("audit.jsonl")));
}

QStringList TestAcquireByKind::cliArgs(const QStringList &args) const
{
    return QStringList{QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"),
                       m_dir.filePath(QStringLiteral("audit.jsonl"))} +
           args;
}

ProcessResult TestAcquireByKind::cli(const QStringList &args, int timeoutMs)
{
    return lockscope::test::runProcess(cliPath(), cliArgs(args), timeoutMs);
}

QByteArray TestAcquireByKind::redis(const QStringList &args)
{
    const ProcessResult r = lockscope::test::redisCli(m_server.port(), args);
    if (r.exitCode != 0)
        qWarning("redis-cli failed: %s", qPrintable(r.describe()));
    return r.out.trimmed();
}

void TestAcquireByKind::javaRead(const QString &name, const QString &clientId)
{
    const QString field = clientId + QStringLiteral(":1");
    QCOMPARE(redis({"EVAL", kRedissonReadAcquire, "2", name, "{" + name + "}:" + field + ":rwlock_timeout", "60000",
                    field, field + ":write"}),
             QByteArray());
}

QList<QJsonObject> TestAcquireByKind::audit() const
{
    QFile f(m_dir.filePath(QStringLiteral("audit.jsonl")));
    QList<QJsonObject> out;
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            out << QJsonDocument::fromJson(line).object();
    return out;
}

std::unique_ptr<LockSession> TestAcquireByKind::session()
{
    LockSession::Options o;
    o.endpoint = m_server.endpoint();
    o.auditLogPath = m_dir.filePath(QStringLiteral("audit.jsonl"));
    auto s = std::make_unique<LockSession>(o);
    s->open();
    return s;
}

Outcome TestAcquireByKind::run(LockSession *s, const std::function<void()> &action)
{
    return lockscope::test::runSessionAction(s, action, 30000);
}

// AcquirePlan on snapshots of each shape: what is allowed, what is refused and what it says.
void TestAcquireByKind::planFollowsTheData()
{
    LockSnapshot free;
    free.name = QStringLiteral("free:1");
    QVERIFY(AcquirePlan::decide(free, AcquireKind::Auto).kind == AcquireKind::Lock);
    for (AcquireKind k :
         {AcquireKind::Lock, AcquireKind::Fair, AcquireKind::Read, AcquireKind::Write, AcquireKind::Fenced})
        QVERIFY(AcquirePlan::decide(free, k).kind == k);

    LockSnapshot rw;
    rw.name = QStringLiteral("config:rw");
    rw.exists = rw.isLock = true;
    rw.kind = LockKind::ReadWriteLock;
    rw.rwMode = QStringLiteral("read");
    rw.pttlMs = 30000;
    for (const char *f : {"a:1", "b:1"}) {
        LockHolder h;
        h.field = QString::fromLatin1(f);
        h.holdCount = 1;
        h.mode = QStringLiteral("read");
        rw.holders << h;
    }
    const AcquirePlan noChoice = AcquirePlan::decide(rw, AcquireKind::Auto);
    QVERIFY(noChoice.isRefused());
    QCOMPARE(noChoice.refusal, QStringLiteral("config:rw is a read-write lock, held for reading by 2 readers: choose "
                                              "--kind read or --kind write"));
    for (AcquireKind k : {AcquireKind::Lock, AcquireKind::Fair, AcquireKind::Fenced})
        QVERIFY(AcquirePlan::decide(rw, k).isRefused());
    QVERIFY(AcquirePlan::decide(rw, AcquireKind::Read).kind == AcquireKind::Read);
    QVERIFY(AcquirePlan::decide(rw, AcquireKind::Write).kind == AcquireKind::Write);

    LockSnapshot fair;
    fair.name = QStringLiteral("orders:42");
    fair.exists = fair.isLock = true;
    fair.pttlMs = 30000;
    fair.queueLength = fair.timeoutSetSize = 3;
    QVERIFY(AcquirePlan::decide(fair, AcquireKind::Auto).kind == AcquireKind::Fair);
    const AcquirePlan jump = AcquirePlan::decide(fair, AcquireKind::Lock);
    QVERIFY(jump.refusal.startsWith(QStringLiteral("orders:42 is a fair lock with 3 queued waiters")));
    QVERIFY(jump.refusal.contains(QStringLiteral("--kind lock would jump the queue")));
    fair.exists = false; // free, with a queue: still a fair lock
    fair.pttlMs = -2;
    QVERIFY(AcquirePlan::decide(fair, AcquireKind::Auto).kind == AcquireKind::Fair);
    QVERIFY(AcquirePlan::decide(fair, AcquireKind::Lock).isRefused());
    QVERIFY(AcquirePlan::decide(fair, AcquireKind::Read).isRefused());

    LockSnapshot plain;
    plain.name = QStringLiteral("plain:1");
    plain.exists = plain.isLock = true;
    plain.pttlMs = 30000;
    LockHolder h;
    h.field = kJava + QStringLiteral(":1");
    h.holdCount = 1;
    plain.holders << h;
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Auto).kind == AcquireKind::Lock);
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Fair).kind == AcquireKind::Fair); // cannot tell
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Read).isRefused());               // would join it
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Write).isRefused());
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Fenced).isRefused());
    plain.token = 7;
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Auto).kind == AcquireKind::Fenced);
    QVERIFY(AcquirePlan::decide(plain, AcquireKind::Lock).refusal.contains(QStringLiteral("no fencing token")));

    LockSnapshot group = plain; // a RedissonFasterMultiLock group hash (§5.5): nobody joins it by acquire
    group.name = QStringLiteral("group:1");
    group.token = -1;
    group.kind = LockKind::FasterMultiLock;
    for (AcquireKind k : {AcquireKind::Auto, AcquireKind::Lock, AcquireKind::Fair, AcquireKind::Read,
                          AcquireKind::Write, AcquireKind::Fenced})
        QVERIFY(AcquirePlan::decide(group, k).refusal.contains(QStringLiteral("RedissonFasterMultiLock group")));

    LockSnapshot other; // a string under that name
    other.name = QStringLiteral("somestring");
    other.pttlMs = -1;
    QVERIFY(AcquirePlan::decide(other, AcquireKind::Auto).isRefused());
    QVERIFY(AcquirePlan::decide(other, AcquireKind::Lock).isRefused());
}

void TestAcquireByKind::cliReadWriteLockWithJavaReader()
{
    const QString name = QStringLiteral("config:rw");
    const QString javaField = kJava + QStringLiteral(":1");
    const QByteArray javaTimeout = ("{config:rw}:" + javaField + ":rwlock_timeout:1").toUtf8();
    javaRead(name);
    const QStringList javaOnly = m_admin->hgetall("config:rw");

    // Without --kind, and with --kind lock: refused, saying what is there; nothing written.
    ProcessResult r = cli({"acquire", name, "--hold-ms", "100"});
    QVERIFY2(r.finished && r.exitCode == 3, qPrintable(r.describe()));
    QVERIFY2(r.err.contains("config:rw is a read-write lock, held for reading by 1 reader") &&
                 r.err.contains("--kind read or --kind write"),
             r.err.constData());
    r = cli({"acquire", name, "--kind", "lock", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 3, qPrintable(r.describe()));
    QCOMPARE(m_admin->hgetall("config:rw"), javaOnly);

    // --kind read joins as a second reader; its release leaves the Java reader's hold intact.
    QProcess reader;
    reader.start(cliPath(), cliArgs({"acquire", name, "--kind", "read", "--lease-ms", "20000", "--hold-ms", "2500"}));
    QVERIFY(reader.waitForStarted(10000));
    auto stopReader = qScopeGuard([&] {
        if (reader.state() != QProcess::NotRunning) {
            reader.kill();
            reader.waitForFinished(3000);
        }
    });
    QVERIFY(waitUntil([&] { return m_admin->hgetall("config:rw").size() == 3; }, 15000));
    const QStringList both = m_admin->hgetall("config:rw");
    QVERIFY2(both.contains(QStringLiteral("mode=read")) && both.contains(javaField + QStringLiteral("=1")),
             qPrintable(both.join(' ')));
    QString ours;
    for (const QString &f : both)
        if (!f.startsWith(QLatin1String("mode=")) && !f.startsWith(javaField))
            ours = f.section(QLatin1Char('='), 0, 0);
    QVERIFY(!ours.isEmpty());
    QVERIFY(m_admin->exists(("{config:rw}:" + ours + ":rwlock_timeout:1").toUtf8()));
    QVERIFY(reader.waitForFinished(15000));
    QCOMPARE(reader.exitCode(), 0);
    const QByteArray readerOut = reader.readAllStandardOutput();
    QVERIFY2(readerOut.contains("acquired config:rw as " + ours.toUtf8() + " (read lock, lease 20000 ms)"),
             readerOut.constData());
    QVERIFY(readerOut.contains("released config:rw"));
    QCOMPARE(m_admin->hgetall("config:rw"), javaOnly);
    QVERIFY(m_admin->exists(javaTimeout));
    QVERIFY(!m_admin->exists(("{config:rw}:" + ours + ":rwlock_timeout:1").toUtf8()));

    // --kind write does not get it while the Java reader reads...
    r = cli({"acquire", name, "--kind", "write", "--wait-ms", "300", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 3, qPrintable(r.describe()));
    QCOMPARE(m_admin->hgetall("config:rw"), javaOnly);

    // ...and gets it once the reader released (Redisson's read unlock publishes "0").
    QProcess writer;
    writer.start(cliPath(), cliArgs({"acquire", name, "--kind", "write", "--wait-ms", "20000", "--hold-ms", "100"}));
    QVERIFY(writer.waitForStarted(10000));
    auto stopWriter = qScopeGuard([&] {
        if (writer.state() != QProcess::NotRunning) {
            writer.kill();
            writer.waitForFinished(3000);
        }
    });
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_rwlock:{config:rw}") == 1; }, 15000));
    QCOMPARE(m_admin->hgetall("config:rw"), javaOnly); // still only the reader while the writer waits
    QCOMPARE(redis({"EVAL", kRedissonReadUnlock, "5", name, "redisson_rwlock:{config:rw}",
                    "{config:rw}:" + javaField + ":rwlock_timeout", "{config:rw}",
                    "redisson_unlock_latch:{config:rw}:77777777777777777777777777777777", "0", javaField, "publish",
                    "18000"}),
             QByteArray("1"));
    QVERIFY(writer.waitForFinished(15000));
    QCOMPARE(writer.exitCode(), 0);
    const QByteArray writerOut = writer.readAllStandardOutput();
    QVERIFY2(writerOut.contains(":1:write (write lock, watchdog: 30000 ms"), writerOut.constData());
    QVERIFY(writerOut.contains("released config:rw"));
    QVERIFY(!m_admin->exists("config:rw"));

    // One audit record per acquire and per release, each with the kind asked for.
    const QList<QJsonObject> records = audit();
    QStringList summary;
    for (const QJsonObject &o : records) {
        QCOMPARE(o.value(QStringLiteral("lock")).toString(), name);
        summary << QStringLiteral("%1/%2/%3")
                       .arg(o.value(QStringLiteral("action")).toString(),
                            o.value(QStringLiteral("args")).toObject().value(QStringLiteral("kind")).toString(),
                            o.value(QStringLiteral("result")).toString());
    }
    QCOMPARE(summary, (QStringList{"acquire/auto/refused", "acquire/lock/refused", "acquire/read/done", "release//done",
                                   "acquire/write/refused", "acquire/write/done", "release//done"}));
}

void TestAcquireByKind::cliFairLockQueuesBehindWaiters()
{
    const QString name = QStringLiteral("orders:42");
    const QStringList keys{name, "redisson_lock_queue:{orders:42}", "redisson_lock_timeout:{orders:42}"};
    const QString now = QString::number(QDateTime::currentMSecsSinceEpoch());
    // Java A holds the fair lock, Java B waits in its queue (Redisson's own script).
    QCOMPARE(redis(QStringList{"EVAL", kRedissonFairAcquireScript, "3"} + keys +
                   QStringList{"60000", kJava + ":1", "300000", now}),
             QByteArray());
    QVERIFY(redis(QStringList{"EVAL", kRedissonFairAcquireScript, "3"} + keys +
                  QStringList{"60000", kJava2 + ":1", "300000", now})
                .toLongLong() > 0);
    const QStringList queueBefore{kJava2 + ":1"};

    ProcessResult r = cli({"acquire", name, "--kind", "lock", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 3, qPrintable(r.describe()));
    QVERIFY2(r.err.contains("orders:42 is a fair lock with 1 queued waiter") &&
                 r.err.contains("--kind lock would jump the queue"),
             r.err.constData());

    // Without --kind it takes the fair path: it queues behind B (and leaves the queue on timeout).
    QProcess waiter;
    waiter.start(cliPath(), cliArgs({"acquire", name, "--wait-ms", "2500", "--hold-ms", "100"}));
    QVERIFY(waiter.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (waiter.state() != QProcess::NotRunning) {
            waiter.kill();
            waiter.waitForFinished(3000);
        }
    });
    QVERIFY(waitUntil(
        [&] {
            return m_admin->cmd({"LLEN", "redisson_lock_queue:{orders:42}"}).toInteger() == 2;
        },
        15000));
    QCOMPARE(m_admin->cmd({"LINDEX", "redisson_lock_queue:{orders:42}", "0"}).toByteArray(), (kJava2 + ":1").toUtf8());
    QVERIFY(m_admin->cmd({"LINDEX", "redisson_lock_queue:{orders:42}", "1"}).toByteArray().endsWith(":1"));
    QCOMPARE(m_admin->hgetall("orders:42"), QStringList{kJava + ":1=1"});
    QVERIFY(waiter.waitForFinished(15000));
    QCOMPARE(waiter.exitCode(), 3);
    QCOMPARE(m_admin->cmd({"LLEN", "redisson_lock_queue:{orders:42}"}).toInteger(), 1);
    QCOMPARE(m_admin->cmd({"LINDEX", "redisson_lock_queue:{orders:42}", "0"}).toByteArray(), (kJava2 + ":1").toUtf8());
    QCOMPARE(m_admin->cmd({"ZCARD", "redisson_lock_timeout:{orders:42}"}).toInteger(), 1);
    QCOMPARE(m_admin->hgetall("orders:42"), QStringList{kJava + ":1=1"});

    // --kind fair, one attempt: not our turn, nothing written.
    r = cli({"acquire", name, "--kind", "fair", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 3, qPrintable(r.describe()));
    QCOMPARE(m_admin->cmd({"LLEN", "redisson_lock_queue:{orders:42}"}).toInteger(), 1);
}

void TestAcquireByKind::cliFreeFairQueueIsAFairLock()
{
    // A free fair lock with a live waiter at the head: the waiter's turn, not ours.
    const QString head = kJava2 + QStringLiteral(":1");
    m_admin->cmd({"RPUSH", "redisson_lock_queue:{jobs:1}", head.toUtf8()});
    m_admin->cmd({"ZADD", "redisson_lock_timeout:{jobs:1}",
                  QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 300000), head.toUtf8()});
    ProcessResult r = cli({"acquire", "jobs:1", "--kind", "lock", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 3 && r.err.contains("jump the queue"), qPrintable(r.describe()));
    r = cli({"acquire", "jobs:1", "--hold-ms", "100"}); // auto = fair: the head goes first
    QVERIFY2(r.exitCode == 3, qPrintable(r.describe()));
    QVERIFY(!m_admin->exists("jobs:1"));
    QCOMPARE(m_admin->cmd({"LLEN", "redisson_lock_queue:{jobs:1}"}).toInteger(), 1);
}

void TestAcquireByKind::cliFencedAcquireTakesAndPrintsToken()
{
    m_admin->cmd({"SET", "redisson_lock_token:{ledger}", "41"}); // a free fenced lock
    ProcessResult r = cli({"acquire", "ledger", "--kind", "lock", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 3 && r.err.contains("no fencing token"), qPrintable(r.describe()));
    QCOMPARE(m_admin->get("redisson_lock_token:{ledger}"), QByteArray("41"));
    r = cli({"acquire", "ledger", "--lease-ms", "5000", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("(fenced lock, lease 5000 ms, fencing token 42)"), r.out.constData());
    QCOMPARE(m_admin->get("redisson_lock_token:{ledger}"), QByteArray("42"));
    QVERIFY(!m_admin->exists("ledger"));
    r = cli({"acquire", "ledger", "--kind", "fenced", "--hold-ms", "100"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("fencing token 43"), qPrintable(r.describe()));
}

void TestAcquireByKind::cliFreeNameKinds()
{
    struct Case {
        const char *kind;
        std::function<bool(const QStringList &hash)> layout;
    };
    const QList<Case> cases{
        {"fair", [](const QStringList &h) { return h.size() == 1 && h[0].endsWith(QLatin1String(":1=1")); }},
        {"read", [](const QStringList &h) { return h.size() == 2 && h.contains(QStringLiteral("mode=read")); }},
        {"write",
         [](const QStringList &h) {
             return h.size() == 2 && h.contains(QStringLiteral("mode=write")) &&
                    h[0].endsWith(QLatin1String(":1:write=1"));
         }},
        {"fenced", [](const QStringList &h) { return h.size() == 1 && h[0].endsWith(QLatin1String(":1=1")); }},
    };
    for (const Case &c : cases) {
        const QString name = QStringLiteral("free:%1").arg(QLatin1String(c.kind));
        QProcess holder;
        holder.start(cliPath(), cliArgs({"acquire", name, "--kind", c.kind, "--hold-ms", "1500"}));
        QVERIFY(holder.waitForStarted(10000));
        QVERIFY(waitUntil([&] { return m_admin->exists(name.toUtf8()); }, 15000));
        const QStringList hash = m_admin->hgetall(name.toUtf8());
        QVERIFY2(c.layout(hash), qPrintable(name + QLatin1String(": ") + hash.join(' ')));
        if (QLatin1String(c.kind) == QLatin1String("read"))
            QCOMPARE(redis({"EVAL", "return #redis.call('keys', ARGV[1])", "0", "{free:read}:*:rwlock_timeout:1"}),
                     QByteArray("1"));
        if (QLatin1String(c.kind) == QLatin1String("fenced"))
            QCOMPARE(m_admin->get("redisson_lock_token:{free:fenced}"), QByteArray("1"));
        QVERIFY(holder.waitForFinished(15000));
        QCOMPARE(holder.exitCode(), 0);
        const QByteArray out = holder.readAllStandardOutput();
        QVERIFY2(out.contains(QStringLiteral("(%1 lock, ").arg(QLatin1String(c.kind)).toUtf8()), out.constData());
        QVERIFY(!m_admin->exists(name.toUtf8()));
    }
    const QList<QJsonObject> records = audit();
    QCOMPARE(records.size(), 8); // an acquire and a release each
    for (int i = 0; i < records.size(); ++i) {
        QCOMPARE(records[i].value(QStringLiteral("action")).toString(),
                 i % 2 == 0 ? QStringLiteral("acquire") : QStringLiteral("release"));
        QCOMPARE(records[i].value(QStringLiteral("result")).toString(), QStringLiteral("done"));
    }
    QCOMPARE(records[2].value(QStringLiteral("args")).toObject().value(QStringLiteral("kind")).toString(),
             QStringLiteral("read"));
}

void TestAcquireByKind::cliUnknownKindIsUsageError()
{
    const ProcessResult r = cli({"acquire", "x", "--kind", "spin"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("--kind needs lock, fair, read, write or fenced"));
}

// The dashboard's path: LockSession::acquire with a kind, then renew and release of LockScope's
// own hold with the matching renewal and unlock.
void TestAcquireByKind::sessionAcquireRenewReleaseByKind()
{
    auto s = session();
    const QString javaField = kJava + QStringLiteral(":1");
    javaRead(QStringLiteral("cfg"));
    const QStringList javaOnly = m_admin->hgetall("cfg");

    Outcome o = run(s.get(), [&] { s->acquire(QStringLiteral("cfg"), 5, 20000, 0); });
    QCOMPARE(o.outcome, QStringLiteral("refused"));
    QVERIFY2(o.message.contains(QLatin1String("read-write lock")), qPrintable(o.message));

    QString field, kind;
    connect(s.get(), &LockSession::acquired, this, [&](const QString &, const QString &f, const QString &k, qint64) {
        field = f;
        kind = k;
    });
    o = run(s.get(), [&] { s->acquire(QStringLiteral("cfg"), 5, 20000, 0, AcquireKind::Read); });
    QVERIFY2(o.ok, qPrintable(o.message));
    QCOMPARE(kind, QStringLiteral("read"));
    QCOMPARE(field, s->clientId() + QStringLiteral(":5"));
    QCOMPARE(m_admin->hget("cfg", field.toUtf8()), QByteArray("1"));
    o = run(s.get(), [&] { s->renew(QStringLiteral("cfg"), 5); });
    QVERIFY2(o.ok, qPrintable(o.message));
    QVERIFY(m_admin->pttl(("{cfg}:" + field + ":rwlock_timeout:1").toUtf8()) > 20000); // read renewal: watchdog timeout
    o = run(s.get(), [&] { s->release(QStringLiteral("cfg"), 5); });
    QVERIFY2(o.ok, qPrintable(o.message));
    QCOMPARE(m_admin->hgetall("cfg"), javaOnly);

    // Write on a free name; renew and release take the write path.
    o = run(s.get(), [&] { s->acquire(QStringLiteral("w"), 2, 10000, 0, AcquireKind::Write); });
    QVERIFY2(o.ok, qPrintable(o.message));
    QCOMPARE(m_admin->hget("w", "mode"), QByteArray("write"));
    o = run(s.get(), [&] { s->renew(QStringLiteral("w"), 2); });
    QVERIFY2(o.ok, qPrintable(o.message));
    QVERIFY(m_admin->pttl("w") > 10000);
    o = run(s.get(), [&] { s->release(QStringLiteral("w"), 2); });
    QVERIFY2(o.ok, qPrintable(o.message));
    QVERIFY(!m_admin->exists("w"));

    // Fair on a free name; a Java waiter queues meanwhile; the release wakes it on its own channel.
    o = run(s.get(), [&] { s->acquire(QStringLiteral("f"), 3, 20000, 0, AcquireKind::Fair); });
    QVERIFY2(o.ok, qPrintable(o.message));
    const QStringList fkeys{"f", "redisson_lock_queue:{f}", "redisson_lock_timeout:{f}"};
    QVERIFY(redis(QStringList{"EVAL", kRedissonFairAcquireScript, "3"} + fkeys +
                  QStringList{"20000", kJava2 + ":1", "300000", QString::number(QDateTime::currentMSecsSinceEpoch())})
                .toLongLong() > 0);
    lockscope::test::MessageListener head(m_server.endpoint(),
                                          ("redisson_lock__channel:{f}:" + kJava2 + ":1").toUtf8());
    QVERIFY(head.waitSubscribed());
    o = run(s.get(), [&] { s->release(QStringLiteral("f"), 3); });
    QVERIFY2(o.ok && o.message.contains(QLatin1String("fair unlock")), qPrintable(o.message));
    QVERIFY(head.waitFor("0"));
    QVERIFY(!m_admin->exists("f"));

    // Every acquire, renew and release was audited.
    QCOMPARE(audit().size(), 9);
}

QTEST_GUILESS_MAIN(TestAcquireByKind)
#include "tst_acquirebykind.moc"
