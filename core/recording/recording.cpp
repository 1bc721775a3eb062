#include "recording/recording.h"

#include "recording/sessionrecorder.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <functional>

namespace lockscope
{

namespace
{

/**
 * Reads a recording line by line, plain or gzip (one or more members), without ever holding more
 * than one line and one 64 KiB chunk: a gzip bomb costs time, not memory. Lines longer than
 * Recording::kMaxLineBytes are skipped (counted in `skippedLong`); reading stops at
 * Recording::kMaxTotalBytes of decompressed text. Damage in the compressed stream (a flipped
 * bit, a cut) stops reading there: `damage` says where, the lines before it were delivered.
 */
class LineReader
{
public:
    using Sink = std::function<bool(const QByteArray &line, qint64 lineNo)>; // false: stop

    bool run(QFile &file, const Sink &sink)
    {
        m_sink = sink;
        char in[65536];
        const qint64 first = file.peek(in, 2);
        const bool gzip = first == 2 && uchar(in[0]) == 0x1f && uchar(in[1]) == 0x8b;
        z_stream zs{};
        if (gzip && inflateInit2(&zs, 15 + 16) != Z_OK) {
            damage = QStringLiteral("zlib could not start");
            return false;
        }
        bool streamEnded = false;
        bool ok = true;
        qint64 consumed = 0; // compressed bytes handed to zlib and used
        while (ok && !m_stop) {
            const qint64 n = file.read(in, sizeof in);
            if (n < 0) {
                damage = QStringLiteral("read error: %1").arg(file.errorString());
                break;
            }
            if (n == 0)
                break;
            if (!gzip) {
                ok = feed(in, n);
                continue;
            }
            zs.next_in = reinterpret_cast<Bytef *>(in);
            zs.avail_in = static_cast<uInt>(n);
            while (zs.avail_in > 0 && ok && !m_stop) {
                if (streamEnded) {
                    // Another gzip member follows (appended files): go on with it.
                    inflateReset(&zs);
                    streamEnded = false;
                }
                char out[65536];
                zs.next_out = reinterpret_cast<Bytef *>(out);
                zs.avail_out = sizeof out;
                const uInt before = zs.avail_in;
                const int rc = inflate(&zs, Z_NO_FLUSH);
                const qint64 produced = static_cast<qint64>(sizeof out - zs.avail_out);
                consumed += before - zs.avail_in;
                if (produced > 0)
                    ok = feed(out, produced);
                if (rc == Z_STREAM_END) {
                    streamEnded = true;
                } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                    damage = QStringLiteral("the compressed data is damaged near byte %1 of %2 (%3)")
                                 .arg(consumed)
                                 .arg(file.size())
                                 .arg(QString::fromLatin1(zs.msg ? zs.msg : "zlib error"));
                    ok = false;
                } else if (produced == 0 && before == zs.avail_in) {
                    break; // needs more input
                }
            }
        }
        if (gzip) {
            if (ok && !m_stop && !streamEnded && damage.isEmpty())
                damage = QStringLiteral("the compressed file ends early, at byte %1 (cut short while it was written?)")
                             .arg(file.size());
            inflateEnd(&zs);
        }
        if (!m_stop && !m_skipping && !m_line.isEmpty()) {
            // The last line had no newline: cut short. Give it to the caller, which checks it.
            deliver();
        }
        return damage.isEmpty();
    }

    qint64 lineNo = 0;
    qint64 total = 0;
    int skippedLong = 0;
    qint64 firstSkippedLine = 0;
    bool tooBig = false;
    QString damage;

private:
    bool feed(const char *data, qint64 size)
    {
        total += size;
        if (total > Recording::kMaxTotalBytes) {
            tooBig = true;
            m_stop = true;
            return false;
        }
        const char *p = data;
        const char *end = data + size;
        while (p < end && !m_stop) {
            const char *nl = static_cast<const char *>(memchr(p, '\n', static_cast<size_t>(end - p)));
            const char *stop = nl ? nl : end;
            if (!m_skipping) {
                if (m_line.size() + (stop - p) > Recording::kMaxLineBytes) {
                    m_skipping = true;
                    m_line.clear();
                    m_line.squeeze();
                } else {
                    m_line.append(p, stop - p);
                }
            }
            if (!nl)
                break;
            if (m_skipping) {
                ++lineNo;
                if (skippedLong++ == 0)
                    firstSkippedLine = lineNo;
                m_skipping = false;
            } else {
                deliver();
            }
            p = nl + 1;
        }
        return !m_stop;
    }

