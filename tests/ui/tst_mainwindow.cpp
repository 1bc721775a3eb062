// Offscreen GUI smoke test: the dashboard against a real redis-server with locks written by
// redis-cli (an independent client) and by the demo workload.
#include "common/screenfit.h"
#include "common/shortcutsdialog.h"
#include "common/windowstatekeeper.h"
#include "connect/connectionbanner.h"
#include "locks/clientsmodel.h"
#include "locks/clientsview.h"
#include "locks/findingmodel.h"
#include "locks/forceunlockdialog.h"
#include "locks/lockdetailpanel.h"
#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include "testsupport.h"

#include "charts/timelinewidget.h"
#include "charts/ttlchart.h"
#include "demo/demoworkload.h"
#include "demo/redisserverprocess.h"
#include "locks/eventlogmodel.h"
#include "recording/recording.h"
#include "recording/replayplayer.h"
#include "recording/sessionrecorder.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

#include <algorithm>
#include <numeric>
#include <random>

using namespace lockscope;

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void showsLocksWrittenByAnotherClient();
    void demoWorkloadRendersAndScreenshot();
    void readOnlyHidesWrites();
    void forceUnlockDialogNamesWhatHappens();
    void recordedDemoReplaysTheSameStates();
    void replayDiagnosesTheReplayedTable();
    void recordedLostLeaseReplaysWithTheSameMarks();
    void frozenServiceShowsALostLease();
    void problemsTabCommandsCarryTheUrl();
    void notConnectedIsNeverMistakenForNoLocks();
    void forceUnlockConfirmationActsOnlyOnTheName();
    void selectionNeverMovesToAnotherLock();
    void enablingNotificationsAsksFirst();
    void filterFindsLocksByHolder();
    void clientsViewListsHoldersAndWaitersWithLabels();
    void clientsTabSaysWhoHoldsAndWhetherItIsAlive();
    void forceUnlockSaysWhatHappened();
    void tabMovesBetweenPanesAndShortcutsAreListed();
    void firstWindowFitsTheScreen();
    void windowLayoutIsRemembered();

private:
    bool redisCli(const QStringList &args);
    RedisServerProcess m_server;
};

static const QString kField = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // client labels (QSettings) never reach the user's settings
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestMainWindow::cleanupTestCase()
{
    m_server.stop();
}

bool TestMainWindow::redisCli(const QStringList &args)
{
    return lockscope::test::redisCli(m_server.port(), args).exitCode == 0;
}

/** Shows `window`, starts it and waits until its first discovery is in the table. */
static bool startAndWaitForData(MainWindow &window)
{
    window.show();
    QSignalSpy ready(&window, &MainWindow::initialDataArrived);
    window.start();
    return ready.wait(10000);
}

void TestMainWindow::showsLocksWrittenByAnotherClient()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("orders:42"), kField, QStringLiteral("2")}));
    QVERIFY(redisCli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("30000")}));

    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    QVERIFY(startAndWaitForData(window));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 1, 5000);
    QCOMPARE(window.mode(), WatchMode::Live);
    window.selectLock(QStringLiteral("orders:42"));
    QCOMPARE(window.selectedLockName(), QStringLiteral("orders:42"));
    QCOMPARE(window.detailPanel()->snapshot().name, QStringLiteral("orders:42"));
    QCOMPARE(window.detailPanel()->snapshot().holders.first().holdCount, 2);

    // A release by the other client reaches the table live.
    QVERIFY(redisCli({QStringLiteral("DEL"), QStringLiteral("orders:42")}));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 0, 5000);
}

void TestMainWindow::demoWorkloadRendersAndScreenshot()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    DemoWorkload workload(m_server.endpoint());
    workload.start();
    QTest::qWait(1500);
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    QVERIFY(startAndWaitForData(window));
    QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->rowCount() >= 4, 5000);
    QVERIFY(window.lockModel()->rowOf(QStringLiteral("orders:42")) >= 0);
    QVERIFY(window.lockModel()->rowOf(QStringLiteral("legacy:cron")) >= 0);
    const QImage shot = window.grab().toImage();
    QVERIFY(!shot.isNull());
    QVERIFY(shot.width() > 600 && shot.height() > 400);
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(shot.save(QDir(dir).filePath(QStringLiteral("mainwindow-demo.png"))));
    workload.stop();
}

void TestMainWindow::readOnlyHidesWrites()
{
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    options.readOnly = true;
    MainWindow window(options);
    const auto actions = window.findChildren<QAction *>();
    bool sawForce = false;
    for (QAction *a : actions) {
        const QString text = a->text();
        if (text.contains(QStringLiteral("Force unlock")) || text.contains(QStringLiteral("Acquire")) ||
            text.contains(QStringLiteral("Release")) || text.contains(QStringLiteral("Renew"))) {
            sawForce = true;
            QVERIFY2(!a->isVisible(), qPrintable(text));
        }
    }
    QVERIFY(sawForce);
}

