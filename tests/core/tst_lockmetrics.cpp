// core/metrics without a server: the Prometheus writer (both formats, escaping), lock grouping
// (default rule, --group rules, the --max-groups cap), LockMetrics fed with snapshots and events
// as the monitor emits them (groups, hold/wait ages, histograms, renewal_lost, findings), the
// lease-safety counters and the renewal-margin histogram fed with the session's LeaseTracker
// events, the series bound with many locks (reached exactly), and the --web-config subset
// (errors name the entry; bcrypt).

#include "metrics/lockgrouper.h"
#include "metrics/lockmetrics.h"
#include "metrics/prometheuswriter.h"
#include "metrics/webconfig.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

using namespace lockscope;

namespace
{

LockSnapshot held(const QString &name, const QString &field, qint64 pttlMs = 30000)
{
    LockSnapshot s;
    s.name = name;
    s.isLock = true;
    s.exists = true;
    s.pttlMs = pttlMs;
    LockHolder h;
    h.field = field;
    h.clientId = field.section(QLatin1Char(':'), 0, 0);
    h.threadId = field.section(QLatin1Char(':'), 1);
    h.holdCount = 1;
    s.holders = {h};
    s.readAtSteadyMs = LockSnapshot::steadyNowMs();
    return s;
}

LockEvent lockEvent(const QString &lock, const QString &type, const QString &holder, qint64 timeMs,
                    const QString &detail = QString())
{
    LockEvent e;
    e.lock = lock;
    e.type = type;
    e.holder = holder;
    e.timeMs = timeMs;
    e.detail = detail;
    return e;
}

/** The value of the sample line that starts with `series` ("name{labels}"), NaN when absent. */
double valueOf(const QByteArray &exposition, const QByteArray &series)
{
    for (const QByteArray &line : exposition.split('\n'))
        if (line.startsWith(series + ' '))
            return line.mid(series.size() + 1).toDouble();
    return std::nan("");
}

} // namespace

class TestLockMetrics : public QObject
{
    Q_OBJECT
private slots:
    void writerFormats();
    void negotiation();
    void defaultGroups();
    void groupRulesAndCap();
    void groupRuleErrors();
    void metricsFromLocksAndEvents();
    void leaseSafetyMetrics();
    void seriesStayBoundedWithManyLocks();
    void webConfigSubset();
    void bcrypt();
};

void TestLockMetrics::writerFormats()
{
    using Type = PrometheusWriter::Type;
    PrometheusWriter text(PrometheusWriter::Format::Text004);
    text.family("lockscope_events_total", Type::Counter, "Events \\ seen\nby type.");
    text.sample({{"group", QStringLiteral("a\"b\\c\nd")}}, 3);
    text.family("lockscope_hold_duration_seconds", Type::Histogram, "Holds.", "seconds");
    text.histogram({{"group", QStringLiteral("g")}}, {0.5, 1}, {1, 2, 3}, 7.25);
    const QByteArray t = text.finish();
    QVERIFY2(t.contains("# HELP lockscope_events_total Events \\\\ seen\\nby type.\n"), t.constData());
    QVERIFY(t.contains("# TYPE lockscope_events_total counter\n"));
    QVERIFY(t.contains("lockscope_events_total{group=\"a\\\"b\\\\c\\nd\"} 3\n"));
    QVERIFY(t.contains("lockscope_hold_duration_seconds_bucket{group=\"g\",le=\"0.5\"} 1\n"));
    QVERIFY(t.contains("lockscope_hold_duration_seconds_bucket{group=\"g\",le=\"1\"} 3\n"));
    QVERIFY(t.contains("lockscope_hold_duration_seconds_bucket{group=\"g\",le=\"+Inf\"} 6\n"));
    QVERIFY(t.contains("lockscope_hold_duration_seconds_sum{group=\"g\"} 7.25\n"));
    QVERIFY(t.contains("lockscope_hold_duration_seconds_count{group=\"g\"} 6\n"));
    QVERIFY(!t.contains("# UNIT") && !t.contains("# EOF"));

    PrometheusWriter om(PrometheusWriter::Format::OpenMetrics);
    om.family("lockscope_events_total", Type::Counter, "Events.");
    om.sample({}, 1);
    om.family("lockscope_hold_duration_seconds", Type::Histogram, "Holds.", "seconds");
    om.histogram({}, {1}, {0, 0}, 0);
    QCOMPARE(om.sampleCount(), 1 + 4);
    const QByteArray o = om.finish();
    QVERIFY2(o.contains("# TYPE lockscope_events counter\nlockscope_events_total 1\n"), o.constData());
    QVERIFY(o.contains("# UNIT lockscope_hold_duration_seconds seconds\n"));
    QVERIFY(o.contains("lockscope_hold_duration_seconds_bucket{le=\"1.0\"} 0\n"));
    QVERIFY(o.endsWith("# EOF\n"));

    QCOMPARE(PrometheusWriter::formatValue(0.1), QByteArray("0.1"));
    QCOMPARE(PrometheusWriter::formatValue(2.986), QByteArray("2.986"));
    QCOMPARE(PrometheusWriter::formatValue(-1), QByteArray("-1"));
    QCOMPARE(PrometheusWriter::formatValue(std::nan("")), QByteArray("NaN"));
}

