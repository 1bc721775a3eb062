// History store (intervals, statistics, bounded memory), recordings (round trip, gzip, damaged
// files) and the replay player (seek = the state at that instant, play at 16x).
#include "recording/historystore.h"
#include "recording/recording.h"
#include "recording/replayplayer.h"
#include "recording/sessionrecorder.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace lockscope;

static const QString kA = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
static const QString kB = QStringLiteral("0c7931ed-77b4-4eba-8af7-706668f329e6:7");

static LockSnapshot held(const QString &name, const QString &holder, qint64 pttl, QStringList waiters = {})
{
    LockSnapshot s;
    s.name = name;
    s.isLock = s.exists = true;
    s.pttlMs = pttl;
    if (!holder.isEmpty())
        s.holders << LockHolder{
            holder, holder.section(QLatin1Char(':'), 0, 0), holder.section(QLatin1Char(':'), 1), 1, QString(), {}};
    s.kind = waiters.isEmpty() ? LockKind::Lock : LockKind::FairLock;
    for (int i = 0; i < waiters.size(); ++i)
        s.waiters << LockWaiter{waiters[i], i + 1, -1, QString()};
    s.queueLength = waiters.size();
    return s;
}

class TestHistory : public QObject
{
    Q_OBJECT
private slots:
    void holdsWaitsAndStats();
    void subscriberWaitsOfNonFairLocks();
    void memoryStaysFlat();
    void recordingRoundTrip_data();
    void recordingRoundTrip();
    void damagedRecordingsOpenUpToTheLastGoodRecord();
    void replaySeekAndPlay();
};

void TestHistory::holdsWaitsAndStats()
{
    HistoryStore h;
    h.addSnapshot(held(QStringLiteral("jobs"), kA, 30000, {kB}), 1000);
    h.addEvents({LockEvent{1000, QStringLiteral("jobs"), QStringLiteral("acquired"), kA, QString()}});
    h.addSnapshot(held(QStringLiteral("jobs"), kA, 25000, {kB}), 6000);
    // A releases, B (the waiter) acquires.
    h.addSnapshot(held(QStringLiteral("jobs"), kB, 30000), 9000);
    h.addEvents(
        {LockEvent{9000, QStringLiteral("jobs"), QStringLiteral("released"), kA, QStringLiteral("hold count 1 -> 0")},
         LockEvent{9000, QStringLiteral("jobs"), QStringLiteral("acquired"), kB, QString()}});
    h.addRemoval(QStringLiteral("jobs"), 12000);
    h.addEvents({LockEvent{12000, QStringLiteral("jobs"), QStringLiteral("expired"), kB, QString()}});

    const auto holds = h.holds(QStringLiteral("jobs"));
    QCOMPARE(holds.size(), 2);
    QCOMPARE(holds[0].who, kA);
    QCOMPARE(holds[0].durationMs(0), 8000);
    QCOMPARE(holds[0].endReason, QStringLiteral("released"));
    QCOMPARE(holds[1].who, kB);
    QCOMPARE(holds[1].endReason, QStringLiteral("expired"));
    const auto waits = h.waits(QStringLiteral("jobs"));
    QCOMPARE(waits.size(), 1);
    QCOMPARE(waits[0].who, kB);
    QCOMPARE(waits[0].durationMs(0), 8000);
    QCOMPARE(waits[0].endReason, QStringLiteral("acquired"));

    QCOMPARE(h.sampleAt(QStringLiteral("jobs"), 7000).holders, kA);
    // Two renewals that both read 29999 ms are both kept: each departs from the countdown.
    HistoryStore r;
    r.addSnapshot(held(QStringLiteral("wd"), kA, 29999), 0);
    r.addSnapshot(held(QStringLiteral("wd"), kA, 19999), 10000); // on the countdown: dropped
    r.addSnapshot(held(QStringLiteral("wd"), kA, 29999), 10010); // renewed
    r.addSnapshot(held(QStringLiteral("wd"), kA, 29999), 20010); // renewed again, same reading
    QCOMPARE(r.samples(QStringLiteral("wd")).size(), 3);
    QCOMPARE(r.samples(QStringLiteral("wd"), 10005, 30000).size(), 2);
    QCOMPARE(h.sampleAt(QStringLiteral("jobs"), 10000).holders, kB);
    QCOMPARE(h.sampleAt(QStringLiteral("jobs"), 500).timeMs, 0); // before anything

    const HistoryStore::Stats st = h.stats(QString(), 0, 20000);
    QCOMPARE(st.holds, 2);
    QCOMPARE(st.holdMsMax, 8000);
    QCOMPARE(st.waits, 1);
    QCOMPARE(st.expiries, 1);
    QVERIFY(st.acquisitionsPerSecond > 0);
}