void TestMainWindow::forceUnlockDialogNamesWhatHappens()
{
    LockSnapshot s;
    s.name = QStringLiteral("orders:42");
    s.isLock = s.exists = true;
    s.pttlMs = 25000;
    s.readAtSteadyMs = LockSnapshot::steadyNowMs();
    s.subscribers = 3;
    s.holders << LockHolder{kField, kField.section(QLatin1Char(':'), 0, 0), QStringLiteral("1"), 2, QString(), {}};
    ForceUnlockDialog dialog(s);
    QVERIFY(dialog.summary().contains(QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b")));
    QVERIFY(dialog.summary().contains(QStringLiteral("hold count <b>2</b>")));
    QVERIFY(dialog.summary().contains(QStringLiteral("3 Redisson client(s)")));
    QVERIFY(dialog.summary().contains(QStringLiteral("redisson_lock__channel:{orders:42}")));
}

namespace
{
/** What the table shows of one lock at an instant (TTL left on the view's own clock). */
struct RowState {
    QString holders;
    qint64 holdCount = 0;
    qint64 ttlMs = 0;
    qint64 waiting = 0;
};

QHash<QString, RowState> tableState(const LockTableModel *model, qint64 clockMs)
{
    QHash<QString, RowState> out;
    for (int r = 0; r < model->rowCount(); ++r) {
        const auto s = model->index(r, 0).data(LockTableModel::SnapshotRole).value<LockSnapshot>();
        out.insert(s.name, RowState{s.holderSummary(), s.totalHoldCount(), s.remainingTtlMs(clockMs),
                                    s.kind == LockKind::FairLock ? s.queueLength : s.subscribers});
    }
    return out;
}

QString compareStates(const QHash<QString, RowState> &live, const QHash<QString, RowState> &replay)
{
    if (live.size() != replay.size()) {
        QStringList only;
        for (auto it = live.cbegin(); it != live.cend(); ++it)
            if (!replay.contains(it.key()))
                only << QStringLiteral("live only: ") + it.key();
        for (auto it = replay.cbegin(); it != replay.cend(); ++it)
            if (!live.contains(it.key()))
                only << QStringLiteral("replay only: ") + it.key();
        return QStringLiteral("%1 locks live, %2 in the replay (%3)")
            .arg(live.size())
            .arg(replay.size())
            .arg(only.join(QStringLiteral(", ")));
    }
    for (auto it = live.cbegin(); it != live.cend(); ++it) {
        if (!replay.contains(it.key()))
            return QStringLiteral("%1 missing from the replay").arg(it.key());
        const RowState &a = it.value();
        const RowState &b = replay[it.key()];
        // The TTL left differs only by the time between the reply and its recording (a few ms).
        const bool ttlClose = (a.ttlMs < 0 || b.ttlMs < 0) ? a.ttlMs == b.ttlMs : qAbs(a.ttlMs - b.ttlMs) <= 150;
        if (a.holders != b.holders || a.holdCount != b.holdCount || a.waiting != b.waiting || !ttlClose)
            return QStringLiteral("%1: live %2 x%3 ttl %4 waiting %5, replay %6 x%7 ttl %8 waiting %9")
                .arg(it.key(), a.holders)
                .arg(a.holdCount)
                .arg(a.ttlMs)
                .arg(a.waiting)
                .arg(b.holders)
                .arg(b.holdCount)
                .arg(b.ttlMs)
                .arg(b.waiting);
    }
    return QString();
}

QString compareHolds(const HistoryStore &live, const HistoryStore &replay)
{
    const auto a = live.holds();
    const auto b = replay.holds();
    if (a.size() != b.size())
        return QStringLiteral("%1 hold intervals live, %2 replayed").arg(a.size()).arg(b.size());
    for (int i = 0; i < a.size(); ++i)
        if (a[i].lock != b[i].lock || a[i].who != b[i].who || a[i].startMs != b[i].startMs || a[i].endMs != b[i].endMs)
            return QStringLiteral("hold %1 of %2 differs: live %3 %4..%5, replay %6 %7..%8")
                .arg(i)
                .arg(a[i].lock, a[i].who)
                .arg(a[i].startMs)
                .arg(a[i].endMs)
                .arg(b[i].who)
                .arg(b[i].startMs)
                .arg(b[i].endMs);
    if (live.eventCount() != replay.eventCount())
        return QStringLiteral("%1 events live, %2 replayed").arg(live.eventCount()).arg(replay.eventCount());
    for (const QString &lock : live.lockNames())
        if (live.samples(lock).size() != replay.samples(lock).size())
            return QStringLiteral("%1: %2 TTL samples live, %3 replayed")
                .arg(lock)
                .arg(live.samples(lock).size())
                .arg(replay.samples(lock).size());
    return QString();
}
} // namespace

void TestMainWindow::recordedDemoReplaysTheSameStates()
{
    // Done-when of the history issue: a recorded demo replays with the same table states,
    // timeline and charts as live, at 1x and 16x, and the scrub bar jumps to any instant.
    // LOCKSCOPE_REPLAY_CHECK_MS sets the length (the five-minute check: 300000).
    const qint64 durationMs = qEnvironmentVariableIsSet("LOCKSCOPE_REPLAY_CHECK_MS")
                                  ? qEnvironmentVariable("LOCKSCOPE_REPLAY_CHECK_MS").toLongLong()
                                  : 12000;
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("demo.jsonl.gz"));
    DemoWorkload workload(m_server.endpoint());
    workload.start();

    struct Capture {
        qint64 timeMs;
        QHash<QString, RowState> state;
    };
    QVector<Capture> captures;
    HistoryStore liveHistory;
    {
        LockSession::Options options;
        options.endpoint = m_server.endpoint();
        options.readOnly = true;
        MainWindow live(options);
        live.show();
        QString error;
        QVERIFY2(live.startRecording(file, &error), qPrintable(error));
        QSignalSpy ready(&live, &MainWindow::initialDataArrived);
        live.start();
        QVERIFY(ready.wait(10000));
        QElapsedTimer elapsed;
        elapsed.start();
        while (elapsed.elapsed() < durationMs) {
            QTest::qWait(int(qMin<qint64>(durationMs / 12 + 1, 1000)) + int(elapsed.elapsed() % 97));
            captures << Capture{QDateTime::currentMSecsSinceEpoch(),
                                tableState(live.lockModel(), LockSnapshot::steadyNowMs())};
        }
        liveHistory = live.history();
    } // the live window closes its recording
    workload.stop();
    QVERIFY(captures.size() >= 10);
    QVERIFY(liveHistory.holds().size() >= 5);

    Recording recording;
    QString error;
    QVERIFY2(Recording::load(file, &recording, &error), qPrintable(error));
    QVERIFY2(recording.warning.isEmpty(), qPrintable(recording.warning));
    ReplayPlayer player;
    player.setRecording(recording);
    LockSession::Options options;
    options.readOnly = true;
    MainWindow replay(options);
    replay.attachReplay(&player);
    replay.show();
    QSignalSpy ready(&replay, &MainWindow::initialDataArrived);
    QVERIFY(ready.wait(5000));

    // The scrub bar jumps to any instant: every captured instant, in random order.
    auto *scrub = replay.findChild<QSlider *>(QStringLiteral("replayScrub"));
    QVERIFY(scrub);
    QVector<int> order(captures.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(7));
    for (int i : order) {
        player.seek(captures[i].timeMs);
        QString diff = compareStates(captures[i].state, tableState(replay.lockModel(), player.clockMs()));
        if (!diff.isEmpty()) {
            // A batch stamped in the very millisecond of the capture may have come just after it:
            // times are in ms, so the state "at T" is ambiguous within T. The one before T must match.
            player.seek(captures[i].timeMs - 1);
            if (compareStates(captures[i].state, tableState(replay.lockModel(), player.clockMs())).isEmpty())
                diff.clear();
        }
        if (!diff.isEmpty()) { // what the recording holds around that instant, to see why
            for (const auto &r : recording.records) {
                if (qAbs(r.timeMs - captures[i].timeMs) > 400)
                    continue;
                QStringList parts;
                for (const auto &s : r.changed)
                    parts << QStringLiteral("%1=%2/%3")
                                 .arg(s.name, s.holderSummary().left(8))
                                 .arg(s.kind == LockKind::FairLock ? s.queueLength : s.subscribers);
                parts << QStringLiteral("removed:") + r.removed.join(QLatin1Char(','));
                qWarning("t%+lld %s", r.timeMs - captures[i].timeMs, qPrintable(parts.join(QLatin1Char(' '))));
            }
        }
        QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("at capture %1: %2").arg(i).arg(diff)));
    }
    // Dragging the slider seeks too (it works in 100 ms steps).
    scrub->setValue(scrub->maximum() / 2);
    QVERIFY(qAbs(player.positionMs() - (recording.startMs() + qint64(scrub->maximum() / 2) * 100)) <= 100);

    // 1x: play a moment from the first capture, pause; the table equals a seek to that instant.
    player.seek(captures.first().timeMs);
    player.setSpeed(1);
    player.play();
    QTest::qWait(1500);
    player.pause();
    const qint64 pausedAt = player.positionMs();
    QVERIFY(pausedAt >= captures.first().timeMs + 1200);
    const auto played = tableState(replay.lockModel(), player.clockMs());
    player.seek(pausedAt);
    QVERIFY2(compareStates(played, tableState(replay.lockModel(), player.clockMs())).isEmpty(),
             qPrintable(compareStates(played, tableState(replay.lockModel(), player.clockMs()))));

    // 16x from the start to the end: the last table state and the whole history (timeline lanes,
    // TTL samples, events) are the live ones.
    player.seek(recording.startMs());
    player.setSpeed(16);
    QSignalSpy finished(&player, &ReplayPlayer::finished);
    QElapsedTimer wall;
    wall.start();
    player.play();
    QVERIFY(finished.wait(int(durationMs / 8 + 10000)));
    qInfo("16x replay of %lld ms took %lld ms", recording.endMs() - recording.startMs(), wall.elapsed());
    const QString holds = compareHolds(liveHistory, replay.history());
    QVERIFY2(holds.isEmpty(), qPrintable(holds));
}

