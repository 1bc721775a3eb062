// lockscope-bench: the production-scale benchmark (200k locks among 1M keys). Seeds a private
// redis-server with Redisson locks among other keys and measures the CLI, the engine, the
// dashboard (offscreen), the event stream of `watch` and the lock client against node-redisson;
// prints ONE markdown table with each production-scale target (README "Performance") and
// PASS/FAIL. Not a test: it asserts nothing (the ctest bench_smoke only runs --quick to the end).
// Headless: it needs no display.
//   lockscope-bench [--locks 200000] [--other-keys 800000] [--quick] [--long] [--dashboard-ms N] ...
#include "benchprocess.h"
#include "pingprobe.h"

#include "demo/redisserverprocess.h"
#include "lock/lockclient.h"
#include "protocol/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redisscript.h"
#include "redis/redissubscriber.h"
#include "watch/clienttracker.h"
#include "watch/lockdiscovery.h"
#include "watch/lockmonitor.h"
#include "watch/snapshotreader.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>
#include <QUuid>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include <sys/resource.h>

using namespace lockscope;
using namespace lockscope::bench;

namespace
{

// ---------------------------------------------------------------------------------------------
// The table

struct Row {
    QString measure;
    QString lockscope;
    QString peer;    ///< node-redisson, "" when there is none
    QString target;  ///< "" when the row has no target
    QString verdict; ///< PASS, FAIL, "-" (no target / not measured)
    QString how;
};

QVector<Row> g_rows;

void addRow(const QString &measure, const QString &value, const QString &target, const QString &verdict,
            const QString &how, const QString &peer = QString())
{
    g_rows.push_back({measure, value, peer, target, verdict, how});
    std::fprintf(stderr, "[bench] %s: %s%s\n", qPrintable(measure), qPrintable(value),
                 verdict.isEmpty() || verdict == QLatin1String("-") ? ""
                                                                    : qPrintable(QStringLiteral(" (%1)").arg(verdict)));
}

QString passFail(bool pass)
{
    return pass ? QStringLiteral("PASS") : QStringLiteral("FAIL");
}
QString ms(double v)
{
    return v < 10 ? QString::number(v, 'f', 2) + QStringLiteral(" ms")
                  : QString::number(v, 'f', 0) + QStringLiteral(" ms");
}
QString secs(qint64 msValue)
{
    return QString::number(msValue / 1000.0, 'f', 2) + QStringLiteral(" s");
}
QString mb(qint64 kb)
{
    return QString::number(kb / 1024.0, 'f', 0) + QStringLiteral(" MB");
}
QString count(qint64 n)
{
    if (n >= 1000000 && n % 100000 == 0)
        return QString::number(n / 1000000.0, 'g', 3) + QLatin1Char('M');
    if (n >= 1000 && n % 1000 == 0)
        return QString::number(n / 1000) + QLatin1Char('k');
    return QString::number(n);
}

void printTable(const QString &header)
{
    std::printf("\n%s\n\n", qPrintable(header));
    std::printf("| Measure | LockScope | Peer (node-redisson, naive script) | Target | Result | Measured by |\n");
    std::printf("|---|---|---|---|---|---|\n");
    auto cell = [](QString s) { return s.replace(QLatin1Char('|'), QStringLiteral("\\|")); };
    for (const Row &r : g_rows)
        std::printf("| %s | %s | %s | %s | %s | %s |\n", qPrintable(cell(r.measure)), qPrintable(cell(r.lockscope)),
                    qPrintable(cell(r.peer.isEmpty() ? QStringLiteral("-") : r.peer)),
                    qPrintable(cell(r.target.isEmpty() ? QStringLiteral("-") : r.target)),
                    qPrintable(r.verdict.isEmpty() ? QStringLiteral("-") : r.verdict), qPrintable(cell(r.how)));
    std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// Event-loop helpers

/** Runs the event loop until `done()` or `timeoutMs`. Sleeps between events (a 2 ms tick wakes it
 *  to re-check), so the bench never spins a core the measured processes need. */
bool waitFor(const std::function<bool()> &done, qint64 timeoutMs)
{
    QElapsedTimer t;
    t.start();
    QTimer tick;
    tick.start(2);
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

void sleepMs(qint64 msValue)
{
    QElapsedTimer t;
    t.start();
    waitFor([&] { return t.elapsed() >= msValue; }, msValue + 1000);
}

RedisReply call(RedisConnection &c, const QList<QByteArray> &argv, int timeoutMs = 60000)
{
    RedisReply out = RedisReply::makeError(QStringLiteral("timeout"), true);
    bool done = false;
    c.send(argv, nullptr, [&](const RedisReply &r) {
        out = r;
        done = true;
    });
    waitFor([&] { return done; }, timeoutMs);
    return out;
}

std::unique_ptr<RedisConnection> connectTo(const RedisServerProcess &server, const QByteArray &name)
{
    auto c = std::make_unique<RedisConnection>(server.endpoint());
    c->setClientName(name);
    c->setCommandTimeoutMs(120000);
    c->open();
    waitFor([&] { return c->isReady(); }, 10000);
    return c;
}

/** The text after `field:` in `INFO section`; nullopt when there is no such line. */
std::optional<QByteArray> infoText(RedisConnection &c, const QByteArray &section, const QByteArray &field)
{
    const QByteArray info = call(c, {"INFO", section}).toByteArray();
    for (const QByteArray &line : info.split('\n'))
        if (line.startsWith(field + ':'))
            return line.mid(field.size() + 1).trimmed();
    return std::nullopt;
}

qint64 infoField(RedisConnection &c, const QByteArray &section, const QByteArray &field)
{
    const std::optional<QByteArray> text = infoText(c, section, field);
    return text ? text->toLongLong() : -1;
}

/** Sends `commands` in pipelines of `chunk`, at most 8 in flight. */
void pipelined(RedisConnection &c, const QList<QList<QByteArray>> &commands, int chunk = 2000)
{
    int pending = 0;
    for (int i = 0; i < commands.size(); i += chunk) {
        ++pending;
        c.pipeline(commands.mid(i, chunk), nullptr, [&pending](const QVector<RedisReply> &) { --pending; });
        waitFor([&] { return pending < 8; }, 120000);
    }
    waitFor([&] { return pending == 0; }, 120000);
}

// ---------------------------------------------------------------------------------------------
// Seeding

QByteArray lockName(int i)
{
    return "bench:lock:" + QByteArray::number(i);
}

/** `locks` Redisson locks (hash "<uuid>:<threadId>" -> hold count, 6 h TTL) and `other` other keys:
 *  80 % strings, 20 % non-lock hashes (the candidates a TYPE hash scan cannot tell apart). */
void seed(RedisConnection &c, int locks, int other)
{
    const int chunk = 20000;
    for (int i = 0; i < locks; i += chunk) {
        QList<QList<QByteArray>> cmds;
        for (int j = i; j < qMin(locks, i + chunk); ++j) {
            const QByteArray field = QByteArrayLiteral("b983c153-7421-469a-addb-") +
                                     QByteArray::number(100000000000LL + j % 1000) + ':' +
                                     QByteArray::number(j % 64 + 1);
            cmds << QList<QByteArray>{"HSET", lockName(j), field, QByteArray::number(1 + j % 3)};
            cmds << QList<QByteArray>{"PEXPIRE", lockName(j), QByteArray::number(6 * 3600 * 1000 + j)};
        }
        pipelined(c, cmds);
    }
    for (int i = 0; i < other; i += chunk) {
        QList<QList<QByteArray>> cmds;
        for (int j = i; j < qMin(other, i + chunk); ++j) {
            if (j % 5 == 0)
                cmds << QList<QByteArray>{"HSET", "bench:session:" + QByteArray::number(j),
                                          "user", QByteArray::number(j),
                                          "seen", "1700000000"};
            else
                cmds << QList<QByteArray>{"SET", "bench:cache:" + QByteArray::number(j), "some cached value"};
        }
        pipelined(c, cmds);
    }
}

// ---------------------------------------------------------------------------------------------
// SLOWLOG

struct SlowlogSummary {
    int entries = 0; ///< LockScope's entries (client name "lockscope")
    qint64 slowestUs = 0;
    QString slowestCommand;
};

void slowlogReset(RedisConnection &c)
{
    call(c, {"CONFIG", "SET", "slowlog-log-slower-than", "1000"});
    call(c, {"CONFIG", "SET", "slowlog-max-len", "10000"});
    call(c, {"SLOWLOG", "RESET"});
}

/** Whether a SLOWLOG entry is LockScope's: client name "lockscope", or "lockscope-scan" of the
 *  CLI's discovery connection (RedisConnectionPool). */
bool isLockScopeEntry(const RedisReply &e)
{
    return e.at(5).toByteArray().startsWith("lockscope");
}

/** The SLOWLOG entries `counts` accepts (LockScope's by default). */
SlowlogSummary slowlogSummary(RedisConnection &c, bool (*counts)(const RedisReply &entry) = isLockScopeEntry)
{
    SlowlogSummary s;
    const RedisReply r = call(c, {"SLOWLOG", "GET", "10000"});
    for (const RedisReply &e : r.elements()) {
        // [id, unix time, duration µs, [argv...], client addr, client name]
        if (e.size() < 6 || !counts(e))
            continue;
        ++s.entries;
        const qint64 us = e.at(2).toInteger();
        if (us > s.slowestUs) {
            s.slowestUs = us;
            QStringList argv;
            for (const RedisReply &a : e.at(3).elements())
                argv << QString::fromUtf8(a.toByteArray().left(24));
            s.slowestCommand = argv.mid(0, 3).join(QLatin1Char(' '));
        }
    }
    return s;
}

/** SLOWLOG entries whose command is `command` (case-insensitive): a control's own calls, not the
 *  commands its scripts ran inside them (Redis 7 logs those too, under the script's entry). */
int slowlogEntriesOf(RedisConnection &admin, const QByteArray &command)
{
    const RedisReply r = call(admin, {"SLOWLOG", "GET", "10000"});
    int n = 0;
    for (const RedisReply &e : r.elements())
        if (e.size() >= 4 && e.at(3).size() > 0 &&
            e.at(3).at(0).toByteArray().compare(command, Qt::CaseInsensitive) == 0)
            ++n;
    return n;
}

/** Runs `redis-benchmark -p port -n 100000000 -q args...` for `ms` after a SLOWLOG RESET, and
 *  counts the entries over 1 ms of its own `command` (slowlogEntriesOf()); -1 when
 *  redis-benchmark is missing or does not start. What the SLOWLOG controls share. */
int benchmarkControlEntries(RedisConnection &admin, int port, qint64 ms, const QStringList &args,
                            const QByteArray &command)
{
    call(admin, {"SLOWLOG", "RESET"});
    const QString program = QStandardPaths::findExecutable(QStringLiteral("redis-benchmark"));
    if (program.isEmpty())
        return -1;
    const ChildRun run = runChild(program,
                                  QStringList{QStringLiteral("-p"), QString::number(port), QStringLiteral("-n"),
                                              QStringLiteral("100000000"), QStringLiteral("-q")} +
                                      args,
                                  ms);
    if (!run.started)
        return -1;
    return slowlogEntriesOf(admin, command);
}

/** Control for the SLOWLOG rows: entries over 1 ms of any client while redis-benchmark runs plain
 *  HGETALLs of small hashes (each a microsecond of work) for `ms`. On a machine that stalls
 *  redis-server now and then (a VM, a busy host), these appear without LockScope; -1 when
 *  redis-benchmark is missing. */
int controlSlowlogEntries(RedisConnection &admin, int port, qint64 ms)
{
    return benchmarkControlEntries(admin, port, ms,
                                   {QStringLiteral("-P"), QStringLiteral("16"), QStringLiteral("-r"),
                                    QStringLiteral("1000000"), QStringLiteral("hgetall"),
                                    QStringLiteral("bench:session:__rand_int__")},
                                   "HGETALL");
}

/** Second control, closer to LockScope's own load: one connection runs a script that works for
 *  `workUs` (it reads TIME until that much has passed) again and again for `ms`, so redis-server is
 *  inside a command most of the time, as during a discovery. Entries over 1 ms are then this
 *  machine stalling redis-server in the middle of a command that does a known amount of work:
 *  the chance any command of that length has here. -1 when redis-benchmark is missing. */
int controlBusyScriptEntries(RedisConnection &admin, int port, qint64 ms, int workUs)
{
    const QString spin =
        QStringLiteral("local t = redis.call('time') local t0 = t[1] * 1000000 + t[2] "
                       "repeat t = redis.call('time') until t[1] * 1000000 + t[2] - t0 >= tonumber(ARGV[1]) return 1");
    return benchmarkControlEntries(admin, port, ms,
                                   {QStringLiteral("-c"), QStringLiteral("1"), QStringLiteral("EVAL"), spin,
                                    QStringLiteral("0"), QString::number(workUs)},
                                   "EVAL");
}

/** Runs `work` while a thread of this process keeps the machine's other core busy for `loadShare`
 *  (0..1) of the time, in slices of 10 ms, as the CLI's own client work does when it runs on the
 *  Redis host. On a VM a busy second vCPU makes the host stall the first more often (measured
 *  here: a script control had 8 entries in 48 s alone and 51 with a busy loop beside it). */
int underLoad(double loadShare, const std::function<int()> &work)
{
    std::atomic<bool> stop{false};
    std::thread load([&stop, loadShare] {
        using Clock = std::chrono::steady_clock;
        const auto busy = std::chrono::microseconds(qint64(10000 * qBound(0.0, loadShare, 1.0)));
        const auto idle = std::chrono::microseconds(10000) - busy;
        volatile quint64 sink = 0;
        while (!stop.load(std::memory_order_relaxed)) {
            const auto until = Clock::now() + busy;
            while (Clock::now() < until)
                sink = sink + 1;
            if (idle.count() > 0)
                std::this_thread::sleep_for(idle);
        }
    });
    const int result = work();
    stop = true;
    load.join();
    return result;
}

/** Mean server time per call of `command` (µs) from INFO commandstats since the last CONFIG
 *  RESETSTAT ("cmdstat_scan:calls=..,usec=..,usec_per_call=.."); -1 when absent. */
double usecPerCall(RedisConnection &admin, const QByteArray &command)
{
    const std::optional<QByteArray> stats = infoText(admin, "commandstats", "cmdstat_" + command.toLower());
    for (const QByteArray &part : stats.value_or(QByteArray()).split(','))
        if (part.startsWith("usec_per_call="))
            return part.mid(14).toDouble();
    return -1;
}

/** Fourth control: LockScope's kind of work without LockScope. redis-benchmark runs SCAN steps
 *  over the bench's keyspace (`SCAN <random cursor> MATCH * COUNT 200 TYPE hash` in a script, as a
 *  discovery step does), under the same load as the third control, for `ms`. A SCAN step walks
 *  the hash table and looks up every key it visits: memory-bound where the spin script is not.
 *  `*meanUs`: the mean server time of one step. -1 when redis-benchmark is missing. */
int controlScanStepsEntries(RedisConnection &admin, int port, qint64 ms, double *meanUs)
{
    call(admin, {"CONFIG", "RESETSTAT"}); // usecPerCall() of this control's steps only
    const QString step =
        QStringLiteral("return #redis.call('scan', ARGV[1], 'MATCH', '*', 'COUNT', ARGV[2], 'TYPE', 'hash')[2]");
    const int entries = benchmarkControlEntries(
        admin, port, ms,
        {QStringLiteral("-c"), QStringLiteral("1"), QStringLiteral("-r"), QStringLiteral("1000000"),
         QStringLiteral("EVAL"), step, QStringLiteral("0"), QStringLiteral("__rand_int__"), QStringLiteral("200")},
        "EVAL");
    if (entries >= 0)
        *meanUs = usecPerCall(admin, "eval");
    return entries;
}

void slowlogRow(const QString &during, const SlowlogSummary &s, const QString &how)
{
    const QString value = s.entries == 0 ? QStringLiteral("0 entries > 1 ms")
                                         : QStringLiteral("%1 entries > 1 ms; slowest %2 (%3)")
                                               .arg(s.entries)
                                               .arg(ms(s.slowestUs / 1000.0), s.slowestCommand);
    addRow(QStringLiteral("SLOWLOG: LockScope commands > 1 ms during %1").arg(during), value, QStringLiteral("0"),
           passFail(s.entries == 0), how);
}

// ---------------------------------------------------------------------------------------------
// Settings

struct Settings {
    int locks = 200000;
    int otherKeys = 800000;
    bool quick = false;
    bool longRun = false;
    qint64 dashboardMs = 60000;
    qint64 idleMs = 30000;
    int idleLocks = 5000;
    int eventsPerS = 5000;
    qint64 eventsMs = 60000;
    qint64 cliTimeoutMs = 120000;
    qint64 pairsMs = 10000; ///< uncontended pairs, per client, split into pairRounds rounds
    int pairRounds = 20;
    int handoffs = 200;
    double pollBudget = 5000;                         ///< target for idle polling at N locks (commands/s)
    qint64 readBudgetUs = LockMonitor::kReadBudgetUs; ///< engine: SnapshotReader::setBatchBudgetUs
    int readInFlight = LockMonitor::kReadsInFlight;   ///< engine: SnapshotReader::setMaxInFlight
    qint64 scanBudgetUs = LockMonitor::kScanBudgetUs; ///< engine: LockDiscovery::setStepBudgetUs
    QStringList only;                                 ///< sections to run (--only); empty = all
    bool runs(const char *section) const { return only.isEmpty() || only.contains(QString::fromLatin1(section)); }
    QString binDir;
    QString nodeDir;
};

QString binary(const Settings &s, const QString &name)
{
    return QDir(s.binDir).filePath(name);
}

QProcessEnvironment childEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return env;
}

// ---------------------------------------------------------------------------------------------
// 1. CLI one-shot commands

void benchCli(const Settings &s, RedisServerProcess &server, RedisConnection &admin)
{
    const QString url = server.url();
    const QString timeoutText = QStringLiteral("> %1 s (killed%2)");
    slowlogReset(admin);

    // Each command runs `runs` times, one after the other, and the median run by wall time is the
    // answer (this machine's speed changes from minute to minute: one run said little).
    const int runs = s.quick ? 1 : 3;
    qint64 cliCpuMs = 0; // CPU and wall time of every run, for the third SLOWLOG control
    qint64 cliWallMs = 0;
    auto repeated = [&](const QStringList &args, QString *spread) {
        QVector<ChildRun> all;
        for (int i = 0; i < runs; ++i) {
            all << runChild(binary(s, QStringLiteral("lockscope-cli")),
                            QStringList{QStringLiteral("--url"), url} + args, s.cliTimeoutMs);
            cliCpuMs += all.last().cpuMs;
            cliWallMs += all.last().wallMs;
            if (!all.last().started || all.last().killed)
                return all.last();
        }
        qint64 peakKb = 0;
        for (const ChildRun &r : all)
            peakKb = qMax(peakKb, r.peakRssKb);
        std::sort(all.begin(), all.end(), [](const ChildRun &a, const ChildRun &b) { return a.wallMs < b.wallMs; });
        if (runs > 1)
            *spread = QStringLiteral("median of %1 runs, %2-%3; ")
                          .arg(runs)
                          .arg(secs(all.first().wallMs), secs(all.last().wallMs));
        ChildRun median = all.at(all.size() / 2);
        median.peakRssKb = peakKb; // the highest of the runs
        return median;
    };
    QString listSpread;
    const ChildRun list = repeated({QStringLiteral("list"), QStringLiteral("--json")}, &listSpread);
    const QString listHow =
        QStringLiteral("`lockscope-cli --url URL list --json` child process, wall clock, %1 run(s)").arg(runs);
    if (!list.started) {
        addRow(QStringLiteral("`list --json` wall time"), list.error, QStringLiteral("≤ 6 s"), QStringLiteral("FAIL"),
               listHow);
    } else {
        const qint64 lines = list.out.count('\n');
        const QString value = list.killed ? timeoutText.arg(s.cliTimeoutMs / 1000)
                                                .arg(list.termIgnored ? QStringLiteral(", SIGTERM ignored") : QString())
                                          : QStringLiteral("%1 (%2exit %3, %4 lines)")
                                                .arg(secs(list.wallMs), listSpread)
                                                .arg(list.exitCode)
                                                .arg(lines);
        addRow(QStringLiteral("`list --json` wall time, %1 locks among %2 keys")
                   .arg(count(s.locks), count(s.locks + s.otherKeys)),
               value, QStringLiteral("≤ 6 s"), passFail(!list.killed && list.exitCode == 0 && list.wallMs <= 6000),
               listHow);
        addRow(QStringLiteral("`list --json` peak RSS"),
               mb(list.peakRssKb) + (list.killed ? QStringLiteral(" (until killed)") : QString()),
               QStringLiteral("≤ 400 MB"), passFail(!list.killed && list.peakRssKb <= 400 * 1024),
               QStringLiteral("wait4() ru_maxrss of that child (the highest of its runs)"));
    }
    QString doctorSpread;
    const ChildRun doctor = repeated({QStringLiteral("doctor"), QStringLiteral("--json")}, &doctorSpread);
    // doctor exits 4 when it found a problem: that is an answer, not a failure.
    const bool doctorOk = doctor.started && !doctor.killed && (doctor.exitCode == 0 || doctor.exitCode == 4);
    addRow(QStringLiteral("`doctor --json` wall time"),
           !doctor.started ? doctor.error
           : doctor.killed
               ? timeoutText.arg(s.cliTimeoutMs / 1000)
                     .arg(doctor.termIgnored ? QStringLiteral(", SIGTERM ignored") : QString())
               : QStringLiteral("%1 (%2exit %3)").arg(secs(doctor.wallMs), doctorSpread).arg(doctor.exitCode),
           QStringLiteral("≤ 8 s"), passFail(doctorOk && doctor.wallMs <= 8000),
           QStringLiteral("`lockscope-cli --url URL doctor --json` child process, wall clock, %1 run(s)").arg(runs));
    slowlogRow(runs > 1 ? QStringLiteral("`list` + `doctor` (%1 runs each)").arg(runs)
                        : QStringLiteral("`list` + `doctor`"),
               slowlogSummary(admin),
               QStringLiteral("CONFIG SET slowlog-log-slower-than 1000; SLOWLOG GET, entries of client names lockscope "
                              "and lockscope-scan"));
    // The same machine without LockScope: how often does it stall redis-server on its own?
    const qint64 controlMs = qBound(qint64(2000), qint64(runs * (list.wallMs + doctor.wallMs)), qint64(60000));
    const int control = controlSlowlogEntries(admin, server.port(), controlMs);
    addRow(
        QStringLiteral("control: SLOWLOG entries > 1 ms of plain HGETALLs (redis-benchmark), no LockScope"),
        control < 0 ? QStringLiteral("redis-benchmark not found")
                    : QStringLiteral("%1 entries in %2").arg(control).arg(secs(controlMs)),
        QStringLiteral("-"), QStringLiteral("-"),
        QStringLiteral("`redis-benchmark -P 16 -r 1000000 hgetall bench:session:__rand_int__` for as long as `list` + "
                       "`doctor` took: commands of a microsecond over 1 ms are the machine's own stalls"));
    const int busyUs = 250; // about what one step or batch of LockScope works (budgets 250-300 µs)
    const int busy = controlBusyScriptEntries(admin, server.port(), controlMs, busyUs);
    addRow(QStringLiteral("control: SLOWLOG entries > 1 ms of a script that works %1 µs per call, no LockScope")
               .arg(busyUs),
           busy < 0 ? QStringLiteral("redis-benchmark not found")
                    : QStringLiteral("%1 entries in %2").arg(busy).arg(secs(controlMs)),
           QStringLiteral("-"), QStringLiteral("-"),
           QStringLiteral("`redis-benchmark -c 1 EVAL <read TIME until %1 µs have passed> 0 %1` for as long as "
                          "`list` + `doctor` took: redis-server is inside a command most of the time, as during "
                          "a discovery; entries are the machine stalling a command of known length")
               .arg(busyUs));
    // The CLI's client work ran on the machine's other core: the same control with that much load.
    const double cliShare = cliWallMs > 0 ? qMin(1.0, double(cliCpuMs) / double(cliWallMs)) : 0.0;
    const int loaded =
        underLoad(cliShare, [&] { return controlBusyScriptEntries(admin, server.port(), controlMs, busyUs); });
    addRow(QStringLiteral("control: the same script while the other core is %1 % busy (as the CLI was), no LockScope")
               .arg(qRound(cliShare * 100)),
           loaded < 0 ? QStringLiteral("redis-benchmark not found")
                      : QStringLiteral("%1 entries in %2").arg(loaded).arg(secs(controlMs)),
           QStringLiteral("-"), QStringLiteral("-"),
           QStringLiteral("the control above while a thread of the bench spins %1 ms of every 10 ms: the CLI's CPU "
                          "time / wall time over its `list` and `doctor` runs (%2 / %3). On a VM a busy second vCPU "
                          "makes the host stall the first more often: entries here are the machine's, for a client "
                          "on the Redis host")
               .arg(QString::number(cliShare * 10, 'f', 1), secs(cliCpuMs), secs(cliWallMs)));
    double scanUs = -1;
    const int scans =
        underLoad(cliShare, [&] { return controlScanStepsEntries(admin, server.port(), controlMs, &scanUs); });
    addRow(QStringLiteral("control: SCAN steps of this keyspace under the same load, no LockScope"),
           scans < 0 ? QStringLiteral("redis-benchmark not found")
                     : QStringLiteral("%1 entries in %2 (a step took %3 µs on average)")
                           .arg(scans)
                           .arg(secs(controlMs))
                           .arg(qRound(scanUs)),
           QStringLiteral("-"), QStringLiteral("-"),
           QStringLiteral("`redis-benchmark -c 1 -r 1000000 EVAL <SCAN __rand_int__ MATCH * COUNT 200 TYPE hash> 0` "
                          "beside the same busy thread: LockScope's kind of work (memory-bound, as a discovery "
                          "step) run by a light client, for as long as `list` + `doctor` took"));
}

// ---------------------------------------------------------------------------------------------
// 2. Engine: discovery + snapshot reads, with a probe client and SLOWLOG

void benchEngine(const Settings &s, RedisServerProcess &server, RedisConnection &admin)
{
    PingProbe probe;
    QString error;
    const int probeIntervalUs = 1000;
    if (!probe.start(QStringLiteral("127.0.0.1"), server.port(), probeIntervalUs, &error)) {
        addRow(QStringLiteral("Redis p99 seen by a probe client"), error, QStringLiteral("≤ 1 ms"),
               QStringLiteral("FAIL"), QStringLiteral("PING loop"));
        return;
    }
    sleepMs(s.quick ? 1000 : 3000);
    QVector<double> baseline = probe.stop();

    slowlogReset(admin);
    RedisConnection conn(server.endpoint()); // client name "lockscope", as the product's
    conn.setCommandTimeoutMs(120000);
    conn.open();
    waitFor([&] { return conn.isReady(); }, 10000);

    probe.start(QStringLiteral("127.0.0.1"), server.port(), probeIntervalUs, &error);
    QStringList names;
    QElapsedTimer t;
    qint64 discoveryMs = -1;
    qint64 scanned = 0;
    {
        LockDiscovery discovery(&conn);
        discovery.setStepBudgetUs(s.scanBudgetUs);
        bool done = false;
        QObject::connect(&discovery, &LockDiscovery::candidatesFound, [&](const QStringList &n) { names += n; });
        QObject::connect(&discovery, &LockDiscovery::finished, [&](qint64 keys, qint64) {
            scanned = keys;
            done = true;
        });
        QObject::connect(&discovery, &LockDiscovery::failed, [&](const QString &e) {
            error = e;
            done = true;
        });
        t.start();
        discovery.start(QStringLiteral("*"));
        waitFor([&] { return done; }, 600000);
        discoveryMs = t.elapsed();
    }
    addRow(QStringLiteral("discovery (SCAN only)"),
           error.isEmpty() ? QStringLiteral("%1 (%2 keys scanned, %3 candidates)")
                                 .arg(secs(discoveryMs))
                                 .arg(scanned)
                                 .arg(names.size())
                           : error,
           QString(), QStringLiteral("-"), QStringLiteral("LockDiscovery::start(\"*\") until finished()"));

    int locks = 0;
    qint64 readMs = -1;
    QString readError;
    {
        SnapshotReader reader(&conn);
        reader.setBatchBudgetUs(s.readBudgetUs); // as the monitor reads unless --read-budget-us
        reader.setMaxInFlight(s.readInFlight);
        bool done = false;
        t.restart();
        reader.read(names, nullptr, [&](const QVector<LockSnapshot> &snaps, const QString &e) {
            locks = int(std::count_if(snaps.cbegin(), snaps.cend(), [](const LockSnapshot &x) { return x.isLock; }));
            readError = e;
            done = true;
        });
        waitFor([&] { return done; }, 600000);
        readMs = t.elapsed();
    }
    QVector<double> during = probe.stop();
    addRow(QStringLiteral("snapshot reads of the candidates"),
           QStringLiteral("%1 (%2 locks/s, %3 locks)%4")
               .arg(secs(readMs))
               .arg(readMs > 0 ? qint64(names.size() * 1000.0 / readMs) : 0)
               .arg(locks)
               .arg(readError.isEmpty() ? QString() : QStringLiteral("; error: ") + readError),
           QString(), QStringLiteral("-"),
           QStringLiteral("SnapshotReader::read(candidates), %1 us per script call, %2 in flight")
               .arg(s.readBudgetUs)
               .arg(s.readInFlight));
    const double baseP99 = quantile(baseline, 0.99);
    const double duringP99 = quantile(during, 0.99);
    const double duringMax = during.isEmpty() ? -1 : during.last();
    addRow(QStringLiteral("Redis p99 for another client during discovery + reads"),
           QStringLiteral("%1 (baseline %2; max %3; %4 PINGs)")
               .arg(ms(duringP99), ms(baseP99), ms(duringMax))
               .arg(during.size()),
           QStringLiteral("≤ 1 ms"), passFail(duringP99 >= 0 && duringP99 <= 1.0),
           QStringLiteral("probe thread: own connection, PING every 1 ms, round-trip p99; baseline = 3 s before"));
    slowlogRow(QStringLiteral("discovery + reads"), slowlogSummary(admin),
               QStringLiteral("SLOWLOG GET after LockDiscovery + SnapshotReader, client name lockscope"));
}

// ---------------------------------------------------------------------------------------------
// 2b. The read path against a naive script (the peer column): same data, same run, alternating

/** used_cpu_sys + used_cpu_user of INFO cpu, in seconds (redis-server's own CPU, all threads). */
double redisCpuSeconds(RedisConnection &admin)
{
    const QByteArray info = call(admin, {"INFO", "cpu"}).toByteArray();
    double total = 0;
    for (const QByteArray &line : info.split('\n'))
        if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:"))
            total += line.mid(line.indexOf(':') + 1).trimmed().toDouble();
    return total;
}

/** The five busiest commands of INFO commandstats (calls, usec), for stderr. */
QString topCommandStats(RedisConnection &admin)
{
    QVector<QPair<qint64, QString>> rows;
    const QByteArray info = call(admin, {"INFO", "commandstats"}).toByteArray();
    for (const QByteArray &line : info.split('\n')) {
        if (!line.startsWith("cmdstat_"))
            continue;
        const int colon = line.indexOf(':');
        qint64 calls = 0, usec = 0;
        for (const QByteArray &kv : line.mid(colon + 1).trimmed().split(',')) {
            if (kv.startsWith("calls="))
                calls = kv.mid(6).toLongLong();
            else if (kv.startsWith("usec="))
                usec = kv.mid(5).toLongLong();
        }
        rows.append({usec, QStringLiteral("%1 %2 calls %3 ms")
                               .arg(QString::fromLatin1(line.mid(8, colon - 8)))
                               .arg(calls)
                               .arg(usec / 1000)});
    }
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    QStringList out;
    for (int i = 0; i < qMin(6, int(rows.size())); ++i)
        out << rows[i].second;
    return out.join(QStringLiteral("; "));
}

struct ReadRun {
    qint64 wallMs = -1;
    qint64 cpuMs = -1;
    double redisCpuS = -1;
    qint64 lines = -1;
    double probeP99Ms = -1;  ///< another client's PING round trip, p99, while it ran
    int slowlogEntries = -1; ///< SLOWLOG entries > 1 ms of its commands
    qint64 slowestUs = 0;
    QString error;
};

/** A SLOWLOG entry of a reader (LockScope or the naive script): any client but the probe, and
 *  none of the bench's own admin commands. */
bool isReaderEntry(const RedisReply &e)
{
    if (e.at(5).toByteArray() == "bench-probe" || e.at(3).size() == 0)
        return false;
    const QByteArray command = e.at(3).at(0).toByteArray().toUpper();
    return command != "INFO" && command != "CONFIG" && command != "SLOWLOG";
}

/** "Another client" during one read run: a probe PINGing every 1 ms on its own connection, and
 *  the SLOWLOG since the start (> 1 ms). finish() puts its p99 and the readers' entries in `run`. */
class OtherClientWatch
{
public:
    OtherClientWatch(RedisConnection &admin, int port) : m_admin(admin)
    {
        slowlogReset(admin);
        QString error;
        m_probing = m_probe.start(QStringLiteral("127.0.0.1"), port, 1000, &error);
    }
    void finish(ReadRun *run)
    {
        QVector<double> pings = m_probing ? m_probe.stop() : QVector<double>();
        run->probeP99Ms = quantile(pings, 0.99);
        const SlowlogSummary slow = slowlogSummary(m_admin, isReaderEntry);
        run->slowlogEntries = slow.entries;
        run->slowestUs = slow.slowestUs;
    }

private:
    RedisConnection &m_admin;
    PingProbe m_probe;
    bool m_probing = false;
};

double medianOf(QVector<double> v)
{
    if (v.isEmpty())
        return -1;
    std::sort(v.begin(), v.end());
    return v.at(v.size() / 2);
}

/** Medians of wall, client CPU and redis-server CPU of `runs`. */
QString readCell(const QVector<ReadRun> &runs, ReadRun *median)
{
    QVector<double> wall, cpu, redis;
    for (const ReadRun &r : runs) {
        if (!r.error.isEmpty())
            return r.error;
        wall << double(r.wallMs);
        cpu << double(r.cpuMs);
        redis << r.redisCpuS;
    }
    median->wallMs = qint64(medianOf(wall));
    median->cpuMs = qint64(medianOf(cpu));
    median->redisCpuS = medianOf(redis);
    median->lines = runs.isEmpty() ? -1 : runs.last().lines;
    QVector<double> p99;
    int slowlog = 0;
    qint64 slowestUs = 0;
    for (const ReadRun &r : runs) {
        p99 << r.probeP99Ms;
        slowlog += qMax(0, r.slowlogEntries);
        slowestUs = qMax(slowestUs, r.slowestUs);
    }
    median->probeP99Ms = medianOf(p99);
    median->slowlogEntries = slowlog;
    median->slowestUs = slowestUs;
    return QStringLiteral("wall %1, client CPU %2, redis CPU %3 (%4 lines); another client's p99 %5 ms; "
                          "SLOWLOG > 1 ms: %6 in %7 runs%8")
        .arg(secs(median->wallMs), secs(median->cpuMs),
             QString::number(median->redisCpuS, 'f', 2) + QStringLiteral(" s"))
        .arg(median->lines)
        .arg(median->probeP99Ms, 0, 'f', 2)
        .arg(slowlog)
        .arg(runs.size())
        .arg(slowlog > 0 ? QStringLiteral(" (slowest %1 ms)").arg(double(slowestUs) / 1000.0, 0, 'f', 2) : QString());
}

ReadRun runReadChild(RedisConnection &admin, const QString &program, const QStringList &args, qint64 timeoutMs)
{
    ReadRun out;
    call(admin, {"CONFIG", "RESETSTAT"});
    OtherClientWatch other(admin, admin.endpoint().port());
    const double cpu0 = redisCpuSeconds(admin);
    const ChildRun r = runChild(program, args, timeoutMs);
    const double cpu1 = redisCpuSeconds(admin);
    other.finish(&out);
    if (!r.started || r.killed || (r.exitCode != 0 && r.exitCode != 4)) {
        out.error = QStringLiteral("failed: %1 exit %2 %3")
                        .arg(r.error)
                        .arg(r.exitCode)
                        .arg(QString::fromUtf8(r.err.right(300)));
        return out;
    }
    out.wallMs = r.wallMs;
    out.cpuMs = r.cpuMs;
    out.redisCpuS = cpu1 - cpu0;
    out.lines = r.out.count('\n');
    std::fprintf(stderr,
                 "[bench] reads: %s: wall %lld ms, cpu %lld ms, redis %.2f s, %lld lines, probe p99 %.2f ms, "
                 "%d SLOWLOG entries; %s\n",
                 qPrintable(QFileInfo(program).fileName() + QLatin1Char(' ') + args.mid(2).join(QLatin1Char(' '))),
                 out.wallMs, out.cpuMs, out.redisCpuS, out.lines, out.probeP99Ms, out.slowlogEntries,
                 qPrintable(topCommandStats(admin)));
    return out;
}

/** The dashboard's first discovery, in this process: a polling LockMonitor until idle(). */
ReadRun runFirstDiscovery(RedisServerProcess &server, RedisConnection &admin)
{
    ReadRun out;
    call(admin, {"CONFIG", "RESETSTAT"});
    OtherClientWatch other(admin, server.port());
    RedisConnection conn(server.endpoint());
    conn.setCommandTimeoutMs(120000);
    RedisConnection scan(server.endpoint());
    scan.setClientName("lockscope-scan");
    scan.setCommandTimeoutMs(120000);
    const double cpu0 = redisCpuSeconds(admin);
    struct rusage u0;
    getrusage(RUSAGE_SELF, &u0);
    QElapsedTimer t;
    t.start();
    conn.open();
    scan.open();
    LockMonitor monitor(&conn, nullptr);
    monitor.setForcePolling(true);
    monitor.setScanConnection(&scan);
    bool idle = false;
    QObject::connect(&monitor, &LockMonitor::idle, [&] { idle = true; });
    QObject::connect(&monitor, &LockMonitor::errorOccurred, [&](const QString &e) { out.error = e; });
    monitor.start();
    waitFor([&] { return idle || !out.error.isEmpty(); }, 600000);
    out.wallMs = t.elapsed();
    struct rusage u1;
    getrusage(RUSAGE_SELF, &u1);
    auto ms = [](const timeval &v) { return qint64(v.tv_sec) * 1000 + v.tv_usec / 1000; };
    out.cpuMs = ms(u1.ru_utime) + ms(u1.ru_stime) - ms(u0.ru_utime) - ms(u0.ru_stime);
    out.redisCpuS = redisCpuSeconds(admin) - cpu0;
    other.finish(&out);
    out.lines = monitor.locks().size();
    std::fprintf(stderr, "[bench] reads: first discovery: wall %lld ms, cpu %lld ms, redis %.2f s, %lld locks; %s\n",
                 out.wallMs, out.cpuMs, out.redisCpuS, out.lines, qPrintable(topCommandStats(admin)));
    return out;
}

void benchReads(const Settings &s, RedisServerProcess &server, RedisConnection &admin)
{
    const QString python = QFileInfo(QStringLiteral("/usr/bin/python3")).isExecutable()
                               ? QStringLiteral("/usr/bin/python3") // Debian's, where python3-redis is installed
                               : QStandardPaths::findExecutable(QStringLiteral("python3"));
    const QString script = QStringLiteral(LOCKSCOPE_SOURCE_DIR "/tests/bench/naive_list.py");
    const QStringList peerArgs{script, QString::number(server.port())};
    const QString cli = binary(s, QStringLiteral("lockscope-cli"));
    const QStringList cliBase{QStringLiteral("--url"), server.url()};
    const int rounds = s.quick ? 1 : 3;
    QVector<ReadRun> list, doctor, discovery, peer;
    for (int i = 0; i < rounds; ++i) {
        list << runReadChild(admin, cli, cliBase + QStringList{QStringLiteral("list"), QStringLiteral("--json")},
                             s.cliTimeoutMs);
        peer << runReadChild(admin, python, peerArgs, s.cliTimeoutMs);
        doctor << runReadChild(admin, cli, cliBase + QStringList{QStringLiteral("doctor"), QStringLiteral("--json")},
                               s.cliTimeoutMs);
        discovery << runFirstDiscovery(server, admin);
    }
    ReadRun p, l, d, f;
    const QString peerCell = QStringLiteral("naive script: ") + readCell(peer, &p);
    const bool havePeer = p.wallMs > 0;
    auto ratio = [&](const ReadRun &r) {
        return havePeer && r.wallMs >= 0 ? QStringLiteral("; %1× its wall, %2× its redis CPU")
                                               .arg(double(r.wallMs) / double(p.wallMs), 0, 'f', 2)
                                               .arg(p.redisCpuS > 0 ? r.redisCpuS / p.redisCpuS : 0.0, 0, 'f', 2)
                                         : QString();
    };
    const QString how =
        QStringLiteral("medians of %1 alternating runs (list, naive, doctor, discovery); client CPU "
                       "from wait4() (getrusage for the in-process discovery); redis CPU = INFO cpu "
                       "used_cpu_sys+used_cpu_user after minus before; naive = `python3 "
                       "tests/bench/naive_list.py PORT` (redis-py: SCAN TYPE hash COUNT 1000, HGETALL "
                       "+ PTTL in pipelines of 1000); during each run a probe client PINGs every 1 ms on its own "
                       "connection (p99 = median of the runs' p99s; its thread counts in the in-process "
                       "discovery's client CPU), and SLOWLOG (> 1 ms) counts the commands of every other "
                       "client")
            .arg(rounds);
    const QString listCell = readCell(list, &l);
    addRow(QStringLiteral("read path: `list --json`"), listCell + ratio(l),
           QStringLiteral("≤ 0.8× naive wall, ≤ 1.3× naive redis CPU"),
           passFail(havePeer && l.wallMs >= 0 && l.wallMs <= 0.8 * p.wallMs && l.redisCpuS <= 1.3 * p.redisCpuS), how,
           peerCell);
    const QString doctorCell = readCell(doctor, &d);
    addRow(QStringLiteral("read path: `doctor --json`"), doctorCell + ratio(d), QStringLiteral("≤ 1.2× naive wall"),
           passFail(havePeer && d.wallMs >= 0 && d.wallMs <= 1.2 * p.wallMs), how, peerCell);
    const QString discoveryCell = readCell(discovery, &f);
    addRow(QStringLiteral("read path: dashboard's first discovery (polling LockMonitor until idle, in process)"),
           discoveryCell + ratio(f), QStringLiteral("≤ 1.0× naive wall"),
           passFail(havePeer && f.wallMs >= 0 && f.wallMs <= p.wallMs), how, peerCell);
}

// ---------------------------------------------------------------------------------------------
// 3. Dashboard (offscreen child): RSS, and commands/s + redis-server CPU while polling

struct DashboardRun {
    qint64 rssAt1MinKb = -1;
    qint64 rssEndKb = -1;
    qint64 rssMidKb = -1; ///< at half time
    double commandsPerS = -1;
    double redisCpuPercent = -1;
    bool died = false;
    int exitCode = 0;
    QString stderrTail;
};

/** Baseline: commands/s and redis-server CPU % of the idle server (no client but us), over `windowMs`. */
QPair<double, double> serverLoad(RedisServerProcess &server, RedisConnection &admin, qint64 windowMs)
{
    const qint64 c0 = infoField(admin, "stats", "total_commands_processed");
    const double cpu0 = procCpuSeconds(server.pid());
    QElapsedTimer t;
    t.start();
    sleepMs(windowMs);
    const double secsElapsed = t.elapsed() / 1000.0;
    const qint64 c1 = infoField(admin, "stats", "total_commands_processed");
    const double cpu1 = procCpuSeconds(server.pid());
    return {(c1 - c0 - 1) / secsElapsed, (cpu1 - cpu0) * 100.0 / secsElapsed};
}

DashboardRun runDashboard(const Settings &s, RedisServerProcess &server, RedisConnection &admin, bool poll,
                          qint64 durationMs, qint64 loadWindowMs)
{
    DashboardRun run;
    QProcess p;
    p.setProcessEnvironment(childEnvironment());
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.setStandardOutputFile(QProcess::nullDevice());
    QStringList args{QStringLiteral("--url"), server.url()};
    if (poll)
        args << QStringLiteral("--poll");
    p.start(binary(s, QStringLiteral("lockscope")), args);
    if (!p.waitForStarted(10000)) {
        run.died = true;
        run.stderrTail = p.errorString();
        return run;
    }
    const qint64 pid = p.processId();
    QElapsedTimer t;
    t.start();
    const qint64 loadFrom = durationMs - loadWindowMs;
    qint64 c0 = -1;
    double cpu0 = 0;
    qint64 t0 = 0;
    while (t.elapsed() < durationMs) {
        if (p.state() != QProcess::Running) {
            run.died = true;
            break;
        }
        const qint64 now = t.elapsed();
        if (run.rssMidKb < 0 && now >= durationMs / 2)
            run.rssMidKb = procStatusKb(pid, "VmRSS");
        if (run.rssAt1MinKb < 0 && now >= 60000)
            run.rssAt1MinKb = procStatusKb(pid, "VmRSS");
        if (c0 < 0 && now >= loadFrom) {
            c0 = infoField(admin, "stats", "total_commands_processed");
            cpu0 = procCpuSeconds(server.pid());
            t0 = now;
        }
        sleepMs(qMin<qint64>(500, durationMs - now));
    }
    if (!run.died) {
        run.rssEndKb = procStatusKb(pid, "VmRSS");
        if (run.rssAt1MinKb < 0 || durationMs <= 60000)
            run.rssAt1MinKb = run.rssEndKb;
        if (c0 >= 0) {
            const double window = (t.elapsed() - t0) / 1000.0;
            run.commandsPerS = (infoField(admin, "stats", "total_commands_processed") - c0 - 1) / window;
            run.redisCpuPercent = (procCpuSeconds(server.pid()) - cpu0) * 100.0 / window;
        }
    }
    p.terminate();
    if (!p.waitForFinished(5000)) {
        p.kill();
        p.waitForFinished(5000);
    }
    run.exitCode = p.exitCode();
    run.stderrTail = QString::fromLocal8Bit(p.readAllStandardError().right(300)).trimmed();
    return run;
}

void dashboardRssRows(const Settings &s, const DashboardRun &r, int locks, bool poll, int targetMb)
{
    const QString mode = poll ? QStringLiteral("polling") : QStringLiteral("live");
    const QString how = QStringLiteral("offscreen `lockscope --url URL%1` child, VmRSS of /proc/PID/status")
                            .arg(poll ? QStringLiteral(" --poll") : QString());
    if (r.died) {
        addRow(QStringLiteral("dashboard RSS, %1 locks, %2").arg(count(locks), mode),
               QStringLiteral("dashboard ended early (exit %1): %2").arg(r.exitCode).arg(r.stderrTail),
               QStringLiteral("≤ %1 MB").arg(targetMb), QStringLiteral("FAIL"), how);
        return;
    }
    const qint64 at = qMin<qint64>(s.dashboardMs, 60000);
    addRow(QStringLiteral("dashboard RSS after %1, %2 locks, %3").arg(secs(at), count(locks), mode), mb(r.rssAt1MinKb),
           QStringLiteral("≤ %1 MB").arg(targetMb), passFail(r.rssAt1MinKb <= targetMb * 1024), how);
    if (s.dashboardMs >= 10 * 60000) {
        const double growth = 100.0 * (r.rssEndKb - r.rssAt1MinKb) / qMax<qint64>(1, r.rssAt1MinKb);
        addRow(QStringLiteral("dashboard RSS after %1, %2 locks, %3").arg(secs(s.dashboardMs), count(locks), mode),
               QStringLiteral("%1 (%2%3 % since 1 min)")
                   .arg(mb(r.rssEndKb), growth >= 0 ? QStringLiteral("+") : QString())
                   .arg(growth, 0, 'f', 1),
               QStringLiteral("≤ %1 MB, ± 5 %").arg(targetMb),
               passFail(r.rssEndKb <= targetMb * 1024 && qAbs(growth) <= 5.0), how);
    } else {
        const double growth = 100.0 * (r.rssEndKb - r.rssMidKb) / qMax<qint64>(1, r.rssMidKb);
        addRow(QStringLiteral("dashboard RSS after 10 min, %1 locks, %2").arg(count(locks), mode),
               QStringLiteral("not run (needs --long); %1%2 % from %3 to %4")
                   .arg(growth >= 0 ? QStringLiteral("+") : QString())
                   .arg(growth, 0, 'f', 1)
                   .arg(secs(s.dashboardMs / 2), secs(s.dashboardMs)),
               QStringLiteral("≤ %1 MB, ± 5 %").arg(targetMb), QStringLiteral("-"), how);
    }
}

void pollingLoadRow(const DashboardRun &r, int locks, const QPair<double, double> &idle, const QString &budgetTarget,
                    double budget, qint64 windowMs)
{
    const QString how =
        QStringLiteral("INFO stats total_commands_processed and redis-server utime+stime (/proc) over the "
                       "last %1 of an offscreen `lockscope --url URL --poll`")
            .arg(secs(windowMs));
    if (r.died || r.commandsPerS < 0) {
        addRow(QStringLiteral("idle dashboard polling, %1 locks: commands/s").arg(count(locks)),
               QStringLiteral("not measured"), budgetTarget, QStringLiteral("FAIL"), how);
        return;
    }
    const double added = r.redisCpuPercent - idle.second;
    addRow(QStringLiteral("idle dashboard polling, %1 locks: commands/s").arg(count(locks)),
           QString::number(r.commandsPerS, 'f', 0), budgetTarget, passFail(r.commandsPerS <= budget), how);
    addRow(QStringLiteral("idle dashboard polling, %1 locks: redis-server CPU added").arg(count(locks)),
           QStringLiteral("%1 % of a core (idle server %2 %)").arg(added, 0, 'f', 1).arg(idle.second, 0, 'f', 1),
           QStringLiteral("≤ 10 %"), passFail(added <= 10.0), how);
}

// ---------------------------------------------------------------------------------------------
// 4. 5k events/s through `watch --json --enable-notifications`

void benchEvents(const Settings &s, RedisServerProcess &server)
{
    const QString how =
        QStringLiteral("generator: 4 own connections, Redisson's acquire/unlock scripts (lock_acquire.lua, "
                       "lock_unlock.lua) on %1 locks; `lockscope-cli --url URL watch --json "
                       "--enable-notifications` child; send time → stdout line arrival")
            .arg(s.quick ? 100 : 1000);
    const QString label = QStringLiteral("%1 events/s for %2").arg(s.eventsPerS).arg(secs(s.eventsMs));
    QProcess watch;
    watch.setProcessEnvironment(childEnvironment());
    watch.start(binary(s, QStringLiteral("lockscope-cli")),
                {QStringLiteral("--url"), server.url(), QStringLiteral("watch"), QStringLiteral("--json"),
                 QStringLiteral("--enable-notifications")});
    QByteArray errText;
    const bool watching = waitFor(
        [&] {
            errText += watch.readAllStandardError();
            return errText.contains("watching") || watch.state() == QProcess::NotRunning;
        },
        60000);
    if (!watching || watch.state() != QProcess::Running) {
        addRow(label + QStringLiteral(": events lost"),
               QStringLiteral("watch did not start: ") + QString::fromLocal8Bit(errText.right(200)),
               QStringLiteral("0"), QStringLiteral("FAIL"), how);
        watch.kill();
        watch.waitForFinished(5000);
        return;
    }

    QElapsedTimer clock;
    clock.start();
    // key "lock\nholder\ntype" -> send time (ns); filled by the generator, consumed by the reader.
    QHash<QString, qint64> sent;
    QSet<QString> seen;
    QHash<QString, qint64> lastSeq; // lock -> sequence number of the last op seen (order check)
    QVector<double> latencyMs;
    qint64 duplicates = 0, outOfOrder = 0, unknown = 0;
    QByteArray buffer;
    // Transitions the watcher reported as `coalesced` (a hold and its release per count): what it
    // says it could not see, with the lock.
    qint64 coalescedReported = 0;
    auto readLines = [&] {
        buffer += watch.readAllStandardOutput();
        const qint64 now = clock.nsecsElapsed();
        // Lines are consumed by offset and the buffer compacted once per read: removing each line
        // from the front was quadratic in the buffered bytes, and once the bench fell behind it
        // stalled its own event loop (the watch then blocked on a full pipe).
        qsizetype start = 0;
        qsizetype nl;
        auto compact = qScopeGuard([&] { buffer.remove(0, start); });
        while ((nl = buffer.indexOf('\n', start)) >= 0) {
            const QByteArray line = buffer.mid(start, nl - start);
            start = nl + 1;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            const QString type = o.value(QStringLiteral("type")).toString();
            if (type == QLatin1String("coalesced"))
                coalescedReported += 2 * o.value(QStringLiteral("count")).toInteger(); // a hold and its release each
            if (type != QLatin1String("acquired") && type != QLatin1String("released"))
                continue;
            const QString lock = o.value(QStringLiteral("lock")).toString();
            const QString holder = o.value(QStringLiteral("holder")).toString();
            const QString key = lock + QLatin1Char('\n') + holder + QLatin1Char('\n') + type;
            auto it = sent.find(key);
            if (it == sent.end()) {
                ++unknown;
                continue;
            }
            if (seen.contains(key)) {
                ++duplicates;
                continue;
            }
            latencyMs << (now - it.value()) / 1e6;
            seen.insert(key);
            const qint64 seq =
                holder.section(QLatin1Char(':'), -1).toLongLong() * 2 + (type == QLatin1String("released") ? 1 : 0);
            if (seq < lastSeq.value(lock, -1))
                ++outOfOrder;
            lastSeq[lock] = seq;
        }
    };
    QObject::connect(&watch, &QProcess::readyReadStandardOutput, readLines);

    const int lockCount = s.quick ? 100 : 1000;
    std::vector<std::unique_ptr<RedisConnection>> conns;
    for (int i = 0; i < 4; ++i)
        conns.push_back(connectTo(server, "bench-gen"));
    const RedisScript acquire = RedisScript::fromResource(QStringLiteral("lock_acquire"));
    const RedisScript unlock = RedisScript::fromResource(QStringLiteral("lock_unlock"));
    const QString clientId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QVector<qint64> seqOf(lockCount, 0);
    QVector<bool> held(lockCount, false);
    qint64 issued = 0, failures = 0, repliesPending = 0;
    auto issue = [&](qint64 k) {
        const int i = int(k % lockCount);
        const QString name = QStringLiteral("bench:ev:%1").arg(i);
        RedisConnection *c = conns[size_t(i % conns.size())].get();
        const QString type = held[i] ? QStringLiteral("released") : QStringLiteral("acquired");
        if (!held[i])
            ++seqOf[i];
        const QString field = clientId + QLatin1Char(':') + QString::number(seqOf[i]);
        sent.insert(name + QLatin1Char('\n') + field + QLatin1Char('\n') + type, clock.nsecsElapsed());
        ++repliesPending;
        auto done = [&](const RedisReply &r) {
            --repliesPending;
            if (r.isError())
                ++failures;
        };
        if (!held[i])
            acquire.eval(c, {name.toUtf8()}, {"30000", field.toUtf8()}, nullptr, done);
        else
            unlock.eval(
                c,
                {name.toUtf8(), LockNames::unlockChannel(name).toUtf8(), LockClient::newUnlockLatchKey(name).toUtf8()},
                {"0", "30000", field.toUtf8(), "publish", "18000"}, nullptr, done);
        held[i] = !held[i];
    };
    // Every lock ends released: the op count is rounded up to whole acquire+release rounds over all
    // locks, issued at the same rate (so no hold is shorter than the others).
    const qint64 round = 2 * lockCount;
    const qint64 target = (s.eventsMs * s.eventsPerS / 1000 + round - 1) / round * round;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QElapsedTimer genClock;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 due = qMin<qint64>(genClock.elapsed() * s.eventsPerS / 1000, target);
        while (issued < due)
            issue(issued++);
    });
    genClock.start();
    tick.start(2);
    waitFor([&] { return issued >= target; }, s.eventsMs * 2 + 10000);
    tick.stop();
    const qint64 genMs = qMax<qint64>(1, genClock.elapsed());
    waitFor([&] { return repliesPending == 0; }, 30000);
    const qint64 total = sent.size();
    waitFor([&] { return latencyMs.size() + 0 >= total; }, 10000);
    readLines();
    watch.terminate();
    if (!watch.waitForFinished(3000)) {
        watch.kill();
        watch.waitForFinished(3000);
    }
    readLines();
    const qint64 lost = total - latencyMs.size();
    // Where: when the lost ones were sent (s after the start), and how many locks they touch.
    QString where;
    if (lost > 0) {
        double first = 1e18, last = -1;
        QSet<QString> lockSet;
        int shown = 0;
        for (auto it = sent.cbegin(); it != sent.cend(); ++it) {
            if (seen.contains(it.key()))
                continue;
            const double at = it.value() / 1e9;
            first = qMin(first, at);
            last = qMax(last, at);
            lockSet.insert(it.key().section(QLatin1Char('\n'), 0, 0));
            if (shown++ < 5)
                std::fprintf(stderr, "[bench] lost event: %s sent at %.3f s\n",
                             qPrintable(QString(it.key()).replace(QLatin1Char('\n'), QLatin1Char(' '))), at);
        }
        where = QStringLiteral("; lost ones sent %1 s to %2 s after the start, on %3 locks; the watcher said "
                               "%4 of them were too short to see (coalesced)")
                    .arg(first, 0, 'f', 1)
                    .arg(last, 0, 'f', 1)
                    .arg(lockSet.size())
                    .arg(coalescedReported);
    }
    const double achieved = issued * 1000.0 / genMs;
    addRow(label + QStringLiteral(": events lost"),
           QStringLiteral("%1 of %2 (%3 %; %4 duplicates, %5 out of order, %6 script errors; generator reached %7/s%8)")
               .arg(lost)
               .arg(total)
               .arg(100.0 * lost / qMax<qint64>(1, total), 0, 'f', 2)
               .arg(duplicates)
               .arg(outOfOrder)
               .arg(failures)
               .arg(achieved, 0, 'f', 0)
               .arg(where),
           QStringLiteral("0"), passFail(lost == 0 && duplicates == 0 && outOfOrder == 0), how);
    QVector<double> lat = latencyMs;
    const double p50 = quantile(lat, 0.5), p99 = quantile(lat, 0.99);
    addRow(label + QStringLiteral(": latency event → `watch` line"),
           lat.isEmpty() ? QStringLiteral("no event seen") : QStringLiteral("p50 %1, p99 %2").arg(ms(p50), ms(p99)),
           QStringLiteral("p99 ≤ 50 ms"), passFail(!lat.isEmpty() && p99 <= 50.0), how);
    Q_UNUSED(unknown);
}

