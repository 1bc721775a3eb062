// Lease safety rules (LeaseTracker) on event and snapshot sequences as the monitor produces them:
// a renewed lock that expires is a lost lease, a fixed lease that ends or a release is not, an
// expiry while LockScope was disconnected cannot be judged, the next holder and the old holder's
// return are named, late renewals and waiters behind a silent holder are findings, a failover
// that loses a held lock is reported, and a second tracker fed with the first one's output
// reaches the same findings (the CLI doctor, a replay). The same rules against real servers and
// real clients: tst_leasesafety.

#include "diagnose/leasetracker.h"

#include <QTest>

using namespace lockscope;

namespace
{

const QString kA = QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b");
const QString kB = QStringLiteral("5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60");
const QString kHolderA = kA + QStringLiteral(":1");
const QString kHolderB = kB + QStringLiteral(":7");

LockEvent ev(const QString &lock, const QString &type, const QString &holder, qint64 timeMs,
             const QJsonObject &extra = {})
{
    return LockEvent{timeMs, lock, type, holder, type, extra};
}

LockEvent renewed(const QString &lock, const QString &holder, qint64 timeMs, qint64 marginMs, qint64 leaseMs)
{
    return ev(lock, QStringLiteral("renewed"), holder, timeMs,
              {{QStringLiteral("margin_ms"), marginMs}, {QStringLiteral("pttl_ms"), leaseMs}});
}

LockSnapshot held(const QString &name, const QString &field, qint64 pttlMs, qint64 readAtMs, qint64 subscribers = 0)
{
    LockSnapshot s;
    s.name = name;
    s.isLock = true;
    s.exists = true;
    s.pttlMs = pttlMs;
    s.readAtSteadyMs = readAtMs;
    s.subscribers = subscribers;
    LockHolder h;
    h.field = field;
    h.clientId = LeaseTracker::clientOf(field);
    h.threadId = field.mid(h.clientId.size() + 1);
    h.holdCount = 1;
    s.holders << h;
    return s;
}

/** A watchdog's two renewals of `lock` by holder A, the second seen by a read whose server time
 *  is 110 s at steady 20 s (the clock-jump tests start from here). */
void renewedTwiceWithAServerRead(LeaseTracker &t, const QString &lock)
{
    t.process({renewed(lock, kHolderA, 100000, 20000, 30000)}, 10000);
    LockSnapshot read = held(lock, kHolderA, 30000, 20000);
    read.serverTimeMs = 110000;
    t.observe(read);
    t.process({renewed(lock, kHolderA, 110000, 20000, 30000)}, 20000);
}

QStringList types(const QVector<LockEvent> &events)
{
    QStringList out;
    for (const auto &e : events)
        out << e.type;
    return out;
}

QStringList codes(const QVector<LockFinding> &findings)
{
    QStringList out;
    for (const auto &f : findings)
        out << f.code;
    out.sort();
    return out;
}

} // namespace

class TestLeaseTracker : public QObject
{
    Q_OBJECT
private slots:
    void renewedThenExpiredIsALostLease();
    void fixedLeaseThatEndsIsPlainExpiry();
    void releaseAfterRenewalsIsNoLoss();
    void expiryWhileDisconnectedCannotBeJudged();
    void nextHolderAndReturnAreNamed();
    void lateRenewalIsAnEventAndAFinding();
    void overdueRenewalIsAFindingBeforeExpiry();
    void waitersBehindSilentHolder();
    void activeHolderIsNotSilent();
    void failoverLossIsReported();
    void lockSurvivingFailoverIsNoLoss();
    void secondTrackerReachesTheSameFindings();
    void clientOfHolderFields();
    void serverClockJumpIsNotBlamedOnTheHolder();
    void fastServerClockIsNotBlamedOnTheHolder();
    void serverClockJumpSeenOnTheExpiryItself();
};

