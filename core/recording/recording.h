#pragma once

#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"

#include <QJsonObject>
#include <QString>
#include <QVector>

#include <functional>

namespace lockscope
{

/**
 * A recording loaded into memory (see SessionRecorder for the format). load() is tolerant: a
 * truncated or corrupt file opens up to its last good record, and `warning` says where it
 * stopped and why. Snapshots come back with readAtSteadyMs = the epoch ms at which they were
 * read (the record's time minus its `read_ms_ago`): the clock of a replay (ReplayPlayer::clockMs()).
 * Records are in time order (load() sorts them stably).
 */
struct Recording {
    struct Record {
        qint64 timeMs = 0;
        QVector<LockSnapshot> changed;
        QStringList removed;
        QVector<LockEvent> events;
    };

    /** A line longer than this is skipped (with a warning): no record LockScope writes comes
     *  near it (a snapshot of 10,000 locks is a few MB), and parsing one costs ~40x its size. */
    static constexpr qint64 kMaxLineBytes = qint64(16) << 20;
    /** Reading stops (with a warning) after this much decompressed text: a gzip bomb ends here. */
    static constexpr qint64 kMaxTotalBytes = qint64(1) << 30;

    /** What load() keeps at most (snapshots, removals and events): a replay's memory is bounded
     *  by it (a few hundred MB), whatever the file holds. Beyond it, `warning` says so. */
    static constexpr qint64 kMaxKeptItems = 1000000;

    QJsonObject header;
    QVector<Record> records;
    QString warning;      ///< non-empty when the file was cut short or had a bad line
    qint64 stoppedMs = 0; ///< epoch ms of the closing "end" record, 0 when the file has none

    qint64 startMs() const { return records.isEmpty() ? 0 : records.first().timeMs; }
    /** The last record's time, or the time recording stopped if later (the state held till then). */
    qint64 endMs() const { return records.isEmpty() ? stoppedMs : qMax(records.last().timeMs, stoppedMs); }

    /**
     * Reads `path` as a stream (gzip detected by its magic bytes, several members allowed), one
     * line at a time, never the whole file at once. Returns false with `*error` only when nothing
     * usable was found (missing file, not a LockScope recording, unsupported version, damage
     * before the header). Damage after it (a flipped bit, a cut .gz, a line that is not JSON)
     * keeps every record before it and sets `warning`, naming the byte or line where it stopped;
     * so do skipped long lines (kMaxLineBytes) and the size cap (kMaxTotalBytes).
     */
    static bool load(const QString &path, Recording *out, QString *error);

    /** What read() hands over, item by item, in file order; a function returning false stops
     *  reading. Snapshots without a name (`{}`) are not snapshots of anything: skipped. */
    struct Visitor {
        std::function<bool(qint64 timeMs)> record; ///< a "locks" or "events" record starts
        std::function<bool(const LockSnapshot &snapshot)> snapshot;
        std::function<bool(const QString &name)> removed;
        std::function<bool(const LockEvent &event)> event;
        qint64 maxItems = 0; ///< stop (with a warning) after this many items; 0 = no limit
    };

    /**
     * load() without keeping anything: reads `path` as load() does and hands every item to
     * `visitor` as it is parsed, so memory stays that of one line whatever the file's size (for
     * `lockscope-cli export`). `out` gets the header, `warning` and `stoppedMs`, no records;
     * `*kept` (optional) the number of items handed over. Same errors as load().
     */
    static bool read(const QString &path, const Visitor &visitor, Recording *out, QString *error,
                     qint64 *kept = nullptr);
};

} // namespace lockscope
