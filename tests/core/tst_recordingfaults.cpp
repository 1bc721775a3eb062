// Damaged and hostile recordings must never crash or exhaust LockScope. One flipped bit in a .gz, a cut .gz, a
// gzip bomb (300 MB of newlines in ~300 KB) and a 50 MB line must open what can be opened, say
// where the damage is, and never inflate the whole file at once. Recordings are created 0600.

#include "recording/recording.h"
#include "recording/sessionrecorder.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <zlib.h>

using namespace lockscope;

namespace
{

LockSnapshot held(const QString &name)
{
    LockSnapshot s;
    s.name = name;
    s.isLock = s.exists = true;
    s.pttlMs = 30000;
    s.holders << LockHolder{QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1"),
                            QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b"),
                            QStringLiteral("1"),
                            1,
                            QString(),
                            {}};
    return s;
}

/** A recording of `n` lock records, as LockScope writes it (gzip when `path` ends in .gz). */
bool writeRecording(const QString &path, int n)
{
    SessionRecorder rec;
    if (!rec.open(path, {}))
        return false;
    for (int i = 0; i < n; ++i)
        rec.recordLocks({held(QStringLiteral("orders:%1").arg(i))}, {}, 1000 + i);
    return true;
}

/** Peak resident memory of this process so far, in MiB (monotonic). */
qint64 peakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

/** A gzip file of `header`, then `repeat` times `chunk`, streamed (never all in memory). */
bool writeGzip(const QString &path, const QByteArray &header, const QByteArray &chunk, int repeat)
{
    gzFile gz = gzopen(QFile::encodeName(path).constData(), "wb9");
    if (!gz)
        return false;
    bool ok = gzwrite(gz, header.constData(), unsigned(header.size())) == header.size();
    for (int i = 0; ok && i < repeat; ++i)
        ok = gzwrite(gz, chunk.constData(), unsigned(chunk.size())) == chunk.size();
    return gzclose(gz) == Z_OK && ok;
}

const QByteArray kHeader = "{\"format\":\"lockscope-recording\",\"version\":1}\n";
const QByteArray kRecord = "{\"t\":1000,\"k\":\"locks\",\"changed\":[{\"name\":\"a\"}],\"removed\":[]}\n";

} // namespace

class TestRecordingFaults : public QObject
{
    Q_OBJECT

private slots:
    void flippedBitKeepsTheRecordsBeforeIt();
    void truncatedGzipOpensWithAWarning();
    void gzipBombIsStreamed();
    void hugeLineIsSkipped();
    void recordingsAreOwnerOnly_data();
    void recordingsAreOwnerOnly();
};

void TestRecordingFaults::flippedBitKeepsTheRecordsBeforeIt()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rec.jsonl.gz"));
    QVERIFY(writeRecording(path, 60));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QByteArray bytes = f.readAll();
    const qsizetype at = bytes.size() * 2 / 3;
    bytes[at] = char(bytes[at] ^ 0x10);
    f.seek(0);
    f.write(bytes);
    f.close();

    Recording loaded;
    QString error;
    QVERIFY2(Recording::load(path, &loaded, &error), qPrintable(error));
    QVERIFY2(loaded.records.size() >= 20 && loaded.records.size() < 60,
             qPrintable(QString::number(loaded.records.size())));
    QVERIFY2(loaded.warning.contains(QLatin1String("damaged")), qPrintable(loaded.warning));
    QCOMPARE(loaded.records.first().changed.first().name, QStringLiteral("orders:0"));
}

void TestRecordingFaults::truncatedGzipOpensWithAWarning()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rec.jsonl.gz"));
    QVERIFY(writeRecording(path, 60));
    QFile f(path);
    QVERIFY(f.resize(f.size() * 2 / 3));

    Recording loaded;
    QString error;
    QVERIFY2(Recording::load(path, &loaded, &error), qPrintable(error));
    QVERIFY(loaded.records.size() >= 20 && loaded.records.size() < 60);
    QVERIFY2(loaded.warning.contains(QLatin1String("ends early")), qPrintable(loaded.warning));
}

void TestRecordingFaults::gzipBombIsStreamed()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bomb.jsonl.gz"));
    // 300 MB of newlines between two records: about 300 KB compressed.
    QVERIFY(writeGzip(path, kHeader + kRecord, QByteArray(1 << 20, '\n'), 300));
    {
        gzFile gz = gzopen(QFile::encodeName(path).constData(), "ab");
        QVERIFY(gz);
        gzwrite(gz, kRecord.constData(), unsigned(kRecord.size())); // a second gzip member
        const QByteArray end = "{\"t\":3000,\"k\":\"end\"}\n";      // closed as LockScope closes it
        gzwrite(gz, end.constData(), unsigned(end.size()));
        gzclose(gz);
    }
    QVERIFY(QFileInfo(path).size() < 1 << 20);
    const qint64 before = peakRssMiB();
    Recording loaded;
    QString error;
    QVERIFY2(Recording::load(path, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.records.size(), 2);
    QVERIFY2(loaded.warning.isEmpty(), qPrintable(loaded.warning));
    const qint64 grown = peakRssMiB() - before;
    QVERIFY2(grown < 64, qPrintable(QStringLiteral("peak memory grew by %1 MiB").arg(grown)));
}

void TestRecordingFaults::hugeLineIsSkipped()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.jsonl"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kHeader + kRecord + "{\"t\":1001,\"k\":\"locks\",\"changed\":[{\"name\":\"");
    const QByteArray mb(1 << 20, 'x');
    for (int i = 0; i < 50; ++i)
        f.write(mb);
    f.write("\"}]}\n" + kRecord);
    f.close();
    const qint64 before = peakRssMiB();
    Recording loaded;
    QString error;
    QVERIFY2(Recording::load(path, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.records.size(), 2);
    QVERIFY2(loaded.warning.contains(QLatin1String("1 line(s) longer than 16 MiB skipped, the first at line 3")),
             qPrintable(loaded.warning));
    const qint64 grown = peakRssMiB() - before;
    QVERIFY2(grown < 64, qPrintable(QStringLiteral("peak memory grew by %1 MiB").arg(grown)));
}

void TestRecordingFaults::recordingsAreOwnerOnly_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("existedWorldReadable");
    QTest::newRow("plain") << "rec.jsonl" << false;
    QTest::newRow("gzip") << "rec.jsonl.gz" << false;
    QTest::newRow("plain, existing 0644") << "old.jsonl" << true;
    QTest::newRow("gzip, existing 0644") << "old.jsonl.gz" << true;
}

void TestRecordingFaults::recordingsAreOwnerOnly()
{
    QFETCH(QString, name);
    QFETCH(bool, existedWorldReadable);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    if (existedWorldReadable) {
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                                   QFileDevice::ReadOther));
    }
    QVERIFY(writeRecording(path, 3));
    const QFileDevice::Permissions p = QFile::permissions(path);
    QVERIFY(p & QFileDevice::ReadOwner);
    QVERIFY(p & QFileDevice::WriteOwner);
    QCOMPARE(p & (QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther |
                  QFileDevice::WriteOther | QFileDevice::ExeOther),
             QFileDevice::Permissions());
    Recording loaded;
    QString error;
    QVERIFY2(Recording::load(path, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.records.size(), 3);
}

QTEST_MAIN(TestRecordingFaults)
#include "tst_recordingfaults.moc"