void TestLeaseTracker::renewedThenExpiredIsALostLease()
{
    LeaseTracker t;
    t.observe(held(QStringLiteral("orders:42"), kHolderA, 30000, 1000));
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 30000)}, 11000);
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 110000, 20000, 30000)}, 21000);
    const auto out = t.process({ev(QStringLiteral("orders:42"), QStringLiteral("expired"), kHolderA, 140500)}, 51500);
    QCOMPARE(types(out), QStringList{QStringLiteral("lease_lost")});
    const LockEvent &e = out.first();
    QCOMPARE(e.holder, kHolderA);
    QCOMPARE(e.extra.value(QStringLiteral("client_id")).toString(), kA);
    QCOMPARE(e.extra.value(QStringLiteral("renewals")).toInteger(), 2);
    QCOMPARE(e.extra.value(QStringLiteral("last_renewed_ms")).toInteger(), 110000);
    QCOMPARE(e.extra.value(QStringLiteral("lease_ms")).toInteger(), 30000);
    QCOMPARE(e.extra.value(QStringLiteral("silent_ms")).toInteger(), 30500);
    QVERIFY(e.detail.contains(QStringLiteral("critical section")));
    const auto f = t.findings({}, 52000, QString());
    QCOMPARE(codes(f), QStringList{QStringLiteral("lease_lost")});
    QCOMPARE(f.first().severity, LockFinding::Severity::Critical);
    QCOMPARE(f.first().evidence.value(QStringLiteral("holder")).toString(), kHolderA);
    // It stays a finding for kKeepMs, then goes.
    QVERIFY(t.findings({}, 52000 + LeaseTracker::kKeepMs + 1, QString()).isEmpty());
}

void TestLeaseTracker::fixedLeaseThatEndsIsPlainExpiry()
{
    LeaseTracker t;
    t.observe(held(QStringLiteral("inventory:7"), kHolderA, 5000, 1000));
    const auto out = t.process({ev(QStringLiteral("inventory:7"), QStringLiteral("expired"), kHolderA, 106000)}, 6000);
    QCOMPARE(types(out), QStringList{QStringLiteral("expired")});
    QVERIFY(t.findings({}, 7000, QString()).isEmpty());
}

void TestLeaseTracker::releaseAfterRenewalsIsNoLoss()
{
    LeaseTracker t;
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 30000)}, 11000);
    auto out = t.process({ev(QStringLiteral("orders:42"), QStringLiteral("released"), kHolderA, 105000)}, 16000);
    QCOMPARE(types(out), QStringList{QStringLiteral("released")});
    // A later expiry of a new, unrenewed hold of the same name is a plain expiry.
    out = t.process({ev(QStringLiteral("orders:42"), QStringLiteral("acquired"), kHolderB, 106000),
                     ev(QStringLiteral("orders:42"), QStringLiteral("expired"), kHolderB, 136000)},
                    47000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("acquired"), QStringLiteral("expired")}));
    QVERIFY(t.findings({}, 48000, QString()).isEmpty());
}

void TestLeaseTracker::expiryWhileDisconnectedCannotBeJudged()
{
    LeaseTracker t;
    t.observe(held(QStringLiteral("orders:42"), kHolderA, 30000, 1000));
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 30000)}, 11000);
    t.setBlind(true, 15000);
    t.setBlind(false, 60000);
    const auto out = t.process({ev(QStringLiteral("orders:42"), QStringLiteral("expired"), kHolderA, 150000)}, 60100);
    QCOMPARE(types(out), QStringList{QStringLiteral("expired")});
    QCOMPARE(out.first().extra.value(QStringLiteral("lease_lost")).toString(), QStringLiteral("unknown"));
    QVERIFY(out.first().detail.contains(QStringLiteral("cannot tell")));
    QVERIFY(t.findings({}, 61000, QString()).isEmpty());
}

