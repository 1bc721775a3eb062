// ReadWriteLock against a real redis-server: every branch of the read/write scripts (protocol
// §4.2-§4.6), per-hold rwlock_timeout keys, the shared redisson_rwlock channel ("0" from readers,
// "1" from writers), write-then-read downgrade, dead-reader detection, both renewals and the read
// watchdog, and interoperability with a reader driven by redis-cli.

#include "lock/lockclient.h"
#include "lock/lockwatchdog.h"
#include "lock/readwritelock.h"
#include "protocol/locknames.h"

#include "lockfixture.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace lockscope;
using lockscope::test::BoolResult;
using lockscope::test::MessageListener;
using lockscope::test::waitUntil;

namespace
{

/** Same order as SyncClient::hgetall. */
QStringList sorted(QStringList list)
{
    std::sort(list.begin(), list.end());
    return list;
}

struct Participant : test::LockParticipant {
    std::unique_ptr<ReadWriteLock> rw;

    explicit Participant(const RedisEndpoint &endpoint)
        : LockParticipant(endpoint), rw(std::make_unique<ReadWriteLock>(client.get()))
    {
    }
    QString writer(qint64 thread) const { return rw->writerField(thread); }
    /** Key of read hold n of `thread` on `name`. */
    QByteArray holdKey(const QString &name, qint64 thread, int n) const
    {
        return (ReadWriteLock::timeoutPrefix(name, field(thread)) + QLatin1Char(':') + QString::number(n)).toUtf8();
    }

    AcquireResult tryRead(const QString &name, qint64 thread, qint64 leaseMs)
    {
        return tryAcquire(false, name, thread, leaseMs);
    }
    AcquireResult tryWrite(const QString &name, qint64 thread, qint64 leaseMs)
    {
        return tryAcquire(true, name, thread, leaseMs);
    }
    AcquireResult tryAcquire(bool write, const QString &name, qint64 thread, qint64 leaseMs)
    {
        return test::awaitAcquire([&](LockClient::AcquireCallback done) {
            if (write)
                rw->tryAcquireWrite(name, thread, leaseMs, nullptr, std::move(done));
            else
                rw->tryAcquireRead(name, thread, leaseMs, nullptr, std::move(done));
        });
    }
    std::shared_ptr<test::Box<AcquireResult>> startAcquire(bool write, const QString &name, qint64 thread,
                                                           qint64 leaseMs, qint64 waitMs)
    {
        auto box = std::make_shared<test::Box<AcquireResult>>();
        if (write)
            rw->acquireWrite(name, thread, leaseMs, waitMs, nullptr, test::fillBox(box));
        else
            rw->acquireRead(name, thread, leaseMs, waitMs, nullptr, test::fillBox(box));
        return box;
    }
    UnlockResult unlockRead(const QString &name, qint64 thread) { return unlock(false, name, thread); }
    UnlockResult unlockWrite(const QString &name, qint64 thread) { return unlock(true, name, thread); }
    UnlockResult unlock(bool write, const QString &name, qint64 thread)
    {
        return test::awaitUnlock([&](LockClient::UnlockCallback done) {
            if (write)
                rw->unlockWrite(name, thread, nullptr, std::move(done));
            else
                rw->unlockRead(name, thread, nullptr, std::move(done));
        });
    }
    BoolResult renew(bool write, const QString &name, const QList<qint64> &threads, qint64 leaseMs)
    {
        return test::awaitBool([&](LockClient::BoolCallback done) {
            if (write)
                rw->renewWrite(name, threads.value(0), leaseMs, nullptr, std::move(done));
            else
                rw->renewRead(name, threads, leaseMs, nullptr, std::move(done));
        });
    }
};

// Written for this test from the protocol's pseudocode (§4.2, §4.3), independently of
// resources/scripts: a foreign reader driven through redis-cli. The unlock omits the latch, as
// 3.12-era clients do.
const char *const kForeignReadAcquire = R"LUA(
local h, prefix = KEYS[1], KEYS[2]
local lease, me, meWrite = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local mode = redis.call('HGET', h, 'mode')
local canRead = (not mode) or mode == 'read' or (mode == 'write' and redis.call('HEXISTS', h, meWrite) == 1)
if not canRead then return redis.call('PTTL', h) end
if not mode then redis.call('HSET', h, 'mode', 'read') end
local n = redis.call('HINCRBY', h, me, 1)
redis.call('SET', prefix .. ':' .. n, '1', 'PX', lease)
local current = redis.call('PTTL', h)
if current < lease then redis.call('PEXPIRE', h, lease) end
return 'ACQUIRED'
)LUA";

