#include "recording.h"

#include "sessionrecorder.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <zlib.h>

#include <algorithm>

namespace lockscope {

static bool readAll(const QString &path, QByteArray *data, QString *error)
{
    gzFile gz = gzopen(QFile::encodeName(path).constData(), "rb"); // also reads plain files
    if (!gz) {
        *error = QStringLiteral("cannot open %1").arg(path);
        return false;
    }
    char buf[65536];
    int n = 0;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        data->append(buf, n);
    // A truncated .gz ends in an error after the readable part: keep what was read.
    gzclose(gz);
    return true;
}

bool Recording::load(const QString &path, Recording *out, QString *error)
{
    *out = Recording();
    QByteArray data;
    if (!QFile::exists(path)) {
        *error = QStringLiteral("%1 does not exist").arg(path);
        return false;
    }
    if (!readAll(path, &data, error))
        return false;
    const QList<QByteArray> lines = data.split('\n');
    int lineNo = 0;
    for (const QByteArray &raw : lines) {
        ++lineNo;
        const QByteArray line = raw.trimmed();
        if (line.isEmpty())
            continue;
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            if (out->header.isEmpty()) {
                *error = QStringLiteral("%1 is not a LockScope recording (line 1 is not JSON)").arg(path);
                return false;
            }
            out->warning = QStringLiteral("%1 is cut short or damaged at line %2 (%3): opened up to the last good "
                                          "record, %4 record(s)")
                               .arg(path)
                               .arg(lineNo)
                               .arg(pe.errorString())
                               .arg(out->records.size());
            break;
        }
        const QJsonObject o = doc.object();
        if (out->header.isEmpty()) {
            if (o.value(QStringLiteral("format")).toString() != QLatin1String("lockscope-recording")) {
                *error = QStringLiteral("%1 is not a LockScope recording (no lockscope-recording header)").arg(path);
                return false;
            }
            const int version = o.value(QStringLiteral("version")).toInt();
            if (version < 1 || version > SessionRecorder::kFormatVersion) {
                *error = QStringLiteral("%1 has recording format version %2; this LockScope reads up to %3")
                             .arg(path)
                             .arg(version)
                             .arg(SessionRecorder::kFormatVersion);
                return false;
            }
            out->header = o;
            continue;
        }
        Record r;
        r.timeMs = o.value(QStringLiteral("t")).toInteger();
        const QString kind = o.value(QStringLiteral("k")).toString();
        if (kind == QLatin1String("locks")) {
            for (const auto &v : o.value(QStringLiteral("changed")).toArray()) {
                // Read `read_ms_ago` before the record was written (absent in older files: 0).
                const QJsonObject so = v.toObject();
                r.changed << LockSnapshot::fromJson(so, r.timeMs - so.value(QStringLiteral("read_ms_ago")).toInteger());
            }
            for (const auto &v : o.value(QStringLiteral("removed")).toArray())
                r.removed << v.toString();
        } else if (kind == QLatin1String("events")) {
            for (const auto &v : o.value(QStringLiteral("events")).toArray())
                r.events << LockEvent::fromJson(v.toObject());
        } else if (kind == QLatin1String("end")) {
            out->stoppedMs = r.timeMs;
            continue;
        } else {
            continue; // a record kind from a newer writer: skip it
        }
        out->records << r;
    }
    if (out->header.isEmpty()) {
        *error = QStringLiteral("%1 is empty").arg(path);
        return false;
    }
    // Event records carry the time the change was seen (I/O thread), snapshot records the time
    // the view applied them: a few ms apart, so the file is not strictly in time order. Replay
    // and seek need it to be.
    std::stable_sort(out->records.begin(), out->records.end(),
                     [](const Record &a, const Record &b) { return a.timeMs < b.timeMs; });
    return true;
}

} // namespace lockscope