void TestLeaseTracker::nextHolderAndReturnAreNamed()
{
    LeaseTracker t;
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 3000)}, 11000);
    // As the monitor sends them: the read (B holds it now) before the events of that read.
    t.observe(held(QStringLiteral("orders:42"), kHolderB, 3000, 14000));
    auto out = t.process({ev(QStringLiteral("orders:42"), QStringLiteral("expired"), kHolderA, 103000),
                          ev(QStringLiteral("orders:42"), QStringLiteral("acquired"), kHolderB, 103010)},
                         14000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("lease_lost"), QStringLiteral("acquired")}));
    QCOMPARE(out[0].extra.value(QStringLiteral("next_holder")).toString(), kHolderB);
    QCOMPARE(out[0].extra.value(QStringLiteral("overlap_from_ms")).toInteger(), 103010);
    QCOMPARE(out[1].extra.value(QStringLiteral("after_lease_lost")).toString(), kHolderA);
    // Another thread of A's client acquires another lock: A was stalled, not dead.
    const QString otherThreadOfA = kA + QStringLiteral(":9");
    out = t.process({ev(QStringLiteral("audit:1"), QStringLiteral("acquired"), otherThreadOfA, 160000)}, 71000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("acquired"), QStringLiteral("holder_returned")}));
    const LockEvent &back = out[1];
    QCOMPARE(back.lock, QStringLiteral("orders:42"));
    QCOMPARE(back.holder, kHolderA);
    QCOMPARE(back.extra.value(QStringLiteral("returned_on")).toString(), QStringLiteral("audit:1"));
    QCOMPARE(back.extra.value(QStringLiteral("next_holder")).toString(), kHolderB);
    QCOMPARE(back.extra.value(QStringLiteral("overlap_from_ms")).toInteger(), 103010);
    QCOMPARE(back.extra.value(QStringLiteral("overlap_to_ms")).toInteger(), 160000);
    // Only once.
    out = t.process({ev(QStringLiteral("audit:1"), QStringLiteral("released"), otherThreadOfA, 161000)}, 72000);
    QCOMPARE(types(out), QStringList{QStringLiteral("released")});
    const auto f = t.findings({}, 72000, QString());
    QCOMPARE(codes(f), QStringList{QStringLiteral("lease_lost")});
    QVERIFY(f.first().evidence.value(QStringLiteral("returned")).toBool());
    QCOMPARE(f.first().evidence.value(QStringLiteral("next_holder")).toString(), kHolderB);
    // "holds it now" only while B does (issue 38): not once the lock is free again.
    QVERIFY2(f.first().explanation.contains(QStringLiteral("held it after it")), qPrintable(f.first().explanation));
    const auto whileHeld = t.findings(
        {{QStringLiteral("orders:42"), held(QStringLiteral("orders:42"), kHolderB, 3000, 72000)}}, 72000, QString());
    QVERIFY2(whileHeld.first().explanation.contains(QStringLiteral("holds it now")),
             qPrintable(whileHeld.first().explanation));
}

void TestLeaseTracker::lateRenewalIsAnEventAndAFinding()
{
    LeaseTracker t;
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 30000)}, 11000);
    // On time: two thirds left.
    auto out = t.process({renewed(QStringLiteral("orders:42"), kHolderA, 110000, 19900, 30000)}, 21000);
    QCOMPARE(types(out), QStringList{QStringLiteral("renewed")});
    // 18 s later instead of 10: 12 s of 30 left.
    out = t.process({renewed(QStringLiteral("orders:42"), kHolderA, 128000, 12000, 30000)}, 39000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("renewed"), QStringLiteral("renewal_late")}));
    QCOMPARE(out[1].extra.value(QStringLiteral("expected_interval_ms")).toInteger(), 10000);
    QCOMPARE(out[1].extra.value(QStringLiteral("actual_interval_ms")).toInteger(), 18000);
    QCOMPARE(out[1].extra.value(QStringLiteral("margin_ms")).toInteger(), 12000);
    // Not below lease/3 yet: no finding.
    QVERIFY(t.findings({{QStringLiteral("orders:42"), held(QStringLiteral("orders:42"), kHolderA, 30000, 39000)}},
                       39100, QString())
                .isEmpty());
    // 27 s: 3 s left, below a third: a finding that stays a while.
    out = t.process({renewed(QStringLiteral("orders:42"), kHolderA, 155000, 3000, 30000)}, 66000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("renewed"), QStringLiteral("renewal_late")}));
    const auto f = t.findings(
        {{QStringLiteral("orders:42"), held(QStringLiteral("orders:42"), kHolderA, 30000, 66000)}}, 67000, QString());
    QCOMPARE(codes(f), QStringList{QStringLiteral("renewal_late")});
    QCOMPARE(f.first().severity, LockFinding::Severity::Warning);
    QCOMPARE(f.first().evidence.value(QStringLiteral("lowest_margin_ms")).toInteger(), 3000);
}

