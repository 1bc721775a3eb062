// Advice that works: the doctor's repair chain on a fair lock, followed as an operator pastes it.
// A live LockScope waiter (`acquire --kind fair --wait-ms 300000`, a real process) queues behind
// a holder with a 10-minute lease; a dead waiter is put in front of it (queue entry and a
// deadline 60 s in the past); the holder's lease ends without a release. The doctor advises
// remove-waiter of the dead head; pasted, it must not move the live waiter's deadline into the
// past, and must wake it: the live waiter holds the lock within 2 s, and no later advice names it.
// Also: the force-unlock preview of a free fair lock promises no wake-up.

#include "demo/redisserverprocess.h"
#include "protocol/locknames.h"
#include "testsupport.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <pwd.h>
#include <unistd.h>

using namespace lockscope;
using lockscope::test::SyncClient;

class TestRepairChain : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void removingADeadHeadWakesTheLiveWaiter();
    void forceUnlockPreviewOfAFreeFairLockPromisesNoWakeUp();
    void holderFieldWithoutUuidIsALockShapedHash();
    void wakeCountsWaitersNotLockScope();
    void auditNamesTheAccountWithoutUser();

private:
    QStringList cliArgs(const QStringList &args) const
    {
        return QStringList{QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"),
                           m_tmp.filePath(QStringLiteral("audit.jsonl"))} +
               args;
    }
    /** Runs lockscope-cli to the end; stdout, stderr and the exit code. */
    int runCli(const QStringList &args, QByteArray *out, QByteArray *err = nullptr)
    {
        QProcess p;
        p.start(QStringLiteral(LOCKSCOPE_CLI_PATH), cliArgs(args));
        p.closeWriteChannel();
        if (!p.waitForFinished(30000))
            return -1;
        if (out)
            *out = p.readAllStandardOutput();
        if (err)
            *err = p.readAllStandardError();
        return p.exitCode();
    }

    RedisServerProcess m_server;
    QTemporaryDir m_tmp;
};

void TestRepairChain::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestRepairChain::cleanupTestCase()
{
    m_server.stop();
}