    void deliver()
    {
        ++lineNo;
        if (!m_sink(m_line, lineNo))
            m_stop = true;
        m_line.clear();
    }

    Sink m_sink;
    QByteArray m_line;
    bool m_skipping = false;
    bool m_stop = false;
};

} // namespace

bool Recording::read(const QString &path, const Visitor &visitor, Recording *out, QString *error, qint64 *kept)
{
    *out = Recording();
    qint64 items = 0;   // snapshots, removals and events handed to the visitor
    qint64 records = 0; // "locks" and "events" records
    bool capped = false;
    bool stoppedEarly = false; // the visitor asked to stop
    const QFileInfo info(path);
    if (!info.exists()) {
        *error = info.isSymLink()
                     ? QStringLiteral("%1 is a symbolic link that leads nowhere (a loop, or its target is missing)")
                           .arg(path)
                     : QStringLiteral("%1 does not exist").arg(path);
        return false;
    }
    // A FIFO, socket or device would block open() or never end: a recording is a regular file.
    if (!info.isFile()) {
        *error = QStringLiteral("%1 is not a regular file (a directory, FIFO, socket or device): a recording is a "
                                "file written by lockscope-cli record or the dashboard")
                     .arg(path);
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot open %1: %2").arg(path, file.errorString());
        return false;
    }
    QString failure; // set when the file is not ours at all
    QString badLine; // set when a line is damaged: reading stops there
    LineReader reader;
    reader.run(file, [&](const QByteArray &raw, qint64 lineNo) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty())
            return true;
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            if (out->header.isEmpty()) {
                failure = QStringLiteral("%1 is not a LockScope recording (line %2 is not JSON)").arg(path).arg(lineNo);
                return false;
            }
            badLine = QStringLiteral("line %1 (%2)").arg(lineNo).arg(pe.errorString());
            return false;
        }
        const QJsonObject o = doc.object();
        if (out->header.isEmpty()) {
            if (o.value(QStringLiteral("format")).toString() != QLatin1String("lockscope-recording")) {
                failure = QStringLiteral("%1 is not a LockScope recording (no lockscope-recording header)").arg(path);
                return false;
            }
            const int version = o.value(QStringLiteral("version")).toInt();
            if (version < 1 || version > SessionRecorder::kFormatVersion) {
                failure = QStringLiteral("%1 has recording format version %2; this LockScope reads up to %3")
                              .arg(path)
                              .arg(version)
                              .arg(SessionRecorder::kFormatVersion);
                return false;
            }
            out->header = o;
            return true;
        }
        const qint64 timeMs = o.value(QStringLiteral("t")).toInteger();
        const QString kind = o.value(QStringLiteral("k")).toString();
        // Each item goes to the visitor as it is parsed: nothing of the file is kept here.
        auto count = [&] {
            if (visitor.maxItems > 0 && ++items > visitor.maxItems) {
                capped = true;
                return false;
            }
            return true;
        };
        if (kind == QLatin1String("locks") || kind == QLatin1String("events"))
            ++records;
        if (kind == QLatin1String("locks")) {
            if (visitor.record && !visitor.record(timeMs)) {
                stoppedEarly = true;
                return false;
            }
            for (const auto &v : o.value(QStringLiteral("changed")).toArray()) {
                // Read `read_ms_ago` before the record was written (absent in older files: 0).
                const QJsonObject so = v.toObject();
                if (so.value(QStringLiteral("name")).toString().isEmpty())
                    continue; // not a snapshot of any lock (`{}`): nothing to show or count
                if (!count())
                    return false;
                if (visitor.snapshot && !visitor.snapshot(LockSnapshot::fromJson(
                                            so, timeMs - so.value(QStringLiteral("read_ms_ago")).toInteger())))
                    return false;
            }
            for (const auto &v : o.value(QStringLiteral("removed")).toArray()) {
                if (!count())
                    return false;
                if (visitor.removed && !visitor.removed(v.toString())) {
                    stoppedEarly = true;
                    return false;
                }
            }
        } else if (kind == QLatin1String("events")) {
            if (visitor.record && !visitor.record(timeMs)) {
                stoppedEarly = true;
                return false;
            }
            for (const auto &v : o.value(QStringLiteral("events")).toArray()) {
                if (!count())
                    return false;
                if (visitor.event && !visitor.event(LockEvent::fromJson(v.toObject()))) {
                    stoppedEarly = true;
                    return false;
                }
            }
        } else if (kind == QLatin1String("end")) {
            out->stoppedMs = timeMs;
        }
        // Any other kind: a record from a newer writer, skipped.
        return true;
    });
    if (!failure.isEmpty()) {
        *error = failure;
        return false;
    }
    QStringList problems;
    if (!reader.damage.isEmpty())
        problems << reader.damage;
    if (!badLine.isEmpty())
        problems << QStringLiteral("damaged at %1").arg(badLine);
    if (reader.tooBig)
        problems << QStringLiteral("longer than %1 MiB once decompressed: only that much was read")
                        .arg(kMaxTotalBytes >> 20);
    if (capped)
        problems << QStringLiteral("more than %1 snapshots and events: only that many were kept").arg(visitor.maxItems);
    // Every recording LockScope closes ends with an "end" record: without it, the file was cut
    // (exactly at a line end, so nothing above noticed) or is still being written.
    if (problems.isEmpty() && !stoppedEarly && out->stoppedMs == 0 && !out->header.isEmpty())
        problems << QStringLiteral("it has no closing record (cut short at a line end, or still being written)");
    if (reader.skippedLong > 0)
        problems << QStringLiteral("%1 line(s) longer than %2 MiB skipped, the first at line %3")
                        .arg(reader.skippedLong)
                        .arg(kMaxLineBytes >> 20)
                        .arg(reader.firstSkippedLine);
    if (out->header.isEmpty()) {
        *error = problems.isEmpty()
                     ? QStringLiteral("%1 is empty").arg(path)
                     : QStringLiteral("%1 has no readable header: %2").arg(path, problems.join(QStringLiteral("; ")));
        return false;
    }
    if (!problems.isEmpty())
        out->warning = QStringLiteral("%1 is cut short or damaged: %2. Opened up to there, %3 record(s).")
                           .arg(path, problems.join(QStringLiteral("; ")))
                           .arg(records);
    if (kept)
        *kept = items;
    return true;
}

bool Recording::load(const QString &path, Recording *out, QString *error)
{
    QVector<Record> records;
    Visitor keep;
    keep.maxItems = kMaxKeptItems;
    keep.record = [&records](qint64 timeMs) {
        Record r;
        r.timeMs = timeMs;
        records << r;
        return true;
    };
    keep.snapshot = [&records](const LockSnapshot &s) {
        records.last().changed << s;
        return true;
    };
    keep.removed = [&records](const QString &name) {
        records.last().removed << name;
        return true;
    };
    keep.event = [&records](const LockEvent &e) {
        records.last().events << e;
        return true;
    };
    if (!read(path, keep, out, error))
        return false;
    out->records = std::move(records);
    // Event records carry the time the change was seen (I/O thread), snapshot records the time
    // the view applied them: a few ms apart, so the file is not strictly in time order. Replay
    // and seek need it to be.
    std::stable_sort(out->records.begin(), out->records.end(),
                     [](const Record &a, const Record &b) { return a.timeMs < b.timeMs; });
    return true;
}

} // namespace lockscope
