// Watching a replica (issue 37, failure 4): a replica gets its master's expiries as DELs, so
// LockScope must not call a fixed lease that simply ended "force_unlocked" (even after unlock
// latches were seen) nor a watchdog lease that ran out "released": it says at once that the
// server is a replica, and a holder gone with the hash is "removed" (expired, released or
// force-unlocked: cannot tell there) unless an unlock latch proves an unlock. Writes are refused
// with a hint to use the master.

#include "demo/redisserverprocess.h"
#include "testsupport.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace lockscope;

class TestReplica : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void endedLeaseSeenFromAReplicaIsNoForceUnlock();
    void writeToAReplicaSaysUseTheMaster();

private:
    RedisServerProcess m_master;
    RedisServerProcess m_replica;
};

void TestReplica::initTestCase()
{
    QString error;
    QVERIFY2(m_master.start(10000, &error), qPrintable(error));
    m_replica.setExtraArguments(
        {QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"), QString::number(m_master.port())});
    QVERIFY2(m_replica.start(10000, &error), qPrintable(error));
    for (RedisServerProcess *s : {&m_master, &m_replica})
        QCOMPARE(test::redisCli(s->port(), {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                            QStringLiteral("notify-keyspace-events"), QStringLiteral("KEA")})
                     .exitCode,
                 0);
    QVERIFY(QTest::qWaitFor(
        [&] {
            return test::redisCli(m_replica.port(), {QStringLiteral("INFO"), QStringLiteral("replication")})
                .out.contains("master_link_status:up");
        },
        10000));
}

void TestReplica::cleanupTestCase()
{
    m_replica.stop();
    m_master.stop();
}

void TestReplica::endedLeaseSeenFromAReplicaIsNoForceUnlock()
{
    QProcess watch;
    watch.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                {QStringLiteral("--url"), m_replica.url(), QStringLiteral("watch"), QStringLiteral("--json"),
                 QStringLiteral("--duration-ms"), QStringLiteral("8000")});
    QVERIFY(watch.waitForStarted(5000));
    QTest::qWait(1500);
    const QString field = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    // An unlock by its holder first (the latch every Redisson 3.24+ unlock writes), so the
    // replica has seen latch writes, then a fixed lease that just ends.
    auto cli = [this](const QStringList &args) { return test::redisCli(m_master.port(), args).exitCode == 0; };
    QVERIFY(cli({QStringLiteral("HSET"), QStringLiteral("orders:1"), field, QStringLiteral("1")}));
    QTest::qWait(300);
    QVERIFY(cli({QStringLiteral("EVAL"),
                 QStringLiteral("redis.call('del', KEYS[1]); redis.call('set', KEYS[2], 1, 'px', 5000)"),
                 QStringLiteral("2"), QStringLiteral("orders:1"),
                 QStringLiteral("redisson_unlock_latch:{orders:1}:0123456789abcdef0123456789abcdef")}));
    QVERIFY(cli({QStringLiteral("HSET"), QStringLiteral("orders:2"), field, QStringLiteral("1")}));
    QVERIFY(cli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:2"), QStringLiteral("1500")}));
    QVERIFY(watch.waitForFinished(15000));
    const QString err = QString::fromUtf8(watch.readAllStandardError());
    QVERIFY2(err.contains(QLatin1String("is a replica of")), qPrintable(err));
    QString removedOf2;
    QString releasedOf1;
    for (const QByteArray &line : watch.readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString type = o.value(QStringLiteral("type")).toString();
        const QString lock = o.value(QStringLiteral("lock")).toString();
        if (lock == QLatin1String("orders:2")) {
            QVERIFY2(type != QLatin1String("force_unlocked") && type != QLatin1String("released") &&
                         type != QLatin1String("lease_lost"),
                     line.constData());
            if (type == QLatin1String("removed"))
                removedOf2 = o.value(QStringLiteral("removal")).toString();
        }
        if (lock == QLatin1String("orders:1") && type == QLatin1String("released"))
            releasedOf1 = o.value(QStringLiteral("removal")).toString();
    }
    QCOMPARE(removedOf2, QStringLiteral("replica"));
    QCOMPARE(releasedOf1, QStringLiteral("unlock")); // the latch proves an unlock, on a replica too
}

void TestReplica::writeToAReplicaSaysUseTheMaster()
{
    QVERIFY(
        test::redisCli(m_master.port(), {QStringLiteral("HSET"), QStringLiteral("orders:3"),
                                         QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1"), QStringLiteral("1")})
            .exitCode == 0);
    QTest::qWait(300);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOCKSCOPE_AUDIT_LOG"), QDir::temp().filePath(QStringLiteral("tst_replica.audit")));
    const auto r = test::runProcess(QStringLiteral(LOCKSCOPE_CLI_PATH),
                                    {QStringLiteral("--url"), m_replica.url(), QStringLiteral("force-unlock"),
                                     QStringLiteral("orders:3"), QStringLiteral("--yes")},
                                    30000, env);
    QVERIFY2(r.finished && r.exitCode != 0, qPrintable(r.describe()));
    QVERIFY2(r.err.contains("replica"), qPrintable(r.describe()));
    QVERIFY2(r.err.contains("master"), qPrintable(r.describe()));
}

QTEST_GUILESS_MAIN(TestReplica)
#include "tst_replica.moc"