void TestLockMetrics::negotiation()
{
    using F = PrometheusWriter::Format;
    // What Prometheus 2.42 sends.
    QCOMPARE(PrometheusWriter::negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                                         "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
             F::OpenMetrics);
    QCOMPARE(PrometheusWriter::negotiate("text/plain;version=0.0.4"), F::Text004);
    QCOMPARE(PrometheusWriter::negotiate(""), F::Text004);
    QCOMPARE(PrometheusWriter::negotiate("application/openmetrics-text; q=0"), F::Text004);
    QVERIFY(PrometheusWriter::contentType(F::Text004).startsWith("text/plain; version=0.0.4"));
}

void TestLockMetrics::defaultGroups()
{
    QCOMPARE(LockGrouper::defaultGroup(QStringLiteral("orders:42")), QStringLiteral("orders:*"));
    QCOMPARE(LockGrouper::defaultGroup(QStringLiteral("job-2024-01-05")), QStringLiteral("job-*-*-*"));
    QCOMPARE(LockGrouper::defaultGroup(QStringLiteral("session:5b1cb0c2-7f0e-4d7a-9a51-0d3c5c1e2f3a:lock")),
             QStringLiteral("session:*:lock"));
    QCOMPARE(LockGrouper::defaultGroup(QStringLiteral("legacy:cron")), QStringLiteral("legacy:cron"));
    LockGrouper g;
    QCOMPARE(g.groupOf(QStringLiteral("orders:1")), g.groupOf(QStringLiteral("orders:20000")));
    QCOMPARE(g.groups().size(), 1);
}

void TestLockMetrics::groupRulesAndCap()
{
    LockGrouper::Rule tenant;
    QString error;
    QVERIFY2(LockGrouper::parseRule(QStringLiteral("tenant-(\\w+):.*=tenant:$1"), &tenant, &error), qPrintable(error));
    LockGrouper::Rule orders;
    QVERIFY(LockGrouper::parseRule(QStringLiteral("orders:(\\d+)=orders"), &orders, &error));
    LockGrouper g({tenant, orders}, 3);
    QCOMPARE(g.ruleGroup(QStringLiteral("tenant-acme:invoice:7")), QStringLiteral("tenant:acme"));
    QCOMPARE(g.ruleGroup(QStringLiteral("orders:7")), QStringLiteral("orders"));
    QCOMPARE(g.ruleGroup(QStringLiteral("orders:7:x")), QStringLiteral("orders:*:x")); // whole name must match
    // The cap: three groups, then everything new is "(other)"; groups once given stay.
    const int a = g.groupOf(QStringLiteral("a"));
    g.groupOf(QStringLiteral("b"));
    g.groupOf(QStringLiteral("c"));
    const int other = g.groupOf(QStringLiteral("d"));
    QCOMPARE(g.groups().at(other), LockGrouper::kOverflowGroup);
    QCOMPARE(g.groupOf(QStringLiteral("e")), other);
    QCOMPARE(g.groupOf(QStringLiteral("a")), a);
    QCOMPARE(g.groups().size(), 4);
}

void TestLockMetrics::groupRuleErrors()
{
    LockGrouper::Rule r;
    QString error;
    QVERIFY(!LockGrouper::parseRule(QStringLiteral("orders"), &r, &error));
    QVERIFY2(error.startsWith(QLatin1String("--group needs REGEX=NAME")), qPrintable(error));
    QVERIFY(!LockGrouper::parseRule(QStringLiteral("orders:([=x"), &r, &error));
    QVERIFY2(error.contains(QLatin1String("--group")) && error.contains(QLatin1String("not valid")), qPrintable(error));
    QVERIFY(!LockGrouper::parseRule(QStringLiteral("=x"), &r, &error));
}