// The Problems tab's suggested commands carry --url (pasted, they reach this server,
// not 127.0.0.1:6379).
void TestMainWindow::replayDiagnosesTheReplayedTable()
{
    // A replay diagnoses through the same DoctorLoop as a session, so the two cannot disagree (no probe, the replay
    // clock, reset on seek): a lock without a TTL in the recording is a problem while it is in the
    // replayed table, and is not one at an instant before it was written.
    Recording recording;
    recording.header.insert(QStringLiteral("server"), QStringLiteral("redis://replay.example:6379"));
    LockSnapshot s;
    s.name = QStringLiteral("legacy:cron");
    s.isLock = s.exists = true;
    s.pttlMs = -1; // no TTL: the doctor's no_ttl rule
    s.holders << LockHolder{kField, kField.section(QLatin1Char(':'), 0, 0), QStringLiteral("1"), 1, QString(), {}};
    Recording::Record empty;
    empty.timeMs = 1000000;
    Recording::Record written;
    written.timeMs = 1005000;
    written.changed << s;
    Recording::Record later;
    later.timeMs = 1010000;
    recording.records << empty << written << later;
    ReplayPlayer player;
    player.setRecording(recording);
    LockSession::Options options;
    options.readOnly = true;
    MainWindow replay(options);
    replay.attachReplay(&player);
    replay.show();
    QSignalSpy ready(&replay, &MainWindow::initialDataArrived);
    QVERIFY(ready.wait(5000));
    const auto hasNoTtl = [&replay] {
        for (const auto &f : replay.findingModel()->findings())
            if (f.code == QLatin1String("no_ttl") && f.lock == QLatin1String("legacy:cron"))
                return true;
        return false;
    };
    player.seek(1008000);
    QCOMPARE(replay.lockModel()->rowCount(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(hasNoTtl(), 3000);
    player.seek(1002000); // before the lock was written: the seek's diagnosis clears it
    QCOMPARE(replay.lockModel()->rowCount(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(replay.findingModel()->findings().isEmpty(), 3000);
    // The periodic loop (every 2 s of wall time) keeps diagnosing the replayed table.
    player.seek(1008000);
    QTRY_VERIFY_WITH_TIMEOUT(hasNoTtl(), 3000);
    QTest::qWait(2500);
    QVERIFY(hasNoTtl());
}

// Lease safety in a recording: the events are written as JSON (LockEvent::toJson) and replayed
// through ReplayPlayer::eventsOccurred into the same views, so a lost lease shows in a replay as
// it did live: the badge beside the holder, the detail's overlap window, the timeline's marks and
// the Problems tab's finding; and a seek to before the loss shows none of it.
void TestMainWindow::recordedLostLeaseReplaysWithTheSameMarks()
{
    const QString a = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    const QString b = QStringLiteral("0c7931ed-77b4-4eba-8af7-706668f329e6:7");
    const QString name = QStringLiteral("orders:42");
    const qint64 t0 = QDateTime::currentMSecsSinceEpoch() - 600000;
    auto snapshot = [&name](const QString &field, qint64 pttl) {
        LockSnapshot s;
        s.name = name;
        s.isLock = s.exists = true;
        s.pttlMs = pttl;
        s.holders << LockHolder{
            field, field.section(QLatin1Char(':'), 0, 0), field.section(QLatin1Char(':'), 1), 1, QString(), {}};
        return s;
    };
    auto event = [&name](qint64 t, const QString &type, const QString &holder, const QJsonObject &extra = {}) {
        LockEvent e{t, name, type, holder, QString()};
        e.extra = extra;
        return e;
    };
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lease-lost.jsonl"));
    {
        SessionRecorder recorder;
        QString error;
        QVERIFY2(recorder.open(path,
                               SessionRecorder::header(QStringLiteral("redis://127.0.0.1:6379"), QString(),
                                                       QStringLiteral("test")),
                               &error),
                 qPrintable(error));
        recorder.recordLocks({snapshot(a, 30000)}, {}, t0);
        recorder.recordEvents({event(t0, QStringLiteral("acquired"), a)});
        for (int k = 1; k <= 2; ++k) {
            recorder.recordLocks({snapshot(a, 30000)}, {}, t0 + k * 10000);
            recorder.recordEvents({event(t0 + k * 10000, QStringLiteral("renewed"), a,
                                         {{QStringLiteral("margin_ms"), 20000}, {QStringLiteral("pttl_ms"), 30000}})});
        }
        // A stops; its lease runs out at +50 s and B, waiting, takes the lock in the same read.
        recorder.recordLocks({snapshot(b, 30000)}, {}, t0 + 50000);
        recorder.recordEvents(
            {event(t0 + 50000, QStringLiteral("lease_lost"), a,
                   {{QStringLiteral("client_id"), a.section(QLatin1Char(':'), 0, 0)},
                    {QStringLiteral("thread_id"), QStringLiteral("1")},
                    {QStringLiteral("lease_ms"), 30000},
                    {QStringLiteral("renewals"), 2},
                    {QStringLiteral("last_renewed_ms"), t0 + 20000},
                    {QStringLiteral("silent_ms"), 30000},
                    {QStringLiteral("next_holder"), b},
                    {QStringLiteral("overlap_from_ms"), t0 + 50000}}),
             event(t0 + 50000, QStringLiteral("acquired"), b, {{QStringLiteral("after_lease_lost"), a}})});
        // A comes back at +70 s.
        recorder.recordEvents({event(t0 + 70000, QStringLiteral("holder_returned"), a,
                                     {{QStringLiteral("returned_on"), QStringLiteral("inventory:7")},
                                      {QStringLiteral("returned_by"), QStringLiteral("acquired")},
                                      {QStringLiteral("lost_at_ms"), t0 + 50000},
                                      {QStringLiteral("next_holder"), b},
                                      {QStringLiteral("overlap_from_ms"), t0 + 50000},
                                      {QStringLiteral("overlap_to_ms"), t0 + 70000}})});
        recorder.recordLocks({snapshot(b, 30000)}, {}, t0 + 75000);
        recorder.close();
    }
    Recording recording;
    QString error;
    QVERIFY2(Recording::load(path, &recording, &error), qPrintable(error));
    ReplayPlayer player;
    player.setRecording(recording);
    LockSession::Options options;
    options.readOnly = true;
    MainWindow replay(options);
    replay.resize(1400, 900);
    replay.attachReplay(&player);
    replay.show();
    QSignalSpy ready(&replay, &MainWindow::initialDataArrived);
    QVERIFY(ready.wait(5000));

    player.seek(t0 + 72000);
    QCOMPARE(replay.lockModel()->rowCount(), 1);
    const QModelIndex holder = replay.lockModel()->index(replay.lockModel()->rowOf(name), LockTableModel::HolderColumn);
    QCOMPARE(holder.data().toString(), b);
    QCOMPARE(holder.data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lease lost · holder back"));
    QVERIFY2(holder.data(Qt::ToolTipRole).toString().contains(QStringLiteral("%1 stopped renewing").arg(a)),
             qPrintable(holder.data(Qt::ToolTipRole).toString()));
    replay.serverView()->selectLock(name);
    QVERIFY2(replay.detailPanel()->leaseText().contains(QStringLiteral("Both may have run the critical section")),
             qPrintable(replay.detailPanel()->leaseText()));
    // The events as recorded, extras included, in the log and the history.
    const QVector<LockEvent> lostEvents = replay.history().events(name);
    const auto lostIt = std::find_if(lostEvents.cbegin(), lostEvents.cend(),
                                     [](const LockEvent &e) { return e.type == QLatin1String("lease_lost"); });
    QVERIFY(lostIt != lostEvents.cend());
    QCOMPARE(lostIt->extra.value(QStringLiteral("next_holder")).toString(), b);
    bool logged = false;
    for (int r = 0; r < replay.eventModel()->rowCount(); ++r)
        logged = logged || replay.eventModel()->event(r).type == QLatin1String("holder_returned");
    QVERIFY(logged);
    replay.timeline()->refreshNow();
    QCOMPARE(replay.timeline()->leaseMarksOf(name).size(), 2);
    QCOMPARE(replay.timeline()->overlapsOf(name).size(), 1);
    replay.ttlChart()->refreshNow();
    QCOMPARE(replay.ttlChart()->markerGraph(QStringLiteral("lease_lost"))->dataCount(), 1);
    // The Problems tab: the replay's doctor records the recorded lease_lost as a finding.
    const auto hasFinding = [&replay, &name] {
        for (const auto &f : replay.findingModel()->findings())
            if (f.code == QLatin1String("lease_lost") && f.lock == name)
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(hasFinding(), 5000);
    const QString png = QDir::temp().filePath(QStringLiteral("replay-lease-lost.png"));
    replay.grab().save(png);
    qInfo("replayed lost lease: %s", qPrintable(png));

    // Before the loss: no badge, no marks.
    player.seek(t0 + 30000);
    QCOMPARE(replay.lockModel()->rowCount(), 1);
    QVERIFY(replay.lockModel()
                ->index(replay.lockModel()->rowOf(name), LockTableModel::HolderColumn)
                .data(LockTableModel::LeaseBadgeRole)
                .toString()
                .isEmpty());
    QVERIFY(!replay.detailPanel()->hasLeaseAlert());
    replay.timeline()->refreshNow();
    QVERIFY(replay.timeline()->leaseMarksOf(name).isEmpty());
}

namespace
{
/** A node-redisson service (tests/integration/node-redisson/service.js): one Redisson client in
 *  its own process, driven by lines on stdin, answering one line each. */
class NodeService
{
public:
    NodeService(const QString &node, const QString &dir, quint16 port, qint64 watchdogMs,
                const QString &connectionName = QString())
    {
        m_process.setWorkingDirectory(dir);
        QStringList args{QStringLiteral("service.js"), QString::number(port), QString::number(watchdogMs)};
        if (!connectionName.isEmpty())
            args << connectionName;
        m_process.start(node, args);
    }
    ~NodeService()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        ::kill(pid_t(m_process.processId()), SIGCONT);
        m_process.kill();
        m_process.waitForFinished(3000);
    }
    void send(const QByteArray &line) { m_process.write(line + '\n'); }
    /** Waits up to `timeoutMs` for an answer line starting with `prefix`. */
    bool waitFor(const QString &prefix, int timeoutMs)
    {
        return QTest::qWaitFor(
            [&] {
                while (m_process.canReadLine())
                    if (QString::fromUtf8(m_process.readLine()).startsWith(prefix))
                        return true;
                return false;
            },
            timeoutMs);
    }
    bool signal(int sig) { return ::kill(pid_t(m_process.processId()), sig) == 0; }

private:
    QProcess m_process;
};
} // namespace

// Lease safety end to end, as an operator meets it: a real node-redisson service holds orders:42
// with its watchdog, another waits; the first is frozen with SIGSTOP past its lease and resumed.
// The dashboard shows "lease lost" beside the new holder, the detail panel the overlap window once
// the old holder is back, the timeline its marks and the Problems tab the finding.
// LOCKSCOPE_LEASE_SHOT=FILE also saves the window (the README's lease-lost.png), with a 10 s lease.
void TestMainWindow::frozenServiceShowsALostLease()
{
    const QString dir = qEnvironmentVariable("LOCKSCOPE_NODE_DRIVER_DIR", QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR));
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty() || !QFileInfo::exists(dir + QStringLiteral("/node_modules/node-redisson/package.json")))
        QSKIP("node-redisson is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
    const QString shot = qEnvironmentVariable("LOCKSCOPE_LEASE_SHOT");
    const qint64 leaseMs = shot.isEmpty() ? 4500 : 10000;
    const QString name = QStringLiteral("orders:42");
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.resize(1360, 820);
    window.show();
    window.start();
    QTRY_VERIFY_WITH_TIMEOUT(window.hasInitialData(), 10000);

    NodeService a(node, dir, m_server.port(), leaseMs);
    NodeService b(node, dir, m_server.port(), leaseMs);
    NodeService c(node, dir, m_server.port(), 30000);
    QVERIFY(a.waitFor(QStringLiteral("READY"), 10000) && b.waitFor(QStringLiteral("READY"), 10000) &&
            c.waitFor(QStringLiteral("READY"), 10000));
    c.send("hold payments:batch 3"); // locks that stay well, for the picture
    c.send("hold-lease reports:daily 4 600000");
    a.send("hold orders:42 1");
    QVERIFY(a.waitFor(QStringLiteral("OK hold orders:42"), 10000));
    const auto count = [&window, &name](const QString &type) {
        const auto events = window.history().events(name);
        return std::count_if(events.cbegin(), events.cend(), [&type](const LockEvent &e) { return e.type == type; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(count(QStringLiteral("renewed")) >= 2, int(leaseMs) + 5000);
    b.send("wait orders:42 7");
    QVERIFY(b.waitFor(QStringLiteral("WAITING orders:42"), 10000));
    QTest::qWait(500);

    // A freezes: its watchdog stops, the lease runs out, B takes the lock.
    QVERIFY(a.signal(SIGSTOP));
    const auto row = [&window, &name] {
        return window.lockModel()->index(window.lockModel()->rowOf(name), LockTableModel::HolderColumn);
    };
    QTRY_VERIFY_WITH_TIMEOUT(count(QStringLiteral("lease_lost")) == 1, int(leaseMs) + 5000);
    QVERIFY(b.waitFor(QStringLiteral("ACQUIRED orders:42"), 10000));
    QTRY_COMPARE_WITH_TIMEOUT(row().data(LockTableModel::LeaseBadgeRole).toString(), QStringLiteral("lease lost"),
                              3000);
    const auto events = window.history().events(name);
    const auto lost = std::find_if(events.cbegin(), events.cend(),
                                   [](const LockEvent &e) { return e.type == QLatin1String("lease_lost"); });
    const QString holderA = lost->holder;
    QVERIFY(holderA.endsWith(QStringLiteral(":1")));
    QTRY_VERIFY_WITH_TIMEOUT(row().data().toString().endsWith(QStringLiteral(":7")), 3000); // B holds it now
    QVERIFY2(row().data(Qt::ToolTipRole).toString().contains(holderA + QStringLiteral(" stopped renewing")),
             qPrintable(row().data(Qt::ToolTipRole).toString()));
    QVERIFY2(row().data(Qt::ToolTipRole).toString().contains(QStringLiteral("Next holder: ") + row().data().toString()),
             qPrintable(row().data(Qt::ToolTipRole).toString()));
    window.serverView()->selectLock(name);
    QVERIFY2(window.detailPanel()->leaseText().contains(QStringLiteral("may still be running its critical section")),
             qPrintable(window.detailPanel()->leaseText()));

    // A resumes and takes another lock: it was stalled, not dead.
    QTest::qWait(shot.isEmpty() ? 1000 : 6000);
    QVERIFY(a.signal(SIGCONT));
    a.send("hold inventory:7 1");
    QVERIFY(a.waitFor(QStringLiteral("OK hold inventory:7"), 10000));
    QTRY_COMPARE_WITH_TIMEOUT(row().data(LockTableModel::LeaseBadgeRole).toString(),
                              QStringLiteral("lease lost · holder back"), 3000);
    QTRY_VERIFY_WITH_TIMEOUT(window.detailPanel()->leaseText().contains(QStringLiteral("Both may have run")), 3000);
    window.timeline()->refreshNow();
    QCOMPARE(window.timeline()->leaseMarksOf(name).size(), 2);
    QCOMPARE(window.timeline()->overlapsOf(name).size(), 1);
    const auto hasFinding = [&window, &name] {
        for (const auto &f : window.findingModel()->findings())
            if (f.code == QLatin1String("lease_lost") && f.lock == name)
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(hasFinding(), 5000);

    if (!shot.isEmpty()) {
        QTest::qWait(4000); // B's bar grows past the overlap window
        // FILE with the timeline below; FILE-ttl.png and FILE-events.png with the other tabs, to compare.
        const QString base = shot.endsWith(QLatin1String(".png")) ? shot.chopped(4) : shot;
        const QVector<QPair<QString, QWidget *>> pages{{shot, window.timeline()},
                                                       {base + QStringLiteral("-ttl.png"), window.ttlChart()},
                                                       {base + QStringLiteral("-events.png"), nullptr}};
        for (const auto &[path, page] : pages) {
            for (QTabWidget *tabs : window.findChildren<QTabWidget *>())
                for (int i = 0; i < tabs->count(); ++i)
                    if (page ? tabs->widget(i) == page || tabs->widget(i)->isAncestorOf(page)
                             : tabs->tabText(i).contains(QStringLiteral("Event")))
                        tabs->setCurrentIndex(i);
            QTest::qWait(800);
            QVERIFY(window.grab().save(path));
            qInfo("lost lease: %s", qPrintable(path));
        }
    }
    a.send("quit");
    b.send("quit");
    c.send("quit");
}

void TestMainWindow::problemsTabCommandsCarryTheUrl()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("legacy:cron"), kField, QStringLiteral("1")})); // no TTL
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.resize(1400, 800);
    window.show();
    window.start();
    QTableView *view = nullptr;
    for (QTableView *v : window.findChildren<QTableView *>())
        if (qobject_cast<FindingModel *>(v->model()))
            view = v;
    QVERIFY(view);
    auto *model = qobject_cast<FindingModel *>(view->model());
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() > 0, 10000);
    const QString action = model->findings().first().action;
    const QString url = m_server.endpoint().toString();
    QVERIFY2(action.contains(QStringLiteral("lockscope-cli set-ttl legacy:cron --ttl-ms 30000 --url %1").arg(url)),
             qPrintable(action));
    const QString png = QDir::temp().filePath(QStringLiteral("ops-cli-problems-tab.png"));
    for (QTabWidget *tabs : window.findChildren<QTabWidget *>())
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view))
                tabs->setCurrentIndex(i);
    QTest::qWait(200);
    window.grab().save(png);
    qInfo("Problems tab: %s", qPrintable(png));
}

// A wrong port must not read as an empty table ("no locks") with Acquire enabled, nor rows of a
// dead server as "held" with Force unlock enabled: a band over the table says what the table is,
// and writes wait for a connection.
void TestMainWindow::notConnectedIsNeverMistakenForNoLocks()
{
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    auto findAction = [](MainWindow &w, const QString &text) -> QAction * {
        for (QAction *a : w.findChildren<QAction *>())
            if (a->text().contains(text))
                return a;
        return nullptr;
    };
    {
        // Nothing listens on the port of a server that was started and stopped.
        RedisServerProcess gone;
        QString error;
        QVERIFY2(gone.start(10000, &error), qPrintable(error));
        LockSession::Options options;
        options.endpoint = gone.endpoint();
        gone.stop();
        MainWindow window(options);
        window.resize(1280, 720);
        window.show();
        window.start();
        ConnectionBanner *banner = window.connectionBanner();
        QVERIFY(banner);
        QTRY_COMPARE_WITH_TIMEOUT(window.mode(), WatchMode::Disconnected, 10000);
        QVERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains(QStringLiteral("Not connected to %1").arg(options.endpoint.address())),
                 qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(QStringLiteral("does not mean there are no locks")),
                 qPrintable(banner->text()));
        QCOMPARE(window.lockModel()->rowCount(), 0);
        QVERIFY(!findAction(window, QStringLiteral("Acquire"))->isEnabled());
        QVERIFY(!findAction(window, QStringLiteral("Force unlock"))->isEnabled());
        QTest::qWait(100);
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("banner-not-connected.png"))));
    }
    {
        RedisServerProcess dying;
        QString error;
        QVERIFY2(dying.start(10000, &error), qPrintable(error));
        QCOMPARE(lockscope::test::redisCli(
                     dying.port(), {QStringLiteral("HSET"), QStringLiteral("orders:42"), kField, QStringLiteral("1")})
                     .exitCode,
                 0);
        LockSession::Options options;
        options.endpoint = dying.endpoint();
        MainWindow window(options);
        window.resize(1280, 720);
        QVERIFY(startAndWaitForData(window));
        QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 1, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window.mode() == WatchMode::Live || window.mode() == WatchMode::Polling, 5000);
        window.selectLock(QStringLiteral("orders:42"));
        QVERIFY(findAction(window, QStringLiteral("Acquire"))->isEnabled());
        QVERIFY(findAction(window, QStringLiteral("Force unlock"))->isEnabled());
        dying.stop();
        QTRY_COMPARE_WITH_TIMEOUT(window.mode(), WatchMode::Disconnected, 10000);
        ConnectionBanner *banner = window.connectionBanner();
        QVERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains(QStringLiteral("last data read, as of")), qPrintable(banner->text()));
        QVERIFY(!findAction(window, QStringLiteral("Acquire"))->isEnabled());
        QVERIFY(!findAction(window, QStringLiteral("Force unlock"))->isEnabled());
        // The row itself says it is the last read (greyed, "as of hh:mm:ss" where its TTL was),
        // and so does the detail panel.
        const QModelIndex ttl = window.lockModel()->index(window.lockModel()->rowOf(QStringLiteral("orders:42")),
                                                          LockTableModel::TtlColumn);
        QTRY_VERIFY_WITH_TIMEOUT(ttl.data().toString().startsWith(QStringLiteral("as of ")), 5000);
        QVERIFY(ttl.data(Qt::ForegroundRole).isValid());
        auto *stale = window.detailPanel()->findChild<QLabel *>(QStringLiteral("staleLabel"));
        QVERIFY(stale);
        QTRY_VERIFY_WITH_TIMEOUT(stale->isVisible(), 5000);
        QVERIFY2(stale->text().contains(ttl.data().toString()), qPrintable(stale->text()));
        QTest::qWait(100);
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("banner-server-died.png"))));
    }
}

