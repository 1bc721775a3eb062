// Three things the data alone makes ambiguous or unusual, against a real redis-server, with data written the way
// Redisson's own scripts write it (the Lua below follows RedissonFairLock / RedissonFasterMultiLock 4.7.0 step by step,
// with the KEYS/ARGV Redisson passes; see protocol §3.2, §3.5, §5.5, §14.10):
//  - names that are exactly `{x}` share every derived key with `x` (§14.4): discovery, the
//    monitor (watch events), the doctor, list/show and every repair name only the lock that
//    exists, never a phantom twin;
//  - RedissonFasterMultiLock groups are listed, decoded and force-unlocked;
//  - a lock whose data cannot tell fair from plain says so (kind_certain).
#include "locksessiontestpeer.h"
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "protocol/locknames.h"
#include "session/locksession.h"
#include "watch/lockmonitor.h"
#include "watch/snapshotreader.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using namespace lockscope;
using namespace lockscope::test;

namespace
{

// RedissonFairLock.tryLockInnerAsync, EVAL_LONG (lock / tryLock with wait), §3.2.
// KEYS = [name, redisson_lock_queue:{name}, redisson_lock_timeout:{name}]
// ARGV = [lease ms, lockName, wait ms, now ms]. nil = acquired, else the ttl to wait.
const char *const kFairAcquire = R"LUA(
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if head == false then break end
  local deadline = redis.call('zscore', KEYS[3], head)
  if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
    redis.call('zrem', KEYS[3], head); redis.call('lpop', KEYS[2])
  else break end
end
if redis.call('exists', KEYS[1]) == 0 and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
  redis.call('lpop', KEYS[2]); redis.call('zrem', KEYS[3], ARGV[2])
  local members = redis.call('zrange', KEYS[3], 0, -1)
  for i = 1, #members do redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), members[i]) end
  redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
  return math.max(0, redis.call('pttl', KEYS[1]))
end
local last = redis.call('lindex', KEYS[2], -1)
local ttl
if last ~= false and last ~= ARGV[2] and redis.call('zscore', KEYS[3], last) ~= false then
  ttl = tonumber(redis.call('zscore', KEYS[3], last)) - tonumber(ARGV[4])
else
  ttl = redis.call('pttl', KEYS[1])
end
if redis.call('zadd', KEYS[3], ttl + tonumber(ARGV[3]) + tonumber(ARGV[4]), ARGV[2]) == 1 then
  redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
)LUA";

// RedissonFairLock.unlockInnerAsync, §3.5. KEYS = [name, queue, timeout set,
// redisson_lock__channel:{name}, redisson_unlock_latch:{name}:<requestId>]
// ARGV = [0, lease, lockName, now, publish verb, latch timeout].
const char *const kFairUnlock = R"LUA(
local val = redis.call('get', KEYS[5])
if val ~= false then return tonumber(val) end
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if head == false then break end
  local deadline = redis.call('zscore', KEYS[3], head)
  if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
    redis.call('zrem', KEYS[3], head); redis.call('lpop', KEYS[2])
  else break end
end
if redis.call('exists', KEYS[1]) == 0 then
  local nextThread = redis.call('lindex', KEYS[2], 0)
  if nextThread ~= false then redis.call(ARGV[5], KEYS[4] .. ':' .. nextThread, ARGV[1]) end
  redis.call('set', KEYS[5], 1, 'px', ARGV[6])
  return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if counter > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[5], 0, 'px', ARGV[6])
  return 0
end
redis.call('del', KEYS[1]); redis.call('set', KEYS[5], 1, 'px', ARGV[6])
local nextThread = redis.call('lindex', KEYS[2], 0)
if nextThread ~= false then redis.call(ARGV[5], KEYS[4] .. ':' .. nextThread, ARGV[1]) end
return 1
)LUA";

// RedissonFasterMultiLock.tryLockInnerAsync (§5.5). KEYS = [group]
// ARGV = [lease ms, now ms, lockName, fieldId...]. nil = acquired, else ms until the latest
// foreign expiry among the asked values.
const char *const kMultiLockAcquire = R"LUA(
local leaseTime = tonumber(ARGV[1]); local currentTime = tonumber(ARGV[2]); local me = ARGV[3]
local maxExpire = -1; local keyExist
if tonumber(redis.call('exists', KEYS[1])) > 0 then
  keyExist = 1
  for i = 4, #ARGV do
    local owner = redis.call('hget', KEYS[1], ARGV[i])
    if owner ~= false and owner ~= me then
      local expire = redis.call('hget', KEYS[1], ARGV[i] .. ':' .. owner .. ':expire_time')
      if expire ~= false and tonumber(expire) > currentTime and tonumber(expire) > maxExpire then
        maxExpire = tonumber(expire)
      end
    end
  end
