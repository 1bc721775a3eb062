// Force unlock per lock kind (protocol §9), on data written by redis-cli exactly as Redisson
// clients leave it: each kind's waiters must receive the message they listen for, on the channel
// they listen on, which a `redis-cli SUBSCRIBE` (an independent subscriber) must see.
#include "testsupport.h"

#include "act/forceunlocker.h"
#include "demo/redisserverprocess.h"

#include <QDateTime>
#include <QProcess>
#include <QtTest>

using namespace lockscope;
using namespace lockscope::test;

class TestForceUnlocker : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void plainLockPublishesZeroOnUnlockChannel();
    void fairLockWakesOnlyTheHeadWaiter();
    void fairLockPrunesExpiredHeadsFirst();
    void writeLockPublishesOne();
    void readLockPublishesOne();
    void absentLockChangesNothing();

private:
    /** Starts `redis-cli SUBSCRIBE channel` and waits until it is subscribed. */
    QProcess *subscribe(const QString &channel);
    /** Messages received by a redis-cli subscriber (payloads of "message" entries). */
    QStringList messages(QProcess *p, int expect, int timeoutMs = 5000);
    ForceUnlockResult forceUnlock(const QString &name);
    void cli(const QStringList &args) { QCOMPARE(redisCli(m_server.port(), args).exitCode, 0); }

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_client;
    QString m_a = newClientId();
    QString m_b = newClientId();
};

void TestForceUnlocker::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_client = std::make_unique<SyncClient>(m_server.endpoint());
    QVERIFY(m_client->open());
}

void TestForceUnlocker::init()
{
    m_client->flushall();
}

void TestForceUnlocker::cleanupTestCase()
{
    m_client.reset();
    m_server.stop();
}

QProcess *TestForceUnlocker::subscribe(const QString &channel)
{
    auto *p = new QProcess(this);
    p->start(redisCliPath(),
             {QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("SUBSCRIBE"), channel});
    waitUntil([&] { return m_client->numsub(channel.toUtf8()) >= 1; }, 5000);
    return p;
}

QStringList TestForceUnlocker::messages(QProcess *p, int expect, int timeoutMs)
{
    QStringList lines;
    QStringList payloads;
    waitUntil(
        [&] {
            while (p->canReadLine())
                lines << QString::fromUtf8(p->readLine()).trimmed();
            payloads.clear();
            for (int i = 0; i + 2 < lines.size(); ++i)
                if (lines[i] == QLatin1String("message"))
                    payloads << lines[i + 2];
            return payloads.size() >= expect;
        },
        timeoutMs);
    p->kill();
    p->waitForFinished(2000);
    return payloads;
}

ForceUnlockResult TestForceUnlocker::forceUnlock(const QString &name)
{
    ForceUnlocker unlocker(m_client->connection());
    ForceUnlockResult result;
    bool done = false;
    unlocker.forceUnlock(name, nullptr, [&](const ForceUnlockResult &r) {
        result = r;
        done = true;
    });
    waitUntil([&] { return done; });
    return result;
}

void TestForceUnlocker::plainLockPublishesZeroOnUnlockChannel()
{
    cli({QStringLiteral("HSET"), QStringLiteral("orders:42"), m_a + QStringLiteral(":1"), QStringLiteral("2")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("30000")});
    QProcess *sub = subscribe(QStringLiteral("redisson_lock__channel:{orders:42}"));
    const ForceUnlockResult r = forceUnlock(QStringLiteral("orders:42"));
    QVERIFY(r.error.isEmpty());
    QVERIFY(r.deleted);
    QCOMPARE(r.kind, QStringLiteral("lock"));
    QCOMPARE(r.channel, QStringLiteral("redisson_lock__channel:{orders:42}"));
    QVERIFY(!m_client->exists("orders:42"));
    QCOMPARE(messages(sub, 1), QStringList{QStringLiteral("0")});
}