// ---------------------------------------------------------------------------------------------
// 5. Lock client vs node-redisson

struct ClientResult {
    double handoffP50Ms = -1;
    double handoffP99Ms = -1;
    QString error;
};

/** LockScope's side: two LockClients, each with its own command and pub/sub connection. */
struct OurClients {
    std::unique_ptr<RedisConnection> connA, connB;
    std::unique_ptr<RedisSubscriber> subA, subB;
    std::unique_ptr<LockClient> a, b;

    explicit OurClients(RedisServerProcess &server)
        : connA(connectTo(server, "bench-client")), connB(connectTo(server, "bench-client")),
          subA(std::make_unique<RedisSubscriber>(server.endpoint())),
          subB(std::make_unique<RedisSubscriber>(server.endpoint()))
    {
        subA->open();
        subB->open();
        a = std::make_unique<LockClient>(connA.get(), subA.get());
        b = std::make_unique<LockClient>(connB.get(), subB.get());
    }
};

/** One round of uncontended pairs: lock() (watchdog lease) then unlock(), one at a time, as
 *  bench.js does, for `roundMs`. Pairs per second, or -1 with `*error`. */
double lockScopePairsRound(LockClient &a, qint64 roundMs, QString *error)
{
    const QString pairsName = QStringLiteral("bench:lockscope:pairs");
    qint64 pairs = 0;
    bool stop = false, idle = false;
    std::function<void()> one = [&] {
        a.acquire(pairsName, 1, -1, -1, nullptr, [&](const AcquireResult &r) {
            if (!r.acquired) {
                *error = r.error.isEmpty() ? QStringLiteral("lock() returned without the lock") : r.error;
                idle = true;
                return;
            }
            a.unlock(pairsName, 1, nullptr, [&](const UnlockResult &u) {
                if (u.status != UnlockResult::Status::Released)
                    *error = u.error.isEmpty() ? QStringLiteral("unlock() did not release") : u.error;
                ++pairs;
                if (stop || !error->isEmpty())
                    idle = true;
                else
                    one();
            });
        });
    };
    QElapsedTimer t;
    t.start();
    QTimer::singleShot(int(roundMs), [&] { stop = true; });
    one();
    if (!waitFor([&] { return idle; }, roundMs + 10000) && error->isEmpty())
        *error = QStringLiteral("a lock+unlock pair did not finish within 10 s");
    if (!error->isEmpty())
        return -1;
    return pairs * 1000.0 / qMax<qint64>(1, t.elapsed());
}