else
  keyExist = 0
end
if maxExpire ~= -1 then return maxExpire - currentTime end
for i = 4, #ARGV do
  redis.call('hset', KEYS[1], ARGV[i], me)
  local expireField = ARGV[i] .. ':' .. me .. ':expire_time'
  local expire = redis.call('hget', KEYS[1], expireField)
  local newExpire = leaseTime + currentTime
  if expire == false or tonumber(expire) < newExpire then redis.call('hset', KEYS[1], expireField, newExpire) end
  redis.call('hincrby', KEYS[1], ARGV[i] .. ':' .. me .. ':lock_count', 1)
end
if keyExist == 1 then
  local pttl = redis.call('pttl', KEYS[1])
  if tonumber(pttl) > 0 and leaseTime > tonumber(pttl) then redis.call('pexpire', KEYS[1], leaseTime) end
else
  redis.call('pexpire', KEYS[1], leaseTime)
end
return nil
)LUA";

// RedissonFasterMultiLock.unlockInnerAsync (§5.5). KEYS = [group, redisson_lock__channel:{group},
// redisson_unlock_latch:{group}:<requestId>]; ARGV = [lockName, 0, lease, publish verb,
// latch timeout, now, fieldId...]. 1 = every value released, 0 = some still held, nil = not held.
const char *const kMultiLockUnlock = R"LUA(
local val = redis.call('get', KEYS[3])
if val ~= false then return tonumber(val) end
if redis.call('exists', KEYS[1]) == 0 then redis.call(ARGV[4], KEYS[2], ARGV[2]); return nil end
local me = ARGV[1]; local hasFailed = 0; local allDeleted = 1; local hasDeleted = 0
local newExpire = tonumber(ARGV[3]) + tonumber(ARGV[6])
for i = 7, #ARGV do
  local prefix = ARGV[i] .. ':' .. me
  local expire = redis.call('hget', KEYS[1], prefix .. ':expire_time')
  if expire ~= false and tonumber(expire) >= tonumber(ARGV[6]) then
    if tonumber(redis.call('hincrby', KEYS[1], prefix .. ':lock_count', -1)) <= 0 then
      redis.call('hdel', KEYS[1], prefix .. ':expire_time'); redis.call('hdel', KEYS[1], prefix .. ':lock_count')
      redis.call('hdel', KEYS[1], ARGV[i]); hasDeleted = 1
    else
      if tonumber(expire) < newExpire then redis.call('hset', KEYS[1], prefix .. ':expire_time', newExpire) end
      allDeleted = 0
    end
  else
    allDeleted = 0; hasFailed = 1
  end
end
if hasFailed ~= 0 then return nil end
if hasDeleted then redis.call(ARGV[4], KEYS[2], ARGV[2]) end
if allDeleted == 1 then
  redis.call('set', KEYS[3], 1, 'px', ARGV[5])
else
  redis.call('set', KEYS[3], 0, 'px', ARGV[5])
  local pttl = redis.call('pttl', KEYS[1])
  if tonumber(ARGV[3]) > tonumber(pttl) then redis.call('pexpire', KEYS[1], ARGV[3]) end
end
return allDeleted
)LUA";

using Outcome = lockscope::test::ActionOutcome;

QByteArray nowMs()
{
    return QByteArray::number(QDateTime::currentMSecsSinceEpoch());
}

/** A fresh unlock request id: 32 lowercase hex digits, one per unlock() call (§1.1). */
QString requestId()
{
    return QUuid::createUuid().toString(QUuid::Id128);
}

} // namespace

class TestBraceNames : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();

    void twinNamesFollowPrefixName();
    void listAndShowNameOnlyTheBracedLock();
    void listAndShowNameOnlyThePlainTwin();
    void freeFairQueueIsOneLockWithBothPossibleNames();
    void watchFilesEventsUnderTheBracedLock();
    void cliWatchNamesOnlyTheBracedLock();
    void doctorRaisesNothingForThePhantomTwin();
    void repairsOnTheBracedLockAct();
    void repairsAimedAtTheTwinAreRefused();
    void fasterMultiLockGroupIsListedAndDecoded();
    void fasterMultiLockForceUnlockPublishesOnItsChannel();
    void fairOrPlainIsSaidWhenTheDataCannotTell();
    void monitorRemembersAFairLockWhoseQueueEmptied();