void TestLockMetrics::metricsFromLocksAndEvents()
{
    LockMetrics m{LockGrouper()};
    const qint64 t0 = 1700000000000;
    // orders:1 handed over from A to B (A held it 2 s), orders:2 held by a watchdog that renewed
    // it and then expired (renewal_lost), a fair lock with a waiter that waited 0.3 s.
    m.updateLocks({held(QStringLiteral("orders:1"), QStringLiteral("A:1"))}, {});
    m.addEvents({lockEvent(QStringLiteral("orders:1"), QStringLiteral("acquired"), QStringLiteral("A:1"), t0)});
    m.updateLocks({held(QStringLiteral("orders:1"), QStringLiteral("B:1"))}, {});
    m.addEvents({lockEvent(QStringLiteral("orders:1"), QStringLiteral("released"), QStringLiteral("A:1"), t0 + 2000),
                 lockEvent(QStringLiteral("orders:1"), QStringLiteral("acquired"), QStringLiteral("B:1"), t0 + 2001)});
    m.updateLocks({held(QStringLiteral("orders:2"), QStringLiteral("C:1"))}, {});
    m.addEvents({lockEvent(QStringLiteral("orders:2"), QStringLiteral("acquired"), QStringLiteral("C:1"), t0),
                 lockEvent(QStringLiteral("orders:2"), QStringLiteral("renewed"), QStringLiteral("C:1"), t0 + 10000),
                 lockEvent(QStringLiteral("orders:2"), QStringLiteral("expired"), QStringLiteral("C:1"), t0 + 40000)});
    m.updateLocks({}, {QStringLiteral("orders:2")});
    LockSnapshot fair = held(QStringLiteral("jobs:nightly"), QStringLiteral("D:1"));
    fair.kind = LockKind::FairLock;
    fair.queueLength = 1;
    LockWaiter w;
    w.field = QStringLiteral("E:1");
    w.position = 1;
    fair.waiters = {w};
    m.updateLocks({fair}, {});
    m.addEvents(
        {lockEvent(QStringLiteral("jobs:nightly"), QStringLiteral("enqueued"), QStringLiteral("E:1"), t0),
         lockEvent(QStringLiteral("jobs:nightly"), QStringLiteral("dequeued"), QStringLiteral("E:1"), t0 + 300)});
    LockFinding f;
    f.code = QStringLiteral("no_ttl");
    f.severity = LockFinding::Severity::Critical;
    f.lock = QStringLiteral("orders:1");
    m.setFindings({f});

    int series = 0;
    const QByteArray out = m.render(PrometheusWriter::Format::Text004, LockSnapshot::steadyNowMs() + 5000, &series);
    QCOMPARE(valueOf(out, "lockscope_held_locks{group=\"orders:*\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_held_locks{group=\"jobs:nightly\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_waiters{group=\"jobs:nightly\"}"), 1.0);
    QVERIFY(valueOf(out, "lockscope_oldest_hold_seconds{group=\"orders:*\"}") >= 5.0);
    QVERIFY(valueOf(out, "lockscope_longest_wait_seconds{group=\"jobs:nightly\"}") >= 5.0);
    QCOMPARE(valueOf(out, "lockscope_locks{kind=\"lock\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_locks{kind=\"fair_lock\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"acquired\"}"), 3.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"released\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"expired\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"renewed\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"renewal_lost\"}"), 1.0);
    // Holds of 2 s (A) and 40 s (C); B is still held.
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_count{group=\"orders:*\"}"), 2.0);
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_sum{group=\"orders:*\"}"), 42.0);
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_bucket{group=\"orders:*\",le=\"1\"}"), 0.0);
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_bucket{group=\"orders:*\",le=\"5\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_bucket{group=\"orders:*\",le=\"60\"}"), 2.0);
    QCOMPARE(valueOf(out, "lockscope_wait_duration_seconds_count{group=\"jobs:nightly\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_wait_duration_seconds_sum{group=\"jobs:nightly\"}"), 0.3);
    QCOMPARE(valueOf(out, "lockscope_findings{code=\"no_ttl\",severity=\"critical\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_findings{code=\"deadlock\",severity=\"critical\"}"), 0.0);
    QCOMPARE(
        valueOf(out,
                "lockscope_finding_info{lock=\"orders:1\",group=\"orders:*\",code=\"no_ttl\",severity=\"critical\"}"),
        1.0);
    QVERIFY(series <= LockMetrics::seriesBound(LockGrouper::kDefaultMaxGroups, LockMetrics::kDefaultMaxNamedFindings));
}