/** Contended hand-off: holder unlocks at t0, the blocked waiter holds at t1. */
void lockScopeHandoff(const Settings &s, OurClients &ours, ClientResult &out)
{
    const QString name = QStringLiteral("bench:lockscope:handoff");
    LockClient *clients[2] = {ours.a.get(), ours.b.get()};
    QVector<double> samples;
    bool held = false;
    clients[0]->acquire(name, 1, -1, 5000, nullptr, [&](const AcquireResult &r) { held = r.acquired; });
    waitFor([&] { return held; }, 10000);
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < s.handoffs && out.error.isEmpty(); ++i) {
        LockClient *holder = clients[i % 2];
        LockClient *waiter = clients[(i + 1) % 2];
        qint64 t1 = -1;
        waiter->acquire(name, 1, -1, 10000, nullptr, [&](const AcquireResult &r) {
            if (!r.acquired)
                out.error = r.error.isEmpty() ? QStringLiteral("waiter did not get the lock") : r.error;
            t1 = clock.nsecsElapsed();
        });
        sleepMs(15); // the waiter is subscribed and blocked
        const qint64 t0 = clock.nsecsElapsed();
        holder->unlock(name, 1, nullptr, [](const UnlockResult &) {});
        waitFor([&] { return t1 >= 0; }, 15000);
        if (t1 >= 0)
            samples << (t1 - t0) / 1e6;
    }
    bool released = false;
    clients[s.handoffs % 2]->unlock(name, 1, nullptr, [&](const UnlockResult &) { released = true; });
    waitFor([&] { return released; }, 5000);
    out.handoffP50Ms = quantile(samples, 0.5);
    out.handoffP99Ms = quantile(samples, 0.99);
}

