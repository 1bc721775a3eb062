#pragma once

#include "protocol/locksnapshot.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace lockscope
{

/**
 * The lines of `lockscope-cli list --json` (one compact JSON object per lock, LockSnapshot::toJson()
 * written by Qt's QJsonDocument), built ahead while the read is still going on.
 *
 * A big list spends about as much client CPU on its JSON as on the read itself (200k locks:
 * about 3 s), and during the read one of two cores is only half used (Redis serves the other
 * half). add() hands each batch of read snapshots (LockWatcher::locksUpdated) to a worker thread
 * that runs at idle priority (SCHED_IDLE on Linux: it takes only CPU that neither the event loop
 * nor a local redis-server wants) and builds their lines. write() then stops the worker and
 * writes the final snapshots in the order given: a line built ahead is used when it was built
 * from the same read of that lock (same read time, server time, TTL, holders, kind, findings,
 * staleness), every other line is built then, on two threads. The output is byte for byte what
 * building every line at the end gives.
 */
class LockJsonLines
{
public:
    LockJsonLines();
    /** Stops the worker (lines it had not built yet are dropped). */
    ~LockJsonLines();
    LockJsonLines(const LockJsonLines &) = delete;
    LockJsonLines &operator=(const LockJsonLines &) = delete;

    /** Queues `snapshots` (shared, not copied) for the worker; a later add() of the same name
     *  replaces its line. Non-locks are ignored. Cheap: the caller is the event loop. */
    void add(const QVector<LockSnapshot> &snapshots);

    /** Stops the worker, then writes one line per element of `locks`, in that order, to stdout
     *  and flushes it. */
    void write(const QVector<const LockSnapshot *> &locks);

    /** One line of `list --json` for `s`: its compact JSON and a newline. */
    static QByteArray line(const LockSnapshot &s);

    /** Lines write() took from the worker, and lines it built itself (for tests and benches). */
    qint64 reusedLines() const { return m_reused; }
    qint64 builtAtEnd() const { return m_builtAtEnd; }

private:
    struct Built {
        LockSnapshot snapshot; ///< implicitly shared parts only: what the line was built from
        QByteArray line;
    };
    /** Whether `line` built from `built` is the line of `current` (the same read of the lock). */
    static bool sameRead(const LockSnapshot &built, const LockSnapshot &current);
    void work();
    void stop();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<QVector<LockSnapshot>> m_queue;
    std::atomic<bool> m_stopping{false};
    QHash<QString, Built> m_built; ///< the worker's until stop(), then write()'s
    std::thread m_worker;
    qint64 m_reused = 0;
    qint64 m_builtAtEnd = 0;
};

} // namespace lockscope