private:
    // Redisson-style client actions (redis-cli EVAL: a client independent of LockScope).
    QString lockName(const QString &client, int thread) const
    {
        return client + QLatin1Char(':') + QString::number(thread);
    }
    QByteArray fairAcquire(const QString &name, const QString &lockName, qint64 leaseMs = 60000,
                           qint64 waitMs = 300000);
    QByteArray fairUnlock(const QString &name, const QString &lockName);
    QByteArray multiLockAcquire(const QString &group, const QString &lockName, const QStringList &fieldIds,
                                qint64 leaseMs = 60000);
    QByteArray multiLockUnlock(const QString &group, const QString &lockName, const QStringList &fieldIds);

    QList<QJsonObject> cliJsonLines(const QStringList &args, int *exitCode = nullptr);
    ProcessResult cli(const QStringList &args) const;
    std::unique_ptr<LockSession> session();
    Outcome run(LockSession *s, const std::function<void()> &action);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    QTemporaryDir m_dir;
    QString m_a = newClientId();
    QString m_b = newClientId();
};

void TestBraceNames::initTestCase()
{
    QString error;
    m_server.setNotifyKeyspaceEvents(QStringLiteral("KA"));
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint());
    QVERIFY(m_admin->open());
}

void TestBraceNames::init()
{
    m_admin->flushall();
}

void TestBraceNames::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

static QByteArray evalOut(const ProcessResult &r)
{
    return r.out.trimmed();
}

QByteArray TestBraceNames::fairAcquire(const QString &name, const QString &lockName, qint64 leaseMs, qint64 waitMs)
{
    return evalOut(redisCliEval(
        m_server.port(), kFairAcquire, {name, LockNames::fairQueueKey(name), LockNames::fairTimeoutKey(name)},
        {QString::number(leaseMs), lockName, QString::number(waitMs), QString::fromLatin1(nowMs())}));
}

QByteArray TestBraceNames::fairUnlock(const QString &name, const QString &lockName)
{
    return evalOut(redisCliEval(m_server.port(), kFairUnlock,
                                {name, LockNames::fairQueueKey(name), LockNames::fairTimeoutKey(name),
                                 LockNames::unlockChannel(name), LockNames::unlockLatchKey(name, requestId())},
                                {QStringLiteral("0"), QStringLiteral("30000"), lockName, QString::fromLatin1(nowMs()),
                                 QStringLiteral("publish"), QStringLiteral("13500")}));
}

QByteArray TestBraceNames::multiLockAcquire(const QString &group, const QString &lockName, const QStringList &fieldIds,
                                            qint64 leaseMs)
{
    return evalOut(
        redisCliEval(m_server.port(), kMultiLockAcquire, {group},
                     QStringList{QString::number(leaseMs), QString::fromLatin1(nowMs()), lockName} + fieldIds));
}

QByteArray TestBraceNames::multiLockUnlock(const QString &group, const QString &lockName, const QStringList &fieldIds)
{
    return evalOut(
        redisCliEval(m_server.port(), kMultiLockUnlock,
                     {group, LockNames::unlockChannel(group), LockNames::unlockLatchKey(group, requestId())},
                     QStringList{lockName, QStringLiteral("0"), QStringLiteral("30000"), QStringLiteral("publish"),
                                 QStringLiteral("13500"), QString::fromLatin1(nowMs())} +
                         fieldIds));
}

ProcessResult TestBraceNames::cli(const QStringList &args) const
{
    return runProcess(QStringLiteral(LOCKSCOPE_CLI_PATH), QStringList{QStringLiteral("--url"), m_server.url()} + args,
                      60000);
}

QList<QJsonObject> TestBraceNames::cliJsonLines(const QStringList &args, int *exitCode)
{
    const ProcessResult r = cli(args + QStringList{QStringLiteral("--json")});
    if (exitCode)
        *exitCode = r.exitCode;
    QList<QJsonObject> out;
    for (const QByteArray &line : r.out.split('\n'))
        if (!line.trimmed().isEmpty())
            out << QJsonDocument::fromJson(line).object();
    return out;
}

std::unique_ptr<LockSession> TestBraceNames::session()
{
    LockSession::Options o;
    o.endpoint = m_server.endpoint();
    o.auditLogPath = m_dir.filePath(QStringLiteral("audit.jsonl"));
    auto s = std::make_unique<LockSession>(o);
    s->open();
    return s;
}

