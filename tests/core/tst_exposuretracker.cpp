// Exposure before loss (ExposureTracker) on INFO replication texts as Redis 7 writes them: a lock
// write a replica acknowledged is replicated, one no replica acknowledged a second and a margin
// later is not (at once when every replica is silent), a healthy replica's usual second never
// raises it, a lock found by the scan is never called unreplicated, a master without replicas is
// unknown (no alarm), and replicas that disconnect expose what is written after. The same against
// real servers and a node-redisson service: tst_replication.

#include "diagnose/exposuretracker.h"
#include "diagnose/lockdoctor.h"

#include <QTest>

using namespace lockscope;

namespace
{

const QString kMaster = QStringLiteral("127.0.0.1:6379");

/** INFO replication of a master at `offset` with replicas acknowledged at `acks` (lag `lagS`). */
QByteArray infoText(qint64 offset, const QVector<qint64> &acks, qint64 lagS = 0)
{
    QByteArray t = "# Replication\r\nrole:master\r\nconnected_slaves:" + QByteArray::number(acks.size()) + "\r\n";
    for (int i = 0; i < acks.size(); ++i)
        t += "slave" + QByteArray::number(i) + ":ip=127.0.0.1,port=" + QByteArray::number(6380 + i) +
             ",state=online,offset=" + QByteArray::number(acks.at(i)) + ",lag=" + QByteArray::number(lagS) + "\r\n";
    t += "master_failover_state:no-failover\r\nmaster_replid:8f2c\r\nmaster_repl_offset:" + QByteArray::number(offset) +
         "\r\nsecond_repl_offset:-1\r\n";
    return t;
}

LockSnapshot held(const QString &name)
{
    LockSnapshot s;
    s.name = name;
    s.exists = true;
    s.isLock = true;
    s.pttlMs = 30000;
    LockHolder h;
    h.field = QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b:1");
    h.clientId = QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b");
    h.threadId = QStringLiteral("1");
    h.holdCount = 1;
    s.holders << h;
    return s;
}

LockSnapshot::Replication verdictOf(const ExposureTracker &t, const QString &name, qint64 now)
{
    LockSnapshot s = held(name);
    t.apply(s, kMaster, now);
    return s.replication;
}

using R = LockSnapshot::Replication;

} // namespace

class TestExposureTracker : public QObject
{
    Q_OBJECT
private slots:
    void parsesInfoReplication()
    {
        const ReplicationInfo info = ReplicationInfo::parse(infoText(1234, {1200, 1234}, 1), 5);
        QVERIFY(info.valid);
        QCOMPARE(info.role, QStringLiteral("master"));
        QCOMPARE(info.masterOffset, 1234);
        QCOMPARE(info.replicas.size(), 2);
        QCOMPARE(info.replicas.at(0).address, QStringLiteral("127.0.0.1:6380"));
        QCOMPARE(info.replicas.at(0).offset, 1200);
        QCOMPARE(info.replicas.at(1).lagS, 1);
        QCOMPARE(info.replicas.at(0).state, QStringLiteral("online"));
        QVERIFY(!ReplicationInfo::parse("ERR unknown section", 0).valid);
        const ReplicationInfo replica = ReplicationInfo::parse("role:slave\r\nmaster_repl_offset:77\r\n", 0);
        QVERIFY(replica.valid);
        QVERIFY(replica.replicas.isEmpty());
    }

