// Bad input must never crash LockScope: seeded random-mutation fuzzing of the two decoders that read untrusted bytes:
// the RESP decoder every RedisConnection uses (RespDecoder: hiredis' reader under RedisReplyLimits) and the recording
// reader (Recording::load, plain and gzip). Deterministic: the seed is printed and can be replayed with
// LOCKSCOPE_FUZZ_SEED=<n>; LOCKSCOPE_FUZZ_ITERATIONS changes the count (default 20000 per target). Run it under
// ASan/UBSan too (-DLOCKSCOPE_SANITIZE=ON).

#include "recording/recording.h"
#include "recording/sessionrecorder.h"
#include "redis/respdecoder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

using namespace lockscope;

namespace
{

quint32 fuzzSeed()
{
    bool ok = false;
    const quint32 fromEnv = qEnvironmentVariable("LOCKSCOPE_FUZZ_SEED").toUInt(&ok);
    return ok ? fromEnv : 20261123u;
}

int fuzzIterations()
{
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("LOCKSCOPE_FUZZ_ITERATIONS", &ok);
    return ok && n > 0 ? n : 20000;
}

/** Well-formed RESP replies of every type, nested, binary, empty, nil: the corpus. */
QList<QByteArray> respCorpus()
{
    return {
        "+OK\r\n",
        "-ERR unknown command\r\n",
        ":0\r\n",
        ":-9223372036854775808\r\n",
        "$-1\r\n",
        "$0\r\n\r\n",
        "$5\r\nhello\r\n",
        QByteArray("$4\r\n\x00\r\n\xff\r\n", 10),
        "*-1\r\n",
        "*0\r\n",
        "*2\r\n$2\r\n17\r\n*3\r\n$2\r\nk1\r\n$2\r\nk2\r\n$2\r\nk3\r\n",
        "*3\r\n:1\r\n*2\r\n+a\r\n-b\r\n$-1\r\n",
        "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:7\r\n",
        "*4\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$5\r\nhello\r\n:3\r\n",
    };
}

/** One random mutation of `in`: flip, replace with a RESP-significant byte, insert, delete,
 *  duplicate a slice, truncate, or splice in a hostile length. */
QByteArray mutate(QByteArray in, QRandomGenerator &rng, const QList<QByteArray> &hostile)
{
    static const char special[] = "$*:+-\r\n0123456789-";
    const int rounds = 1 + int(rng.bounded(4));
    for (int r = 0; r < rounds; ++r) {
        const int size = int(in.size());
        const int at = size > 0 ? int(rng.bounded(size)) : 0;
        switch (rng.bounded(7)) {
        case 0:
            if (size > 0)
                in[at] = char(in[at] ^ (1 << rng.bounded(8)));
            break;
        case 1:
            if (size > 0)
                in[at] = special[rng.bounded(int(sizeof special - 1))];
            break;
        case 2:
            in.insert(at, char(rng.bounded(256)));
            break;
        case 3:
            if (size > 0)
                in.remove(at, 1 + int(rng.bounded(qMin(8, size - at))));
            break;
        case 4:
            if (size > 0)
                in.insert(at, in.mid(at, 1 + int(rng.bounded(qMin(64, size - at)))));
            break;
        case 5:
            in.truncate(at);
            break;
        default:
            in.insert(at, hostile.at(int(rng.bounded(int(hostile.size())))));
            break;
        }
    }
    return in;
}

/** Checks the limits on a decoded reply (recursively): what the decoder promises. */
bool withinLimits(const RedisReply &r, const RedisReplyLimits &limits, qint64 *elements, qint64 *bytes)
{
    if (r.isArray()) {
        *elements += r.size();
        for (const RedisReply &e : r.elements())
            if (!withinLimits(e, limits, elements, bytes))
                return false;
    } else if (r.isString() || r.isError()) {
        if (r.toByteArray().size() > limits.maxBulkBytes)
            return false;
        *bytes += r.toByteArray().size();
    }
    return *elements <= limits.maxElements && *bytes <= limits.maxReplyBytes;
}

} // namespace

class TestFuzz : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void respDecoderSurvivesMutations();
    void respDecoderChunkingDoesNotMatter();
    void respDecoderBuildsEveryValue();
    void recordingReaderSurvivesMutations();
};

void TestFuzz::initTestCase()
{
    qInfo("fuzz seed %u, %d iterations per target (replay: LOCKSCOPE_FUZZ_SEED=%u)", fuzzSeed(), fuzzIterations(),
          fuzzSeed());
}