void TestLeaseTracker::overdueRenewalIsAFindingBeforeExpiry()
{
    LeaseTracker t;
    t.observe(held(QStringLiteral("orders:42"), kHolderA, 30000, 10000));
    t.process({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 30000)}, 10000);
    const QHash<QString, LockSnapshot> locks{
        {QStringLiteral("orders:42"), held(QStringLiteral("orders:42"), kHolderA, 30000, 10000)}};
    QVERIFY(t.findings(locks, 25000, QString()).isEmpty()); // 15 s left: late but not yet below a third
    const auto f = t.findings(locks, 32000, QString());     // 8 s left, no renewal for 22 s
    QCOMPARE(codes(f), QStringList{QStringLiteral("renewal_late")});
    QVERIFY(f.first().title.contains(QStringLiteral("late")));
}

void TestLeaseTracker::waitersBehindSilentHolder()
{
    LeaseTracker t;
    t.setSilentHolderWaitMs(60000);
    const QString name = QStringLiteral("billing:7");
    t.process({ev(name, QStringLiteral("acquired"), kHolderA, 100000)}, 1000);
    t.observe(held(name, kHolderA, 3600000, 1000));
    t.observe(held(name, kHolderA, 3590000, 11000, 1)); // a waiter subscribes at 11 s
    QHash<QString, LockSnapshot> locks{{name, held(name, kHolderA, 3590000, 11000, 1)}};
    QVERIFY(t.findings(locks, 60000, QString()).isEmpty()); // 49 s of waiting
    const auto f = t.findings(locks, 72000, QStringLiteral("--url redis://127.0.0.1:6379"));
    QCOMPARE(codes(f), QStringList{QStringLiteral("waiters_behind_silent_holder")});
    QCOMPARE(f.first().evidence.value(QStringLiteral("waiters")).toInteger(), 1);
    QVERIFY(f.first().evidence.value(QStringLiteral("waiting_ms")).toInteger() >= 60000);
    QVERIFY(
        f.first().action.contains(QStringLiteral("lockscope-cli force-unlock billing:7 --url redis://127.0.0.1:6379")));
}

void TestLeaseTracker::activeHolderIsNotSilent()
{
    LeaseTracker t;
    const QString name = QStringLiteral("billing:7");
    t.observe(held(name, kHolderA, 3600000, 1000, 1));
    // The holder's client acquires something else meanwhile: it is alive.
    t.process({ev(QStringLiteral("other"), QStringLiteral("acquired"), kA + QStringLiteral(":3"), 150000)}, 50000);
    QHash<QString, LockSnapshot> locks{{name, held(name, kHolderA, 3600000, 1000, 1)}};
    QVERIFY(t.findings(locks, 90000, QString()).isEmpty());
    // A watchdog lock renewing is never "silent".
    LeaseTracker w;
    w.observe(held(name, kHolderA, 30000, 1000, 1));
    w.process({renewed(name, kHolderA, 110000, 20000, 30000)}, 11000);
    QVERIFY(codes(w.findings({{name, held(name, kHolderA, 30000, 61000, 1)}}, 70000, QString()))
                .filter(QStringLiteral("silent"))
                .isEmpty());
}

void TestLeaseTracker::failoverLossIsReported()
{
    const QString name = QStringLiteral("orders:42");
    QHash<QString, LockSnapshot> locks{{name, held(name, kHolderA, 30000, 1000)}};
    LeaseTracker t([&locks] { return locks; });
    auto out = t.process({ev(QString(), QStringLiteral("failover"), QString(), 101000)}, 2000);
    QCOMPARE(types(out), QStringList{QStringLiteral("failover")});
    QJsonObject unknown{{QStringLiteral("removal"), QStringLiteral("unknown")}};
    out = t.process({ev(name, QStringLiteral("released"), kHolderA, 103000, unknown),
                     ev(name, QStringLiteral("acquired"), kHolderB, 103500)},
                    4000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("lost_in_failover"), QStringLiteral("acquired")}));
    QCOMPARE(out[0].extra.value(QStringLiteral("next_holder")).toString(), kHolderB);
    QVERIFY(out[0].detail.contains(QStringLiteral("RedLock")));
    const auto f = t.findings({}, 5000, QString());
    QCOMPARE(codes(f), QStringList{QStringLiteral("lost_in_failover")});
    QCOMPARE(f.first().evidence.value(QStringLiteral("next_holder")).toString(), kHolderB);
}