// With focus on Cancel, typing would go nowhere and Enter after typing the exact name would
// cancel silently: focus is in the field, Enter acts only on a match and says so
// otherwise, Escape cancels.
void TestMainWindow::forceUnlockConfirmationActsOnlyOnTheName()
{
    LockSnapshot s;
    s.name = QStringLiteral("orders:42");
    s.isLock = s.exists = true;
    s.pttlMs = 25000;
    s.readAtSteadyMs = LockSnapshot::steadyNowMs();
    s.holders << LockHolder{kField, kField.section(QLatin1Char(':'), 0, 0), QStringLiteral("1"), 1, QString(), {}};
    {
        ForceUnlockDialog dialog(s);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *typed = dialog.findChild<QLineEdit *>(QStringLiteral("confirmName"));
        QVERIFY(typed);
        QCOMPARE(dialog.focusWidget(), typed);
        QTest::keyClicks(typed, QStringLiteral("orders:4"));
        QTest::keyClick(typed, Qt::Key_Return);
        QVERIFY(dialog.isVisible()); // not cancelled, not done
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("confirmHint"))
                    ->text()
                    .contains(QStringLiteral("nothing was done")));
        const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
        QDir().mkpath(dir);
        QVERIFY(dialog.grab().save(QDir(dir).filePath(QStringLiteral("force-unlock-no-match.png"))));
        QTest::keyClicks(typed, QStringLiteral("2"));
        QTest::keyClick(typed, Qt::Key_Return);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }
    {
        ForceUnlockDialog dialog(s);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::keyClick(dialog.findChild<QLineEdit *>(QStringLiteral("confirmName")), Qt::Key_Escape);
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QVERIFY(!dialog.isVisible());
    }
}