void TestFuzz::respDecoderSurvivesMutations()
{
    QRandomGenerator rng(fuzzSeed());
    const QList<QByteArray> corpus = respCorpus();
    const QList<QByteArray> hostile{"$1610612736\r\n",
                                    "*2147483647\r\n",
                                    "*2000000000\r\n",
                                    "$-2\r\n",
                                    "*-7\r\n",
                                    "$99999999999999999999\r\n",
                                    ":99999999999999999999\r\n",
                                    "*3\r\n",
                                    "$3\r\n",
                                    "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n"};
    RedisReplyLimits limits;
    limits.maxBulkBytes = 4096;
    limits.maxReplyBytes = 16384;
    limits.maxElements = 256;
    RespDecoder decoder(limits);
    int replies = 0, errors = 0;
    const int n = fuzzIterations();
    for (int i = 0; i < n; ++i) {
        // A stream of a few replies, some mutated, fed in random chunks.
        QByteArray stream;
        const int parts = 1 + int(rng.bounded(4));
        for (int p = 0; p < parts; ++p) {
            const QByteArray &seed = corpus.at(int(rng.bounded(int(corpus.size()))));
            stream += rng.bounded(3) == 0 ? seed : mutate(seed, rng, hostile);
        }
        qsizetype pos = 0;
        bool failed = false;
        while (pos < stream.size() && !failed) {
            const qsizetype chunk = qMin<qsizetype>(stream.size() - pos, 1 + rng.bounded(32));
            QString error;
            if (!decoder.feed(stream.constData() + pos, chunk, &error)) {
                failed = true;
                break;
            }
            pos += chunk;
            for (;;) {
                RedisReply reply;
                const RespDecoder::Result r = decoder.next(&reply, &error);
                if (r == RespDecoder::Result::NeedMore)
                    break;
                if (r == RespDecoder::Result::Error) {
                    QVERIFY(!error.isEmpty());
                    failed = true;
                    break;
                }
                ++replies;
                qint64 elements = 0, bytes = 0;
                QVERIFY2(withinLimits(reply, limits, &elements, &bytes),
                         qPrintable(QStringLiteral("iteration %1: %2").arg(i).arg(reply.debugString().left(200))));
                // Shape checks must hold on anything.
                RedisReply::ScanPage page;
                QString shapeError;
                if (!reply.toScanPage(&page, &shapeError))
                    QVERIFY(!shapeError.isEmpty());
                else
                    QVERIFY(!page.cursor.isEmpty());
            }
        }
        if (failed) {
            ++errors;
            decoder.reset(); // as a connection does: drop and start again
        } else if (rng.bounded(8) == 0) {
            decoder.reset(); // sometimes drop a half-read reply too
        }
    }
    qInfo("RESP: %d iterations, %d replies decoded, %d streams refused", n, replies, errors);
    QVERIFY(replies > 0);
    QVERIFY(errors > 0);
}

void TestFuzz::respDecoderBuildsEveryValue()
{
    // RespDecoder builds each RedisReply in place as hiredis parses (no copy of hiredis' own tree): every type, at
    // every depth, with its value, as the corpus says.
    RespDecoder d;
    QString error;
    const QByteArray corpus = respCorpus().join();
    QVERIFY(d.feed(corpus.constData(), corpus.size(), &error));
    QStringList got;
    QList<RedisReply::Type> types;
    RedisReply r;
    while (d.next(&r, &error) == RespDecoder::Result::Reply) {
        got << r.debugString();
        types << r.type();
        QVERIFY(!r.isTransportError());
    }
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QStringList expected{
        QStringLiteral("OK"),
        QStringLiteral("(error) ERR unknown command"),
        QStringLiteral("(integer) 0"),
        QStringLiteral("(integer) -9223372036854775808"),
        QStringLiteral("(nil)"),
        QStringLiteral("\"\""),
        QStringLiteral("\"hello\""),
        QStringLiteral("\"%00%0D%0A%FF\""),
        QStringLiteral("(nil)"),
        QStringLiteral("[]"),
        QStringLiteral("[\"17\", [\"k1\", \"k2\", \"k3\"]]"),
        QStringLiteral("[(integer) 1, [a, (error) b], (nil)]"),
        QStringLiteral("[[[[[[(integer) 7]]]]]]"),
        QStringLiteral("[\"message\", \"ch1\", \"hello\", (integer) 3]"),
    };
    QCOMPARE(got, expected);
    using T = RedisReply::Type;
    const QList<T> expectedTypes{T::Status, T::Error, T::Integer, T::Integer, T::Nil,   T::String, T::String,
                                 T::String, T::Nil,   T::Array,   T::Array,   T::Array, T::Array,  T::Array};
    QCOMPARE(types, expectedTypes);
    // A reply dropped half-read (a lost connection) is freed with the decoder's reset.
    QVERIFY(d.feed("*3\r\n$2\r\nab\r\n*2\r\n:1\r\n", 20, &error));
    QCOMPARE(d.next(&r, &error), RespDecoder::Result::NeedMore);
    d.reset();
    QVERIFY(d.feed(":5\r\n", 4, &error));
    QCOMPARE(d.next(&r, &error), RespDecoder::Result::Reply);
    QCOMPARE(r.debugString(), QStringLiteral("(integer) 5"));
}