void TestLeaseTracker::lockSurvivingFailoverIsNoLoss()
{
    const QString name = QStringLiteral("orders:42");
    QHash<QString, LockSnapshot> locks{{name, held(name, kHolderA, 30000, 1000)}};
    LeaseTracker t([&locks] { return locks; });
    t.process({ev(QString(), QStringLiteral("failover"), QString(), 101000)}, 2000);
    t.observe(held(name, kHolderA, 28000, 3000)); // read on the new master: still there
    const auto out = t.process({ev(name, QStringLiteral("released"), kHolderA, 110000)}, 11000);
    QCOMPARE(types(out), QStringList{QStringLiteral("released")});
    // A lease that ran out on its own during the failover is an expiry, not a loss.
    LeaseTracker u([&locks] { return locks; });
    u.process({ev(QString(), QStringLiteral("failover"), QString(), 101000)}, 2000);
    const auto late = u.process({ev(name, QStringLiteral("expired"), kHolderA, 140000)}, 40000);
    QCOMPARE(types(late), QStringList{QStringLiteral("expired")});
}

void TestLeaseTracker::secondTrackerReachesTheSameFindings()
{
    LeaseTracker first;
    LeaseTracker second;
    auto both = [&](const QVector<LockEvent> &events, qint64 now) {
        const auto out = first.process(events, now);
        second.process(out, now);
        return out;
    };
    both({renewed(QStringLiteral("orders:42"), kHolderA, 100000, 20000, 3000)}, 11000);
    both({ev(QStringLiteral("orders:42"), QStringLiteral("expired"), kHolderA, 103000),
          ev(QStringLiteral("orders:42"), QStringLiteral("acquired"), kHolderB, 103010)},
         14000);
    const auto out =
        both({ev(QStringLiteral("x"), QStringLiteral("acquired"), kA + QStringLiteral(":2"), 110000)}, 21000);
    QCOMPARE(types(out).count(QStringLiteral("holder_returned")), 1);
    const auto a = first.findings({}, 22000, QString());
    const auto b = second.findings({}, 22000, QString());
    QCOMPARE(codes(a), codes(b));
    QCOMPARE(a.first().evidence, b.first().evidence);
}

void TestLeaseTracker::clientOfHolderFields()
{
    QCOMPARE(LeaseTracker::clientOf(kHolderA), kA);
    QCOMPARE(LeaseTracker::clientOf(kA + QStringLiteral(":12:write")), kA);
    QCOMPARE(LeaseTracker::clientOf(QStringLiteral("x:1")), QStringLiteral("x"));
}

// Issue 37: the server's clock jumps +1 h 0.4 s after a renewal; Redis expires the lock at once.
// The lease is lost (the holder still believes it holds it), but the clock is named, not the holder.
void TestLeaseTracker::serverClockJumpIsNotBlamedOnTheHolder()
{
    LeaseTracker t;
    const QString lock = QStringLiteral("orders:42");
    renewedTwiceWithAServerRead(t, lock);
    LockSnapshot gone;
    gone.name = lock;
    gone.serverTimeMs = 110400 + 3600000;
    gone.readAtSteadyMs = 20400;
    t.observe(gone);
    const auto out = t.process({ev(lock, QStringLiteral("expired"), kHolderA, gone.serverTimeMs)}, 20400);
    QCOMPARE(types(out), QStringList{QStringLiteral("lease_lost")});
    QCOMPARE(out.first().extra.value(QStringLiteral("meaning")).toString(), QStringLiteral("server_clock_jump"));
    QCOMPARE(out.first().extra.value(QStringLiteral("server_clock_jump_ms")).toInteger(), 3600000);
    QVERIFY2(!out.first().detail.contains(QStringLiteral("stalled")), qPrintable(out.first().detail));
    QVERIFY2(out.first().detail.contains(QStringLiteral("server's clock")), qPrintable(out.first().detail));
    const auto f = t.findings({}, 21000, QString());
    QCOMPARE(codes(f), QStringList{QStringLiteral("lease_lost")});
    QVERIFY2(f.first().title.contains(QStringLiteral("clock")), qPrintable(f.first().title));
    QVERIFY2(f.first().action.contains(QStringLiteral("clock of the Redis server")), qPrintable(f.first().action));

    // Without the jump (same reads, real time), the same expiry is the holder's.
    LeaseTracker u;
    renewedTwiceWithAServerRead(u, lock);
    gone.serverTimeMs = 140500;
    gone.readAtSteadyMs = 50500;
    u.observe(gone);
    const auto plain = u.process({ev(lock, QStringLiteral("expired"), kHolderA, 140500)}, 50500);
    QCOMPARE(plain.first().extra.value(QStringLiteral("meaning")).toString(), QStringLiteral("stalled_or_dead"));
}

