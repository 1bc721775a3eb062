#pragma once

#include "redis/redisscript.h"
#include "redis/scanbudget.h"

#include <QObject>
#include <QPointer>
#include <QRegularExpression>
#include <QStringList>

namespace lockscope
{

class RedisConnection;

/**
 * Finds candidate lock names with SCAN, gently: one `SCAN cursor MATCH <glob> COUNT <n> TYPE hash`
 * per step (never KEYS), each step sent only when the previous reply arrived, so the server never
 * serves more than one small step for us at a time and the event loop never blocks. Of the hashes
 * a step finds, only those that may be locks are returned (a field `mode`, a field name with `:`,
 * or more than 16 fields: scan_step.lua's "lockhash"; setPrefilterHashes()); the others are named
 * by hashesNotLocksFound().
 *
 * A second pass (`MATCH redisson_lock_*`, no TYPE) finds the companion keys of locks: fair queues
 * and timeout sets (also of fair locks whose hash is gone but whose waiters remain, protocol §3.1,
 * §9) and fencing tokens. It runs alongside the first: one step advances both, and the two walk
 * together (the same cursor and COUNT, so the second SCAN walks buckets the first has just brought
 * into the server's cache) for as long as the server returns the same next cursor to both, as
 * Redis 7.0 does; once the cursors differ, each pass goes on from its own with half the step
 * budget. A companion key `redisson_lock_queue:{x}`
 * yields both `x` and `{x}` (each when it matches the glob), since Redisson derives it for both
 * names (§14.4); these names come with `fromCompanionKeys` set, so the monitor knows which locks
 * need the atomic snapshot script (the others are read with plain commands). Needs Redis >= 6.0
 * (SCAN ... TYPE).
 *
 * Each SCAN runs inside resources/scripts/scan_step.lua between two TIMEs, so the server's own
 * time for the step is known (the round trip also counts the network and the client's work).
 * The COUNT adapts to it: aimed at 80 % of the step's budget (stepBudgetUs(), 500 µs by
 * default, LockMonitor::kScanBudgetUs, shared by both SCANs of a step, or halved for each once
 * the passes walk apart) from the measured cost per
 * visited key, at most doubling per step and shrinking at once, between kMinCount and kMaxCount.
 * setScanCount() fixes it instead.
 *
 * Candidates are names only: SnapshotReader classifies them.
 */
class LockDiscovery : public QObject
{
    Q_OBJECT
public:
    explicit LockDiscovery(RedisConnection *connection, QObject *parent = nullptr);

    static constexpr int kMinCount = ScanBudget::kMinCount;
    static constexpr int kMaxCount = ScanBudget::kMaxCount;

    /** The COUNT of the step after one of `count` that took the server `usedUs`, for a step
     *  budget of `budgetUs`: 80 % of the budget at the measured cost per visited key, at most
     *  double `count`, between kMinCount and kMaxCount (also used by DoctorProbe's latch scan). */
    static int nextScanCount(int count, qint64 usedUs, qint64 budgetUs)
    {
        return ScanBudget::nextCount(count, usedUs, budgetUs);
    }

    /** A fixed COUNT per step (turns the adaptation off). */
    void setScanCount(int count)
    {
        m_count = qMax(10, count);
        m_passes[0].count = m_passes[1].count = m_count;
        m_budgetUs = 0;
    }
    /** A connection of its own for the steps (RedisConnectionPool::scanConnection()): used while
     *  it is ready, else the steps go on the command connection. Opened by the caller. */
    void setScanConnection(RedisConnection *connection) { m_scanConnection = connection; }
    /** The COUNT of the next SCAN step of the hash pass. */
    int scanCount() const { return m_passes[0].count; }
    /** Whether the hash pass leaves out hashes that cannot be locks on the server (scan_step.lua
     *  "lockhash", 2 commands per hash found; hashesNotLocksFound() names them) or returns every
     *  hash (TYPE hash). On by default; takes effect at the next start(). */
    void setPrefilterHashes(bool on) { m_prefilter = on; }
    bool prefilterHashes() const { return m_prefilter; }
    /** Server time one SCAN step should take at most, in µs (0 = fixed COUNT). */
    void setStepBudgetUs(qint64 us) { m_budgetUs = qMax<qint64>(0, us); }
    qint64 stepBudgetUs() const { return m_budgetUs; }
    /** The longest server time of one SCAN step seen so far, in µs (scan_step.lua's TIMEs). */
    qint64 slowestStepUs() const { return m_slowestStepUs; }
    /** SCAN steps sent since start() (SCAN commands: a call that advances both passes counts 2). */
    qint64 steps() const { return m_steps; }
    bool isRunning() const { return m_running; }
    /** Whether the two passes still walk with one cursor and one COUNT (true from start() until
     *  the server returns different next cursors to them). */
    bool passesWalkTogether() const { return m_joint; }
    /** Lets the two passes walk together when the server allows it (the default), or apart from
     *  the start (each its own cursor and half the budget, as after a split; for tests). Takes
     *  effect at the next start(). */
    void setWalkTogether(bool on) { m_walkTogether = on; }

    /** Starts a scan for lock names matching `glob` (Redis glob; "*" = all). Restarts a running one. */
    void start(const QString &glob);
    void cancel();

    /** Redis glob match (`*`, `?`, `[...]`, backslash escapes) used to filter names client-side. */
    static QRegularExpression globToRegex(const QString &glob);

signals:
    /** Hashes one step found that cannot be locks (no field `mode`, none with `:`, at most 16
     *  fields): known as no locks without a snapshot read. */
    void hashesNotLocksFound(const QStringList &names);
    /** Candidate lock names found by one step (no duplicates within one scan of a pass).
     *  `fromCompanionKeys`: named by a queue, timeout set or token found by the second pass (the
     *  lock has companions, or its hash is gone), not by a hash of the first. */
    void candidatesFound(const QStringList &names, bool fromCompanionKeys = false);
    /** `scannedKeys`: keys the first pass visited so far (about the sum of its COUNTs; -1 once
     *  it is done and the fair-queue pass runs), `candidates` names passed on so far. */
    void progress(qint64 scannedKeys, qint64 candidates);
    /** `scannedKeys`: keys the first pass visited (about the sum of its COUNTs). */
    void finished(qint64 scannedKeys, qint64 candidates);
    void failed(const QString &error);

private:
    void step();

    QPointer<RedisConnection> m_connection;
    QPointer<RedisConnection> m_scanConnection;
    RedisScript m_script;
    QString m_glob;
    QRegularExpression m_regex;
    /** One walk over the keyspace: 0 = hashes matching the glob, 1 = fair queues (lists). */
    struct Pass {
        QByteArray cursor = "0";
        int count = 100; ///< COUNT of its next step
        bool done = false;
    };
    Pass m_passes[2];
    int m_count = 100; ///< first COUNT of each pass
    bool m_prefilter = true;
    bool m_prefilterRun = true; ///< m_prefilter as of start()
    qint64 m_budgetUs = 500;
    qint64 m_slowestStepUs = 0;
    qint64 m_steps = 0;
    qint64 m_examined = 0;
    int m_generation = 0;
    bool m_running = false;
    /** Both passes walk with one cursor and one COUNT (until the server's cursors differ). */
    bool m_joint = true;
    bool m_walkTogether = true; ///< setWalkTogether()
    qint64 m_scanned = 0;
    qint64 m_candidates = 0;
};

} // namespace lockscope
