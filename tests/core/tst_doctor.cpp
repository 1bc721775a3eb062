// The stuck-lock doctor: every rule on a Redis prepared with each problem (written by redis-cli,
// as the problem's real cause would leave it), `lockscope-cli doctor --json` exit codes, and a
// fair-lock deadlock between two clients reported as a cycle.
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "diagnose/lockdoctor.h"
#include "lock/lockclient.h"
#include "lock/readwritelock.h"
#include "lockfixture.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QtTest>

using namespace lockscope;
using namespace lockscope::test;

class TestDoctor : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void healthyRedisHasNoFindings();
    void reportsEveryProblemWithEvidence();
    void fairDeadlockIsACycle();
    void watchdogHeldTooLong();
    void rulesAreUnitTestable();
    void adviceChainWakesAReadWriteWaiter();
    void staleFairHeadBehindAFreeLockIsRemovedNotForceUnlocked();
    void headJustPastItsDeadlineIsNotWarnedYet();
    void oddValuesAreShownAndFound();
    void manyLatchesAreCountedWithoutABurst();

private:
    void cli(const QStringList &args) { QCOMPARE(redisCli(m_server.port(), args).exitCode, 0); }
    /** Scripts run without error since CONFIG RESETSTAT (INFO commandstats: EVAL and EVALSHA). */
    qint64 scriptRuns()
    {
        qint64 runs = 0;
        const QByteArray info = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
        for (const QByteArray &line : info.split('\n')) {
            if (!line.startsWith("cmdstat_eval:") && !line.startsWith("cmdstat_evalsha:"))
                continue;
            for (const QByteArray &part : line.mid(line.indexOf(':') + 1).trimmed().split(',')) {
                if (part.startsWith("calls="))
                    runs += part.mid(6).toLongLong();
                else if (part.startsWith("failed_calls="))
                    runs -= part.mid(13).toLongLong();
            }
        }
        return runs;
    }
    /** Runs `lockscope-cli --url <server> args...`. */
    ProcessResult lockscopeCli(const QStringList &args)
    {
        return runProcess(QStringLiteral(LOCKSCOPE_CLI_PATH),
                          QStringList{QStringLiteral("--url"), m_server.url()} + args, 60000);
    }
    /** Runs `lockscope-cli doctor --json` with `extra`; returns findings by code. */
    QMultiHash<QString, QJsonObject> doctor(const QStringList &extra, int *exitCode);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    QString m_a = newClientId();
    QString m_b = newClientId();
};

void TestDoctor::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint());
    QVERIFY(m_admin->open());
}

void TestDoctor::init()
{
    m_admin->flushall();
}

void TestDoctor::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

QMultiHash<QString, QJsonObject> TestDoctor::doctor(const QStringList &extra, int *exitCode)
{
    const ProcessResult r = runProcess(
        QStringLiteral(LOCKSCOPE_CLI_PATH),
        QStringList{QStringLiteral("--url"), m_server.url(), QStringLiteral("doctor"), QStringLiteral("--json")} +
            extra,
        60000);
    *exitCode = r.exitCode;
    QMultiHash<QString, QJsonObject> byCode;
    for (const QByteArray &line : r.out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        byCode.insert(o.value(QStringLiteral("code")).toString(), o);
    }
    return byCode;
}

void TestDoctor::healthyRedisHasNoFindings()
{
    cli({QStringLiteral("HSET"), QStringLiteral("orders:42"), m_a + QStringLiteral(":1"), QStringLiteral("2")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("30000")});
    cli({QStringLiteral("SET"), QStringLiteral("unrelated"), QStringLiteral("x")});
    int code = -1;
    const auto findings = doctor({}, &code);
    QVERIFY2(findings.isEmpty(), qPrintable(QStringList(findings.keys()).join(QLatin1Char(','))));
    QCOMPARE(code, 0);
}