void TestForceUnlocker::fairLockWakesOnlyTheHeadWaiter()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString head = m_b + QStringLiteral(":2");
    const QString second = m_b + QStringLiteral(":3");
    cli({QStringLiteral("HSET"), QStringLiteral("fair:job"), m_a + QStringLiteral(":1"), QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("fair:job"), QStringLiteral("30000")});
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{fair:job}"), head, second});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{fair:job}"), QString::number(now + 330000),
         head, QString::number(now + 630000), second});
    QProcess *headSub = subscribe(QStringLiteral("redisson_lock__channel:{fair:job}:") + head);
    QProcess *secondSub = subscribe(QStringLiteral("redisson_lock__channel:{fair:job}:") + second);
    QProcess *baseSub = subscribe(QStringLiteral("redisson_lock__channel:{fair:job}"));

    const ForceUnlockResult r = forceUnlock(QStringLiteral("fair:job"));
    QVERIFY(r.deleted);
    QCOMPARE(r.kind, QStringLiteral("fair_lock"));
    QCOMPARE(r.channel, QStringLiteral("redisson_lock__channel:{fair:job}:") + head);
    QCOMPARE(messages(headSub, 1), QStringList{QStringLiteral("0")});
    QVERIFY(messages(secondSub, 1, 700).isEmpty());
    QVERIFY(messages(baseSub, 1, 300).isEmpty());
    // The queue is the waiters' business: force unlock leaves it for the head to acquire.
    QCOMPARE(m_client->cmd({"LLEN", "redisson_lock_queue:{fair:job}"}).toInteger(), 2);
}

void TestForceUnlocker::fairLockPrunesExpiredHeadsFirst()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString dead = m_b + QStringLiteral(":2");
    const QString alive = m_b + QStringLiteral(":3");
    cli({QStringLiteral("HSET"), QStringLiteral("fair:job"), m_a + QStringLiteral(":1"), QStringLiteral("1")});
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{fair:job}"), dead, alive});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{fair:job}"), QString::number(now - 5000), dead,
         QString::number(now + 600000), alive});
    QProcess *aliveSub = subscribe(QStringLiteral("redisson_lock__channel:{fair:job}:") + alive);
    const ForceUnlockResult r = forceUnlock(QStringLiteral("fair:job"));
    QVERIFY(r.deleted);
    QCOMPARE(r.channel, QStringLiteral("redisson_lock__channel:{fair:job}:") + alive);
    QCOMPARE(messages(aliveSub, 1), QStringList{QStringLiteral("0")});
    QCOMPARE(m_client->cmd({"LRANGE", "redisson_lock_queue:{fair:job}", "0", "-1"}).size(), 1);
    QVERIFY(m_client->cmd({"ZSCORE", "redisson_lock_timeout:{fair:job}", dead.toUtf8()}).isNil());
}

void TestForceUnlocker::writeLockPublishesOne()
{
    cli({QStringLiteral("HSET"), QStringLiteral("rw:cfg"), QStringLiteral("mode"), QStringLiteral("write"),
         m_a + QStringLiteral(":1:write"), QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("rw:cfg"), QStringLiteral("30000")});
    QProcess *sub = subscribe(QStringLiteral("redisson_rwlock:{rw:cfg}"));
    const ForceUnlockResult r = forceUnlock(QStringLiteral("rw:cfg"));
    QVERIFY(r.deleted);
    QCOMPARE(r.kind, QStringLiteral("read_write_lock"));
    QCOMPARE(r.message, QStringLiteral("1"));
    QCOMPARE(messages(sub, 1), QStringList{QStringLiteral("1")});
    QVERIFY(!m_client->exists("rw:cfg"));
}

void TestForceUnlocker::readLockPublishesOne()
{
    cli({QStringLiteral("HSET"), QStringLiteral("rw:cfg"), QStringLiteral("mode"), QStringLiteral("read"),
         m_a + QStringLiteral(":1"), QStringLiteral("2"), m_b + QStringLiteral(":4"), QStringLiteral("1")});
    cli({QStringLiteral("SET"), QStringLiteral("{rw:cfg}:") + m_a + QStringLiteral(":1:rwlock_timeout:1"),
         QStringLiteral("1"), QStringLiteral("PX"), QStringLiteral("30000")});
    QProcess *sub = subscribe(QStringLiteral("redisson_rwlock:{rw:cfg}"));
    const ForceUnlockResult r = forceUnlock(QStringLiteral("rw:cfg"));
    QVERIFY(r.deleted);
    QCOMPARE(messages(sub, 1), QStringList{QStringLiteral("1")});
}

void TestForceUnlocker::absentLockChangesNothing()
{
    cli({QStringLiteral("SET"), QStringLiteral("unrelated"), QStringLiteral("x")});
    QProcess *sub = subscribe(QStringLiteral("redisson_lock__channel:{nothing}"));
    const ForceUnlockResult r = forceUnlock(QStringLiteral("nothing"));
    QVERIFY(r.error.isEmpty());
    QVERIFY(!r.deleted);
    QVERIFY(r.channel.isEmpty());
    QVERIFY(messages(sub, 1, 500).isEmpty());
    QCOMPARE(m_client->dbsize(), 1);
}

QTEST_GUILESS_MAIN(TestForceUnlocker)
#include "tst_forceunlocker.moc"