// A selection that jumps to the next lock when its own goes away (or a first lock selected at
// start) puts another lock's Force unlock… one click away.
void TestMainWindow::selectionNeverMovesToAnotherLock()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    for (const char *name : {"sel:a", "sel:b", "sel:c"})
        QVERIFY(redisCli({QStringLiteral("HSET"), QString::fromLatin1(name), kField, QStringLiteral("1")}));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    QVERIFY(startAndWaitForData(window));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 3, 5000);
    QCOMPARE(window.selectedLockName(), QString()); // nothing pre-selected
    window.selectLock(QStringLiteral("sel:b"));
    QCOMPARE(window.selectedLockName(), QStringLiteral("sel:b"));
    QVERIFY(redisCli({QStringLiteral("DEL"), QStringLiteral("sel:b")}));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 2, 5000);
    QTest::qWait(100);
    QCOMPARE(window.selectedLockName(), QString());
    QVERIFY(window.detailPanel()->snapshot().name != QStringLiteral("sel:c"));
    QVERIFY(window.detailPanel()->snapshot().name != QStringLiteral("sel:a"));
}

// "Enable keyspace notifications" changes a server-wide setting, so it is never one click: it
// asks (naming the server and the cost), Cancel changes nothing, and Enable goes live.
void TestMainWindow::enablingNotificationsAsksFirst()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    auto cli = [&server](const QStringList &args) {
        return QString::fromUtf8(lockscope::test::redisCli(server.port(), args).out).trimmed();
    };
    cli({QStringLiteral("CONFIG"), QStringLiteral("SET"), QStringLiteral("notify-keyspace-events"), QString()});
    LockSession::Options options;
    options.endpoint = server.endpoint();
    MainWindow window(options);
    window.show();
    window.start();
    QTRY_COMPARE_WITH_TIMEOUT(window.mode(), WatchMode::Polling, 10000);
    QPushButton *button = nullptr;
    for (QPushButton *b : window.findChildren<QPushButton *>())
        if (b->text() == QStringLiteral("Enable keyspace notifications"))
            button = b;
    QVERIFY(button);
    auto answer = [](const QString &choice, QString *text) {
        QTimer::singleShot(200, [choice, text] {
            for (QWidget *w : QApplication::topLevelWidgets()) {
                auto *box = qobject_cast<QMessageBox *>(w);
                if (!box || box->objectName() != QStringLiteral("enableNotificationsConfirm"))
                    continue;
                *text = box->text() + QLatin1Char(' ') + box->informativeText();
                for (QAbstractButton *b : box->buttons())
                    if (b->text().contains(choice))
                        b->click();
            }
        });
    };
    QString asked;
    answer(QStringLiteral("Cancel"), &asked);
    button->click();
    QVERIFY2(asked.contains(server.endpoint().address()) && asked.contains(QStringLiteral("whole server")),
             qPrintable(asked));
    QTest::qWait(300);
    QVERIFY2(!cli({QStringLiteral("CONFIG"), QStringLiteral("GET"), QStringLiteral("notify-keyspace-events")})
                  .contains(QLatin1Char('K')),
             "Cancel must change nothing");
    answer(QStringLiteral("Enable"), &asked);
    button->click();
    QTRY_COMPARE_WITH_TIMEOUT(window.mode(), WatchMode::Live, 10000);
    QVERIFY(cli({QStringLiteral("CONFIG"), QStringLiteral("GET"), QStringLiteral("notify-keyspace-events")})
                .contains(QLatin1Char('K')));
}