/** node-redisson's side: one `node bench.js PORT serve` for the whole section, asked for one
 *  round at a time (so its JIT stays warm and its rounds interleave with ours). */
class NodePeer
{
public:
    NodePeer(const Settings &s, RedisServerProcess &server)
    {
        const QString script = QDir(s.nodeDir).filePath(QStringLiteral("bench.js"));
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        if (node.isEmpty()) {
            m_error = QStringLiteral("skipped: node not found");
            return;
        }
        if (!QFileInfo::exists(QDir(s.nodeDir).filePath(QStringLiteral("node_modules/node-redisson/package.json")))) {
            m_error =
                QStringLiteral("skipped: node-redisson not installed (cd tests/integration/node-redisson && npm ci)");
            return;
        }
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(node, {script, QString::number(server.port()), QStringLiteral("serve")});
        const QJsonObject hello = readReply(30000);
        if (m_error.isEmpty() && !hello.value(QStringLiteral("ready")).toBool())
            m_error = QStringLiteral("node bench.js did not start");
    }
    ~NodePeer()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.write("quit\n");
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(10000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    QString error() const { return m_error; }

    /** Sends one request line and returns its JSON answer (empty object, with error(), on failure). */
    QJsonObject ask(const QByteArray &request, qint64 timeoutMs)
    {
        if (!m_error.isEmpty())
            return {};
        m_process.write(request + '\n');
        return readReply(timeoutMs);
    }

private:
    QJsonObject readReply(qint64 timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (!m_process.canReadLine()) {
            const qint64 left = timeoutMs - t.elapsed();
            if (left <= 0 || m_process.state() == QProcess::NotRunning || !m_process.waitForReadyRead(int(left))) {
                if (!m_process.canReadLine()) {
                    m_error = QStringLiteral("node bench.js gave no answer: %1")
                                  .arg(QString::fromLocal8Bit(m_process.readAllStandardError().right(200)));
                    return {};
                }
            }
        }
        const QJsonObject o = QJsonDocument::fromJson(m_process.readLine().trimmed()).object();
        if (o.isEmpty() || o.contains(QStringLiteral("error"))) {
            m_error = QStringLiteral("node bench.js failed: %1 %2")
                          .arg(o.value(QStringLiteral("error")).toString(),
                               QString::fromLocal8Bit(m_process.readAllStandardError().right(200)));
            return {};
        }
        return o;
    }

    QProcess m_process;
    QString m_error;
};

double median(QVector<double> v)
{
    return quantile(v, 0.5);
}

/**
 * What following holders costs Redis: `watch` under the event generator's load (Redisson's acquire
 * and unlock scripts at --events-per-s on 1000 locks, from 4 connections that act for 40 client
 * ids, so correlation never settles and spends its whole CLIENT LIST budget), once with the
 * default budget and once with --client-list-budget 0, alternating, two rounds each. Redis CPU
 * (INFO cpu) of each run, its CLIENT LIST calls and their server time (INFO commandstats). Then the
 * server time of one CLIENT LIST with 1000 idle connections open: the worst call of the budget.
 */
void benchIdentify(const Settings &s, RedisServerProcess &server)
{
    const qint64 runMs = qMax<qint64>(2000, s.eventsMs / 4);
    const int lockCount = s.quick ? 100 : 1000;
    auto admin = connectTo(server, "lockscope-bench-admin");
    call(*admin, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    std::vector<std::unique_ptr<RedisConnection>> conns;
    for (int i = 0; i < 4; ++i)
        conns.push_back(connectTo(server, "bench-gen"));
    const RedisScript acquire = RedisScript::fromResource(QStringLiteral("lock_acquire"));
    const RedisScript unlock = RedisScript::fromResource(QStringLiteral("lock_unlock"));
    QStringList clientIds;
    for (int i = 0; i < 40; ++i)
        clientIds << QUuid::createUuid().toString(QUuid::WithoutBraces);
    QVector<bool> held(lockCount, false);
    auto oneRun = [&](bool tracking, double *redisCpuS, qint64 *clientListCalls, double *achieved) {
        QStringList args{QStringLiteral("--url"), server.url(), QStringLiteral("watch"), QStringLiteral("--json")};
        if (!tracking)
            args << QStringLiteral("--client-list-budget") << QStringLiteral("0");
        QProcess watch;
        watch.setProcessEnvironment(childEnvironment());
        watch.setStandardOutputFile(QProcess::nullDevice());
        watch.start(binary(s, QStringLiteral("lockscope-cli")), args);
        QByteArray err;
        waitFor(
            [&] {
                err += watch.readAllStandardError();
                return err.contains("watching") || watch.state() == QProcess::NotRunning;
            },
            30000);
        call(*admin, {"CONFIG", "RESETSTAT"});
        const double cpu0 = redisCpuSeconds(*admin);
        qint64 issued = 0, pending = 0;
        QElapsedTimer clock;
        clock.start();
        QTimer tick;
        tick.setTimerType(Qt::PreciseTimer);
        QObject::connect(&tick, &QTimer::timeout, [&] {
            const qint64 due = clock.elapsed() * s.eventsPerS / 1000;
            while (issued < due && pending < 2000) {
                const int i = int(issued % lockCount);
                const QString name = QStringLiteral("bench:id:%1").arg(i);
                const int c = i % 4;
                // Each connection acts for ten client ids: never one connection per client id.
                const QByteArray field =
                    (clientIds.at(c * 10 + int(issued / lockCount) % 10) + QStringLiteral(":1")).toUtf8();
                ++pending;
                auto done = [&pending](const RedisReply &) { --pending; };
                if (!held[i])
                    acquire.eval(conns[size_t(c)].get(), {name.toUtf8()}, {"30000", field}, nullptr, done);
                else
                    unlock.eval(conns[size_t(c)].get(),
                                {name.toUtf8(), LockNames::unlockChannel(name).toUtf8(),
                                 LockClient::newUnlockLatchKey(name).toUtf8()},
                                {"0", "30000", field, "publish", "18000"}, nullptr, done);
                held[i] = !held[i];
                ++issued;
            }
        });
        tick.start(2);
        waitFor([&] { return clock.elapsed() >= runMs; }, runMs + 5000);
        tick.stop();
        waitFor([&] { return pending == 0; }, 30000);
        *achieved = issued * 1000.0 / qMax<qint64>(1, clock.elapsed());
        *redisCpuS = redisCpuSeconds(*admin) - cpu0;
        const std::optional<QByteArray> stats = infoText(*admin, "commandstats", "cmdstat_client|list");
        *clientListCalls = 0;
        for (const QByteArray &part : stats.value_or(QByteArray()).split(','))
            if (part.startsWith("calls="))
                *clientListCalls = part.mid(6).toLongLong();
        watch.terminate();
        if (!watch.waitForFinished(5000)) {
            watch.kill();
            watch.waitForFinished(3000);
        }
    };
    QVector<double> withCpu, withoutCpu;
    qint64 calls = 0;
    double rate = 0;
    for (int round = 0; round < 2; ++round)
        for (bool tracking : {true, false}) {
            double cpu = 0, achieved = 0;
            qint64 roundCalls = 0;
            oneRun(tracking, &cpu, &roundCalls, &achieved);
            (tracking ? withCpu : withoutCpu) << cpu;
            if (tracking)
                calls += roundCalls;
            rate = achieved;
        }
    const QString how = QStringLiteral("watch --json with the default --client-list-budget (4/s) and with 0, "
                                       "alternating, %1 each, two rounds; %2 locks, 4 connections acting for 40 "
                                       "client ids; Redis CPU from INFO cpu")
                            .arg(secs(runMs))
                            .arg(lockCount);
    const double with = medianOf(withCpu), without = medianOf(withoutCpu);
    addRow(QStringLiteral("identify: Redis CPU of watch at %1 events/s, tracking holders").arg(qRound(rate)),
           QStringLiteral("%1 s with, %2 s without per %3 (%4 %); %5 CLIENT LIST calls/s")
               .arg(with, 0, 'f', 2)
               .arg(without, 0, 'f', 2)
               .arg(secs(runMs))
               .arg(without > 0 ? 100.0 * (with - without) / without : 0.0, 0, 'f', 1)
               .arg(calls / 2.0 / (runMs / 1000.0), 0, 'f', 1),
           QStringLiteral("within the noise of the same run without"), QStringLiteral("-"), how);
    // The cost of one call grows with the connections listed: 1000 idle ones.
    std::vector<std::unique_ptr<RedisConnection>> idle;
    for (int i = 0; i < (s.quick ? 100 : 1000); ++i)
        idle.push_back(connectTo(server, "bench-idle"));
    call(*admin, {"CONFIG", "RESETSTAT"});
    for (int i = 0; i < 20; ++i)
        call(*admin, {"CLIENT", "LIST", "TYPE", "normal"});
    const double oneUs = usecPerCall(*admin, "client|list");
    addRow(QStringLiteral("identify: one CLIENT LIST with %1 connections").arg(idle.size() + 5),
           QStringLiteral("%1 µs server time: correlation makes at most %2 such calls a second (%3 µs of Redis a "
                          "second at most), none once one call takes over %4 µs")
               .arg(oneUs, 0, 'f', 0)
               .arg(qMax<qint64>(
                   1, qMin<qint64>(4, ClientTracker::kClientListUsPerSecond / qMax<qint64>(1, qRound64(oneUs)))))
               .arg(ClientTracker::kClientListUsPerSecond)
               .arg(ClientTracker::kMaxClientListUs),
           QStringLiteral("-"), QStringLiteral("-"),
           QStringLiteral("CLIENT LIST TYPE normal, 20 calls, INFO commandstats usec_per_call"));
}

void benchClients(const Settings &s, RedisServerProcess &server)
{
    OurClients ours(server);
    NodePeer peer(s, server);
    const qint64 roundMs = qMax<qint64>(50, s.pairsMs / qMax(1, s.pairRounds));
    QString ourError;
    // Warm-up round each (scripts loaded, connections up, node's JIT: its first rounds run at
    // half speed), not counted.
    const qint64 warmUpMs = qMax<qint64>(roundMs, s.quick ? 300 : 1000);
    lockScopePairsRound(*ours.a, warmUpMs, &ourError);
    peer.ask("pairs " + QByteArray::number(warmUpMs), warmUpMs + 30000);
    // Interleaved rounds, so a noisy moment of the machine hits both sides alike; medians decide.
    QVector<double> ourRounds, peerRounds, ratios;
    for (int round = 0; round < s.pairRounds && ourError.isEmpty(); ++round) {
        const double mine = lockScopePairsRound(*ours.a, roundMs, &ourError);
        if (!ourError.isEmpty())
            break;
        ourRounds << mine;
        if (!peer.error().isEmpty())
            continue;
        const double theirs = peer.ask("pairs " + QByteArray::number(roundMs), roundMs + 30000)
                                  .value(QStringLiteral("pairs_per_s"))
                                  .toDouble();
        if (!peer.error().isEmpty() || theirs <= 0)
            continue;
        peerRounds << theirs;
        ratios << mine / theirs;
    }
    ClientResult mine;
    mine.error = ourError;
    if (mine.error.isEmpty())
        lockScopeHandoff(s, ours, mine);
    ClientResult theirs;
    if (peer.error().isEmpty()) {
        const QJsonObject h = peer.ask("handoff " + QByteArray::number(s.handoffs), s.handoffs * 100 + 60000);
        theirs.handoffP50Ms = h.value(QStringLiteral("handoff_p50_ms")).toDouble(-1);
        theirs.handoffP99Ms = h.value(QStringLiteral("handoff_p99_ms")).toDouble(-1);
    }
    theirs.error = peer.error();

    const bool havePeer = theirs.error.isEmpty() && !peerRounds.isEmpty();
    const double ourMedian = median(ourRounds), peerMedian = median(peerRounds), ratio = median(ratios);
    const QString peerPairs =
        havePeer ? QStringLiteral("%1 (median of %2 rounds)").arg(peerMedian, 0, 'f', 0).arg(peerRounds.size())
                 : (theirs.error.isEmpty() ? QStringLiteral("no round measured") : theirs.error);
    std::fprintf(stderr, "[bench] clients: pairs/s rounds LockScope %s; node-redisson %s\n", qPrintable([&] {
                     QStringList l;
                     for (double v : std::as_const(ourRounds))
                         l << QString::number(v, 'f', 0);
                     return l.join(QLatin1Char(' '));
                 }()),
                 qPrintable([&] {
                     QStringList l;
                     for (double v : std::as_const(peerRounds))
                         l << QString::number(v, 'f', 0);
                     return l.join(QLatin1Char(' '));
                 }()));
    addRow(QStringLiteral("client: uncontended lock+unlock pairs/s"),
           mine.error.isEmpty()
               ? (havePeer ? QStringLiteral("%1 vs node-redisson %2: %3× (medians of %4 interleaved rounds)")
                                 .arg(ourMedian, 0, 'f', 0)
                                 .arg(peerMedian, 0, 'f', 0)
                                 .arg(ratio, 0, 'f', 2)
                                 .arg(ratios.size())
                           : QStringLiteral("%1 (median of %2 rounds)").arg(ourMedian, 0, 'f', 0).arg(ourRounds.size()))
               : mine.error,
           QStringLiteral("≥ 1.5× node-redisson"),
           havePeer ? passFail(mine.error.isEmpty() && ratio >= 1.5) : QStringLiteral("-"),
           QStringLiteral("LockClient::acquire(watchdog) + unlock, one at a time; %1 rounds of %2 each, LockScope and "
                          "node-redisson alternately (tests/integration/node-redisson/bench.js serve, `await lock(); "
                          "await unlock()`, same server); medians of the rounds' pairs/s and of the per-round ratios")
               .arg(s.pairRounds)
               .arg(ms(roundMs)),
           peerPairs);
    addRow(QStringLiteral("client: contended hand-off (holder unlocks → waiter holds)"),
           mine.error.isEmpty() ? QStringLiteral("p50 %1, p99 %2").arg(ms(mine.handoffP50Ms), ms(mine.handoffP99Ms))
                                : mine.error,
           QStringLiteral("p99 ≤ 1 ms"),
           passFail(mine.error.isEmpty() && mine.handoffP99Ms >= 0 && mine.handoffP99Ms <= 1.0),
           QStringLiteral(
               "%1 hand-offs, waiter blocked in LockClient::acquire 15 ms before the holder's unlock; node: same "
               "with lock()/unlock()")
               .arg(s.handoffs),
           theirs.error.isEmpty() && theirs.handoffP99Ms >= 0
               ? QStringLiteral("p50 %1, p99 %2").arg(ms(theirs.handoffP50Ms), ms(theirs.handoffP99Ms))
               : QStringLiteral("-"));
}

// ---------------------------------------------------------------------------------------------

std::unique_ptr<RedisServerProcess> startServer(const QString &notify)
{
    auto server = std::make_unique<RedisServerProcess>();
    server->setNotifyKeyspaceEvents(notify);
    QString error;
    if (!server->start(10000, &error)) {
        std::fprintf(stderr, "lockscope-bench: cannot start redis-server: %s\n", qPrintable(error));
        std::exit(2);
    }
    return server;
}

// ---------------------------------------------------------------------------------------------
// Fleet: one `serve --targets` for many servers (issue 40)

/** GET `url` (blocking, the event loop spins): HTTP status and body; `*ms` the time it took. */
int httpGet(const QString &url, QByteArray *body, qint64 *ms)
{
    QNetworkAccessManager nam;
    QElapsedTimer t;
    t.start();
    QNetworkReply *reply = nam.get(QNetworkRequest(QUrl(url)));
    waitFor([reply] { return reply->isFinished(); }, 20000);
    *ms = t.elapsed();
    *body = reply->readAll();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status;
}

double metricValue(const QByteArray &metrics, const QByteArray &series)
{
    for (const QByteArray &line : metrics.split('\n'))
        if (line.startsWith(series + ' '))
            return line.mid(series.size() + 1).toDouble();
    return -1;
}

struct FleetRun {
    qint64 rssKb = -1;
    double cpuPercent = -1;
    double scrapeMedianMs = -1;
    double scrapeMaxMs = -1;
    double slowOthersMaxMs = -1; ///< the others' scrapes while one target sleeps (DEBUG SLEEP)
    double sleptMs = -1;         ///< the sleeping target's own scrape
    bool ok = false;
};

/** `targets` servers of `locksEach` locks under one serve --targets; scraped every `everyMs` for
 *  `windowMs`. With `slow`, one target then runs DEBUG SLEEP 5 while all are scraped. */
FleetRun runFleet(const Settings &s, int targets, int locksEach, qint64 everyMs, qint64 windowMs, bool slow)
{
    FleetRun out;
    std::vector<std::unique_ptr<RedisServerProcess>> servers;
    QJsonArray list;
    for (int i = 0; i < targets; ++i) {
        servers.push_back(startServer(QStringLiteral("KA")));
        auto admin = connectTo(*servers.back(), "bench-admin");
        seed(*admin, locksEach, 0);
        list.append(servers.back()->url());
    }
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("targets.json"));
    {
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly))
            return out;
        f.write(QJsonDocument(QJsonArray{QJsonObject{{QStringLiteral("targets"), list}}}).toJson());
    }
    QProcess serve;
    serve.setProcessEnvironment(childEnvironment());
    serve.start(binary(s, QStringLiteral("lockscope-cli")),
                {QStringLiteral("serve"), QStringLiteral("--targets"), file, QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0")});
    QByteArray err;
    QString at;
    static const QRegularExpression servedAt(QStringLiteral("on http://(127\\.0\\.0\\.1:\\d+)/scrape"));
    waitFor(
        [&] {
            err += serve.readAllStandardError();
            const QRegularExpressionMatch m = servedAt.match(QString::fromUtf8(err));
            if (m.hasMatch())
                at = m.captured(1);
            return !at.isEmpty() || serve.state() == QProcess::NotRunning;
        },
        30000);
    if (at.isEmpty())
        return out;
    auto self = [&] {
        QByteArray body;
        qint64 ms = 0;
        httpGet(QStringLiteral("http://%1/metrics").arg(at), &body, &ms);
        return body;
    };
    auto scrapeOne = [&](const QString &target, QByteArray *body) {
        qint64 ms = 0;
        httpGet(
            QStringLiteral("http://%1/scrape?target=%2").arg(at, QString::fromLatin1(QUrl::toPercentEncoding(target))),
            body, &ms);
        return ms;
    };
    // Every target up and its locks read.
    const bool up = waitFor(
        [&] {
            sleepMs(500);
            return metricValue(self(), "lockscope_exporter_targets_up") == targets;
        },
        120000);
    if (!up)
        return out;
    waitFor(
        [&] {
            sleepMs(500);
            QByteArray body;
            scrapeOne(list.last().toString(), &body);
            return body.contains("lockscope_held_locks");
        },
        60000);
    sleepMs(2000); // the discovery passes end
    const qint64 pid = serve.processId();
    const double cpu0 = procCpuSeconds(pid);
    QElapsedTimer window;
    window.start();
    QVector<double> times;
    while (window.elapsed() < windowMs) {
        QElapsedTimer round;
        round.start();
        for (const QJsonValue &t : list) {
            QByteArray body;
            times << double(scrapeOne(t.toString(), &body));
        }
        sleepMs(qMax<qint64>(0, everyMs - round.elapsed()));
    }
    const double cpu1 = procCpuSeconds(pid);
    out.cpuPercent = 100.0 * (cpu1 - cpu0) / (window.elapsed() / 1000.0);
    out.rssKb = procStatusKb(pid, "VmRSS");
    std::sort(times.begin(), times.end());
    out.scrapeMedianMs = times.isEmpty() ? -1 : times.at(times.size() / 2);
    out.scrapeMaxMs = times.isEmpty() ? -1 : times.last();
    if (slow) {
        QProcess sleeper; // redis-cli: the bench's own connections must not block
        sleeper.start(QStringLiteral("redis-cli"),
                      {QStringLiteral("-p"), QString::number(servers.front()->port()), QStringLiteral("DEBUG"),
                       QStringLiteral("SLEEP"), QStringLiteral("5")});
        sleepMs(300);
        QVector<double> others;
        for (int i = 1; i < list.size(); ++i) {
            QByteArray body;
            others << double(scrapeOne(list.at(i).toString(), &body));
        }
        QByteArray body;
        out.sleptMs = double(scrapeOne(list.first().toString(), &body));
        std::sort(others.begin(), others.end());
        out.slowOthersMaxMs = others.isEmpty() ? -1 : others.last();
        waitFor([&] { return sleeper.state() == QProcess::NotRunning; }, 15000);
    }
    serve.terminate();
    serve.waitForFinished(5000);
    for (auto &server : servers)
        server->stop();
    out.ok = true;
    return out;
}

void benchFleet(const Settings &s)
{
    const int targets = s.quick ? 3 : 50;
    const int locksEach = s.quick ? 100 : 1000;
    const qint64 everyMs = s.quick ? 2000 : 15000;
    const qint64 windowMs = s.quick ? 4000 : 60000;
    const FleetRun many = runFleet(s, targets, locksEach, everyMs, windowMs, true);
    if (!many.ok) {
        addRow(QStringLiteral("fleet: serve --targets"), QStringLiteral("did not start or come up"), QString(),
               passFail(false), QString());
        return;
    }
    addRow(QStringLiteral("fleet: %1 targets of %2 locks, RSS").arg(targets).arg(count(locksEach)), mb(many.rssKb),
           QStringLiteral("-"), QStringLiteral("-"),
           QStringLiteral("serve --targets, VmRSS after %1 of scrapes every %2").arg(secs(windowMs), secs(everyMs)));
    addRow(QStringLiteral("fleet: %1 targets, CPU").arg(targets),
           QStringLiteral("%1 %").arg(many.cpuPercent, 0, 'f', 1), QStringLiteral("-"), QStringLiteral("-"),
           QStringLiteral("utime+stime of serve over the window (watching, doctor, INFO replication, scrapes)"));
    addRow(QStringLiteral("fleet: scrape time"),
           QStringLiteral("median %1, max %2").arg(ms(many.scrapeMedianMs), ms(many.scrapeMaxMs)), QStringLiteral("-"),
           QStringLiteral("-"), QStringLiteral("/scrape?target= of each target, in turn"));
    addRow(QStringLiteral("fleet: one target under DEBUG SLEEP 5"),
           QStringLiteral("others max %1, the sleeping one %2").arg(ms(many.slowOthersMaxMs), ms(many.sleptMs)),
           QStringLiteral("others < 1 s"), passFail(many.slowOthersMaxMs >= 0 && many.slowOthersMaxMs < 1000),
           QStringLiteral("a blocked Redis delays no other target's scrape (non-blocking I/O, state rendered "
                          "from what was read)"));
    if (s.quick)
        return;
    // Memory per target: 2 targets of 20k locks against 2 of 1k.
    const FleetRun small = runFleet(s, 2, 1000, 5000, 10000, false);
    const FleetRun big = runFleet(s, 2, 20000, 5000, 10000, false);
    if (small.ok && big.ok) {
        addRow(QStringLiteral("fleet: memory per target, 1k and 20k locks"),
               QStringLiteral("%1 per target at 1k (of %2 for %3), +%4 per target at 20k")
                   .arg(mb((many.rssKb - small.rssKb) / qMax(1, targets - 2)), mb(many.rssKb))
                   .arg(targets)
                   .arg(mb((big.rssKb - small.rssKb) / 2)),
               QStringLiteral("-"), QStringLiteral("-"),
               QStringLiteral("VmRSS differences: %1 targets against 2, and 2 targets of 20k locks against 2 of 1k")
                   .arg(targets));
    }
}

void runAll(const Settings &s)
{
    QElapsedTimer total;
    total.start();

    // --- The big server: seeding, CLI, engine, dashboard at N and N/2 locks. Notifications off
    // (Redis's default), as most production servers run.
    if (s.runs("cli") || s.runs("engine") || s.runs("reads") || s.runs("dashboard")) {
        auto server = startServer(QString());
        auto admin = connectTo(*server, "bench-admin");
        QElapsedTimer t;
        t.start();
        seed(*admin, s.locks, s.otherKeys);
        const qint64 seedMs = t.elapsed();
        addRow(QStringLiteral("seeding %1 locks + %2 other keys").arg(count(s.locks), count(s.otherKeys)),
               QStringLiteral("%1 (%2 keys/s)")
                   .arg(secs(seedMs))
                   .arg(qint64((s.locks + s.otherKeys) * 1000.0 / qMax<qint64>(1, seedMs))),
               QString(), QStringLiteral("-"),
               QStringLiteral("pipelines of 20k HSET+PEXPIRE / SET / HSET, 8 in flight, one connection (bench's own)"));

        if (s.runs("cli"))
            benchCli(s, *server, *admin);
        if (s.runs("engine"))
            benchEngine(s, *server, *admin);
        if (s.runs("reads"))
            benchReads(s, *server, *admin);

        const qint64 windowMs = qMin<qint64>(20000, s.dashboardMs / 3);
        const auto idle = serverLoad(*server, *admin, s.quick ? 1000 : 3000);
        const double budget = s.pollBudget; // the target's "sensible default" of --poll-budget; not fixed yet
        int locks = s.locks;
        for (int round = 0; round < 2 && s.runs("dashboard"); ++round) {
            const int targetMb = round == 0 ? 500 : 300;
            call(*admin, {"CONFIG", "SET", "notify-keyspace-events", ""});
            const DashboardRun polling = runDashboard(s, *server, *admin, true, s.dashboardMs, windowMs);
            dashboardRssRows(s, polling, locks, true, targetMb);
            if (round == 0)
                pollingLoadRow(polling, locks, idle, QStringLiteral("≤ the poll budget (%1/s)").arg(budget, 0, 'f', 0),
                               budget, windowMs);
            call(*admin, {"CONFIG", "SET", "notify-keyspace-events", "KA"});
            const DashboardRun live = runDashboard(s, *server, *admin, false, s.dashboardMs, windowMs);
            dashboardRssRows(s, live, locks, false, targetMb);
            call(*admin, {"CONFIG", "SET", "notify-keyspace-events", ""});
            if (round == 0) { // down to N/2 locks for the second round
                QList<QList<QByteArray>> cmds;
                for (int i = s.locks / 2; i < s.locks; ++i)
                    cmds << QList<QByteArray>{"UNLINK", lockName(i)};
                pipelined(*admin, cmds);
                locks = s.locks / 2;
            }
        }
        server->stop();
    }

    // --- Idle polling at 5k locks (fresh server, 4 other keys per lock).
    if (s.runs("idle")) {
        auto server = startServer(QString());
        auto admin = connectTo(*server, "bench-admin");
        seed(*admin, s.idleLocks, s.idleLocks * 4);
        const auto idle = serverLoad(*server, *admin, s.quick ? 1000 : 3000);
        const qint64 windowMs = s.idleMs / 2;
        const DashboardRun polling = runDashboard(s, *server, *admin, true, s.idleMs, windowMs);
        pollingLoadRow(polling, s.idleLocks, idle, QStringLiteral("≤ 2000/s"), 2000, windowMs);
        server->stop();
    }

    // --- Events, then the lock clients (fresh server; notifications off: watch turns them on).
    if (s.runs("events")) {
        auto server = startServer(QString());
        benchEvents(s, *server);
        server->stop();
    }
    if (s.runs("clients")) {
        auto server = startServer(QString());
        benchClients(s, *server);
        server->stop();
    }
    if (s.runs("identify")) {
        auto server = startServer(QString());
        benchIdentify(s, *server);
        server->stop();
    }
    if (s.runs("fleet"))
        benchFleet(s);

    printTable(QStringLiteral("lockscope-bench%1: %2 locks + %3 other keys, dashboard %4, %5 events/s for %6; total %7")
                   .arg(s.quick ? QStringLiteral(" --quick") : QString(), count(s.locks), count(s.otherKeys),
                        secs(s.dashboardMs))
                   .arg(s.eventsPerS)
                   .arg(secs(s.eventsMs), secs(total.elapsed())));
}

} // namespace