void TestLockMetrics::leaseSafetyMetrics()
{
    LockMetrics m{LockGrouper()};
    const qint64 t0 = 1700000000000;
    auto renewed = [](const QString &lock, const QString &holder, qint64 timeMs, qint64 marginMs) {
        LockEvent e = lockEvent(lock, QStringLiteral("renewed"), holder, timeMs);
        if (marginMs >= 0) {
            e.extra.insert(QStringLiteral("margin_ms"), marginMs);
            e.extra.insert(QStringLiteral("pttl_ms"), 30000);
        }
        return e;
    };
    // orders:1, as LeaseTracker reports a frozen service: A's watchdog renews on time (19.9 s of
    // a 30 s lease left), late (12 s left: renewal_late), nearly too late (0.4 s), then stops;
    // the lease is lost, B acquires, A comes back.
    m.updateLocks({held(QStringLiteral("orders:1"), QStringLiteral("A:1"))}, {});
    LockEvent late =
        lockEvent(QStringLiteral("orders:1"), QStringLiteral("renewal_late"), QStringLiteral("A:1"), t0 + 28000);
    late.extra.insert(QStringLiteral("margin_ms"), 12000);
    LockEvent lost =
        lockEvent(QStringLiteral("orders:1"), QStringLiteral("lease_lost"), QStringLiteral("A:1"), t0 + 60000);
    lost.extra.insert(QStringLiteral("lease_ms"), 30000);
    lost.extra.insert(QStringLiteral("next_holder"), QStringLiteral("B:1"));
    LockEvent back =
        lockEvent(QStringLiteral("orders:1"), QStringLiteral("holder_returned"), QStringLiteral("A:1"), t0 + 70000);
    back.extra.insert(QStringLiteral("returned_on"), QStringLiteral("orders:2"));
    m.addEvents({lockEvent(QStringLiteral("orders:1"), QStringLiteral("acquired"), QStringLiteral("A:1"), t0),
                 renewed(QStringLiteral("orders:1"), QStringLiteral("A:1"), t0 + 10100, 19900),
                 renewed(QStringLiteral("orders:1"), QStringLiteral("A:1"), t0 + 28000, 12000), late,
                 renewed(QStringLiteral("orders:1"), QStringLiteral("A:1"), t0 + 57600, 400),
                 renewed(QStringLiteral("orders:1"), QStringLiteral("A:1"), t0 + 57700, -1)});
    m.addEvents(
        {lost, lockEvent(QStringLiteral("orders:1"), QStringLiteral("acquired"), QStringLiteral("B:1"), t0 + 60001)});
    m.updateLocks({held(QStringLiteral("orders:1"), QStringLiteral("B:1"))}, {});
    m.addEvents({back});
    // payments:3 renewed on time with a 60 s lease (40 s left: above every bucket).
    m.addEvents({renewed(QStringLiteral("payments:3"), QStringLiteral("P:1"), t0, 40000)});
    // billing:7 lost in a failover 5 s after its acquire; the fenced lock ledger's token went down.
    m.addEvents(
        {lockEvent(QStringLiteral("billing:7"), QStringLiteral("acquired"), QStringLiteral("C:1"), t0),
         lockEvent(QStringLiteral("billing:7"), QStringLiteral("lost_in_failover"), QStringLiteral("C:1"), t0 + 5000),
         lockEvent(QStringLiteral("ledger"), QStringLiteral("token_regressed"), QString(), t0 + 5000)});
    // inventory:9: renewed, then expired while LockScope was disconnected; the tracker cannot tell
    // and leaves it `expired`: a renewal_lost, not a lease_lost.
    LockEvent blind =
        lockEvent(QStringLiteral("inventory:9"), QStringLiteral("expired"), QStringLiteral("D:1"), t0 + 40000);
    blind.extra.insert(QStringLiteral("lease_lost"), QStringLiteral("unknown"));
    m.addEvents({lockEvent(QStringLiteral("inventory:9"), QStringLiteral("acquired"), QStringLiteral("D:1"), t0),
                 renewed(QStringLiteral("inventory:9"), QStringLiteral("D:1"), t0 + 10000, 20000), blind});
    LockFinding f;
    f.code = QStringLiteral("lease_lost");
    f.severity = LockFinding::Severity::Critical;
    f.lock = QStringLiteral("orders:1");
    m.setFindings({f});

    int series = 0;
    const QByteArray out = m.render(PrometheusWriter::Format::Text004, LockSnapshot::steadyNowMs(), &series);
    QCOMPARE(valueOf(out, "lockscope_lease_lost_total{group=\"orders:*\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_late_total{group=\"orders:*\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_holder_returned_total{group=\"orders:*\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_lost_in_failover_total{group=\"orders:*\"}"), 0.0);
    QCOMPARE(valueOf(out, "lockscope_lost_in_failover_total{group=\"billing:*\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_token_regressed_total{group=\"ledger\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_lease_lost_total{group=\"inventory:*\"}"), 0.0);
    // The same events by type in lockscope_events_total; renewal_lost counts the lost lease and the
    // renewed hold that expired unseen, and the lost lease is no `expired`.
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"lease_lost\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"renewal_late\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"holder_returned\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"renewed\"}"), 4.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"renewal_lost\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"orders:*\",type=\"expired\"}"), 0.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"billing:*\",type=\"lost_in_failover\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"ledger\",type=\"token_regressed\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"inventory:*\",type=\"renewal_lost\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_events_total{group=\"inventory:*\",type=\"expired\"}"), 1.0);
    // Margins of orders:1: 19.9, 12 and 0.4 s (the renewal without a margin is not observed).
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_count{group=\"orders:*\"}"), 3.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_sum{group=\"orders:*\"}"), 32.3);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"orders:*\",le=\"0.25\"}"), 0.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"orders:*\",le=\"0.5\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"orders:*\",le=\"10\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"orders:*\",le=\"15\"}"), 2.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"orders:*\",le=\"20\"}"), 3.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"payments:*\",le=\"30\"}"), 0.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_bucket{group=\"payments:*\",le=\"+Inf\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_renewal_margin_seconds_count{group=\"ledger\"}"), 0.0);
    // A lost lease and a lock lost in a failover end their holds: A held orders:1 for 60 s.
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_count{group=\"orders:*\"}"), 1.0);
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_sum{group=\"orders:*\"}"), 60.0);
    QCOMPARE(valueOf(out, "lockscope_hold_duration_seconds_sum{group=\"billing:*\"}"), 5.0);
    // The new finding codes are always there.
    QCOMPARE(valueOf(out, "lockscope_findings{code=\"lease_lost\",severity=\"critical\"}"), 1.0);
    for (const char *code : {"renewal_late", "waiters_behind_silent_holder", "lost_in_failover", "token_regressed"})
        QCOMPARE(valueOf(out, QByteArray("lockscope_findings{code=\"") + code + "\",severity=\"warning\"}"), 0.0);
    QVERIFY(out.contains("# HELP lockscope_lease_lost_total Leases lost: "));
    QVERIFY(out.contains("# TYPE lockscope_renewal_margin_seconds histogram\n"));
    QVERIFY(series <= LockMetrics::seriesBound(LockGrouper::kDefaultMaxGroups, LockMetrics::kDefaultMaxNamedFindings));

    const QByteArray om = m.render(PrometheusWriter::Format::OpenMetrics, LockSnapshot::steadyNowMs());
    QVERIFY2(om.contains("# TYPE lockscope_lease_lost counter\n"), om.constData());
    QVERIFY(om.contains("lockscope_lease_lost_total{group=\"orders:*\"} 1\n"));
    QVERIFY(om.contains("# UNIT lockscope_renewal_margin_seconds seconds\n"));
    QVERIFY(om.contains("lockscope_renewal_margin_seconds_bucket{group=\"orders:*\",le=\"0.5\"} 1\n"));
}