void TestDoctor::reportsEveryProblemWithEvidence()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString a1 = m_a + QStringLiteral(":1");
    const QString b2 = m_b + QStringLiteral(":2");
    // no TTL: an old client wrote HSET without PEXPIRE.
    cli({QStringLiteral("HSET"), QStringLiteral("p:nottl"), a1, QStringLiteral("1")});
    // several holders in a plain lock.
    cli({QStringLiteral("HSET"), QStringLiteral("p:multi"), a1, QStringLiteral("1"), b2, QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("p:multi"), QStringLiteral("60000")});
    // fair: head waiter past its deadline, and a queued waiter with no deadline / a deadline with no queue entry.
    cli({QStringLiteral("HSET"), QStringLiteral("p:fair"), a1, QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("p:fair"), QStringLiteral("60000")});
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{p:fair}"), m_b + QStringLiteral(":4"),
         m_b + QStringLiteral(":5")});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{p:fair}"), QString::number(now - 5000),
         m_b + QStringLiteral(":4"), QString::number(now + 600000), m_b + QStringLiteral(":9")});
    // waiters without holder: a free fair lock with a live-looking queue; clients subscribed to a free lock.
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{p:free}"), m_b + QStringLiteral(":20")});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{p:free}"), QString::number(now + 600000),
         m_b + QStringLiteral(":20")});
    QProcess ghost;
    ghost.start(redisCliPath(), {QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("SUBSCRIBE"),
                                 QStringLiteral("redisson_lock__channel:{p:ghost}")});
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{p:ghost}") == 1; }));
    // dead reader: a read hold whose rwlock_timeout key is gone.
    cli({QStringLiteral("HSET"), QStringLiteral("p:rw"), QStringLiteral("mode"), QStringLiteral("read"), a1,
         QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("p:rw"), QStringLiteral("60000")});
    // a latch whose follow-up DEL was lost (and with no TTL).
    cli({QStringLiteral("SET"), QStringLiteral("redisson_unlock_latch:{p:x}:0123456789abcdef0123456789abcdef"),
         QStringLiteral("1")});

    int code = -1;
    const auto f = doctor({QStringLiteral("--observe-ms"), QStringLiteral("1500"),
                           QStringLiteral("--waiter-threshold-ms"), QStringLiteral("500")},
                          &code);
    ghost.kill();
    ghost.waitForFinished(2000);
    QCOMPARE(code, 4);
    for (const char *expected : {"no_ttl", "several_holders", "fair_head_expired", "fair_companions_disagree",
                                 "waiters_without_holder", "dead_readers", "lingering_latch"})
        QVERIFY2(f.contains(QString::fromLatin1(expected)), expected);
    QCOMPARE(f.value(QStringLiteral("no_ttl")).value(QStringLiteral("lock")).toString(), QStringLiteral("p:nottl"));
    QCOMPARE(f.value(QStringLiteral("no_ttl")).value(QStringLiteral("severity")).toString(),
             QStringLiteral("critical"));
    QCOMPARE(f.value(QStringLiteral("no_ttl"))
                 .value(QStringLiteral("evidence"))
                 .toObject()
                 .value(QStringLiteral("pttl_ms"))
                 .toInt(),
             -1);
    const QJsonObject head = f.value(QStringLiteral("fair_head_expired"));
    QCOMPARE(head.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("waiter")).toString(),
             m_b + QStringLiteral(":4"));
    const QJsonObject disagree =
        f.value(QStringLiteral("fair_companions_disagree")).value(QStringLiteral("evidence")).toObject();
    QCOMPARE(disagree.value(QStringLiteral("queued_without_deadline")).toArray().first().toString(),
             m_b + QStringLiteral(":5"));
    QCOMPARE(disagree.value(QStringLiteral("deadline_without_queue_entry")).toArray().first().toString(),
             m_b + QStringLiteral(":9"));
    QStringList withoutHolder;
    for (const auto &o : f.values(QStringLiteral("waiters_without_holder")))
        withoutHolder << o.value(QStringLiteral("lock")).toString();
    QVERIFY2(withoutHolder.contains(QStringLiteral("p:free")), qPrintable(withoutHolder.join(QLatin1Char(','))));
    QVERIFY2(withoutHolder.contains(QStringLiteral("p:ghost")), qPrintable(withoutHolder.join(QLatin1Char(','))));
    QCOMPARE(f.value(QStringLiteral("dead_readers"))
                 .value(QStringLiteral("evidence"))
                 .toObject()
                 .value(QStringLiteral("dead_holds_by_reader"))
                 .toObject()
                 .value(a1)
                 .toInt(),
             1);
    QCOMPARE(f.value(QStringLiteral("lingering_latch")).value(QStringLiteral("severity")).toString(),
             QStringLiteral("warning"));
    for (const auto &o : f) {
        QVERIFY(!o.value(QStringLiteral("title")).toString().isEmpty());
        QVERIFY(!o.value(QStringLiteral("explanation")).toString().isEmpty());
        QVERIFY(!o.value(QStringLiteral("action")).toString().isEmpty());
        QVERIFY(!o.value(QStringLiteral("evidence")).toObject().isEmpty());
    }
}