void TestHistory::subscriberWaitsOfNonFairLocks()
{
    // A plain lock: A holds, two clients subscribe to the unlock channel (lock()/tryLock(wait)),
    // A releases, B acquires after waiting, the other waiter gives up later.
    auto plain = [](const QString &holder, qint64 subscribers) {
        LockSnapshot s = held(QStringLiteral("orders"), holder, 30000);
        s.subscribers = subscribers;
        return s;
    };
    HistoryStore h;
    h.addSnapshot(plain(kA, 0), 0);
    h.addSnapshot(plain(kA, 1), 1000);
    h.addSnapshot(plain(kA, 2), 2000);
    h.addRemoval(QStringLiteral("orders"), 5000); // released: waiters still subscribed
    h.addSnapshot(plain(kB, 1), 5010);            // B acquired after waiting
    h.addSnapshot(plain(kB, 0), 7000);            // the other waiter left
    const auto waits = h.waits(QStringLiteral("orders"));
    QCOMPARE(waits.size(), 2);
    for (const auto &w : waits)
        QCOMPARE(w.who, HistoryStore::kSubscriberWaiter);
    QCOMPARE(waits[0].durationMs(0), 4010);
    QCOMPARE(waits[0].endReason, QStringLiteral("acquired"));
    QCOMPARE(waits[1].durationMs(0), 5000);
    QCOMPARE(waits[1].endReason, QStringLiteral("left"));
    const HistoryStore::Stats st = h.stats(QString(), 0, 10000);
    QCOMPARE(st.waits, 2);
    QCOMPARE(st.waitMsMax, 5000);
}

void TestHistory::memoryStaysFlat()
{
    // Ten busy locks for three hours of simulated time, one reading a second each, with events:
    // after the retention window fills, memory must stop growing.
    HistoryStore::Retention r;
    r.maxAgeMs = 3600 * 1000;
    HistoryStore h(r);
    qint64 bytesAt1h = 0;
    qint64 bytesAt3h = 0;
    for (qint64 t = 0; t <= 3 * 3600; ++t) {
        for (int l = 0; l < 10; ++l) {
            const QString name = QStringLiteral("lock:%1").arg(l);
            const QString holder = (t / 7 + l) % 2 ? kA : kB;
            h.addSnapshot(held(name, holder, 30000 - (t % 10) * 1000), t * 1000);
            if (t % 7 == 0)
                h.addEvents(
                    {LockEvent{t * 1000, name, QStringLiteral("acquired"), holder, QStringLiteral("hold count 1")}});
        }
        if (t == 3600)
            bytesAt1h = h.approximateBytes();
    }
    bytesAt3h = h.approximateBytes();
    qInfo("history bytes after 1 h: %lld, after 3 h: %lld, samples: %d, events: %d", static_cast<long long>(bytesAt1h),
          static_cast<long long>(bytesAt3h), h.sampleCount(), h.eventCount());
    QVERIFY2(bytesAt3h <= bytesAt1h * 11 / 10, "history memory kept growing past its retention window");
    QVERIFY(h.sampleCount() <= 10 * r.maxSamplesPerLock);

    // Far more locks than the limit (a 100k-lock server): the least recently seen are dropped.
    HistoryStore many;
    for (int i = 0; i < 20000; ++i)
        many.addSnapshot(held(QStringLiteral("bulk:%1").arg(i), kA, 30000), 1000 + i);
    QVERIFY(many.lockNames().size() <= many.retention().maxLocks);
    QVERIFY(many.lockNames().contains(QStringLiteral("bulk:19999")));
    QVERIFY(!many.lockNames().contains(QStringLiteral("bulk:0")));
    QVERIFY2(h.firstTimeMs() >= (3 * 3600 - 3600 - 10) * 1000LL, qPrintable(QString::number(h.firstTimeMs())));
}