void TestLockMetrics::seriesStayBoundedWithManyLocks()
{
    // 20k locks in 10k distinct default groups ("k<i>x<j>" keeps digits apart: "k*x*" is one group,
    // so names carry letters that differ), more than --max-groups: series stay under the bound.
    constexpr int kLocks = 20000;
    constexpr int kMaxGroups = 50;
    LockMetrics m{LockGrouper({}, kMaxGroups), 20};
    QVector<LockSnapshot> batch;
    QVector<LockFinding> findings;
    for (int i = 0; i < kLocks; ++i) {
        QString name = QStringLiteral("svc-");
        for (int n = i % 10000; n > 0 || name.size() == 4; n /= 26)
            name += QChar(u'a' + n % 26);
        name += QStringLiteral(":%1").arg(i);
        batch << held(name, QStringLiteral("c%1:1").arg(i), i % 100 == 0 ? -1 : 30000);
        if (i % 100 == 0) {
            LockFinding f;
            f.code = QStringLiteral("no_ttl");
            f.severity = LockFinding::Severity::Critical;
            f.lock = name;
            findings << f;
        }
    }
    m.updateLocks(batch, {});
    m.setFindings(findings);
    QElapsedTimer clock;
    clock.start();
    int series = 0;
    const QByteArray out = m.render(PrometheusWriter::Format::Text004, LockSnapshot::steadyNowMs(), &series);
    const qint64 ms = clock.elapsed();
    const int bound = LockMetrics::seriesBound(kMaxGroups, 20);
    qInfo("%d locks in %d groups (cap %d): %d series (bound %d), %lld bytes, rendered in %lld ms", kLocks,
          int(m.grouper().groups().size()), kMaxGroups, series, bound, qint64(out.size()), ms);
    QCOMPARE(m.grouper().groups().size(), kMaxGroups + 1);
    // Every group and every named finding in use: the bound is reached, not only respected.
    QCOMPARE(series, bound);
    QCOMPARE(valueOf(out, "lockscope_locks{kind=\"lock\"}"), double(kLocks));
    QCOMPARE(out.count("lockscope_finding_info{"), 20);
    QVERIFY(valueOf(out, "lockscope_held_locks{group=\"(other)\"}") > 0);
}