void TestDoctor::fairDeadlockIsACycle()
{
    // Thread a:11 holds lock:A and is queued on lock:B; b:12 holds lock:B and is queued on lock:A.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString a = m_a + QStringLiteral(":11");
    const QString b = m_b + QStringLiteral(":12");
    for (const auto &[lock, holder, waiter] :
         {std::tuple{QStringLiteral("lock:A"), a, b}, std::tuple{QStringLiteral("lock:B"), b, a}}) {
        cli({QStringLiteral("HSET"), lock, holder, QStringLiteral("1")});
        cli({QStringLiteral("PEXPIRE"), lock, QStringLiteral("60000")});
        cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{%1}").arg(lock), waiter});
        cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{%1}").arg(lock),
             QString::number(now + 300000), waiter});
    }
    int code = -1;
    const auto f = doctor({}, &code);
    QCOMPARE(code, 4);
    QCOMPARE(f.count(QStringLiteral("deadlock")), 1);
    const QJsonObject d = f.value(QStringLiteral("deadlock"));
    QCOMPARE(d.value(QStringLiteral("severity")).toString(), QStringLiteral("critical"));
    QStringList locks;
    for (const auto &v : d.value(QStringLiteral("locks")).toArray())
        locks << v.toString();
    locks.sort();
    QCOMPARE(locks, (QStringList{QStringLiteral("lock:A"), QStringLiteral("lock:B")}));
    const QJsonArray cycle = d.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("cycle")).toArray();
    QCOMPARE(cycle.size(), 2);
    QStringList holders;
    for (const auto &step : cycle)
        holders << step.toObject().value(QStringLiteral("holder")).toString();
    holders.sort();
    QStringList expected{a, b};
    expected.sort();
    QCOMPARE(holders, expected);
}

void TestDoctor::watchdogHeldTooLong()
{
    // A real watchdog (LockScope's own Redisson client, renewing every 300 ms) keeps the lock alive.
    SyncClient client(m_server.endpoint());
    QVERIFY(client.open());
    LockClient holder(client.connection(), nullptr);
    holder.setWatchdogTimeoutMs(3000); // renewed every 1 s
    bool acquired = false;
    holder.tryAcquire(QStringLiteral("p:stuck"), 7, 0, nullptr, [&](const AcquireResult &r) { acquired = r.acquired; });
    QVERIFY(waitUntil([&] { return acquired; }));
    QProcess doctorProcess;
    doctorProcess.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                        {QStringLiteral("--url"), m_server.url(), QStringLiteral("doctor"), QStringLiteral("--json"),
                         QStringLiteral("--observe-ms"), QStringLiteral("3500"),
                         QStringLiteral("--watchdog-threshold-ms"), QStringLiteral("2000")});
    QVERIFY(waitUntil([&] { return doctorProcess.state() == QProcess::NotRunning; }, 30000));
    QCOMPARE(doctorProcess.exitCode(), 4);
    const QByteArray out = doctorProcess.readAllStandardOutput();
    QJsonObject finding;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("code")).toString() == QLatin1String("watchdog_long"))
            finding = o;
    }
    QVERIFY2(!finding.isEmpty(), out.constData());
    QCOMPARE(finding.value(QStringLiteral("lock")).toString(), QStringLiteral("p:stuck"));
    QVERIFY(finding.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("renewals_seen")).toInt() >= 1);
}