const char *const kForeignReadUnlock = R"LUA(
local h, channel, prefix, keyPrefix = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local me = ARGV[1]
local mode = redis.call('HGET', h, 'mode')
if not mode then redis.call('PUBLISH', channel, '0'); return 'NO_LOCK' end
if redis.call('HEXISTS', h, me) == 0 then return 'NOT_HELD' end
local left = redis.call('HINCRBY', h, me, -1)
if left == 0 then redis.call('HDEL', h, me) end
redis.call('DEL', prefix .. ':' .. (left + 1))
if redis.call('HLEN', h) > 1 then
  local best = -3
  for _, f in ipairs(redis.call('HKEYS', h)) do
    local c = tonumber(redis.call('HGET', h, f))
    if c then
      for i = 1, c do
        local t = redis.call('PTTL', keyPrefix .. ':' .. f .. ':rwlock_timeout:' .. i)
        if t > best then best = t end
      end
    end
  end
  if best > 0 then redis.call('PEXPIRE', h, best); return 'STILL_HELD' end
  if mode == 'write' then return 'STILL_HELD' end
end
redis.call('DEL', h)
redis.call('PUBLISH', channel, '0')
return 'RELEASED'
)LUA";

} // namespace

class TestReadWriteLock : public test::LockTestCase<Participant>
{
    Q_OBJECT

public:
    TestReadWriteLock() { m_server.setNotifyKeyspaceEvents(QString()); }

private slots:
    void names();
    void readersShareWithPerHoldKeys();
    void readLeaseOnlyRaisesHashTtl();
    void lastReaderDeletesHash();
    void writeExcludesOthers();
    void writeReentryAddsLease();
    void writeUnlockPublishesOne();
    void writerWaitsForReaders();
    void readersWaitForWriter();
    void writeThenReadDowngrade();
    void readUnlockBranches();
    void writeUnlockBranches();
    void deadReaderDoesNotKeepLock();
    void unlockLatchReplays();
    void renewWriteAndRead();
    void watchdogKeepsHoldsAlive();
    void bracedNames();
    void interopRedisCliReader();
};

void TestReadWriteLock::names()
{
    const QString field = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    QCOMPARE(ReadWriteLock::channel(QStringLiteral("rw")), QStringLiteral("redisson_rwlock:{rw}"));
    QCOMPARE(ReadWriteLock::channel(QStringLiteral("a:{7}")), QStringLiteral("redisson_rwlock:a:{7}"));
    QCOMPARE(ReadWriteLock::timeoutPrefix(QStringLiteral("rw"), field),
             QStringLiteral("{rw}:") + field + QStringLiteral(":rwlock_timeout"));
    QCOMPARE(ReadWriteLock::timeoutPrefix(QStringLiteral("a:{7}"), field),
             QStringLiteral("a:{7}:") + field + QStringLiteral(":rwlock_timeout"));
    QCOMPARE(ReadWriteLock::keyPrefix(QStringLiteral("rw")), QStringLiteral("{rw}"));
    QCOMPARE(ReadWriteLock::keyPrefix(QStringLiteral("a:{7}")), QStringLiteral("a:{7}"));
    QCOMPARE(m_a->rw->writerField(3), m_a->client->clientId() + QStringLiteral(":3:write"));
    QCOMPARE(m_a->rw->client(), m_a->client.get());
}

void TestReadWriteLock::readersShareWithPerHoldKeys()
{
    const QString name = QStringLiteral("rd:1");
    AcquireResult r = m_a->tryRead(name, 1, 20000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QVERIFY(m_a->tryRead(name, 1, 20000).acquired); // re-entry
    QVERIFY(m_b->tryRead(name, 1, 20000).acquired); // another reader at the same time
    QVERIFY(m_a->tryRead(name, 2, 20000).acquired); // another thread of A
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_a->field(1) + QStringLiteral("=2"), m_a->field(2) + QStringLiteral("=1"),
                     m_b->field(1) + QStringLiteral("=1"), QStringLiteral("mode=read")}));
    // One "{name}:<field>:rwlock_timeout:<n>" key per hold, value 1, PX lease.
    QCOMPARE(m_a->holdKey(name, 1, 1),
             QByteArray("{rd:1}:") + m_a->field(1).toUtf8() + QByteArray(":rwlock_timeout:1"));
    for (const QByteArray &key :
         {m_a->holdKey(name, 1, 1), m_a->holdKey(name, 1, 2), m_a->holdKey(name, 2, 1), m_b->holdKey(name, 1, 1)}) {
        QCOMPARE(m_admin->get(key), QByteArray("1"));
        const qint64 pttl = m_admin->pttl(key);
        QVERIFY2(pttl > 10000 && pttl <= 20000, qPrintable(QString::number(pttl)));
    }
    QVERIFY(!m_admin->exists(m_a->holdKey(name, 1, 3)));
    QVERIFY(m_admin->pttl(name.toUtf8()) > 10000);
    // Writers are kept out while anyone reads (including a reader's own thread: no upgrade).
    r = m_b->tryWrite(name, 2, 20000);
    QVERIFY(!r.acquired);
    QVERIFY(r.pttlMs > 10000 && r.pttlMs <= 20000);
    QVERIFY(!m_a->tryWrite(name, 1, 20000).acquired);
}