void TestFuzz::respDecoderChunkingDoesNotMatter()
{
    // The same valid stream, fed whole or byte by byte or in random chunks, gives the same replies.
    QRandomGenerator rng(fuzzSeed() + 1);
    const QByteArray stream = respCorpus().join();
    auto decode = [&stream](const QList<qsizetype> &cuts) {
        RespDecoder d;
        QStringList out;
        qsizetype pos = 0;
        for (qsizetype cut : cuts) {
            QString error;
            d.feed(stream.constData() + pos, cut - pos, &error);
            pos = cut;
            RedisReply r;
            while (d.next(&r, &error) == RespDecoder::Result::Reply)
                out << r.debugString();
        }
        return out;
    };
    const QStringList whole = decode({stream.size()});
    QCOMPARE(whole.size(), respCorpus().size());
    for (int i = 0; i < 200; ++i) {
        QList<qsizetype> cuts;
        for (qsizetype p = 0; p < stream.size();) {
            p = qMin<qsizetype>(stream.size(), p + 1 + rng.bounded(i % 2 ? 3 : 40));
            cuts << p;
        }
        QCOMPARE(decode(cuts), whole);
    }
}

void TestFuzz::recordingReaderSurvivesMutations()
{
    // 20k small files are written and read: in memory (/dev/shm) when there is one, it is I/O-bound.
    QTemporaryDir dir(QFileInfo(QStringLiteral("/dev/shm")).isWritable()
                          ? QStringLiteral("/dev/shm/lockscope-fuzz-XXXXXX")
                          : QDir::tempPath() + QStringLiteral("/lockscope-fuzz-XXXXXX"));
    QVERIFY(dir.isValid());
    // A real recording, as LockScope writes it, plain and gzip.
    const QString plainPath = dir.filePath(QStringLiteral("seed.jsonl"));
    const QString gzPath = dir.filePath(QStringLiteral("seed.jsonl.gz"));
    for (const QString &path : {plainPath, gzPath}) {
        SessionRecorder rec;
        QVERIFY(rec.open(path, {{QStringLiteral("server"), QStringLiteral("redis://127.0.0.1:6379/0")}}));
        for (int i = 0; i < 12; ++i) {
            LockSnapshot s;
            s.name = QStringLiteral("orders:%1").arg(i);
            s.isLock = s.exists = true;
            s.pttlMs = 30000 - i;
            s.holders << LockHolder{QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1"),
                                    QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b"),
                                    QStringLiteral("1"),
                                    1,
                                    QString(),
                                    {}};
            rec.recordLocks({s}, i % 3 ? QStringList() : QStringList{QStringLiteral("gone:%1").arg(i)}, 1000 + i);
        }
    }
    QList<QByteArray> seeds;
    for (const QString &path : {plainPath, gzPath}) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        seeds << f.readAll();
    }
    // The header and the "end" record hold wall-clock times (13-digit epoch ms): pin them, so that a
    // seed replays exactly. The gzip
    // seed is then the pinned plain one, compressed as SessionRecorder does (zlib, no mtime).
    static const QRegularExpression wallClockMs(QStringLiteral("[0-9]{13}"));
    seeds[0] = QString::fromUtf8(seeds[0]).replace(wallClockMs, QStringLiteral("1700000000000")).toUtf8();
    {
        gzFile gz = gzopen(QFile::encodeName(gzPath).constData(), "wb6");
        QVERIFY(gz);
        QCOMPARE(gzwrite(gz, seeds[0].constData(), unsigned(seeds[0].size())), int(seeds[0].size()));
        gzclose(gz);
        QFile f(gzPath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        seeds[1] = f.readAll();
    }
    const QList<QByteArray> hostile{"\n",
                                    "{",
                                    "}",
                                    "\"t\":1e308,",
                                    "\"k\":\"locks\",",
                                    "[",
                                    "\xff\xfe",
                                    "\x1f\x8b",
                                    "{\"format\":\"lockscope-recording\",\"version\":1}\n"};
    QRandomGenerator rng(fuzzSeed() + 2);
    const QString path = dir.filePath(QStringLiteral("fuzz"));
    int opened = 0, refused = 0, warned = 0;
    const int n = fuzzIterations();
    for (int i = 0; i < n; ++i) {
        const QByteArray data = mutate(seeds.at(i % 2), rng, hostile);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(data);
        f.close();
        Recording rec;
        QString error;
        if (Recording::load(path, &rec, &error)) {
            ++opened;
            QVERIFY(!rec.header.isEmpty());
            QVERIFY(rec.records.size() <= 1000); // mutations may duplicate lines, never invent many
            if (!rec.warning.isEmpty())
                ++warned;
            for (int r = 1; r < rec.records.size(); ++r)
                QVERIFY(rec.records[r - 1].timeMs <= rec.records[r].timeMs);
        } else {
            ++refused;
            QVERIFY2(!error.isEmpty(), qPrintable(QStringLiteral("iteration %1").arg(i)));
        }
    }
    qInfo("recordings: %d iterations, %d opened (%d with a warning), %d refused", n, opened, warned, refused);
    QVERIFY(opened > 0);
    QVERIFY(warned > 0);
}

QTEST_MAIN(TestFuzz)
#include "tst_fuzz.moc"