Outcome TestBraceNames::run(LockSession *s, const std::function<void()> &action)
{
    return lockscope::test::runSessionAction(s, action);
}

static QStringList names(const QList<QJsonObject> &objects)
{
    QStringList out;
    for (const auto &o : objects)
        out << o.value(QStringLiteral("name")).toString();
    return out;
}

void TestBraceNames::twinNamesFollowPrefixName()
{
    QCOMPARE(LockNames::twinName(QStringLiteral("x")), QStringLiteral("{x}"));
    QCOMPARE(LockNames::twinName(QStringLiteral("{x}")), QStringLiteral("x"));
    QCOMPARE(LockNames::twinName(QStringLiteral("{orders}:42")), QString());
    QCOMPARE(LockNames::twinName(QString()), QString());
    QCOMPARE(LockNames::withTwin(QStringLiteral("{x}")), (QStringList{QStringLiteral("x"), QStringLiteral("{x}")}));
    // Every pair shares every derived key (§1.2), which is why the ambiguity exists at all.
    for (const QString &n : {QStringLiteral("x"), QStringLiteral("a}b"), QStringLiteral("orders:42")}) {
        const QString twin = LockNames::twinName(n);
        QCOMPARE(LockNames::twinName(twin), n);
        QCOMPARE(LockNames::fairQueueKey(twin), LockNames::fairQueueKey(n));
        QCOMPARE(LockNames::unlockChannel(twin), LockNames::unlockChannel(n));
        QCOMPARE(LockNames::suffixName(twin, QStringLiteral("s")), LockNames::suffixName(n, QStringLiteral("s")));
    }
}

void TestBraceNames::listAndShowNameOnlyTheBracedLock()
{
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());               // A holds {x}
    QCOMPARE(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0, true); // B queued behind it
    QVERIFY(m_admin->exists("redisson_lock_queue:{x}"));

    const QList<QJsonObject> listed = cliJsonLines({QStringLiteral("list")});
    QCOMPARE(names(listed), QStringList{x});
    const QJsonObject lock = listed.first();
    QCOMPARE(lock.value(QStringLiteral("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(lock.value(QStringLiteral("queue_length")).toInt(), 1);
    QCOMPARE(lock.value(QStringLiteral("name_certain")).toBool(), true);

    int code = -1;
    const QList<QJsonObject> shown = cliJsonLines({QStringLiteral("show"), x}, &code);
    QCOMPARE(code, 0);
    QCOMPARE(names(shown), QStringList{x});
    const ProcessResult phantom = cli({QStringLiteral("show"), QStringLiteral("x")});
    QCOMPARE(phantom.exitCode, 3);
    QVERIFY2(phantom.err.contains("belong to lock '{x}'"), phantom.err.constData());

    const ProcessResult table = cli({QStringLiteral("list")});
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains("1 lock(s)"), table.out.constData());
}

void TestBraceNames::listAndShowNameOnlyThePlainTwin()
{
    const QString x = QStringLiteral("x");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);
    const QList<QJsonObject> listed = cliJsonLines({QStringLiteral("list")});
    QCOMPARE(names(listed), QStringList{x});
    QCOMPARE(listed.first().value(QStringLiteral("queue_length")).toInt(), 1);
    QCOMPARE(cli({QStringLiteral("show"), QStringLiteral("{x}")}).exitCode, 3);
}