void TestDoctor::rulesAreUnitTestable()
{
    // History rule: the same holder seen renewing for longer than the threshold.
    LockDoctor doctor;
    doctor.setThresholds({5000, 30000});
    LockSnapshot s;
    s.name = QStringLiteral("x");
    s.isLock = s.exists = true;
    s.holders << LockHolder{m_a + QStringLiteral(":1"), m_a, QStringLiteral("1"), 1, QString(), {}};
    s.pttlMs = 30000;
    s.readAtSteadyMs = 1000;
    doctor.observe(s);
    s.pttlMs = 29990;
    s.readAtSteadyMs = 11000; // 10 s later the TTL is back near 30 s: renewed
    QVERIFY(s.isRenewalOf([&] {
        LockSnapshot b = s;
        b.pttlMs = 30000;
        b.readAtSteadyMs = 1000;
        return b;
    }()));
    doctor.observe(s);
    QHash<QString, LockSnapshot> locks{{s.name, s}};
    QVERIFY(doctor.diagnose(locks, 5500).isEmpty());
    const auto findings = doctor.diagnose(locks, 12000);
    QCOMPARE(findings.size(), 1);
    QCOMPARE(findings.first().code, QStringLiteral("watchdog_long"));
    QCOMPARE(LockDoctor::worstSeverity(findings), int(LockFinding::Severity::Warning));
    // A new holder restarts the clock.
    s.holders.first().field = m_b + QStringLiteral(":2");
    s.readAtSteadyMs = 12500;
    doctor.observe(s);
    QVERIFY(doctor.diagnose({{s.name, s}}, 13000).isEmpty());
}