void TestReadWriteLock::readLeaseOnlyRaisesHashTtl()
{
    const QString name = QStringLiteral("rd:2");
    QVERIFY(m_a->tryRead(name, 1, 5000).acquired);
    qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 0 && pttl <= 5000, qPrintable(QString::number(pttl)));
    QVERIFY(m_b->tryRead(name, 1, 30000).acquired);
    pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 25000 && pttl <= 30000, qPrintable(QString::number(pttl)));
    // A shorter lease never lowers the hash TTL (max(PTTL, lease)); its own hold key has its lease.
    QVERIFY(m_a->tryRead(name, 1, 3000).acquired);
    pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 25000, qPrintable(QString::number(pttl)));
    const qint64 holdTtl = m_admin->pttl(m_a->holdKey(name, 1, 2));
    QVERIFY2(holdTtl > 0 && holdTtl <= 3000, qPrintable(QString::number(holdTtl)));
}

void TestReadWriteLock::lastReaderDeletesHash()
{
    const QString name = QStringLiteral("rd:3");
    MessageListener listener(m_server.endpoint(), ReadWriteLock::channel(name).toUtf8());
    QVERIFY(listener.waitSubscribed());
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_a->tryRead(name, 1, 20000).acquired);
    QVERIFY(m_b->tryRead(name, 1, 20000).acquired);

    // Each unlock removes the newest hold key of that thread; others keep the lock alive.
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    QVERIFY(!m_admin->exists(m_a->holdKey(name, 1, 3)));
    QVERIFY(m_admin->exists(m_a->holdKey(name, 1, 2)));
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->field(1).toUtf8()), QByteArray("2"));
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    // A's field is gone; B still reads, and the hash TTL follows B's longest hold.
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_b->field(1) + QStringLiteral("=1"), QStringLiteral("mode=read")}));
    QVERIFY(!m_admin->exists(m_a->holdKey(name, 1, 1)));
    const qint64 hashTtl = m_admin->pttl(name.toUtf8());
    const qint64 bTtl = m_admin->pttl(m_b->holdKey(name, 1, 1));
    QVERIFY2(hashTtl > 0 && hashTtl <= bTtl + 50, qPrintable(QStringLiteral("%1 vs %2").arg(hashTtl).arg(bTtl)));

    // The last reader deletes the hash and tells waiters with "0".
    QCOMPARE(m_b->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(listener.waitFor("0"));
    QCOMPARE(listener.payloads(), QList<QByteArray>{"0"});
    QVERIFY(waitUntil([&] { return m_admin->dbsize() == 0; })); // hold keys and latches all gone
}

void TestReadWriteLock::writeExcludesOthers()
{
    const QString name = QStringLiteral("wr:1");
    AcquireResult r = m_a->tryWrite(name, 1, 20000);
    QVERIFY2(r.acquired, qPrintable(r.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_a->writer(1) + QStringLiteral("=1"), QStringLiteral("mode=write")}));
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 10000 && pttl <= 20000, qPrintable(QString::number(pttl)));
    QVERIFY(!m_a->client->watchdog()->contains(name));

    // Another writer, another thread of the same client, and other readers are refused.
    r = m_b->tryWrite(name, 1, 20000);
    QVERIFY(!r.acquired);
    QVERIFY(r.error.isEmpty());
    QVERIFY(r.pttlMs > 10000 && r.pttlMs <= 20000);
    QVERIFY(!m_a->tryWrite(name, 2, 20000).acquired);
    r = m_b->tryRead(name, 1, 20000);
    QVERIFY(!r.acquired);
    QVERIFY(r.pttlMs > 10000);
    QVERIFY(!m_a->tryRead(name, 2, 20000).acquired);
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_a->writer(1) + QStringLiteral("=1"), QStringLiteral("mode=write")}));
    QCOMPARE(m_admin->dbsize(), qint64(1));
}