void TestBraceNames::freeFairQueueIsOneLockWithBothPossibleNames()
{
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);
    QCOMPARE(fairUnlock(x, lockName(m_a, 1)), QByteArray("1")); // free; B still queued
    QVERIFY(!m_admin->exists("{x}"));

    const QList<QJsonObject> listed = cliJsonLines({QStringLiteral("list")});
    QCOMPARE(listed.size(), 1); // one lock, never two
    const QJsonObject lock = listed.first();
    QCOMPARE(lock.value(QStringLiteral("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(lock.value(QStringLiteral("name_certain")).toBool(true), false);
    QCOMPARE(lock.value(QStringLiteral("name_candidates")).toArray(),
             (QJsonArray{QStringLiteral("x"), QStringLiteral("{x}")}));
    QVERIFY(lock.value(QStringLiteral("name_note")).toString().contains(QLatin1String("may be named")));
}

void TestBraceNames::watchFilesEventsUnderTheBracedLock()
{
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);

    auto s = session();
    QVector<LockEvent> events;
    connect(s.get(), &LockSession::eventsOccurred, this, [&](const QVector<LockEvent> &e) { events += e; });
    bool idle = false;
    connect(peer(s).monitor(), &LockMonitor::idle, this, [&] { idle = true; });
    s->start();
    QVERIFY(waitUntil([&] { return idle && peer(s).monitor()->mode() == LockMonitor::Mode::Live; }));
    QCOMPARE(peer(s).monitor()->locks().keys(), QList<QString>{x});
    QVERIFY(waitUntil([&] { return m_admin->numpat() >= 3; }));

    // Another waiter queues (list/zset events on the shared keys), then A releases: the head
    // waiter's own channel gets "0" (§3.5).
    QVERIFY(fairAcquire(x, lockName(m_b, 8)).toLongLong() > 0);
    QCOMPARE(fairUnlock(x, lockName(m_a, 1)), QByteArray("1"));
    auto dump = [&] {
        QStringList out;
        for (const auto &e : events)
            out << e.type + QLatin1Char(' ') + e.lock;
        return out.join(QLatin1Char('\n'));
    };
    auto has = [&](const QString &type) {
        for (const auto &e : events)
            if (e.type == type && e.lock == x)
                return true;
        return false;
    };
    QVERIFY2(waitUntil([&] { return has(QStringLiteral("unlock_message")) && has(QStringLiteral("released")); }),
             qPrintable(dump()));
    QTest::qWait(300); // let the re-reads of both names the shared keys triggered come back
    for (const auto &e : events)
        QVERIFY2(e.lock == x, qPrintable(dump()));
    // Free, B still queued: listed once, under the name it had.
    QCOMPARE(peer(s).monitor()->locks().keys(), QList<QString>{x});
    QCOMPARE(peer(s).monitor()->locks().value(x).nameCertain(), false);
}

void TestBraceNames::cliWatchNamesOnlyTheBracedLock()
{
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);
    QProcess watch;
    watch.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                {QStringLiteral("--url"), m_server.url(), QStringLiteral("watch"), QStringLiteral("--json"),
                 QStringLiteral("--duration-ms"), QStringLiteral("60000")});
    QVERIFY(watch.waitForStarted());
    QByteArray err;
    QVERIFY(waitUntil(
        [&] {
            err += watch.readAllStandardError();
            return err.contains("watching");
        },
        30000));
    QVERIFY(waitUntil([&] { return m_admin->numpat() >= 3; }));
    QVERIFY(fairAcquire(x, lockName(m_b, 8)).toLongLong() > 0);
    QCOMPARE(fairUnlock(x, lockName(m_a, 1)), QByteArray("1")); // "0" to B:7's own channel
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).isEmpty());        // B:7 takes it
    QByteArray out;
    auto types = [&] {
        QStringList t;
        for (const QByteArray &line : out.split('\n'))
            if (!line.trimmed().isEmpty()) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                t << o.value(QStringLiteral("type")).toString() + QLatin1Char(' ') +
                         o.value(QStringLiteral("lock")).toString();
            }
        return t;
    };
    const bool seen = waitUntil(
        [&] {
            out += watch.readAllStandardOutput();
            const QStringList t = types();
            return t.contains(QStringLiteral("unlock_message {x}")) && t.contains(QStringLiteral("acquired {x}"));
        },
        20000);
    QTest::qWait(300);
    out += watch.readAllStandardOutput();
    watch.kill();
    watch.waitForFinished();
    QVERIFY2(seen, qPrintable(types().join(QLatin1Char('\n'))));
    for (const QString &t : types())
        QVERIFY2(t.endsWith(QLatin1String(" {x}")), qPrintable(types().join(QLatin1Char('\n'))));
}

void TestBraceNames::doctorRaisesNothingForThePhantomTwin()
{
    // A fair {x} with a queued waiter, and a plain {y} held with a client waiting on its shared
    // channel: neither `x` nor `y` exists, and nothing may be said about them.
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);
    const ProcessResult acquired = redisCliEval(m_server.port(), kRedissonAcquireScript, {QStringLiteral("{y}")},
                                                {QStringLiteral("60000"), lockName(m_a, 2)});
    QCOMPARE(acquired.exitCode, 0);
    MessageListener waiter(m_server.endpoint(), "redisson_lock__channel:{y}");
    QVERIFY(waiter.waitSubscribed());

    int code = -1;
    const QList<QJsonObject> findings =
        cliJsonLines({QStringLiteral("doctor"), QStringLiteral("--waiter-threshold-ms"), QStringLiteral("0"),
                      QStringLiteral("--observe-ms"), QStringLiteral("300")},
                     &code);
    QStringList about;
    for (const auto &f : findings)
        about << f.value(QStringLiteral("lock")).toString() + QLatin1Char(' ') +
                     f.value(QStringLiteral("code")).toString();
    for (const auto &f : findings) {
        const QString lock = f.value(QStringLiteral("lock")).toString();
        QVERIFY2(lock != QLatin1String("x") && lock != QLatin1String("y"), qPrintable(about.join(QLatin1Char('\n'))));
        QVERIFY2(f.value(QStringLiteral("code")).toString() != QLatin1String("waiters_without_holder"),
                 qPrintable(about.join(QLatin1Char('\n'))));
    }
}

