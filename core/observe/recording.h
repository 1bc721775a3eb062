#pragma once

#include "lockevent.h"
#include "locksnapshot.h"

#include <QJsonObject>
#include <QString>
#include <QVector>

namespace lockscope {

/**
 * A recording loaded into memory (see SessionRecorder for the format). load() is tolerant: a
 * truncated or corrupt file opens up to its last good record, and `warning` says where it
 * stopped and why. Snapshots come back with readAtSteadyMs = the epoch ms at which they were
 * read (the record's time minus its `read_ms_ago`): the clock of a replay (ReplayPlayer::clockMs()).
 * Records are in time order (load() sorts them stably).
 */
struct Recording
{
    struct Record
    {
        qint64 timeMs = 0;
        QVector<LockSnapshot> changed;
        QStringList removed;
        QVector<LockEvent> events;
    };

    QJsonObject header;
    QVector<Record> records;
    QString warning;  ///< non-empty when the file was cut short or had a bad line
    qint64 stoppedMs = 0; ///< epoch ms of the closing "end" record, 0 when the file has none

    qint64 startMs() const { return records.isEmpty() ? 0 : records.first().timeMs; }
    /** The last record's time, or the time recording stopped if later (the state held till then). */
    qint64 endMs() const { return records.isEmpty() ? stoppedMs : qMax(records.last().timeMs, stoppedMs); }

    /** Reads `path` (.gz is decompressed). Returns false with `*error` only when nothing usable
     *  was found (missing file, not a LockScope recording, unsupported version). */
    static bool load(const QString &path, Recording *out, QString *error);
};

} // namespace lockscope