void TestReadWriteLock::writeReentryAddsLease()
{
    const QString name = QStringLiteral("wr:2");
    QVERIFY(m_a->tryWrite(name, 1, 10000).acquired);
    QVERIFY(m_a->tryWrite(name, 1, 10000).acquired);
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->writer(1).toUtf8()), QByteArray("2"));
    // Redisson adds the lease to the current PTTL on write re-entry.
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 15000 && pttl <= 20000, qPrintable(QString::number(pttl)));
    // A partial unlock puts the TTL back to the lease of the acquire.
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::StillHeld);
    const qint64 after = m_admin->pttl(name.toUtf8());
    QVERIFY2(after > 5000 && after <= 10000, qPrintable(QString::number(after)));
    QCOMPARE(m_admin->hget(name.toUtf8(), m_a->writer(1).toUtf8()), QByteArray("1"));
}

void TestReadWriteLock::writeUnlockPublishesOne()
{
    const QString name = QStringLiteral("wr:3");
    MessageListener listener(m_server.endpoint(), "redisson_rwlock:{wr:3}");
    QVERIFY(listener.waitSubscribed());
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::StillHeld); // no message
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(listener.waitFor("1"));
    m_admin->cmd({"PUBLISH", "redisson_rwlock:{wr:3}", "marker"});
    QVERIFY(listener.waitFor("marker"));
    QCOMPARE(listener.payloads(), (QList<QByteArray>{"1", "marker"}));
}

void TestReadWriteLock::writerWaitsForReaders()
{
    const QString name = QStringLiteral("ww:1");
    Participant writer(m_server.endpoint());
    QVERIFY(writer.waitReady());
    QVERIFY(m_a->tryRead(name, 1, 30000).acquired);
    QVERIFY(m_b->tryRead(name, 1, 30000).acquired);

    auto w = writer.startAcquire(true, name, 1, 30000, 20000);
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_rwlock:{ww:1}") == 1; }));
    QTest::qWait(100);
    QVERIFY(!w->done);

    // One reader leaves: the lock stays read-held, the writer keeps waiting.
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    QTest::qWait(200);
    QVERIFY(!w->done);
    // The last one leaves: "0" wakes the writer long before the 30 s TTL.
    QCOMPARE(m_b->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return w->done; }));
    QVERIFY2(w->value.acquired, qPrintable(w->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({writer.writer(1) + QStringLiteral("=1"), QStringLiteral("mode=write")}));
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_rwlock:{ww:1}") == 0; }));
}

void TestReadWriteLock::readersWaitForWriter()
{
    const QString name = QStringLiteral("rw:wait");
    QVERIFY(m_a->tryWrite(name, 1, 30000).acquired);
    auto r1 = m_b->startAcquire(false, name, 1, 30000, 20000);
    auto r2 = m_b->startAcquire(false, name, 2, 30000, 20000);
    Participant other(m_server.endpoint());
    QVERIFY(other.waitReady());
    auto r3 = other.startAcquire(false, name, 1, 30000, 20000);
    // One subscription per client, shared by its waiting threads.
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_rwlock:{rw:wait}") == 2; }));
    QTest::qWait(100);
    QVERIFY(!r1->done && !r2->done && !r3->done);

    // "1" from the write unlock wakes every waiting reader.
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(waitUntil([&] { return r1->done && r2->done && r3->done; }));
    QVERIFY(r1->value.acquired && r2->value.acquired && r3->value.acquired);
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_b->field(1) + QStringLiteral("=1"), m_b->field(2) + QStringLiteral("=1"),
                     other.field(1) + QStringLiteral("=1"), QStringLiteral("mode=read")}));
}

