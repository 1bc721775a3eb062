#pragma once

#include "diagnose/doctorproberesult.h"
#include "redis/redisscript.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QVector>

#include <functional>

namespace lockscope
{

class RedisConnection;

/**
 * The extra reads the doctor needs beyond lock snapshots, all read-only:
 *  - clients waiting on locks that do not exist: `PUBSUB CHANNELS redisson_lock__channel:*` and
 *    `redisson_rwlock:*`, and the same with `PUBSUB SHARDCHANNELS` (Redisson 3.22+ waiters on a
 *    Redis 7 cluster SSUBSCRIBE, §14.3; servers before 7.0 refuse it and only classic waiters
 *    count), then `PUBSUB NUMSUB` plus `SHARDNUMSUB` and `EXISTS` of each lock (per-waiter fair
 *    channels are skipped: fair waiters are visible in their queue). A channel of `x` is also
 *    one of `{x}` (§14.4): its waiters count as orphaned only when neither hash exists, and
 *    are then reported under the plain name `x`;
 *  - unlock latch keys: `SCAN MATCH redisson_unlock_latch:* COUNT n` in steps, with the PTTL of
 *    each key found read in the same step (scan_step.lua "withpttl"); n adapts to its server time
 *    (ScanBudget::nextCount, kScanBudgetUs per step: a pipeline of 40k PTTLs
 *    after the scan held up the snapshot reads of a busy server for a second).
 */
class DoctorProbe : public QObject
{
    Q_OBJECT
public:
    /** See DoctorProbeResult (a value header of its own). */
    using Result = DoctorProbeResult;

    explicit DoctorProbe(RedisConnection *connection, QObject *parent = nullptr);

    /**
     * Redis Cluster: only locks this node serves count (`serves(lockName)` true), since EXISTS
     * of another master's key would answer MOVED. Redisson subscribes to a lock's channel on the
     * master of the channel's slot, which is the lock's slot ({name}), so one probe per master
     * sees every waiter. Unset: every lock counts (a single server).
     */
    void setServesLock(std::function<bool(const QString &lockName)> serves) { m_serves = std::move(serves); }

    /** A connection of its own for the latch SCAN steps (RedisConnectionPool::scanConnection(),
     *  opened by its owner): used while it is ready, else the command connection, so the
     *  scan steps do not queue behind the snapshot reads. */
    void setScanConnection(RedisConnection *connection) { m_scanConnection = connection; }

    /** Runs all reads; `callback` once. A run already in progress is not restarted: `callback`
     *  gets its result too (never dropped). */
    void run(std::function<void(const Result &)> callback);
    bool isRunning() const { return m_running; }
    /** Runs every probe in `probes` (e.g. one per cluster master) and calls `callback` once with
     *  their results merged (subscriber counts added, latches joined, the first error); at once
     *  with an empty Result when `probes` is empty. */
    static void runAll(const QVector<DoctorProbe *> &probes, std::function<void(const Result &)> callback);

private:
    void scanLatches(const QByteArray &cursor);
    void finish();

    QPointer<RedisConnection> m_connection;
    QPointer<RedisConnection> m_scanConnection;
    bool m_running = false;
    int m_pending = 0;
    static constexpr qint64 kScanBudgetUs = 500; ///< server time of one latch SCAN step (as discovery's)
public:
    static constexpr int kMaxLatchesKept = 1000; ///< latch keys with a TTL kept in Result::latches
private:
    RedisScript m_scanStep; ///< scan_step.lua
    int m_scanCount = 100;  ///< COUNT of the next latch SCAN step
    Result m_result;
    QVector<std::function<void(const Result &)>> m_callbacks; ///< of the run in progress
    std::function<bool(const QString &)> m_serves;
};

} // namespace lockscope