// An operator often arrives with a client id from a stack trace, so the filter matches holders,
// readers and waiters too, not only lock names (which would give an empty table).
void TestMainWindow::filterFindsLocksByHolder()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    const QString other = QStringLiteral("8743c9c0-1111-4222-8333-944455556666");
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("orders:1"), kField, QStringLiteral("1")}));
    QVERIFY(redisCli(
        {QStringLiteral("HSET"), QStringLiteral("orders:2"), other + QStringLiteral(":77"), QStringLiteral("1")}));
    QVERIFY(redisCli(
        {QStringLiteral("HSET"), QStringLiteral("billing:9"), other + QStringLiteral(":78"), QStringLiteral("2")}));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.resize(1280, 720);
    QVERIFY(startAndWaitForData(window));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 3, 5000);
    QLineEdit *filter = nullptr;
    for (QLineEdit *e : window.findChildren<QLineEdit *>())
        if (e->placeholderText().startsWith(QStringLiteral("Filter")))
            filter = e;
    QVERIFY(filter);
    auto shown = [&window] { return window.lockView()->model()->rowCount(); };
    filter->setText(QStringLiteral("8743c9c0")); // the first 8 hex digits of a client id
    QCOMPARE(shown(), 2);
    QLabel *count = nullptr;
    for (QLabel *l : window.findChildren<QLabel *>())
        if (l->text().contains(QStringLiteral("locks match")))
            count = l;
    QVERIFY(count);
    QVERIFY2(count->text().contains(QStringLiteral("2 of 3 locks match")), qPrintable(count->text()));
    filter->setText(other + QStringLiteral(":78"));
    QCOMPARE(shown(), 1);
    filter->setText(QStringLiteral("orders:*")); // a glob: whole names
    QCOMPARE(shown(), 2);
    filter->setText(QStringLiteral("billing")); // a word: part of a name
    QCOMPARE(shown(), 1);
    filter->setText(QStringLiteral("ffffffff"));
    QCOMPARE(shown(), 0);
    QVERIFY2(count->text().contains(QStringLiteral("0 of 3 locks match")), qPrintable(count->text()));
    filter->setText(QStringLiteral("8743c9c0"));
    QTest::qWait(100);
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("filter-by-holder.png"))));
    // The event log follows the filter (issue 38): only the events of the locks it names stay.
    auto *events = window.findChild<QTableView *>(QStringLiteral("eventTable"));
    QVERIFY(events);
    filter->setText(QStringLiteral("billing*"));
    QVERIFY(redisCli({QStringLiteral("DEL"), QStringLiteral("orders:1")}));
    QVERIFY(redisCli({QStringLiteral("DEL"), QStringLiteral("billing:9")}));
    QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->rowCount() == 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(events->model()->rowCount() >= 1, 5000);
    for (int r = 0; r < events->model()->rowCount(); ++r)
        QCOMPARE(events->model()->index(r, EventLogModel::LockColumn).data().toString(), QStringLiteral("billing:9"));
}