void TestDoctor::adviceChainWakesAReadWriteWaiter()
{
    // A read-write lock without TTL, read-held by a reader that crashed (an old client wrote its
    // hold and timeout key without expiry), and a live writer waiting: its attempt saw PTTL -1,
    // so it sleeps with no timer until a message comes on redisson_rwlock:{name} (§1.5, §14.5).
    const QString name = QStringLiteral("chain:rw");
    const QString reader = m_a + QStringLiteral(":1");
    cli({QStringLiteral("HSET"), name, QStringLiteral("mode"), QStringLiteral("read"), reader, QStringLiteral("1")});
    cli({QStringLiteral("SET"), QStringLiteral("{chain:rw}:%1:rwlock_timeout:1").arg(reader), QStringLiteral("1")});
    LockParticipant writerClient(m_server.endpoint());
    QVERIFY(writerClient.waitReady());
    ReadWriteLock writer(writerClient.client.get());
    auto box = std::make_shared<Box<AcquireResult>>();
    QCOMPARE(m_admin->cmd({"CONFIG", "RESETSTAT"}).isError(), false);
    writer.acquireWrite(name, 7, 30000, -1, nullptr, fillBox(box));
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_rwlock:{chain:rw}") == 1; }));
    // Redisson retries once subscribed (§1.5 step 2); both attempts saw PTTL -1 once two
    // acquire scripts ran: only then is the writer asleep for good.
    QVERIFY(waitUntil([&] { return scriptRuns() >= 2; }));

    // Step 1: the doctor says no_ttl and advises set-ttl.
    int code = -1;
    auto f = doctor({QStringLiteral("--observe-ms"), QStringLiteral("1500"), QStringLiteral("--waiter-threshold-ms"),
                     QStringLiteral("500")},
                    &code);
    QVERIFY2(f.contains(QStringLiteral("no_ttl")), qPrintable(QStringList(f.keys()).join(QLatin1Char(','))));
    const QString setTtl = f.value(QStringLiteral("no_ttl")).value(QStringLiteral("action")).toString();
    QVERIFY2(setTtl.contains(QStringLiteral("lockscope-cli set-ttl chain:rw")), qPrintable(setTtl));
    ProcessResult r = lockscopeCli(
        {QStringLiteral("set-ttl"), name, QStringLiteral("--ttl-ms"), QStringLiteral("300"), QStringLiteral("--yes")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    // Step 2: the lock expires silently (no message): the writer keeps sleeping.
    QVERIFY(waitUntil([&] { return !m_admin->exists(name.toUtf8()); }));
    QVERIFY(!waitUntil([&] { return box->done; }, 1000));

    // Step 3: the doctor says waiters_without_holder and advises wake.
    f = doctor({QStringLiteral("--observe-ms"), QStringLiteral("1500"), QStringLiteral("--waiter-threshold-ms"),
                QStringLiteral("500")},
               &code);
    QJsonObject waiters;
    for (const auto &o : f.values(QStringLiteral("waiters_without_holder")))
        if (o.value(QStringLiteral("lock")).toString() == name)
            waiters = o;
    QVERIFY2(!waiters.isEmpty(), qPrintable(QStringList(f.keys()).join(QLatin1Char(','))));
    const QString wake = waiters.value(QStringLiteral("action")).toString();
    QVERIFY2(wake.contains(QStringLiteral("lockscope-cli wake chain:rw")), qPrintable(wake));
    r = lockscopeCli({QStringLiteral("wake"), name, QStringLiteral("--yes")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("\"1\" on redisson_rwlock:{chain:rw}: 1 receiver(s)"), r.out.constData());

    // Step 4: every live waiter holds the lock.
    QVERIFY(waitUntil([&] { return box->done; }));
    QVERIFY2(box->value.acquired, qPrintable(box->value.error));
    QCOMPARE(m_admin->hget(name.toUtf8(), (writerClient.field(7) + QStringLiteral(":write")).toUtf8()),
             QByteArray("1"));
}

void TestDoctor::staleFairHeadBehindAFreeLockIsRemovedNotForceUnlocked()
{
    // A free fair lock; its head waiter is dead (deadline still ahead), a live one queued behind.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString head = m_b + QStringLiteral(":30");
    const QString behind = m_b + QStringLiteral(":31");
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{p:spin}"), head, behind});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{p:spin}"), QString::number(now + 300000), head,
         QString::number(now + 600000), behind});
    int code = -1;
    const auto f = doctor({QStringLiteral("--observe-ms"), QStringLiteral("1500"),
                           QStringLiteral("--waiter-threshold-ms"), QStringLiteral("500")},
                          &code);
    QJsonObject waiters;
    for (const auto &o : f.values(QStringLiteral("waiters_without_holder")))
        if (o.value(QStringLiteral("lock")).toString() == QLatin1String("p:spin"))
            waiters = o;
    QVERIFY2(!waiters.isEmpty(), qPrintable(QStringList(f.keys()).join(QLatin1Char(','))));
    const QString action = waiters.value(QStringLiteral("action")).toString();
    QVERIFY2(action.contains(QStringLiteral("lockscope-cli remove-waiter p:spin %1").arg(head)), qPrintable(action));
    QVERIFY2(waiters.value(QStringLiteral("explanation")).toString().contains(QStringLiteral("did not miss a message")),
             qPrintable(waiters.value(QStringLiteral("explanation")).toString()));
    QCOMPARE(waiters.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("head_waiter")).toString(),
             head);
    for (const auto &o : f) {
        if (o.value(QStringLiteral("lock")).toString() != QLatin1String("p:spin"))
            continue;
        QVERIFY2(!o.value(QStringLiteral("action")).toString().contains(QStringLiteral("force-unlock")),
                 qPrintable(o.value(QStringLiteral("action")).toString()));
        QVERIFY2(!o.value(QStringLiteral("action")).toString().contains(QStringLiteral("force-unlocking")),
                 qPrintable(o.value(QStringLiteral("action")).toString()));
        QVERIFY2(!o.value(QStringLiteral("explanation")).toString().contains(QStringLiteral("missed its")),
                 qPrintable(o.value(QStringLiteral("explanation")).toString()));
    }
}

