// lockscope-bench: seeds N Redisson locks in a private redis-server and measures the observation
// engine. Not a test: it prints numbers and asserts nothing.
//   lockscope-bench [--locks 10000,100000] [--noise-ratio 0.5] [--latency-samples 200]
#include "locktablemodel.h"

#include "demo/redisserverprocess.h"
#include "observe/lockdiscovery.h"
#include "observe/lockmonitor.h"
#include "observe/snapshotreader.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using namespace lockscope;

static bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

static QString field(int i) { return QStringLiteral("b983c153-7421-469a-addb-%1:%2").arg(i % 1000, 12, 10, QLatin1Char('0')).arg(i % 64 + 1); }

static void seed(RedisConnection *c, int locks, int noise)
{
    int pending = 0;
    const int chunk = 2000;
    for (int i = 0; i < locks; i += chunk) {
        QList<QList<QByteArray>> cmds;
        for (int j = i; j < qMin(locks, i + chunk); ++j) {
            const QByteArray name = "bench:lock:" + QByteArray::number(j);
            cmds << QList<QByteArray>{"HSET", name, field(j).toUtf8(), QByteArray::number(1 + j % 3)};
            cmds << QList<QByteArray>{"PEXPIRE", name, QByteArray::number(600000 + j)};
        }
        ++pending;
        c->pipeline(cmds, nullptr, [&pending](const QVector<RedisReply> &) { --pending; });
        waitFor([&] { return pending < 4; }, 60000);
    }
    for (int i = 0; i < noise; i += chunk) {
        QList<QList<QByteArray>> cmds;
        for (int j = i; j < qMin(noise, i + chunk); ++j)
            cmds << QList<QByteArray>{"SET", "bench:noise:" + QByteArray::number(j), "x"};
        ++pending;
        c->pipeline(cmds, nullptr, [&pending](const QVector<RedisReply> &) { --pending; });
        waitFor([&] { return pending < 4; }, 60000);
    }
    waitFor([&] { return pending == 0; }, 60000);
}