void TestReadWriteLock::writeThenReadDowngrade()
{
    const QString name = QStringLiteral("dg:1");
    MessageListener listener(m_server.endpoint(), ReadWriteLock::channel(name).toUtf8());
    QVERIFY(listener.waitSubscribed());
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    // The writer's own thread may read; others may not.
    QVERIFY(m_a->tryRead(name, 1, 20000).acquired);
    QVERIFY(!m_a->tryRead(name, 2, 20000).acquired);
    QVERIFY(!m_b->tryRead(name, 1, 20000).acquired);
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_a->field(1) + QStringLiteral("=1"), m_a->writer(1) + QStringLiteral("=1"),
                     QStringLiteral("mode=write")}));
    QVERIFY(m_admin->exists(m_a->holdKey(name, 1, 1)));

    // Releasing the write lock keeps the read hold: mode becomes "read", nothing is published.
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::Released);
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_a->field(1) + QStringLiteral("=1"), QStringLiteral("mode=read")}));
    // Now other readers get in, writers still do not.
    QVERIFY(m_b->tryRead(name, 1, 20000).acquired);
    QVERIFY(!m_b->tryWrite(name, 2, 20000).acquired);
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    QCOMPARE(m_b->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(listener.waitFor("0"));
    QCOMPARE(listener.payloads(), QList<QByteArray>{"0"}); // the downgrade sent nothing

    // Read unlock while the same thread still writes: the write hold keeps the lock (§4.3,
    // "mode == write" branch), with no message.
    const QString name2 = QStringLiteral("dg:2");
    QVERIFY(m_a->tryWrite(name2, 1, 20000).acquired);
    QVERIFY(m_a->tryRead(name2, 1, 20000).acquired);
    QCOMPARE(m_a->unlockRead(name2, 1).status, UnlockResult::Status::StillHeld);
    QCOMPARE(m_admin->hgetall(name2.toUtf8()),
             sorted({m_a->writer(1) + QStringLiteral("=1"), QStringLiteral("mode=write")}));
    QVERIFY(!m_admin->exists(m_a->holdKey(name2, 1, 1)));
    QCOMPARE(m_a->unlockWrite(name2, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name2.toUtf8()));
}

void TestReadWriteLock::readUnlockBranches()
{
    const QString name = QStringLiteral("ru:1");
    MessageListener listener(m_server.endpoint(), ReadWriteLock::channel(name).toUtf8());
    QVERIFY(listener.waitSubscribed());

    // No lock at all: NotHeld, yet Redisson publishes "0" (upstream quirk, §13).
    UnlockResult r = m_a->unlockRead(name, 1);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error, QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 1")
                          .arg(m_a->client->clientId()));
    QVERIFY(listener.waitFor("0"));

    // Read-held by someone else: NotHeld, nothing changes, nothing published.
    QVERIFY(m_b->tryRead(name, 1, 20000).acquired);
    const QStringList before = m_admin->hgetall(name.toUtf8());
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::NotHeld);
    QCOMPARE(m_admin->hgetall(name.toUtf8()), before);
    // Write-held: a read unlock of a non-reader is refused too.
    QCOMPARE(m_b->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    QCOMPARE(m_b->unlockRead(name, 1).status, UnlockResult::Status::NotHeld);
    QCOMPARE(m_admin->hget(name.toUtf8(), "mode"), QByteArray("write"));

    m_admin->cmd({"PUBLISH", ReadWriteLock::channel(name).toUtf8(), "marker"});
    QVERIFY(listener.waitFor("marker"));
    QCOMPARE(listener.payloads(), (QList<QByteArray>{"0", "0", "marker"}));
}

void TestReadWriteLock::writeUnlockBranches()
{
    const QString name = QStringLiteral("wu:1");
    MessageListener listener(m_server.endpoint(), ReadWriteLock::channel(name).toUtf8());
    QVERIFY(listener.waitSubscribed());

    // No lock: NotHeld, and "1" is published (as Redisson does).
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::NotHeld);
    QVERIFY(listener.waitFor("1"));
    // Read mode: NotHeld, nothing changes.
    QVERIFY(m_a->tryRead(name, 1, 20000).acquired);
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::NotHeld);
    QCOMPARE(m_admin->hget(name.toUtf8(), "mode"), QByteArray("read"));
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::Released);
    // Write-held by another: NotHeld.
    QVERIFY(m_b->tryWrite(name, 1, 20000).acquired);
    UnlockResult r = m_a->unlockWrite(name, 1);
    QCOMPARE(r.status, UnlockResult::Status::NotHeld);
    QCOMPARE(r.error,
             QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: 1:write")
                 .arg(m_a->client->clientId()));
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_b->writer(1) + QStringLiteral("=1"), QStringLiteral("mode=write")}));

    m_admin->cmd({"PUBLISH", ReadWriteLock::channel(name).toUtf8(), "marker"});
    QVERIFY(listener.waitFor("marker"));
    QCOMPARE(listener.payloads(), (QList<QByteArray>{"1", "0", "marker"}));
}