void TestBraceNames::repairsOnTheBracedLockAct()
{
    auto s = session();
    // set-ttl on a {x} without TTL.
    m_admin->cmd({"HSET", "{t}", lockName(m_a, 1).toUtf8(), "1"});
    Outcome o = run(s.get(), [&] { s->setTtl(QStringLiteral("{t}"), 30000, lockName(m_a, 1) + QStringLiteral("=1")); });
    QVERIFY2(o.outcome == QLatin1String("done"), qPrintable(o.message));
    QVERIFY(m_admin->pttl("{t}") > 0);

    // remove-waiter on {x}'s queue.
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);
    o = run(s.get(), [&] { s->removeWaiter(x, lockName(m_b, 7), 300000); });
    QVERIFY2(o.outcome == QLatin1String("done"), qPrintable(o.message));
    QVERIFY(!m_admin->exists("redisson_lock_queue:{x}"));

    // force-unlock {x}.
    o = run(s.get(), [&] { s->forceUnlock(x); });
    QVERIFY2(o.outcome == QLatin1String("done"), qPrintable(o.message));
    QVERIFY(!m_admin->exists("{x}"));

    // remove-reader of {r}: a read hold whose rwlock_timeout key is gone (§4.3).
    m_admin->cmd({"HSET", "{r}", "mode", "read", lockName(m_a, 3).toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", "{r}", "30000"});
    o = run(s.get(), [&] { s->removeReader(QStringLiteral("{r}"), lockName(m_a, 3)); });
    QVERIFY2(o.outcome == QLatin1String("done"), qPrintable(o.message));
    QVERIFY(!m_admin->exists("{r}"));

    // wake the clients waiting on free {w}'s channel.
    MessageListener waiter(m_server.endpoint(), "redisson_lock__channel:{w}");
    QVERIFY(waiter.waitSubscribed());
    o = run(s.get(), [&] { s->wake(QStringLiteral("{w}")); });
    QVERIFY2(o.outcome == QLatin1String("done"), qPrintable(o.message));
    QVERIFY(waiter.waitFor("redisson_lock__channel:{w}", "0"));
}

void TestBraceNames::repairsAimedAtTheTwinAreRefused()
{
    auto s = session();
    const QString x = QStringLiteral("{x}");
    QVERIFY(fairAcquire(x, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(x, lockName(m_b, 7)).toLongLong() > 0);
    m_admin->cmd({"HSET", "{r}", "mode", "read", lockName(m_a, 3).toUtf8(), "1"});
    const QStringList before = m_admin->hgetall("{x}");
    const QByteArray queue = m_admin->cmd({"LRANGE", "redisson_lock_queue:{x}", "0", "-1"}).at(0).toByteArray();

    const QVector<std::pair<QString, std::function<void()>>> repairs{
        {QStringLiteral("set_ttl"), [&] { s->setTtl(QStringLiteral("x"), 30000, QString()); }},
        {QStringLiteral("remove_waiter"), [&] { s->removeWaiter(QStringLiteral("x"), lockName(m_b, 7), 300000); }},
        {QStringLiteral("remove_reader"), [&] { s->removeReader(QStringLiteral("r"), lockName(m_a, 3)); }},
        {QStringLiteral("wake"), [&] { s->wake(QStringLiteral("x")); }},
        {QStringLiteral("force_unlock"), [&] { s->forceUnlock(QStringLiteral("x")); }},
    };
    for (const auto &r : repairs) {
        const Outcome o = run(s.get(), r.second);
        QCOMPARE(o.action, r.first);
        QVERIFY2(o.outcome == QLatin1String("refused"), qPrintable(r.first + QStringLiteral(": ") + o.message));
        QVERIFY2(o.message.contains(QLatin1String("belong to {")), qPrintable(o.message));
    }
    QCOMPARE(m_admin->hgetall("{x}"), before);
    QCOMPARE(m_admin->cmd({"LRANGE", "redisson_lock_queue:{x}", "0", "-1"}).at(0).toByteArray(), queue);
    QVERIFY(m_admin->exists("redisson_lock_timeout:{x}"));
    QVERIFY(m_admin->exists("{r}"));

    // The CLI says the same and exits 3.
    const ProcessResult r =
        cli({QStringLiteral("remove-waiter"), QStringLiteral("x"), lockName(m_b, 7), QStringLiteral("--yes")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(m_admin->exists("redisson_lock_queue:{x}"));

    // Both hashes exist: the shared queue's waiter cannot be attributed.
    m_admin->cmd({"HSET", "x", lockName(m_a, 9).toUtf8(), "1"});
    const Outcome both = run(s.get(), [&] { s->removeWaiter(QStringLiteral("x"), lockName(m_b, 7), 300000); });
    QCOMPARE(both.outcome, QStringLiteral("refused"));
    QVERIFY2(both.message.contains(QLatin1String("cannot tell")), qPrintable(both.message));
}

void TestBraceNames::fasterMultiLockGroupIsListedAndDecoded()
{
    const QString group = QStringLiteral("class_100");
    // Field ids have the shape Redisson writes (base64 of a 128-bit hash, no "=="); any value
    // hashes to some such id, these stand for three values.
    const QString jack = QStringLiteral("n2TZ0Y4ipRkDW2hHzS4VBw");
    const QString mary = QStringLiteral("1mRvX3b9tmAgOYJ5ZHcDeA");
    const QString tom = QStringLiteral("+fhPfJw7Tu/9lXkxNEd2qA");
    QVERIFY(multiLockAcquire(group, lockName(m_a, 1), {jack, mary}).isEmpty());
    QVERIFY(multiLockAcquire(group, lockName(m_a, 1), {jack}).isEmpty()); // re-entry of one value
    QVERIFY(multiLockAcquire(group, lockName(m_b, 5), {tom}, 20000).isEmpty());
    QVERIFY(multiLockAcquire(group, lockName(m_b, 5), {mary}).toLongLong() > 0); // held by A

    const QList<QJsonObject> listed = cliJsonLines({QStringLiteral("list")});
    QCOMPARE(names(listed), QStringList{group});
    const QJsonObject g = listed.first();
    QCOMPARE(g.value(QStringLiteral("kind")).toString(), QStringLiteral("faster_multi_lock"));
    const QJsonArray values = g.value(QStringLiteral("values")).toArray();
    QCOMPARE(values.size(), 3);
    QHash<QString, QJsonObject> byField;
    for (const auto &v : values)
        byField.insert(v.toObject().value(QStringLiteral("field")).toString(), v.toObject());
    QCOMPARE(byField.value(jack).value(QStringLiteral("client_id")).toString(), m_a);
    QCOMPARE(byField.value(jack).value(QStringLiteral("thread_id")).toString(), QStringLiteral("1"));
    QCOMPARE(byField.value(jack).value(QStringLiteral("hold_count")).toInt(), 2);
    QCOMPARE(byField.value(mary).value(QStringLiteral("hold_count")).toInt(), 1);
    QCOMPARE(byField.value(tom).value(QStringLiteral("client_id")).toString(), m_b);
    const qint64 expire = byField.value(tom).value(QStringLiteral("expire_epoch_ms")).toInteger();
    QVERIFY(expire > g.value(QStringLiteral("server_time_ms")).toInteger());
    QVERIFY(byField.value(tom).value(QStringLiteral("expire_in_ms")).toInteger() <= 20000);
    QCOMPARE(g.value(QStringLiteral("holders")).toArray().size(), 2);
    // Two owners of different values is how the group works: no "several holders" alarm.
    QVERIFY(g.value(QStringLiteral("problems")).toArray().isEmpty());

    // Redisson's unlock of A's values leaves B's.
    QCOMPARE(multiLockUnlock(group, lockName(m_a, 1), {jack, mary}), QByteArray("0")); // jack still counted once
    QCOMPARE(multiLockUnlock(group, lockName(m_a, 1), {jack}), QByteArray("1"));
    const QList<QJsonObject> after = cliJsonLines({QStringLiteral("show"), group});
    QCOMPARE(after.value(0).value(QStringLiteral("values")).toArray().size(), 1);

    const ProcessResult table = cli({QStringLiteral("show"), group});
    QVERIFY2(table.out.contains("Faster multilock group"), table.out.constData());
    QVERIFY2(table.out.contains(tom.toUtf8()), table.out.constData());
}

void TestBraceNames::fasterMultiLockForceUnlockPublishesOnItsChannel()
{
    const QString group = QStringLiteral("class_7");
    QVERIFY(multiLockAcquire(group, lockName(m_a, 1), {QStringLiteral("aaaa"), QStringLiteral("bbbb")}).isEmpty());
    MessageListener waiter(m_server.endpoint(), "redisson_lock__channel:{class_7}");
    QVERIFY(waiter.waitSubscribed());
    auto s = session();
    const Outcome o = run(s.get(), [&] { s->forceUnlock(group); });
    QVERIFY2(o.outcome == QLatin1String("done"), qPrintable(o.message));
    QVERIFY2(o.message.contains(QLatin1String("faster_multi_lock")), qPrintable(o.message));
    QVERIFY(!m_admin->exists("class_7"));
    QVERIFY(waiter.waitFor("redisson_lock__channel:{class_7}", "0"));
    // A waiting Redisson thread now gets in.
    QVERIFY(multiLockAcquire(group, lockName(m_b, 2), {QStringLiteral("aaaa")}).isEmpty());
}

void TestBraceNames::fairOrPlainIsSaidWhenTheDataCannotTell()
{
    // A plain RLock and a fair lock with an empty queue store the same hash (§3.1).
    QCOMPARE(redisCliEval(m_server.port(), kRedissonAcquireScript, {QStringLiteral("p")},
                          {QStringLiteral("60000"), lockName(m_a, 1)})
                 .exitCode,
             0);
    QVERIFY(fairAcquire(QStringLiteral("f"), lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(QStringLiteral("q"), lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(QStringLiteral("q"), lockName(m_b, 4)).toLongLong() > 0);

    QHash<QString, QJsonObject> byName;
    for (const auto &o : cliJsonLines({QStringLiteral("list")}))
        byName.insert(o.value(QStringLiteral("name")).toString(), o);
    for (const QString &n : {QStringLiteral("p"), QStringLiteral("f")}) {
        QCOMPARE(byName.value(n).value(QStringLiteral("kind")).toString(), QStringLiteral("lock"));
        QCOMPARE(byName.value(n).value(QStringLiteral("kind_certain")).toBool(true), false);
        QVERIFY(byName.value(n).value(QStringLiteral("kind_note")).toString().contains(QLatin1String("fair lock")));
    }
    QCOMPARE(byName.value(QStringLiteral("q")).value(QStringLiteral("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(byName.value(QStringLiteral("q")).value(QStringLiteral("kind_certain")).toBool(), true);
    const ProcessResult table = cli({QStringLiteral("list")});
    QVERIFY2(table.out.contains("lock (fair or plain)"), table.out.constData());

    // A client waiting on the shared unlock channel is a plain-lock waiter.
    MessageListener waiter(m_server.endpoint(), "redisson_lock__channel:{p}");
    QVERIFY(waiter.waitSubscribed());
    const QList<QJsonObject> shown = cliJsonLines({QStringLiteral("show"), QStringLiteral("p")});
    QCOMPARE(shown.value(0).value(QStringLiteral("kind_certain")).toBool(false), true);
}

void TestBraceNames::monitorRemembersAFairLockWhoseQueueEmptied()
{
    const QString f = QStringLiteral("fair:1");
    QVERIFY(fairAcquire(f, lockName(m_a, 1)).isEmpty());
    QVERIFY(fairAcquire(f, lockName(m_b, 4)).toLongLong() > 0);
    auto s = session();
    bool idle = false;
    connect(peer(s).monitor(), &LockMonitor::idle, this, [&] { idle = true; });
    s->start();
    QVERIFY(waitUntil([&] { return idle && peer(s).monitor()->locks().value(f).kind == LockKind::FairLock; }));
    // B gives up (acquireFailed removes it, §3.4): the data alone now reads like a plain lock.
    m_admin->cmd({"DEL", "redisson_lock_queue:{fair:1}", "redisson_lock_timeout:{fair:1}"});
    s->refresh();
    QVERIFY(
        waitUntil([&] { return peer(s).monitor()->locks().value(f).queueLength == 0 && peer(s).monitor()->isIdle(); }));
    const LockSnapshot now = peer(s).monitor()->locks().value(f);
    QCOMPARE(now.kind, LockKind::FairLock);
    QVERIFY(now.kindCertain);
    QVERIFY(now.kindNote.contains(QLatin1String("earlier in this session")));
}

QTEST_GUILESS_MAIN(TestBraceNames)
#include "tst_bracenames.moc"