    void acknowledgedWriteIsReplicated()
    {
        ExposureTracker t;
        t.seen(kMaster, QStringLiteral("orders"), 1000, 30000);
        t.wrote(kMaster, QStringLiteral("orders"), 1000);
        QVERIFY(t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}), 1100)).isEmpty()); // pending
        QCOMPARE(verdictOf(t, QStringLiteral("orders"), 1100), R::Unknown);
        QCOMPARE(t.absorb(kMaster, ReplicationInfo::parse(infoText(520, {500}), 2100)), QStringList{"orders"});
        LockSnapshot s = held(QStringLiteral("orders"));
        t.apply(s, kMaster, 2100);
        QCOMPARE(s.replication, R::Replicated);
        QCOMPARE(s.replicatedOn, QStringList{QStringLiteral("127.0.0.1:6380")});
    }

    void healthyReplicaRaisesNothingWithinItsSecond()
    {
        // The replica acknowledges once a second: at +1 s it is still behind the write's offset,
        // which is no alarm yet.
        ExposureTracker t;
        t.wrote(kMaster, QStringLiteral("orders"), 1000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}), 1010));
        t.absorb(kMaster, ReplicationInfo::parse(infoText(520, {490}), 2010));
        QVERIFY(verdictOf(t, QStringLiteral("orders"), 2010) != R::NotReplicated);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(540, {540}), 3010));
        QCOMPARE(verdictOf(t, QStringLiteral("orders"), 3010), R::Replicated);
    }

    void writeNoReplicaAcknowledgesIsNotReplicated()
    {
        ExposureTracker t;
        t.seen(kMaster, QStringLiteral("orders"), 1000, 30000);
        t.wrote(kMaster, QStringLiteral("orders"), 1000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}), 1010));
        t.absorb(kMaster, ReplicationInfo::parse(infoText(520, {480}), 2010));
        QVERIFY(verdictOf(t, QStringLiteral("orders"), 2010) != R::NotReplicated);
        QCOMPARE(t.absorb(kMaster, ReplicationInfo::parse(infoText(540, {480}), 3010)), QStringList{"orders"});
        LockSnapshot s = held(QStringLiteral("orders"));
        t.apply(s, kMaster, 3200);
        QCOMPARE(s.replication, R::NotReplicated);
        QCOMPARE(s.exposedMs, 2200);
        QVERIFY2(s.replicationNote.contains(QLatin1String("127.0.0.1:6380")), qPrintable(s.replicationNote));
        // The doctor: warning, critical after a third of the lease (30 s / 3), or the threshold.
        QCOMPARE(LockDoctor::replicationFindings(s, 0).size(), 1);
        QCOMPARE(LockDoctor::replicationFindings(s, 0).first().code, QStringLiteral("not_replicated"));
        QCOMPARE(LockDoctor::replicationFindings(s, 0).first().severity, LockFinding::Severity::Warning);
        QCOMPARE(LockDoctor::replicationFindings(s, 2000).first().severity, LockFinding::Severity::Critical);
        t.apply(s, kMaster, 12000);
        QCOMPARE(LockDoctor::replicationFindings(s, 0).first().severity, LockFinding::Severity::Critical);
        // The replica catches up: replicated again.
        t.absorb(kMaster, ReplicationInfo::parse(infoText(560, {560}), 4010));
        QCOMPARE(verdictOf(t, QStringLiteral("orders"), 4010), R::Replicated);
    }

    void silentReplicaIsNotReplicatedAtOnce()
    {
        // A frozen replica (SIGSTOP): no acknowledgement for 5 s. A write after it is on no
        // replica as soon as its offset is known.
        ExposureTracker t;
        t.wrote(kMaster, QStringLiteral("orders"), 1000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}, 5), 1010));
        QCOMPARE(verdictOf(t, QStringLiteral("orders"), 1010), R::NotReplicated);
    }

    void lockFoundByTheScanIsNeverCalledUnreplicated()
    {
        ExposureTracker t;
        t.seen(kMaster, QStringLiteral("old"), 1000, 30000);
        for (qint64 at = 1010; at < 6000; at += 1000)
            t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}, (at - 1000) / 1000), at));
        LockSnapshot s = held(QStringLiteral("old"));
        t.apply(s, kMaster, 6000);
        QCOMPARE(s.replication, R::Unknown);
        QVERIFY2(s.replicationNote.contains(QLatin1String("before LockScope watched")), qPrintable(s.replicationNote));
        t.absorb(kMaster, ReplicationInfo::parse(infoText(520, {520}), 7000));
        QCOMPARE(verdictOf(t, QStringLiteral("old"), 7000), R::Replicated);
    }

    void masterWithoutReplicaIsUnknown()
    {
        ExposureTracker t;
        t.wrote(kMaster, QStringLiteral("orders"), 1000);
        for (qint64 at = 1010; at < 6000; at += 1000)
            t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {}), at));
        LockSnapshot s = held(QStringLiteral("orders"));
        t.apply(s, kMaster, 6000);
        QCOMPARE(s.replication, R::Unknown);
        QVERIFY2(s.replicationNote.contains(QLatin1String("no replica")), qPrintable(s.replicationNote));
        QVERIFY(LockDoctor::replicationFindings(s, 0).isEmpty());
    }

    void replicasThatDisconnectExposeWhatIsWrittenAfter()
    {
        ExposureTracker t;
        t.wrote(kMaster, QStringLiteral("before"), 1000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {500}), 1010));
        QCOMPARE(verdictOf(t, QStringLiteral("before"), 1010), R::Replicated);
        t.wrote(kMaster, QStringLiteral("after"), 2000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(600, {}), 2010)); // the replica is gone
        QCOMPARE(verdictOf(t, QStringLiteral("after"), 2010), R::NotReplicated);
        QCOMPARE(verdictOf(t, QStringLiteral("before"), 2010), R::Replicated); // the replica has it
    }

    void goneLocksAndANewMasterAreForgotten()
    {
        ExposureTracker t;
        t.wrote(kMaster, QStringLiteral("orders"), 1000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}, 5), 1010));
        t.forget(QStringLiteral("orders"));
        QCOMPARE(verdictOf(t, QStringLiteral("orders"), 1010), R::Unknown);
        t.wrote(kMaster, QStringLiteral("orders"), 2000);
        t.absorb(kMaster, ReplicationInfo::parse(infoText(500, {480}, 5), 2010));
        t.clear();
        QCOMPARE(verdictOf(t, QStringLiteral("orders"), 2010), R::Unknown);
        QVERIFY(!t.info(kMaster).valid);
    }
};

QTEST_GUILESS_MAIN(TestExposureTracker)
#include "tst_exposuretracker.moc"