void TestDoctor::headJustPastItsDeadlineIsNotWarnedYet()
{
    // A held fair lock whose head waiter passed its deadline 1.2 s ago: a live lock() waiter does
    // that when the holder keeps the lock long, and re-queues itself at its next poll (§14.7).
    LockSnapshot s;
    s.name = QStringLiteral("p:slow");
    s.isLock = s.exists = true;
    s.kind = LockKind::FairLock;
    s.holders << LockHolder{m_a + QStringLiteral(":1"), m_a, QStringLiteral("1"), 1, QString(), {}};
    s.pttlMs = 20000;
    s.serverTimeMs = 1'700'000'000'000;
    LockWaiter w;
    w.field = m_b + QStringLiteral(":2");
    w.position = 1;
    w.deadlineEpochMs = s.serverTimeMs - 1200;
    s.waiters << w;
    s.queueLength = 1;
    s.timeoutSet << qMakePair(w.field, w.deadlineEpochMs);
    s.timeoutSetSize = 1;
    auto findings = LockDoctor::snapshotFindings(s);
    QCOMPARE(findings.size(), 1);
    QCOMPARE(findings.first().code, QStringLiteral("fair_head_expired"));
    QCOMPARE(findings.first().severity, LockFinding::Severity::Info);
    QVERIFY2(findings.first().title.contains(QStringLiteral("past its deadline by 1.2 s: may still re-queue itself")),
             qPrintable(findings.first().title));
    QCOMPARE(findings.first().evidence.value(QStringLiteral("stale")).toBool(), false);
    // 40 s later (more than the 30 s a live waiter sleeps at most here): stale, a warning.
    s.serverTimeMs += 38800;
    findings = LockDoctor::snapshotFindings(s);
    QCOMPARE(findings.size(), 1);
    QCOMPARE(findings.first().severity, LockFinding::Severity::Warning);
    QVERIFY2(findings.first().title.contains(QStringLiteral("stale: past its deadline by 40.0 s")),
             qPrintable(findings.first().title));
    QVERIFY(findings.first().action.contains(QStringLiteral("lockscope-cli remove-waiter p:slow %1").arg(w.field)));
}