void TestHistory::recordingRoundTrip_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::newRow("plain") << QStringLiteral("rec.jsonl");
    QTest::newRow("gzip") << QStringLiteral("rec.jsonl.gz");
}

void TestHistory::recordingRoundTrip()
{
    QFETCH(QString, fileName);
    QTemporaryDir dir;
    const QString path = dir.filePath(fileName);
    SessionRecorder rec;
    QString error;
    QVERIFY2(rec.open(path, {{QStringLiteral("server"), QStringLiteral("redis://127.0.0.1:6379/0")}}, &error),
             qPrintable(error));
    LockSnapshot fair = held(QStringLiteral("jobs"), kA, 30000, {kB});
    fair.timeoutSet.append({kB, 1795000000000});
    rec.recordLocks({fair, held(QStringLiteral("orders:42"), kB, 12000)}, {}, 1000);
    rec.recordEvents(
        {LockEvent{1100, QStringLiteral("orders:42"), QStringLiteral("acquired"), kB, QStringLiteral("hold count 1")}});
    rec.recordLocks({}, {QStringLiteral("orders:42")}, 2000);
    rec.close();
    QCOMPARE(rec.records(), 5); // header + 3 + end

    Recording loaded;
    QVERIFY2(Recording::load(path, &loaded, &error), qPrintable(error));
    QVERIFY(loaded.warning.isEmpty());
    QCOMPARE(loaded.header.value(QStringLiteral("version")).toInt(), 1);
    QCOMPARE(loaded.records.size(), 3);
    QCOMPARE(loaded.startMs(), 1000);
    QVERIFY(loaded.stoppedMs > 2000); // the "end" record: when recording stopped (wall clock)
    QCOMPARE(loaded.endMs(), loaded.stoppedMs);
    QCOMPARE(loaded.records.last().timeMs, 2000);
    const LockSnapshot back = loaded.records[0].changed[0];
    QCOMPARE(back.name, QStringLiteral("jobs"));
    QCOMPARE(back.kind, LockKind::FairLock);
    QCOMPARE(back.holders.first().field, kA);
    QCOMPARE(back.waiters.first().field, kB);
    QCOMPARE(back.timeoutSet.first().second, 1795000000000);
    QCOMPARE(back.stateFingerprint(), fair.stateFingerprint());
    QCOMPARE(loaded.records[1].events.first().type, QStringLiteral("acquired"));
    QCOMPARE(loaded.records[2].removed, QStringList{QStringLiteral("orders:42")});
}