void TestReadWriteLock::deadReaderDoesNotKeepLock()
{
    // A reader whose hold keys expired (a crashed client) must not keep the lock: the last live
    // reader's unlock sees no live hold key and deletes the whole hash.
    const QString name = QStringLiteral("dead:1");
    MessageListener listener(m_server.endpoint(), ReadWriteLock::channel(name).toUtf8());
    QVERIFY(listener.waitSubscribed());
    QVERIFY(m_a->tryRead(name, 1, 30000).acquired);
    QVERIFY(m_b->tryRead(name, 1, 30000).acquired);
    // B "crashes": its hold key expires (made to expire now, instead of waiting for a lease).
    m_admin->cmd({"DEL", m_b->holdKey(name, 1, 1)});
    QCOMPARE(m_admin->hget(name.toUtf8(), m_b->field(1).toUtf8()), QByteArray("1"));

    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(name.toUtf8()));
    QVERIFY(listener.waitFor("0"));

    // With a live other reader the hash stays, its TTL cut to that reader's remaining hold.
    QVERIFY(m_a->tryRead(name, 1, 30000).acquired);
    QVERIFY(m_b->tryRead(name, 1, 4000).acquired);
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    const qint64 pttl = m_admin->pttl(name.toUtf8());
    QVERIFY2(pttl > 0 && pttl <= 4000, qPrintable(QString::number(pttl)));
}

void TestReadWriteLock::unlockLatchReplays()
{
    const QString name = QStringLiteral("latch:rw");
    const QString field = m_a->field(1);
    QVERIFY(m_a->tryRead(name, 1, 20000).acquired);
    QVERIFY(m_a->tryRead(name, 1, 20000).acquired);
    auto readUnlock = [&](const QByteArray &id) {
        return m_admin->evalResource(
            QStringLiteral("rw_read_unlock"),
            {name.toUtf8(), ReadWriteLock::channel(name).toUtf8(), ReadWriteLock::timeoutPrefix(name, field).toUtf8(),
             ReadWriteLock::keyPrefix(name).toUtf8(), LockNames::unlockLatchKey(name, QString::fromUtf8(id)).toUtf8()},
            {"0", field.toUtf8(), "publish", "18000"});
    };
    RedisReply r = readUnlock("11111111111111111111111111111111");
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    r = readUnlock("11111111111111111111111111111111");
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->hget(name.toUtf8(), field.toUtf8()), QByteArray("1")); // decremented once
    r = readUnlock("22222222222222222222222222222222");
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    r = readUnlock("22222222222222222222222222222222");
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    QVERIFY(!m_admin->exists(name.toUtf8()));

    const QString wfield = m_a->writer(1);
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    auto writeUnlock = [&](const QByteArray &id) {
        return m_admin->evalResource(QStringLiteral("rw_write_unlock"),
                                     {name.toUtf8(), ReadWriteLock::channel(name).toUtf8(),
                                      LockNames::unlockLatchKey(name, QString::fromUtf8(id)).toUtf8()},
                                     {"1", "20000", wfield.toUtf8(), "publish", "18000"});
    };
    r = writeUnlock("33333333333333333333333333333333");
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    r = writeUnlock("33333333333333333333333333333333");
    QVERIFY2(r.isInteger() && r.toInteger() == 0, qPrintable(r.debugString()));
    QCOMPARE(m_admin->hget(name.toUtf8(), wfield.toUtf8()), QByteArray("1"));
    r = writeUnlock("44444444444444444444444444444444");
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
    QCOMPARE(m_admin->get(LockNames::unlockLatchKey(name, QStringLiteral("44444444444444444444444444444444")).toUtf8()),
             QByteArray("1"));
    r = writeUnlock("44444444444444444444444444444444");
    QVERIFY2(r.isInteger() && r.toInteger() == 1, qPrintable(r.debugString()));
}