void TestRepairChain::removingADeadHeadWakesTheLiveWaiter()
{
    const QString name = QStringLiteral("jobs:nightly");
    const QByteArray queue = LockNames::fairQueueKey(name).toUtf8();
    const QByteArray zset = LockNames::fairTimeoutKey(name).toUtf8();
    SyncClient redis(m_server.endpoint());
    QVERIFY(redis.open());
    // A holder with a 10-minute lease (another service).
    QVERIFY(!redis.cmd({"HSET", "jobs:nightly", "0b7c1f3e-5a2d-4c8e-9f61-3d2a1b0c9e8f:1", "1"}).isError());
    QVERIFY(!redis.cmd({"PEXPIRE", "jobs:nightly", "600000"}).isError());

    // The live waiter: LockScope's own fair acquire, waiting up to 5 minutes, then holding 20 s.
    QProcess waiter;
    waiter.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                 cliArgs({QStringLiteral("acquire"), name, QStringLiteral("--kind"), QStringLiteral("fair"),
                          QStringLiteral("--wait-ms"), QStringLiteral("300000"), QStringLiteral("--hold-ms"),
                          QStringLiteral("20000"), QStringLiteral("--thread-id"), QStringLiteral("42")}));
    QVERIFY(waiter.waitForStarted(5000));
    QVERIFY(QTest::qWaitFor([&] { return redis.cmd({"LLEN", queue}).toInteger() == 1; }, 10000));
    const QByteArray live = redis.cmd({"LINDEX", queue, "0"}).toByteArray();
    QVERIFY(live.endsWith(":42"));
    const qint64 liveDeadline = redis.cmd({"ZSCORE", zset, live}).toByteArray().toLongLong();

    // A dead waiter in front of it, 60 s past its deadline; then the holder's lease ends silently.
    const QByteArray dead = "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:7";
    QVERIFY(!redis.cmd({"LPUSH", queue, dead}).isError());
    QVERIFY(
        !redis.cmd({"ZADD", zset, QByteArray::number(QDateTime::currentMSecsSinceEpoch() - 60000), dead}).isError());
    QVERIFY(!redis.cmd({"PEXPIRE", "jobs:nightly", "1"}).isError());
    QTest::qWait(200);

    // The doctor's advice, as pasted.
    QByteArray out;
    runCli({QStringLiteral("doctor"), QStringLiteral("--json")}, &out);
    QString advised;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject f = QJsonDocument::fromJson(line).object();
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("lockscope-cli (remove-waiter [^)]*)"))
                                              .match(f.value(QStringLiteral("action")).toString());
        if (m.hasMatch() && f.value(QStringLiteral("lock")).toString() == name)
            advised = m.captured(1);
    }
    QVERIFY2(!advised.isEmpty(), out.constData());
    QVERIFY2(advised.contains(QString::fromLatin1(dead)), qPrintable(advised));
    QStringList words = advised.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    words << QStringLiteral("--yes");
    QByteArray err;
    const qint64 repairedAt = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(runCli(words, &out, &err), 0);
    qInfo("remove-waiter said: %s", (out + err).trimmed().constData());

    // The live waiter takes the lock within 2 s (it was woken, not left to its 10-minute timer).
    QElapsedTimer clock;
    clock.start();
    const bool acquired = QTest::qWaitFor(
        [&] {
            return redis.cmd({"HEXISTS", "jobs:nightly", live}).toInteger() == 1;
        },
        10000);
    QVERIFY2(acquired, "the live waiter did not get the lock");
    qInfo("the live waiter held the lock %lld ms after the repair", QDateTime::currentMSecsSinceEpoch() - repairedAt);
    QVERIFY(clock.elapsed() <= 2000);
    Q_UNUSED(liveDeadline);

    // No later advice names it.
    runCli({QStringLiteral("doctor"), QStringLiteral("--json")}, &out);
    QVERIFY2(!out.contains(live), out.constData());
    waiter.terminate();
    QVERIFY(waiter.waitForFinished(10000));
}

void TestRepairChain::forceUnlockPreviewOfAFreeFairLockPromisesNoWakeUp()
{
    const QString name = QStringLiteral("jobs:free");
    SyncClient redis(m_server.endpoint());
    QVERIFY(redis.open());
    const QByteArray waiter = "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:3";
    QVERIFY(!redis.cmd({"RPUSH", LockNames::fairQueueKey(name).toUtf8(), waiter}).isError());
    QVERIFY(!redis
                 .cmd({"ZADD", LockNames::fairTimeoutKey(name).toUtf8(),
                       QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 300000), waiter})
                 .isError());
    QByteArray out;
    QByteArray err;
    runCli({QStringLiteral("force-unlock"), name, QStringLiteral("--yes")}, &out, &err);
    QVERIFY2(!err.contains("will be woken"), err.constData());
    // `show` says how long ago a past deadline passed, never "deadline in -".
    QVERIFY(!redis
                 .cmd({"ZADD", LockNames::fairTimeoutKey(name).toUtf8(),
                       QByteArray::number(QDateTime::currentMSecsSinceEpoch() - 90000), waiter})
                 .isError());
    runCli({QStringLiteral("show"), name}, &out);
    QVERIFY2(out.contains("deadline passed"), out.constData());
    QVERIFY2(!out.contains("deadline in -"), out.constData());
    QVERIFY2(err.contains("wakes nobody"), err.constData());
    QVERIFY2(err.contains("lockscope-cli wake jobs:free"), err.constData());
}