// A server clock running twice as fast: the watchdog renews every 10 s of real time, 20 s by the
// server's clock, with a third of the lease left. Late, but the clock's doing, and it says so.
void TestLeaseTracker::fastServerClockIsNotBlamedOnTheHolder()
{
    LeaseTracker t;
    const QString lock = QStringLiteral("orders:42");
    auto read = [&](qint64 serverMs, qint64 steadyMs) {
        LockSnapshot s = held(lock, kHolderA, 30000, steadyMs);
        s.serverTimeMs = serverMs;
        return s;
    };
    t.process({renewed(lock, kHolderA, 100000, 20000, 30000)}, 10000);
    t.observe(read(100000, 10000));
    t.process({renewed(lock, kHolderA, 100000, 20000, 30000)}, 10000);
    // 10 s of real time later the server's TIME moved 20 s, and only 10 s of the lease is left.
    t.observe(read(120000, 20000));
    const auto out = t.process({renewed(lock, kHolderA, 110000, 10000, 30000)}, 20000);
    QCOMPARE(types(out), (QStringList{QStringLiteral("renewed"), QStringLiteral("renewal_late")}));
    QCOMPARE(out[1].extra.value(QStringLiteral("server_clock_rate")).toDouble(), 2.0);
    QCOMPARE(out[1].extra.value(QStringLiteral("real_interval_ms")).toInteger(), 10000);
    QVERIFY2(out[1].detail.contains(QStringLiteral("2.0 times as fast")), qPrintable(out[1].detail));
    // A jump of LockScope's own wall clock (the events' times) is not the server's doing.
    LeaseTracker u;
    u.process({renewed(lock, kHolderA, 100000, 20000, 30000)}, 10000);
    u.observe(read(100000, 10000));
    u.process({renewed(lock, kHolderA, 100000, 20000, 30000)}, 10000);
    u.observe(read(110000, 20000));
    const auto own = u.process({renewed(lock, kHolderA, 3710000, 12000, 30000)}, 20000);
    QCOMPARE(types(own), (QStringList{QStringLiteral("renewed"), QStringLiteral("renewal_late")}));
    QVERIFY(!own[1].extra.contains(QStringLiteral("server_clock_rate")));
}

// The usual way a jump shows: nobody takes the lock, its read finds it gone, and the monitor puts
// that read's server time on the event (read_server_ms), which is taken off again.
void TestLeaseTracker::serverClockJumpSeenOnTheExpiryItself()
{
    LeaseTracker t;
    const QString lock = QStringLiteral("orders:42");
    renewedTwiceWithAServerRead(t, lock);
    LockEvent expired = ev(lock, QStringLiteral("expired"), kHolderA, 110400);
    expired.extra.insert(QStringLiteral("read_server_ms"), 110400 + 3600000);
    expired.extra.insert(QStringLiteral("read_steady_ms"), 20400);
    const auto out = t.process({expired}, 20400);
    QCOMPARE(types(out), QStringList{QStringLiteral("lease_lost")});
    QCOMPARE(out.first().extra.value(QStringLiteral("meaning")).toString(), QStringLiteral("server_clock_jump"));
    QVERIFY(!out.first().extra.contains(QStringLiteral("read_server_ms")));
}

QTEST_GUILESS_MAIN(TestLeaseTracker)
#include "tst_leasetracker.moc"