void TestHistory::damagedRecordingsOpenUpToTheLastGoodRecord()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rec.jsonl"));
    {
        SessionRecorder rec;
        QVERIFY(rec.open(path, {}));
        for (int i = 0; i < 5; ++i)
            rec.recordLocks({held(QStringLiteral("l%1").arg(i), kA, 1000)}, {}, 1000 + i);
    }
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    const QByteArray all = f.readAll();
    // Drop the closing "end" line and cut the last lock record in half.
    f.resize(all.lastIndexOf('\n', all.size() - 2) - 20);
    f.close();
    Recording loaded;
    QString error;
    QVERIFY(Recording::load(path, &loaded, &error));
    QCOMPARE(loaded.records.size(), 4);
    QVERIFY2(loaded.warning.contains(QLatin1String("line 6")), qPrintable(loaded.warning));

    const QString notOurs = dir.filePath(QStringLiteral("other.jsonl"));
    QFile o(notOurs);
    QVERIFY(o.open(QIODevice::WriteOnly));
    o.write("{\"hello\":1}\n");
    o.close();
    QVERIFY(!Recording::load(notOurs, &loaded, &error));
    QVERIFY(error.contains(QLatin1String("not a LockScope recording")));

    const QString future = dir.filePath(QStringLiteral("future.jsonl"));
    QFile fu(future);
    QVERIFY(fu.open(QIODevice::WriteOnly));
    fu.write("{\"format\":\"lockscope-recording\",\"version\":99}\n");
    fu.close();
    QVERIFY(!Recording::load(future, &loaded, &error));
    QVERIFY(error.contains(QLatin1String("version 99")));
    QVERIFY(!Recording::load(dir.filePath(QStringLiteral("missing.jsonl")), &loaded, &error));
}

void TestHistory::replaySeekAndPlay()
{
    Recording rec;
    rec.header = {{QStringLiteral("format"), QStringLiteral("lockscope-recording")}, {QStringLiteral("version"), 1}};
    for (int i = 0; i < 20; ++i) {
        Recording::Record r;
        r.timeMs = 10000 + i * 100;
        r.changed << held(QStringLiteral("lock:%1").arg(i % 4), i % 2 ? kA : kB, 30000 - i);
        if (i == 10)
            r.removed << QStringLiteral("lock:3");
        r.events << LockEvent{r.timeMs, QStringLiteral("lock:%1").arg(i % 4), QStringLiteral("acquired"), kA,
                              QString()};
        rec.records << r;
    }
    ReplayPlayer player;
    player.setRecording(rec);
    QHash<QString, LockSnapshot> state;
    int events = 0;
    connect(&player, &ReplayPlayer::reset, this, [&] {
        state.clear();
        events = 0;
    });
    connect(&player, &ReplayPlayer::locksUpdated, this, [&](const QVector<LockSnapshot> &c, const QStringList &r) {
        for (const auto &s : c)
            state.insert(s.name, s);
        for (const auto &n : r)
            state.remove(n);
    });
    connect(&player, &ReplayPlayer::eventsOccurred, this, [&](const QVector<LockEvent> &e) { events += e.size(); });

    // Seek: the state at 10.5 s is records 0..5 applied.
    player.seek(10500);
    QCOMPARE(events, 6);
    QCOMPARE(state.size(), 4);
    QCOMPARE(state.value(QStringLiteral("lock:1")).pttlMs, 30000 - 5);
    // Countdowns run on the replay clock: lock:1 was read at 10.5 s (record 5), lock:0 at 10.4 s.
    QCOMPARE(player.clockMs(), 10500);
    QCOMPARE(state.value(QStringLiteral("lock:1")).remainingTtlMs(player.clockMs()), 30000 - 5);
    QCOMPARE(state.value(QStringLiteral("lock:0")).remainingTtlMs(player.clockMs()), 30000 - 4 - 100);
    // Paused, the clock stands still.
    QTest::qWait(50);
    QCOMPARE(player.clockMs(), 10500);
    // Play to the end at 16x: same final state as applying everything.
    player.setSpeed(16);
    QSignalSpy finished(&player, &ReplayPlayer::finished);
    player.play();
    QVERIFY(finished.wait(5000));
    QCOMPARE(events, 20);
    QCOMPARE(state.size(), 4); // lock:3 was removed at 11.0 s and written again at 11.5 s
    QCOMPARE(state.value(QStringLiteral("lock:3")).pttlMs, 30000 - 19);
    // Speeds are clamped.
    player.setSpeed(100);
    QCOMPARE(player.speed(), 16.0);
    player.setSpeed(0.01);
    QCOMPARE(player.speed(), 0.25);
}

QTEST_GUILESS_MAIN(TestHistory)
#include "tst_history.moc"