static void run(int locks, double noiseRatio, int samples)
{
    RedisServerProcess server;
    QString error;
    if (!server.start(10000, &error)) {
        std::fprintf(stderr, "cannot start redis-server: %s\n", qPrintable(error));
        return;
    }
    RedisConnection conn(server.endpoint());
    conn.open();
    waitFor([&] { return conn.isReady(); }, 5000);
    const int noise = int(locks * noiseRatio);
    QElapsedTimer t;
    t.start();
    seed(&conn, locks, noise);
    std::printf("\n== %d locks + %d other keys (seeded in %lld ms) ==\n", locks, noise, (long long)t.elapsed());

    // 1. Discovery alone: SCAN steps of COUNT 1000 with TYPE hash, plus the fair-queue pass.
    {
        LockDiscovery discovery(&conn);
        qint64 found = 0;
        bool done = false;
        QObject::connect(&discovery, &LockDiscovery::candidatesFound, [&](const QStringList &n) { found += n.size(); });
        QObject::connect(&discovery, &LockDiscovery::finished, [&](qint64, qint64) { done = true; });
        t.restart();
        discovery.start(QStringLiteral("*"));
        waitFor([&] { return done; }, 600000);
        std::printf("discovery (SCAN only):            %8lld ms   %lld candidates\n", (long long)t.elapsed(), (long long)found);
    }

    QStringList names;
    names.reserve(locks);
    for (int i = 0; i < locks; ++i)
        names << QStringLiteral("bench:lock:%1").arg(i);

    // 2. Snapshot reads: batched read-only script, pipelined.
    for (int batch : {100, 200, 500}) {
        SnapshotReader reader(&conn);
        reader.setBatchSize(batch);
        bool done = false;
        int got = 0;
        t.restart();
        reader.read(names, nullptr, [&](const QVector<LockSnapshot> &s, const QString &) {
            got = int(std::count_if(s.cbegin(), s.cend(), [](const LockSnapshot &x) { return x.isLock; }));
            done = true;
        });
        waitFor([&] { return done; }, 600000);
        const double secs = t.elapsed() / 1000.0;
        std::printf("snapshot reads (batch %3d):       %8.0f locks/s  (%d locks in %.2f s)\n", batch, locks / secs, got, secs);
    }

    // 3. Full monitor start: discovery + snapshots until idle, then model batch apply.
    RedisSubscriber sub(server.endpoint());
    sub.open();
    LockMonitor monitor(&conn, &sub);
    bool idle = false;
    QObject::connect(&monitor, &LockMonitor::idle, [&] { idle = true; });
    QVector<LockSnapshot> all;
    QObject::connect(&monitor, &LockMonitor::locksUpdated,
                     [&](const QVector<LockSnapshot> &c, const QStringList &) { all += c; });
    t.restart();
    monitor.start();
    waitFor([&] { return idle && monitor.mode() == LockMonitor::Mode::Live; }, 600000);
    std::printf("monitor start to idle:            %8lld ms   %lld locks (%s)\n", (long long)t.elapsed(),
                (long long)monitor.locks().size(), qPrintable(LockMonitor::modeName(monitor.mode())));
    {
        LockTableModel model;
        t.restart();
        model.applyBatch(all, {});
        const qint64 insertMs = t.elapsed();
        t.restart();
        model.applyBatch(all.mid(0, qMin(5000, int(all.size()))), {});
        std::printf("table model: insert %d rows       %8lld ms; update 5000 rows %lld ms\n", int(all.size()),
                    (long long)insertMs, (long long)t.elapsed());
    }

    // 4. Keyspace event -> snapshot in the monitor (what the model receives), one change at a time.
    QString target;
    qint64 arrived = -1;
    QElapsedTimer clock;
    clock.start();
    QObject::connect(&monitor, &LockMonitor::locksUpdated, [&](const QVector<LockSnapshot> &c, const QStringList &) {
        for (const auto &s : c)
            if (s.name == target)
                arrived = clock.nsecsElapsed();
    });
    RedisConnection writer(server.endpoint());
    writer.open();
    waitFor([&] { return writer.isReady(); }, 5000);
    QVector<double> latMs;
    for (int i = 0; i < samples; ++i) {
        target = names[(i * 7919) % locks];
        arrived = -1;
        const qint64 sent = clock.nsecsElapsed();
        writer.send({"HINCRBY", target.toUtf8(), field((i * 7919) % locks).toUtf8(), "1"});
        if (!waitFor([&] { return arrived >= 0; }, 5000))
            continue;
        latMs << (arrived - sent) / 1e6;
    }
    std::sort(latMs.begin(), latMs.end());
    if (!latMs.isEmpty())
        std::printf("keyspace event -> monitor update: median %.1f ms, p95 %.1f ms, max %.1f ms (%d samples, "
                    "coalescing window 16 ms)\n",
                    latMs[latMs.size() / 2], latMs[int(latMs.size() * 0.95)], latMs.last(), int(latMs.size()));
    server.stop();
}

int main(int argc, char **argv)
{
    QApplication app(argc, argv); // the table model needs a GUI application; runs offscreen
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({{QStringLiteral("locks"), QStringLiteral("Comma-separated lock counts."), QStringLiteral("N,..."),
                        QStringLiteral("10000,100000")},
                       {QStringLiteral("noise-ratio"), QStringLiteral("Other keys per lock."), QStringLiteral("R"),
                        QStringLiteral("0.5")},
                       {QStringLiteral("latency-samples"), QStringLiteral("Keyspace latency samples."),
                        QStringLiteral("N"), QStringLiteral("200")}});
    parser.process(app);
    std::printf("lockscope-bench: private redis-server on loopback, one connection, release build recommended\n");
    for (const QString &n : parser.value(QStringLiteral("locks")).split(QLatin1Char(',')))
        run(n.toInt(), parser.value(QStringLiteral("noise-ratio")).toDouble(),
            parser.value(QStringLiteral("latency-samples")).toInt());
    return 0;
}
