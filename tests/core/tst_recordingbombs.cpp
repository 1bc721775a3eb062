// Recordings that try to exhaust memory after the 1 GiB text cap: a gzip file of `{}` snapshots
// (a few hundred KB that parse into tens of millions of snapshots) and one real recording line
// repeated into an 8.7 MB file. `lockscope-cli export` streams them (under 300 MB RSS); the
// replay's Recording::load keeps at most Recording::kMaxKeptItems items.

#include "recording/recording.h"
#include "recording/sessionrecorder.h"

#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <zlib.h>

using namespace lockscope;

namespace
{

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

const QByteArray kHeader =
    R"({"format":"lockscope-recording","version":1,"server":"redis://127.0.0.1:6379","started_ms":1000})"
    "\n";

/** The largest resident size of any child this process waited for, in MiB. */
qint64 childrenPeakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return u.ru_maxrss / 1024;
}

/** `lockscope-cli export FILE --csv` under a 3 GB address-space limit (a safety net). */
lockscope::test::ProcessResult exportCsv(const QString &file)
{
    return lockscope::test::runProcess(QStringLiteral("/bin/bash"),
                                       {QStringLiteral("-c"), QStringLiteral("ulimit -v 3000000; exec \"$0\" \"$@\""),
                                        cliPath(), QStringLiteral("export"), file, QStringLiteral("--csv")},
                                       240000);
}

LockSnapshot realSnapshot(int i)
{
    LockSnapshot s;
    s.name = QStringLiteral("orders:%1").arg(i);
    s.isLock = s.exists = true;
    s.pttlMs = 29000;
    s.subscribers = 2;
    s.holders << LockHolder{QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:%1").arg(i),
                            QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b"),
                            QString::number(i),
                            1,
                            QString(),
                            {}};
    return s;
}

} // namespace

class TestRecordingBombs : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void emptySnapshotBomb();
    void oneLineRepeated();

private:
    QTemporaryDir m_tmp;
};

void TestRecordingBombs::initTestCase()
{
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QVERIFY(m_tmp.isValid());
}

// 256 MiB of `{},` in 1 MiB lines, gzip -9: a few hundred KB. Before: export kept every parsed
// record (std::bad_alloc under a 2 GB limit, 4.8 GB RSS without one).
void TestRecordingBombs::emptySnapshotBomb()
{
    const QString path = m_tmp.filePath(QStringLiteral("bomb.jsonl.gz"));
    {
        gzFile gz = gzopen(QFile::encodeName(path).constData(), "wb9");
        QVERIFY(gz);
        gzwrite(gz, kHeader.constData(), unsigned(kHeader.size()));
        QByteArray items;
        for (int i = 0; i < 349000; ++i)
            items += "{},";
        items += "{}";
        const QByteArray line = R"({"t":2000,"k":"locks","changed":[)" + items + "]}\n";
        for (int i = 0; i < 256; ++i)
            QCOMPARE(gzwrite(gz, line.constData(), unsigned(line.size())), int(line.size()));
        QCOMPARE(gzclose(gz), Z_OK);
    }
    qInfo("bomb: %lld bytes on disk", QFileInfo(path).size());
    const lockscope::test::ProcessResult r = exportCsv(path);
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    const qint64 peak = childrenPeakRssMiB();
    qInfo("export peak RSS (largest child so far): %lld MiB", peak);
    QVERIFY2(peak < 300, qPrintable(QStringLiteral("%1 MiB").arg(peak)));
    // The replay's reader: nothing of it is a snapshot of any lock, so nothing is kept.
    Recording rec;
    QString error;
    QVERIFY2(Recording::load(path, &rec, &error), qPrintable(error));
    qint64 snapshots = 0;
    for (const auto &record : rec.records)
        snapshots += record.changed.size();
    QCOMPARE(snapshots, 0);
}

// One real line (a "locks" record of 400 held locks and an "events" record) repeated into an
// 8.7 MB file. Before: export and --replay took 2.7 GB.
void TestRecordingBombs::oneLineRepeated()
{
    QJsonArray changed;
    QJsonArray events;
    for (int i = 0; i < 400; ++i) {
        QJsonObject so = realSnapshot(i).toJson();
        so.insert(QStringLiteral("read_ms_ago"), 3);
        changed << so;
        LockEvent e;
        e.timeMs = 2000;
        e.lock = QStringLiteral("orders:%1").arg(i);
        e.type = QStringLiteral("acquired");
        e.holder = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:%1").arg(i);
        e.detail = QStringLiteral("held by a client of the test");
        events << e.toJson();
    }
    const QByteArray locksLine = QJsonDocument(QJsonObject{{QStringLiteral("t"), 2000},
                                                           {QStringLiteral("k"), QStringLiteral("locks")},
                                                           {QStringLiteral("changed"), changed}})
                                     .toJson(QJsonDocument::Compact) +
                                 '\n';
    const QByteArray eventsLine = QJsonDocument(QJsonObject{{QStringLiteral("t"), 2000},
                                                            {QStringLiteral("k"), QStringLiteral("events")},
                                                            {QStringLiteral("events"), events}})
                                      .toJson(QJsonDocument::Compact) +
                                  '\n';
    const QString path = m_tmp.filePath(QStringLiteral("repeated.jsonl"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kHeader);
    while (f.size() < 8700 * 1000) {
        f.write(locksLine);
        f.write(eventsLine);
    }
    f.close();
    qInfo("repeated: %lld bytes, lines of %lld and %lld bytes", QFileInfo(path).size(), qint64(locksLine.size()),
          qint64(eventsLine.size()));
    const lockscope::test::ProcessResult r = exportCsv(path);
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    const qint64 peak = childrenPeakRssMiB();
    qInfo("export peak RSS (largest child so far): %lld MiB", peak);
    QVERIFY2(peak < 300, qPrintable(QStringLiteral("%1 MiB").arg(peak)));
    QVERIFY(r.out.contains("wrote"));
    // What replay keeps is bounded.
    Recording rec;
    QString error;
    QVERIFY2(Recording::load(path, &rec, &error), qPrintable(error));
    qint64 items = 0;
    for (const auto &record : rec.records)
        items += record.changed.size() + record.events.size() + record.removed.size();
    QVERIFY(items <= Recording::kMaxKeptItems);
}

QTEST_GUILESS_MAIN(TestRecordingBombs)
#include "tst_recordingbombs.moc"