void TestLockMetrics::webConfigSubset()
{
    QTemporaryDir dir;
    auto write = [&dir](const QString &name, const QByteArray &text) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    WebConfig c;
    QString error;
    const QByteArray hash = WebConfig::hashBcrypt("s3cret", 4);
    QVERIFY(!hash.isEmpty());
    write(QStringLiteral("auth.yml"),
          "# comment\nbasic_auth_users:\n  prometheus: " + hash + "\n  'ops': '" + hash + "'\n");
    QVERIFY2(WebConfig::load(dir.filePath(QStringLiteral("auth.yml")), &c, &error), qPrintable(error));
    QCOMPARE(c.basicAuthUsers.size(), 2);
    QVERIFY(!c.hasTls());

    write(QStringLiteral("bad1.yml"), "http_server_config:\n  http2: true\n");
    QVERIFY(!WebConfig::load(dir.filePath(QStringLiteral("bad1.yml")), &c, &error));
    QVERIFY2(error.contains(QLatin1String("--web-config")) && error.contains(QLatin1String("line 1")) &&
                 error.contains(QLatin1String("'http_server_config' is not supported")),
             qPrintable(error));
    write(QStringLiteral("bad2.yml"),
          "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  cipher_suites: x\n");
    QVERIFY(!WebConfig::load(dir.filePath(QStringLiteral("bad2.yml")), &c, &error));
    QVERIFY2(error.contains(QLatin1String("line 4")) && error.contains(QLatin1String("'cipher_suites'")),
             qPrintable(error));
    write(QStringLiteral("bad3.yml"), "basic_auth_users:\n  alice: plaintext\n");
    QVERIFY(!WebConfig::load(dir.filePath(QStringLiteral("bad3.yml")), &c, &error));
    QVERIFY2(error.contains(QLatin1String("not a bcrypt hash")), qPrintable(error));
    write(QStringLiteral("bad4.yml"), "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n");
    QVERIFY(!WebConfig::load(dir.filePath(QStringLiteral("bad4.yml")), &c, &error));
    QVERIFY2(error.contains(QLatin1String("cannot read cert_file")) &&
                 error.contains(dir.filePath(QStringLiteral("missing.crt"))),
             qPrintable(error));
    QVERIFY(!WebConfig::load(dir.filePath(QStringLiteral("none.yml")), &c, &error));
    QVERIFY2(error.contains(QLatin1String("cannot read it")), qPrintable(error));
}

void TestLockMetrics::bcrypt()
{
    const QByteArray hash = WebConfig::hashBcrypt("correct horse", 4);
    QVERIFY2(hash.startsWith("$2b$04$") && hash.size() == 60, hash.constData());
    QVERIFY(WebConfig::verifyBcrypt("correct horse", hash));
    QVERIFY(!WebConfig::verifyBcrypt("correct horsf", hash));
    QVERIFY(!WebConfig::verifyBcrypt("", hash));
    QByteArray y = hash;
    y[2] = 'y'; // htpasswd writes $2y$: the same algorithm
    QVERIFY(WebConfig::verifyBcrypt("correct horse", y));
    QVERIFY(!WebConfig::verifyBcrypt("x", "plaintext"));
}

QTEST_GUILESS_MAIN(TestLockMetrics)
#include "tst_lockmetrics.moc"
