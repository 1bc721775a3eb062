// Hash slots against Redis's own documented vectors and against a real redis-server's
// CLUSTER KEYSLOT (which works without cluster mode), including Redisson's derived key names.
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "protocol/locknames.h"
#include "redis/hashslot.h"

#include <QtTest>

using namespace lockscope;
using namespace lockscope::test;

class TestHashSlot : public QObject
{
    Q_OBJECT
private slots:
    void documentedVectors();
    void matchesRedisClusterKeyslot();
    void redissonDerivedKeysShareTheSlot();
};

void TestHashSlot::documentedVectors()
{
    // Redis Cluster spec: CRC16 of "123456789" is 0x31C3.
    QCOMPARE(HashSlot::crc16("123456789"), quint16(0x31C3));
    QCOMPARE(HashSlot::of("foo"), 12182);
    QCOMPARE(HashSlot::of("{user1000}.following"), HashSlot::of("{user1000}.followers"));
    QCOMPARE(HashSlot::hashedPart("foo{}{bar}"), QByteArray("foo{}{bar}")); // empty first tag: whole key
    QCOMPARE(HashSlot::hashedPart("foo{{bar}}zap"), QByteArray("{bar"));
    QCOMPARE(HashSlot::hashedPart("foo{bar}{zap}"), QByteArray("bar"));
    QCOMPARE(HashSlot::hashedPart("a}b{c}"), QByteArray("c")); // Redis's rule, not Redisson's
}

void TestHashSlot::matchesRedisClusterKeyslot()
{
    RedisServerProcess server;
    // CLUSTER KEYSLOT needs cluster support on (a single node is enough; no slots assigned).
    server.setExtraArguments({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                              QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf")});
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    SyncClient c(server.endpoint());
    QVERIFY(c.open());
    const QList<QByteArray> keys{"orders:42",
                                 "{orders:42}",
                                 "redisson_lock__channel:{orders:42}",
                                 "a}b{c}",
                                 "foo{}{bar}",
                                 "foo{{bar}}zap",
                                 "",
                                 QByteArray("\xff\x00\x01 binary", 10),
                                 "jobs:nightly",
                                 "user:{42}:lock"};
    for (const QByteArray &k : keys) {
        const RedisReply r = c.cmd({"CLUSTER", "KEYSLOT", k});
        QVERIFY2(!r.isError(), qPrintable(r.errorMessage()));
        QCOMPARE(HashSlot::of(k), int(r.toInteger()));
    }
}

void TestHashSlot::redissonDerivedKeysShareTheSlot()
{
    for (const QString &name : {QStringLiteral("orders:42"), QStringLiteral("order:{42}"), QStringLiteral("jobs")}) {
        const int slot = HashSlot::of(name.toUtf8());
        for (const QString &derived :
             {LockNames::unlockChannel(name), LockNames::fairQueueKey(name), LockNames::fairTimeoutKey(name),
              LockNames::tokenKey(name), LockNames::readWriteChannel(name)})
            QCOMPARE(HashSlot::of(derived.toUtf8()), slot);
    }
}

QTEST_GUILESS_MAIN(TestHashSlot)
#include "tst_hashslot.moc"