void TestDoctor::oddValuesAreShownAndFound()
{
    // Values Redisson never writes are shown as they are (not silently repaired), with a malformed_data finding.
    const QString a1 = m_a + QStringLiteral(":1");
    // +inf / -inf deadlines (were shown as INT64_MIN)
    cli({QStringLiteral("HSET"), QStringLiteral("odd:fair"), a1, QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("odd:fair"), QStringLiteral("60000")});
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{odd:fair}"), m_b + QStringLiteral(":4"),
         m_b + QStringLiteral(":5")});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{odd:fair}"), QStringLiteral("+inf"),
         m_b + QStringLiteral(":4"), QStringLiteral("-inf"), m_b + QStringLiteral(":5")});
    // a read-write hash with a garbage mode; a write-mode hash whose writer count is not a number
    cli({QStringLiteral("HSET"), QStringLiteral("odd:mode"), QStringLiteral("mode"), QStringLiteral("banana"), a1,
         QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("odd:mode"), QStringLiteral("60000")});
    cli({QStringLiteral("HSET"), QStringLiteral("odd:writer"), QStringLiteral("mode"), QStringLiteral("write"),
         a1 + QStringLiteral(":write"), QStringLiteral("lots")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("odd:writer"), QStringLiteral("60000")});
    // a fenced lock whose token is not a number
    cli({QStringLiteral("HSET"), QStringLiteral("odd:fenced"), a1, QStringLiteral("1")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("odd:fenced"), QStringLiteral("60000")});
    cli({QStringLiteral("SET"), QStringLiteral("redisson_lock_token:{odd:fenced}"), QStringLiteral("seven")});

    const ProcessResult list = lockscopeCli({QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(list.finished && list.exitCode == 0, qPrintable(list.describe()));
    QHash<QString, QJsonObject> locks;
    for (const QByteArray &line : list.out.split('\n'))
        if (!line.trimmed().isEmpty()) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            locks.insert(o.value(QStringLiteral("name")).toString(), o);
        }
    for (const char *n : {"odd:fair", "odd:mode", "odd:writer", "odd:fenced"})
        QVERIFY2(locks.value(QString::fromLatin1(n)).value(QStringLiteral("anomalies")).toArray().size() >= 1, n);
    const QJsonArray waiters = locks.value(QStringLiteral("odd:fair")).value(QStringLiteral("waiters")).toArray();
    QCOMPARE(waiters.size(), 2);
    QCOMPARE(waiters.at(0).toObject().value(QStringLiteral("deadline_raw")).toString(), QStringLiteral("inf"));
    QVERIFY(waiters.at(0).toObject().value(QStringLiteral("deadline_epoch_ms")).isNull()); // not INT64_MIN
    QCOMPARE(waiters.at(1).toObject().value(QStringLiteral("deadline_raw")).toString(), QStringLiteral("-inf"));
    // The writer is shown (not "(free)"), with what is there.
    const QJsonArray writers = locks.value(QStringLiteral("odd:writer")).value(QStringLiteral("holders")).toArray();
    QCOMPARE(writers.size(), 1);
    QCOMPARE(writers.at(0).toObject().value(QStringLiteral("field")).toString(), a1 + QStringLiteral(":write"));
    QVERIFY(locks.value(QStringLiteral("odd:fenced"))
                .value(QStringLiteral("anomalies"))
                .toArray()
                .at(0)
                .toString()
                .contains(QStringLiteral("seven")));

    int exitCode = -1;
    const auto findings = doctor({}, &exitCode);
    QCOMPARE(exitCode, 4);
    QSet<QString> malformed;
    for (const QJsonObject &f : findings.values(QStringLiteral("malformed_data")))
        malformed << f.value(QStringLiteral("lock")).toString();
    QCOMPARE(malformed, (QSet<QString>{QStringLiteral("odd:fair"), QStringLiteral("odd:mode"),
                                       QStringLiteral("odd:writer"), QStringLiteral("odd:fenced")}));
}

// Thousands of unlock latches (a busy Redisson service keeps some for a moment) are read
// in the latch SCAN's own steps, PTTL included (scan_step.lua "withpttl"), not by a pipeline of
// thousands of PTTLs that held up the reads behind it (bench: 12 % of 5k events/s coalesced). The
// finding counts them all, lists every one without a TTL and at most kMaxLatchesKept others.
void TestDoctor::manyLatchesAreCountedWithoutABurst()
{
    const int withTtl = 1500;
    m_admin->cmd(
        {"EVAL",
         "for i = 1, tonumber(ARGV[1]) do redis.call('set', 'redisson_unlock_latch:{m:x}:' .. i, 1, 'px', 600000) end "
         "for i = 1, 3 do redis.call('set', 'redisson_unlock_latch:{m:y}:' .. i, 1) end",
         "0", QByteArray::number(withTtl)});
    int exitCode = -1;
    const QMultiHash<QString, QJsonObject> f = doctor({}, &exitCode);
    QVERIFY(f.contains(QStringLiteral("lingering_latch")));
    const QJsonObject latch = f.value(QStringLiteral("lingering_latch"));
    QCOMPARE(latch.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
    QVERIFY2(
        latch.value(QStringLiteral("title")).toString().startsWith(QStringLiteral("%1 unlock latch").arg(withTtl + 3)),
        qPrintable(latch.value(QStringLiteral("title")).toString()));
    const QJsonObject evidence = latch.value(QStringLiteral("evidence")).toObject();
    QCOMPARE(evidence.value(QStringLiteral("key_count")).toInteger(), qint64(withTtl + 3));
    const QJsonObject keys = evidence.value(QStringLiteral("keys")).toObject();
    QVERIFY(keys.size() <= 1003);
    for (int i = 1; i <= 3; ++i)
        QCOMPARE(keys.value(QStringLiteral("redisson_unlock_latch:{m:y}:%1").arg(i)).toInteger(), qint64(-1));
}

QTEST_GUILESS_MAIN(TestDoctor)
#include "tst_doctor.moc"