// Who holds it, as an operator meets it: two node-redisson services hold locks (one names its
// connections "orders-7"), Identify runs a MONITOR sample, and the Clients tab shows each client's
// host, client name, connections and state; the named one is labelled by its name without typing.
// The fixed-lease holder is killed: its row turns "disconnected", the detail panel says "gone" and
// the force-unlock dialog says its client is gone, while the other's says it is connected.
// The screenshots go to $TMPDIR/lockscope-test-shots (the README's clients.png, force-unlock-gone.png).
void TestMainWindow::clientsTabSaysWhoHoldsAndWhetherItIsAlive()
{
    const QString dir = qEnvironmentVariable("LOCKSCOPE_NODE_DRIVER_DIR", QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR));
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty() || !QFileInfo::exists(dir + QStringLiteral("/node_modules/node-redisson/package.json")))
        QSKIP("node-redisson is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli({QStringLiteral("CONFIG"), QStringLiteral("SET"), QStringLiteral("notify-keyspace-events"),
                      QStringLiteral("KEA")}));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.resize(1280, 760);
    QVERIFY(startAndWaitForData(window));

    NodeService orders(node, dir, m_server.port(), 6000, QStringLiteral("orders-7"));
    NodeService payments(node, dir, m_server.port(), 30000);
    QVERIFY(orders.waitFor(QStringLiteral("READY"), 10000) && payments.waitFor(QStringLiteral("READY"), 10000));
    orders.send("hold orders:42 1");
    payments.send("hold-lease payments:9 5 600000");
    QVERIFY(orders.waitFor(QStringLiteral("OK hold"), 10000) && payments.waitFor(QStringLiteral("OK hold"), 10000));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 2, 5000);

    ClientsView *clients = window.clientsView();
    QVERIFY(window.showBottomTab(QStringLiteral("clients")));
    ClientsModel *model = clients->model();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 5000);
    auto *identify = clients->findChild<QPushButton *>(QStringLiteral("identifyClients"));
    QVERIFY(identify);
    identify->click();
    const auto rowNamed = [model](const QString &name) {
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, ClientsModel::NameColumn).data().toString() == name)
                return r;
        return -1;
    };
    // The renewing one is seen by MONITOR within its 2 s renewal; the fixed lease sends nothing,
    // so the sample runs its 10 s (correlation has its acquire meanwhile).
    QTRY_VERIFY_WITH_TIMEOUT(rowNamed(QStringLiteral("orders-7")) >= 0, 8000);
    const int named = rowNamed(QStringLiteral("orders-7"));
    QCOMPARE(model->index(named, ClientsModel::StateColumn).data().toString(), QStringLiteral("connected"));
    QVERIFY(model->index(named, ClientsModel::HostColumn).data().toString().contains(QStringLiteral("127.0.0.1")));
    QCOMPARE(model->index(named, ClientsModel::LabelColumn).data().toString(), QStringLiteral("orders-7"));
    QVERIFY(!model->index(named, ClientsModel::ConnectionsColumn).data().toString().isEmpty());
    const QString ordersHolder =
        window.lockModel()
            ->index(window.lockModel()->rowOf(QStringLiteral("orders:42")), LockTableModel::HolderColumn)
            .data()
            .toString();
    QVERIFY2(ordersHolder.startsWith(QStringLiteral("orders-7")), qPrintable(ordersHolder)); // its name, untyped
    QTRY_VERIFY_WITH_TIMEOUT(
        clients->findChild<QLabel *>(QStringLiteral("identifyStatus"))->text().contains(QStringLiteral("MONITOR")),
        15000);
    const int other = named == 0 ? 1 : 0;
    QTRY_COMPARE_WITH_TIMEOUT(model->index(other, ClientsModel::StateColumn).data().toString(),
                              QStringLiteral("connected"), 5000);

    const QString shots = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(shots);
    // The fixed-lease holder dies: disconnected within seconds, the lock still held.
    QVERIFY(payments.signal(SIGKILL));
    QTRY_COMPARE_WITH_TIMEOUT(model->index(other, ClientsModel::StateColumn).data().toString(),
                              QStringLiteral("disconnected"), 6000);
    QVERIFY(model->index(other, ClientsModel::ConnectionsColumn).data().toString().startsWith(QStringLiteral("was ")));
    window.selectLock(QStringLiteral("payments:9"));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.detailPanel()->findChild<QTableWidget *>()->item(0, 5)->text().startsWith(QStringLiteral("gone")), 3000);
    clients->view()->setCurrentIndex(model->index(other, ClientsModel::ClientIdColumn));
    QTest::qWait(300);
    QVERIFY(window.grab().save(QDir(shots).filePath(QStringLiteral("clients.png"))));
    const auto findingOf = [&window](const QString &code) {
        for (const auto &f : window.findingModel()->findings())
            if (f.code == code)
                return f;
        return LockFinding{};
    };
    QTRY_COMPARE_WITH_TIMEOUT(findingOf(QStringLiteral("holder_disconnected")).lock, QStringLiteral("payments:9"),
                              5000);
    QCOMPARE(findingOf(QStringLiteral("holder_disconnected")).severity, LockFinding::Severity::Critical);

    // The force-unlock dialog says it: gone for payments:9, connected (may still be working) for orders:42.
    auto who = [model](const QString &id) { return model->identity(id); };
    {
        ForceUnlockDialog dialog(*window.lockModel()->snapshot(QStringLiteral("payments:9")), &window, who);
        QVERIFY2(dialog.summary().contains(QStringLiteral("Its client is gone")), qPrintable(dialog.summary()));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.grab().save(QDir(shots).filePath(QStringLiteral("force-unlock-gone.png"))));
    }
    {
        ForceUnlockDialog dialog(*window.lockModel()->snapshot(QStringLiteral("orders:42")), &window, who);
        QVERIFY2(dialog.summary().contains(QStringLiteral("Its client is connected")), qPrintable(dialog.summary()));
        QVERIFY(dialog.summary().contains(QStringLiteral("orders-7")));
    }
}

// A view per holder ("everything client 8743c9c0 holds or waits for") and names for client ids:
// the Clients tab lists both; a label is shown wherever the id was.
void TestMainWindow::clientsViewListsHoldersAndWaitersWithLabels()
{
    const QString holder = QStringLiteral("8743c9c0-1111-4a2b-9c3d-0123456789ab");
    const QString waiter = QStringLiteral("5f0e2d1c-2222-4b3c-8d4e-abcdef012345");
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli(
        {QStringLiteral("HSET"), QStringLiteral("orders:42"), holder + QStringLiteral(":1"), QStringLiteral("2")}));
    QVERIFY(redisCli(
        {QStringLiteral("HSET"), QStringLiteral("invoices:7"), holder + QStringLiteral(":9"), QStringLiteral("1")}));
    QVERIFY(redisCli(
        {QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{invoices:7}"), waiter + QStringLiteral(":3")}));
    QVERIFY(redisCli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{invoices:7}"),
                      QString::number(QDateTime::currentMSecsSinceEpoch() + 600000), waiter + QStringLiteral(":3")}));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    {
        MainWindow window(options);
        window.resize(1280, 760);
        QVERIFY(startAndWaitForData(window));
        QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 2, 5000);
        ClientsView *clients = window.clientsView();
        QVERIFY(clients);
        QVERIFY(window.showBottomTab(QStringLiteral("clients"))); // it follows the table while shown
        ClientsModel *model = clients->model();
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 5000);
        const int h = model->rowOfClient(holder);
        const int w = model->rowOfClient(waiter);
        QVERIFY(h >= 0 && w >= 0);
        const QString holds = model->index(h, ClientsModel::HoldsColumn).data().toString();
        QVERIFY2(holds.contains(QStringLiteral("orders:42 (thread 1, ×2)")) &&
                     holds.contains(QStringLiteral("invoices:7")),
                 qPrintable(holds));
        QTRY_VERIFY_WITH_TIMEOUT(
            model->index(w, ClientsModel::WaitsColumn).data().toString().contains(QStringLiteral("invoices:7")), 5000);

        // A label typed in the tab replaces the id in the table and the detail panel.
        QVERIFY(model->setData(model->index(h, ClientsModel::LabelColumn), QStringLiteral("billing-7f9c")));
        const QModelIndex holderCell = window.lockModel()->index(window.lockModel()->rowOf(QStringLiteral("orders:42")),
                                                                 LockTableModel::HolderColumn);
        QVERIFY2(holderCell.data().toString().startsWith(QStringLiteral("billing-7f9c")),
                 qPrintable(holderCell.data().toString()));
        window.selectLock(QStringLiteral("orders:42"));
        QVERIFY(window.detailPanel()->findChild<QTableWidget *>()->item(0, 0)->text().startsWith(
            QStringLiteral("billing-7f9c")));

        // The filter finds locks by a part of the label too.
        for (QLineEdit *edit : window.findChildren<QLineEdit *>())
            if (edit->accessibleName() == QStringLiteral("Filter locks"))
                edit->setText(QStringLiteral("billing"));
        QTRY_COMPARE_WITH_TIMEOUT(window.lockView()->model()->rowCount(), 2, 5000);
        for (QLineEdit *edit : window.findChildren<QLineEdit *>())
            if (edit->accessibleName() == QStringLiteral("Filter locks"))
                edit->setText(QStringLiteral("nobody-has-this-label"));
        QTRY_COMPARE_WITH_TIMEOUT(window.lockView()->model()->rowCount(), 0, 5000);

        // Show its locks: the table is filtered by the client id.
        clients->view()->setCurrentIndex(model->index(w, ClientsModel::ClientIdColumn));
        emit clients->showLocksOf(waiter);
        QTRY_COMPARE_WITH_TIMEOUT(window.lockView()->model()->rowCount(), 1, 5000);

        QVERIFY(window.showBottomTab(QStringLiteral("clients")));
        for (QLineEdit *edit : window.findChildren<QLineEdit *>())
            if (edit->accessibleName() == QStringLiteral("Filter locks"))
                edit->clear(); // the screenshot shows every lock
        clients->view()->setCurrentIndex(model->index(h, ClientsModel::ClientIdColumn));
        QTest::qWait(200);
        const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
        QDir().mkpath(dir);
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("clients-view.png"))));
    }
    // Saved for this server: a new window shows the label at once.
    {
        MainWindow again(options);
        QVERIFY(startAndWaitForData(again));
        QTRY_COMPARE_WITH_TIMEOUT(again.lockModel()->rowCount(), 2, 5000);
        const QModelIndex cell = again.lockModel()->index(again.lockModel()->rowOf(QStringLiteral("orders:42")),
                                                          LockTableModel::HolderColumn);
        QVERIFY2(cell.data().toString().startsWith(QStringLiteral("billing-7f9c")), qPrintable(cell.data().toString()));
        again.clientsView()->setLabel(holder, QString()); // leave no label behind
        QVERIFY(cell.data().toString().startsWith(holder));
    }
}