void TestRepairChain::holderFieldWithoutUuidIsALockShapedHash()
{
    // Written by an old or hand-written service: Redisson's shape without its UUID, and no TTL.
    SyncClient redis(m_server.endpoint());
    QVERIFY(redis.open());
    QVERIFY(!redis.cmd({"HSET", "legacy:cron", "x:1", "1"}).isError());
    QVERIFY(!redis.cmd({"HSET", "app:counters", "user:1", "5", "user:2", "7"}).isError()); // no lock
    QByteArray out;
    QByteArray err;
    QCOMPARE(runCli({QStringLiteral("show"), QStringLiteral("legacy:cron")}, &out, &err), 0);
    QVERIFY2(out.contains("client x  thread 1"), out.constData());
    QVERIFY2(out.contains("no Redisson client UUID"), out.constData());
    runCli({QStringLiteral("list"), QStringLiteral("--json")}, &out);
    QVERIFY2(out.contains("\"name\":\"legacy:cron\""), out.constData());
    QVERIFY2(!out.contains("app:counters"), out.constData());
    runCli({QStringLiteral("doctor"), QStringLiteral("--json")}, &out);
    bool noTtl = false;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject f = QJsonDocument::fromJson(line).object();
        if (f.value(QStringLiteral("lock")).toString() == QLatin1String("legacy:cron") &&
            f.value(QStringLiteral("code")).toString() == QLatin1String("no_ttl"))
            noTtl = true;
    }
    QVERIFY2(noTtl, out.constData());
    QVERIFY(!redis.cmd({"DEL", "legacy:cron", "app:counters"}).isError());
}

void TestRepairChain::wakeCountsWaitersNotLockScope()
{
    // One waiter subscribed to the unlock channel of a free lock (redis-cli, as a Redisson client
    // subscribes), and a LockScope watch whose pattern subscription also matches that channel.
    QProcess waiter;
    waiter.start(QStringLiteral("redis-cli"),
                 {QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("SUBSCRIBE"),
                  QStringLiteral("redisson_lock__channel:{jobs:wake}")});
    QVERIFY(waiter.waitForStarted(5000));
    QProcess watch;
    watch.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                cliArgs({QStringLiteral("watch"), QStringLiteral("--duration-ms"), QStringLiteral("8000")}));
    QVERIFY(watch.waitForStarted(5000));
    SyncClient redis(m_server.endpoint());
    QVERIFY(redis.open());
    QVERIFY(QTest::qWaitFor(
        [&] {
            return redis.cmd({"PUBSUB", "NUMSUB", "redisson_lock__channel:{jobs:wake}"}).at(1).toInteger() == 1 &&
                   redis.cmd({"PUBSUB", "NUMPAT"}).toInteger() >= 1;
        },
        10000));
    QByteArray out;
    QByteArray err;
    QCOMPARE(runCli({QStringLiteral("wake"), QStringLiteral("jobs:wake"), QStringLiteral("--yes")}, &out, &err), 0);
    QVERIFY2((out + err).contains("1 receiver(s)"), (out + err).constData());
    waiter.kill();
    waiter.waitForFinished(3000);
    watch.kill();
    watch.waitForFinished(3000);
}

void TestRepairChain::auditNamesTheAccountWithoutUser()
{
    // cron, systemd units and containers often have no $USER: the audit record names the account.
    SyncClient redis(m_server.endpoint());
    QVERIFY(redis.open());
    QVERIFY(!redis.cmd({"HSET", "audit:who", "0b7c1f3e-5a2d-4c8e-9f61-3d2a1b0c9e8f:1", "1"}).isError());
    const QString audit = m_tmp.filePath(QStringLiteral("who.jsonl"));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("USER"));
    env.remove(QStringLiteral("LOGNAME"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
            {QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"), audit, QStringLiteral("set-ttl"),
             QStringLiteral("audit:who"), QStringLiteral("--ttl-ms"), QStringLiteral("30000"),
             QStringLiteral("--yes")});
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 0);
    QFile f(audit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    const QJsonObject record = QJsonDocument::fromJson(lines.last()).object();
    const struct passwd *pw = ::getpwuid(::getuid());
    QVERIFY(pw);
    QCOMPARE(record.value(QStringLiteral("operator")).toString(), QString::fromLocal8Bit(pw->pw_name));
}

QTEST_GUILESS_MAIN(TestRepairChain)
#include "tst_repairchain.moc"