void TestReadWriteLock::renewWriteAndRead()
{
    const QString name = QStringLiteral("rn:w");
    QVERIFY(m_a->tryWrite(name, 1, 5000).acquired);
    m_admin->cmd({"PEXPIRE", name.toUtf8(), "1000"});
    BoolResult r = m_a->renew(true, name, {1}, 40000);
    QVERIFY(r.ok);
    QVERIFY(r.error.isEmpty());
    QVERIFY(m_admin->pttl(name.toUtf8()) > 30000);
    QVERIFY(!m_b->renew(true, name, {1}, 60000).ok); // not the writer
    QVERIFY(!m_a->renew(true, name, {2}, 60000).ok); // other thread
    QVERIFY(m_admin->pttl(name.toUtf8()) <= 40000);
    QVERIFY(!m_a->renew(true, QStringLiteral("rn:absent"), {1}, 60000).ok);
    QVERIFY(!m_admin->exists("rn:absent"));

    // Read renewal touches this client's holds only (4.4.0+), keys n..1 and then the hash.
    const QString rname = QStringLiteral("rn:r");
    QVERIFY(m_a->tryRead(rname, 1, 3000).acquired);
    QVERIFY(m_a->tryRead(rname, 1, 3000).acquired);
    QVERIFY(m_a->tryRead(rname, 2, 3000).acquired);
    QVERIFY(m_b->tryRead(rname, 1, 3000).acquired);
    r = m_a->renew(false, rname, {1, 2, 3}, 50000); // thread 3 holds nothing: ignored
    QVERIFY2(r.ok, qPrintable(r.error));
    for (const QByteArray &key : {m_a->holdKey(rname, 1, 1), m_a->holdKey(rname, 1, 2), m_a->holdKey(rname, 2, 1)})
        QVERIFY2(m_admin->pttl(key) > 40000, key.constData());
    QVERIFY(m_admin->pttl(rname.toUtf8()) > 40000);
    QVERIFY(m_admin->pttl(m_b->holdKey(rname, 1, 1)) <= 3000); // B's hold is B's business
    // Nobody of ours holds it: false, nothing touched.
    m_admin->cmd({"PEXPIRE", rname.toUtf8(), "2000"});
    QVERIFY(!m_a->renew(false, rname, {7}, 50000).ok);
    QVERIFY(m_admin->pttl(rname.toUtf8()) <= 2000);
    QVERIFY(!m_a->renew(false, QStringLiteral("rn:absent"), {1}, 50000).ok);

    // The script takes several locks per call (pairs of KEYS), one result each.
    const RedisReply multi =
        m_admin->evalResource(QStringLiteral("rw_read_renew"),
                              {rname.toUtf8(), ReadWriteLock::keyPrefix(rname).toUtf8(), "rn:absent",
                               ReadWriteLock::keyPrefix(QStringLiteral("rn:absent")).toUtf8()},
                              {"45000", "1", m_b->field(1).toUtf8(), "1", m_b->field(1).toUtf8()});
    QVERIFY2(multi.isArray() && multi.size() == 2, qPrintable(multi.debugString()));
    QCOMPARE(multi.at(0).toInteger(), qint64(1));
    QCOMPARE(multi.at(1).toInteger(), qint64(0));
    QVERIFY(m_admin->pttl(m_b->holdKey(rname, 1, 1)) > 40000);
}

void TestReadWriteLock::watchdogKeepsHoldsAlive()
{
    const qint64 timeout = 1500; // renewed every 500 ms
    m_a->client->setWatchdogTimeoutMs(timeout);
    const QString name = QStringLiteral("wd:r");
    int renewed = 0;
    connect(m_a->rw.get(), &ReadWriteLock::readWatchdogRenewed, this, [&](const QStringList &names) {
        if (names.contains(name))
            ++renewed;
    });
    auto a = m_a->startAcquire(false, name, 1, 0, 5000);
    QVERIFY(waitUntil([&] { return a->done; }));
    QVERIFY(a->value.acquired);
    QVERIFY(m_a->tryRead(name, 1, 0).acquired);
    QCOMPARE(m_a->rw->readWatchdogNames(), QStringList{name});
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 3 * timeout) {
        QTest::qWait(50);
        for (const QByteArray &key : {name.toUtf8(), m_a->holdKey(name, 1, 1), m_a->holdKey(name, 1, 2)}) {
            const qint64 pttl = m_admin->pttl(key);
            QVERIFY2(pttl > 0 && pttl <= timeout,
                     qPrintable(QStringLiteral("%1: %2").arg(QString::fromUtf8(key)).arg(pttl)));
        }
    }
    QVERIFY(renewed >= 2);
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    QCOMPARE(m_a->rw->readWatchdogNames(), QStringList{name});
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(m_a->rw->readWatchdogNames().isEmpty());

    // A watched read lock that disappears is dropped and reported.
    QString lost;
    connect(m_a->rw.get(), &ReadWriteLock::readWatchdogLost, this, [&](const QString &n) { lost = n; });
    QVERIFY(m_a->tryRead(name, 5, 0).acquired);
    m_admin->cmd({"DEL", name.toUtf8()});
    QVERIFY(waitUntil([&] { return lost == name; }));
    QVERIFY(m_a->rw->readWatchdogNames().isEmpty());

    // Write holds with leaseMs <= 0 go to the client's watchdog, with the ":write" field.
    const QString wname = QStringLiteral("wd:w");
    QVERIFY(m_a->tryWrite(wname, 1, 0).acquired);
    QVERIFY(m_a->client->watchdog()->contains(wname));
    clock.restart();
    while (clock.elapsed() < 3 * timeout) {
        QTest::qWait(50);
        const qint64 pttl = m_admin->pttl(wname.toUtf8());
        QVERIFY2(pttl > 0 && pttl <= timeout, qPrintable(QString::number(pttl)));
    }
    QCOMPARE(m_a->unlockWrite(wname, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_a->client->watchdog()->contains(wname));
}

