#pragma once

#include "protocol/locksnapshot.h"

#include <QByteArray>
#include <QHash>
#include <QThreadPool>
#include <QVector>

#include <atomic>
#include <cstdio>
#include <vector>

namespace lockscope
{

/**
 * `list --json`'s lines (one compact QJsonDocument of LockSnapshot::toJson() per lock, and '\n'),
 * built on a worker thread while the discovery and the reads go on, then written in the order
 * asked for.
 *
 * Issue 12: at 200k locks the lines cost about 3 s of CPU; built only once Redis had answered
 * everything, they added a second and a half to `list` on two cores. Fed from
 * LockWatcher::locksUpdated, the worker builds them while the main thread waits on Redis. It runs
 * in the idle scheduling class (Linux SCHED_IDLE): it only takes CPU that neither Redis nor the
 * main thread wants, so it never slows down a Redis on the same host (at nice +10 it did, by
 * about a tenth). On a busy host it may build few lines or none: write() builds what is missing.
 *
 * Memory: the lines kept, about 500 bytes per lock, in chunks of 4 MB, at most kMaxBytes (the
 * worker stops there, and write() builds the rest: 200k locks take about 100 MB).
 */
class LockJsonLines
{
public:
    /** The most line bytes the worker keeps (issue 12: `list` at 200k locks within 400 MB RSS). */
    static constexpr qsizetype kMaxBytes = 160 << 20;

    LockJsonLines();
    ~LockJsonLines();
    LockJsonLines(const LockJsonLines &) = delete;
    LockJsonLines &operator=(const LockJsonLines &) = delete;

    /** Queues the snapshots of one LockWatcher::locksUpdated for the worker. */
    void update(const QVector<LockSnapshot> &changed);

    /** Stops the worker (updates it has not started are dropped, the one under way stops after its
     *  current line) and writes one line per lock of `locks`, in that order, to `out`: the
     *  worker's line when it was built from the same read of that lock (same serverTimeMs,
     *  readAtSteadyMs and stale), else one built now, on two threads, in blocks of 4096 locks. */
    void write(const QVector<const LockSnapshot *> &locks, std::FILE *out);

    /** One compact JSON line of `snapshot`, '\n' included (Qt's JSON writer). */
    static QByteArray lineOf(const LockSnapshot &snapshot);

private:
    /** Where the line of one read of a lock is, and which read it is. */
    struct LineRef {
        int chunk = 0;
        int offset = 0;
        int length = 0;
        qint64 serverTimeMs = 0;
        qint64 readAtSteadyMs = 0;
        bool stale = false; ///< LockMonitor::markStale() changes a snapshot without a read
    };
    void append(const LockSnapshot &snapshot); ///< worker thread
    /** The worker's line of `s`'s read, or an empty view (main thread, after the worker stopped). */
    QByteArrayView builtLine(const LockSnapshot &s) const;

    QThreadPool m_worker; ///< one thread: updates are applied in order
    std::atomic<bool> m_stop{false};
    bool m_idleClass = false; ///< worker thread only
    /** The lines one after the other: one allocation per chunk, not one per line (200k separate
     *  lines took twice their size in the heap). A lock read again leaves its old line unused. */
    std::vector<QByteArray> m_chunks;
    QHash<QString, LineRef> m_lines;
    qsizetype m_bytes = 0; ///< line bytes kept so far (worker thread)
};

} // namespace lockscope