// After a force unlock the status bar says what was released and who was woken, not the
// session's technical message.
void TestMainWindow::forceUnlockSaysWhatHappened()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("orders:42"), kField, QStringLiteral("2")}));
    QVERIFY(redisCli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("60000")}));
    // One Redisson client waiting: subscribed to the unlock channel.
    QProcess waiter;
    waiter.start(QStringLiteral("redis-cli"),
                 {QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("SUBSCRIBE"),
                  QStringLiteral("redisson_lock__channel:{orders:42}")});
    QVERIFY(waiter.waitForStarted());
    QTemporaryDir dir;
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    options.auditLogPath = dir.filePath(QStringLiteral("audit.jsonl"));
    MainWindow window(options);
    QVERIFY(startAndWaitForData(window));
    QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->snapshot(QStringLiteral("orders:42")) &&
                                 window.lockModel()->snapshot(QStringLiteral("orders:42"))->subscribers == 1,
                             10000);
    window.selectLock(QStringLiteral("orders:42"));
    QAction *force = nullptr;
    for (QAction *a : window.findChildren<QAction *>())
        if (a->text().contains(QStringLiteral("Force unlock")))
            force = a;
    QVERIFY(force && force->isEnabled());
    QTimer::singleShot(300, this, [] {
        auto *dialog = qobject_cast<ForceUnlockDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        auto *typed = dialog->findChild<QLineEdit *>(QStringLiteral("confirmName"));
        QTest::keyClicks(typed, QStringLiteral("orders:42"));
        QTest::keyClick(typed, Qt::Key_Return);
    });
    force->trigger();
    QTRY_VERIFY2_WITH_TIMEOUT(window.statusBar()->currentMessage().contains(QStringLiteral("was force-unlocked")),
                              qPrintable(window.statusBar()->currentMessage()), 10000);
    QVERIFY2(
        window.statusBar()->currentMessage().startsWith(
            QStringLiteral("✔ orders:42 was force-unlocked (held by %1, hold count 2); 1 waiter woken").arg(kField)),
        qPrintable(window.statusBar()->currentMessage()));
    QTest::qWait(500); // the read that finds the lock gone keeps the sentence
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("was force-unlocked")),
             qPrintable(window.statusBar()->currentMessage()));
    waiter.kill();
    waiter.waitForFinished();
}

// Tab must not walk cell by cell inside the lock table (that changes the selected lock, the
// force-unlock target) but reach the detail panel; Help lists the shortcuts.
void TestMainWindow::tabMovesBetweenPanesAndShortcutsAreListed()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("orders:1"), kField, QStringLiteral("1")}));
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("orders:2"), kField, QStringLiteral("1")}));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    QVERIFY(startAndWaitForData(window));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 2, 5000);
    QApplication::setActiveWindow(&window);
    window.selectLock(QStringLiteral("orders:1"));
    window.lockView()->setFocus();
    QTRY_VERIFY(window.lockView()->hasFocus());
    // Arrows move within the table...
    QTest::keyClick(window.lockView(), Qt::Key_Down);
    QCOMPARE(window.selectedLockName(), QStringLiteral("orders:2"));
    // ...Tab leaves it, with the selection where it was, and reaches the detail panel.
    QTest::keyClick(window.lockView(), Qt::Key_Tab);
    QWidget *focus = QApplication::focusWidget();
    QVERIFY(focus && focus != window.lockView());
    QCOMPARE(window.selectedLockName(), QStringLiteral("orders:2"));
    bool reachedDetail = false;
    for (int i = 0; i < 12 && !reachedDetail; ++i) {
        reachedDetail = window.detailPanel()->isAncestorOf(QApplication::focusWidget());
        if (!reachedDetail)
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    }
    QVERIFY(reachedDetail);
    QCOMPARE(window.selectedLockName(), QStringLiteral("orders:2"));
    QVERIFY(!window.lockView()->accessibleName().isEmpty());
    QVERIFY(!window.detailPanel()->accessibleName().isEmpty());

    // Help > Keyboard shortcuts lists every action that has one, from the actions themselves.
    const QList<QAction *> actions = ShortcutsDialog::actionsWithShortcuts(&window);
    ShortcutsDialog dialog(actions, &window);
    const auto rows = dialog.rows();
    QVERIFY(actions.size() >= 8);
    for (QAction *a : actions) {
        const QString keys = a->shortcut().toString(QKeySequence::NativeText);
        QVERIFY2(std::any_of(rows.cbegin(), rows.cend(),
                             [&](const QPair<QString, QString> &r) { return r.second.contains(keys); }),
                 qPrintable(a->text()));
    }
    QVERIFY(std::any_of(rows.cbegin(), rows.cend(), [](const QPair<QString, QString> &r) {
        return r.first.startsWith(QStringLiteral("Force unlock")) && !r.second.isEmpty();
    }));
    QVERIFY(window.findChild<QAction *>(QStringLiteral("keyboardShortcutsAction")));
}

// Geometry, column widths and splitters are remembered, so an operator arranges a window once.
void TestMainWindow::windowLayoutIsRemembered()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("layout.ini")), QSettings::IniFormat);
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    QList<int> sizes;
    {
        MainWindow window(options);
        auto *keeper = new WindowStateKeeper(&window, QStringLiteral("dashboard"), &settings);
        Q_UNUSED(keeper);
        // The operator's own size (ScreenFit maximizes the first window on this small test screen).
        window.setWindowState(Qt::WindowNoState);
        window.resize(1111, 777);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.lockView()->setColumnWidth(LockTableModel::HolderColumn, 333);
        window.lockView()->sortByColumn(LockTableModel::HeldForColumn, Qt::DescendingOrder);
        auto *split = window.findChild<QSplitter *>(QStringLiteral("tableDetailSplitter"));
        QVERIFY(split);
        split->setSizes({700, 400});
        sizes = split->sizes();
        window.close();
    }
    MainWindow again(options);
    new WindowStateKeeper(&again, QStringLiteral("dashboard"), &settings);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), QSize(1111, 777));
    QCOMPARE(again.lockView()->columnWidth(LockTableModel::HolderColumn), 333);
    QCOMPARE(again.lockView()->horizontalHeader()->sortIndicatorSection(), int(LockTableModel::HeldForColumn));
    QCOMPARE(again.findChild<QSplitter *>(QStringLiteral("tableDetailSplitter"))->sizes(), sizes);
}

// Issue 38: the first window fits the screen it opens on (a 1360x820 window on a 1280x720 screen
// had Force unlock, the detail panel and the status bar off-screen).
void TestMainWindow::firstWindowFitsTheScreen()
{
    QCOMPARE(ScreenFit::fitted(QSize(1360, 820), QSize(1280, 720)), QSize(1232, 672));
    QCOMPARE(ScreenFit::fitted(QSize(1360, 820), QSize(1024, 768)), QSize(976, 720));
    QCOMPARE(ScreenFit::fitted(QSize(1360, 820), QSize(1920, 1080)), QSize(1360, 820));
    QCOMPARE(ScreenFit::fitted(QSize(0, 0), QSize(1920, 1080)), QSize(1872, 1032));
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect free = window.screen()->availableGeometry();
    QVERIFY2(free.contains(window.geometry()), qPrintable(QStringLiteral("%1x%2+%3+%4 on %5x%6")
                                                              .arg(window.width())
                                                              .arg(window.height())
                                                              .arg(window.x())
                                                              .arg(window.y())
                                                              .arg(free.width())
                                                              .arg(free.height())));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