void TestReadWriteLock::bracedNames()
{
    const QString name = QStringLiteral("rw:{7}");
    MessageListener listener(m_server.endpoint(), "redisson_rwlock:rw:{7}");
    QVERIFY(listener.waitSubscribed());
    QVERIFY(m_a->tryRead(name, 1, 20000).acquired);
    const QByteArray key = "rw:{7}:" + m_a->field(1).toUtf8() + ":rwlock_timeout:1";
    QVERIFY(m_admin->exists(key));
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(!m_admin->exists(key));
    QVERIFY(listener.waitFor("0"));
    QVERIFY(m_a->tryWrite(name, 1, 20000).acquired);
    QCOMPARE(m_a->unlockWrite(name, 1).status, UnlockResult::Status::Released);
    QVERIFY(listener.waitFor("1"));
}

void TestReadWriteLock::interopRedisCliReader()
{
    const QString name = QStringLiteral("interop:rw");
    const QString foreign = QStringLiteral("c0ffee00-1234-4abc-8def-0123456789ab:9");
    auto cli = [&](const char *script, const QStringList &keys, const QStringList &args) {
        return test::redisCliEval(m_server.port(), script, keys, args);
    };
    const QString foreignPrefix = ReadWriteLock::timeoutPrefix(name, foreign);

    // The foreign client reads (redis-cli); ours can read alongside, but our writer must wait.
    auto res = cli(kForeignReadAcquire, {name, foreignPrefix},
                   {QStringLiteral("30000"), foreign, foreign + QStringLiteral(":write")});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QCOMPARE(res.out.trimmed(), QByteArray("ACQUIRED"));
    QVERIFY(m_a->tryRead(name, 1, 30000).acquired);
    auto w = m_b->startAcquire(true, name, 1, 30000, 20000);
    QVERIFY(waitUntil([&] { return m_admin->numsub(ReadWriteLock::channel(name).toUtf8()) == 1; }));

    // Our reader leaves: the foreign hold key is alive, so the lock stays.
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::StillHeld);
    QTest::qWait(200);
    QVERIFY(!w->done);
    // The foreign reader leaves via redis-cli and publishes "0": our writer gets in.
    res = cli(kForeignReadUnlock, {name, ReadWriteLock::channel(name), foreignPrefix, ReadWriteLock::keyPrefix(name)},
              {foreign});
    QVERIFY2(res.finished && res.exitCode == 0, qPrintable(res.describe()));
    QCOMPARE(res.out.trimmed(), QByteArray("RELEASED"));
    QVERIFY(waitUntil([&] { return w->done; }));
    QVERIFY2(w->value.acquired, qPrintable(w->value.error));
    QCOMPARE(m_admin->hgetall(name.toUtf8()),
             sorted({m_b->writer(1) + QStringLiteral("=1"), QStringLiteral("mode=write")}));

    // The foreign reader is kept out while we write, and our write unlock lets it in.
    res = cli(kForeignReadAcquire, {name, foreignPrefix},
              {QStringLiteral("30000"), foreign, foreign + QStringLiteral(":write")});
    QVERIFY2(res.out.trimmed().toLongLong() > 0, qPrintable(res.describe()));
    QCOMPARE(m_b->unlockWrite(name, 1).status, UnlockResult::Status::Released);
    res = cli(kForeignReadAcquire, {name, foreignPrefix},
              {QStringLiteral("30000"), foreign, foreign + QStringLiteral(":write")});
    QCOMPARE(res.out.trimmed(), QByteArray("ACQUIRED"));
    // Our read unlock of a lock only the foreign client holds is refused; its data is intact.
    QCOMPARE(m_a->unlockRead(name, 1).status, UnlockResult::Status::NotHeld);
    QCOMPARE(m_admin->hgetall(name.toUtf8()), sorted({foreign + QStringLiteral("=1"), QStringLiteral("mode=read")}));
    QVERIFY(m_admin->exists((foreignPrefix + QStringLiteral(":1")).toUtf8()));
}

QTEST_GUILESS_MAIN(TestReadWriteLock)
#include "tst_readwritelock.moc"