int main(int argc, char **argv)
{
    // Headless by construction: a QCoreApplication (no platform plugin); the dashboard children
    // get QT_QPA_PLATFORM=offscreen.
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("LockScope's production-scale benchmark (200k locks among 1M keys): one table."));
    parser.addHelpOption();
    auto opt = [](const char *name, const char *help, const char *value = nullptr) {
        return value ? QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help),
                                          QString::fromLatin1(value))
                     : QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help));
    };
    parser.addOptions({
        opt("locks", "Locks in the big keyspace (default 200000).", "N"),
        opt("other-keys", "Other keys beside them (default 800000).", "N"),
        opt("quick", "Small N everywhere (the ctest bench_smoke): finishes in well under a minute."),
        opt("long", "Run each dashboard 10 minutes (RSS at 1 and 10 min)."),
        opt("dashboard-ms", "How long each dashboard runs (default 60000; 600000 with --long).", "MS"),
        opt("idle-ms", "Idle polling run at 5k locks (default 30000).", "MS"),
        opt("events-per-s", "Event generator rate (default 5000).", "N"),
        opt("events-ms", "Event generator duration (default 60000).", "MS"),
        opt("cli-timeout-s", "Kill a CLI command after this long (default 120).", "S"),
        opt("pairs-ms", "Uncontended lock+unlock time per client, over all rounds (default 10000).", "MS"),
        opt("pair-rounds",
            "Interleaved rounds (LockScope, node-redisson, ...) the pairs time is split into (default 20).", "N"),
        opt("handoffs", "Contended hand-offs (default 200).", "N"),
        opt("poll-budget", "Target of idle polling at --locks, commands/s (default 5000, the dashboard's budget).",
            "N"),
        opt("bin-dir", "Where lockscope and lockscope-cli are (default: next to this program).", "DIR"),
        opt("node-dir", "tests/integration/node-redisson (bench.js, node_modules).", "DIR"),
        opt("only",
            "Run only these sections, comma-separated: cli, engine, reads, dashboard, idle, events, clients, identify, "
            "fleet (default: all).",
            "LIST"),
        opt("read-budget-us",
            "engine: server time per snapshot script call (default LockMonitor::kReadBudgetUs), "
            "to explore speed against gentleness.",
            "US"),
        opt("read-in-flight", "engine: snapshot batches in flight (default LockMonitor::kReadsInFlight).", "N"),
        opt("scan-budget-us", "engine: server time per SCAN step (default LockMonitor::kScanBudgetUs).", "US"),
    });
    parser.process(app);

    Settings s;
    if (parser.isSet(QStringLiteral("quick"))) {
        s.quick = true;
        s.locks = 2000;
        s.otherKeys = 8000;
        s.dashboardMs = 4000;
        s.idleMs = 3000;
        s.idleLocks = 500;
        s.eventsPerS = 500;
        s.eventsMs = 3000;
        s.cliTimeoutMs = 30000;
        s.pairsMs = 500;
        s.pairRounds = 4;
        s.handoffs = 10;
    }
    if (parser.isSet(QStringLiteral("long"))) {
        s.longRun = true;
        s.dashboardMs = 600000;
    }
    auto number = [&](const char *name, auto &field) {
        if (parser.isSet(QString::fromLatin1(name)))
            field = std::decay_t<decltype(field)>(parser.value(QString::fromLatin1(name)).toLongLong());
    };
    number("locks", s.locks);
    number("other-keys", s.otherKeys);
    number("read-budget-us", s.readBudgetUs);
    number("read-in-flight", s.readInFlight);
    number("scan-budget-us", s.scanBudgetUs);
    number("dashboard-ms", s.dashboardMs);
    number("idle-ms", s.idleMs);
    number("events-per-s", s.eventsPerS);
    number("events-ms", s.eventsMs);
    number("pairs-ms", s.pairsMs);
    number("pair-rounds", s.pairRounds);
    number("handoffs", s.handoffs);
    number("poll-budget", s.pollBudget);
    if (parser.isSet(QStringLiteral("cli-timeout-s")))
        s.cliTimeoutMs = parser.value(QStringLiteral("cli-timeout-s")).toLongLong() * 1000;
    if (parser.isSet(QStringLiteral("only"))) {
        s.only = parser.value(QStringLiteral("only")).split(QLatin1Char(','), Qt::SkipEmptyParts);
        const QStringList known{QStringLiteral("cli"),       QStringLiteral("engine"),   QStringLiteral("reads"),
                                QStringLiteral("dashboard"), QStringLiteral("idle"),     QStringLiteral("events"),
                                QStringLiteral("clients"),   QStringLiteral("identify"), QStringLiteral("fleet")};
        for (const QString &section : std::as_const(s.only))
            if (!known.contains(section)) {
                std::fprintf(stderr, "lockscope-bench: unknown section '%s' in --only (known: %s)\n",
                             qPrintable(section), qPrintable(known.join(QStringLiteral(", "))));
                return 1;
            }
    }
    s.binDir = parser.isSet(QStringLiteral("bin-dir")) ? parser.value(QStringLiteral("bin-dir"))
                                                       : QCoreApplication::applicationDirPath();
    s.nodeDir = parser.isSet(QStringLiteral("node-dir"))
                    ? parser.value(QStringLiteral("node-dir"))
                    : QStringLiteral(LOCKSCOPE_SOURCE_DIR "/tests/integration/node-redisson");
    for (const char *b : {"lockscope", "lockscope-cli"})
        if (!QFileInfo(binary(s, QString::fromLatin1(b))).isExecutable()) {
            std::fprintf(stderr, "lockscope-bench: %s not found in %s (build it, or pass --bin-dir)\n", b,
                         qPrintable(s.binDir));
            return 2;
        }
    std::fprintf(stderr, "[bench] private redis-servers on loopback; progress on stderr, the table on stdout\n");
    runAll(s);
    return 0;
}
