#pragma once

#include "protocol/locksnapshot.h"

#include "redis/redisscript.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <memory>

namespace lockscope
{

class RedisConnection;
class RedisReply;

/**
 * Reads LockSnapshots: one read-only Lua script (resources/scripts/snapshot.lua) per batch of
 * locks, so each lock's hash, PTTL, fair queue, timeout set, fence token, unlock-channel
 * subscriber count and the server TIME come from one atomic step. Nothing is written.
 *
 * Gentle by default: each script call must keep Redis busy for at most batchBudgetUs() (500 µs;
 * the script reports its own execution time with a second TIME). Batches start at 50 locks, grow
 * (at most doubling) while calls are fast and shrink when one was slow, between 1 and 1000 locks;
 * at most maxInFlight() batches of one read() (2) are in flight at a time, each sent when an
 * earlier one returned, so another client's command waits behind at most two of ours (with 4
 * in flight, a PING waited up to 4 budgets; p99 5 ms). setBatchSize() fixes the size
 * instead (no adaptation).
 *
 * Why snapshotreader.cpp is long: batching with its adaptive size, the fall-backs (key by key in
 * a cluster after a slot redirect, plain reads when scripts are refused) and parse(), which turns
 * the snapshot script's reply for every lock kind into a LockSnapshot field by field, with a clear
 * error for each malformed shape (hostile or foreign data).
 */
class SnapshotReader : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const QVector<LockSnapshot> &snapshots, const QString &error)>;

    explicit SnapshotReader(RedisConnection *connection, QObject *parent = nullptr);

    /** A fixed batch size (turns the time-budget adaptation off). */
    void setBatchSize(int n)
    {
        m_batchSize = qMax(1, n);
        m_budgetUs = 0;
    }
    /** The size the next batch will have (adapted to the budget unless fixed). */
    int batchSize() const { return m_batchSize; }
    /** Server time one script call may take, in µs (0 = fixed batch size). Default 500. */
    void setBatchBudgetUs(qint64 us) { m_budgetUs = qMax<qint64>(0, us); }
    qint64 batchBudgetUs() const { return m_budgetUs; }
    /** The longest server time of one script call seen so far, in µs (from the script's TIMEs). */
    qint64 slowestBatchUs() const { return m_slowestBatchUs; }
    /** Batches of one read() in flight at most (1..16; default 2). */
    void setMaxInFlight(int n) { m_maxInFlight = qBound(1, n, 16); }
    int maxInFlight() const { return m_maxInFlight; }
    /** Script calls (EVAL/EVALSHA) sent so far. */
    qint64 callsSent() const { return m_callsSent; }
    /** Redis Cluster: the KEYS of one EVAL must share a hash slot, so each batch holds names of
     *  one slot only (read() then returns the snapshots grouped by slot, not in input order). */
    void setOneSlotPerBatch(bool on) { m_oneSlotPerBatch = on; }
    /** Sends one command to the node where `key` lives now, following MOVED and ASK
     *  (ClusterRouter::send); the callback runs once, with the reply or an error. */
    using RoutedSend = std::function<void(const QByteArray &key, const QList<QByteArray> &argv, QObject *context,
                                          std::function<void(const RedisReply &)> callback)>;
    /**
     * Redis Cluster: how to read a lock whose hash slot is being migrated (resharding). There a
     * script over the lock's keys is refused: `ASK` (its keys moved to the importing node),
     * `TRYAGAIN` (some of them moved), or "non local key" (the script touched a key that is not
     * there, as the absent fair queue of every plain lock), and `MOVED` when the slot's owner
     * changed. The names of such a batch are then read key by key with `send`, each command where
     * its key lives, as Redisson's own commands follow ASK: the same data as the script's (HSCAN of
     * at most 1024 fields, HLEN, TYPE, PTTL, the fair queue and timeout set, the token, the
     * twin's TYPE, the unlock channels' subscribers), without the read-write lock's per-hold
     * TTLs, and not in one atomic step: each snapshot says so (LockSnapshot::migratingSlot).
     * Unset (single server, Sentinel): such an error is the read's error.
     */
    void setRoutedSend(RoutedSend send) { m_routedSend = std::move(send); }
    /** Whether `error` (a script's) means the slot is being migrated or has moved (see setRoutedSend()). */
    static bool isSlotRedirect(const QString &error);
    /** Names read key by key so far (setRoutedSend()). */
    qint64 namesReadKeyByKey() const { return m_keyByKey; }
    /** Fair-queue entries read per lock at most (the full length is always reported). */
    void setMaxWaiters(int n) { m_maxWaiters = qMax(1, n); }

    /**
     * Reads `names`. `callback` runs once with one snapshot per name, in order, including names
     * that turned out not to be locks (`isLock == false`; `exists == false` when the key is gone).
     * On a server or transport error the callback gets the snapshots of the batches that did
     * succeed and `error` says what failed. Runs on the connection's thread.
     *
     * With `onBatch` set, the snapshots of each batch are handed to it as that batch's reply
     * arrives (in send order; the next batch is already on its way, so Redis is not idle while
     * the caller works on them), and `callback` then gets an empty vector and the error. A big
     * read thus never waits for its slowest part nor holds all its snapshots at once.
     */
    void read(const QStringList &names, QObject *context, Callback callback, Callback onBatch = nullptr);

    /**
     * As read(), and `plainNames` too, but those with plain commands where they suffice: per batch
     * of plainBatchSize() names one pipeline (no MULTI) of TIME, `HRANDFIELD name 17 WITHVALUES`
     * and `PTTL name` per name, one `PUBSUB NUMSUB` and one `PUBSUB SHARDNUMSUB` of their unlock
     * channels, and TIME (the floor of a read: about two cheap commands per name, where the
     * script spends about twice the server time). The caller vouches that these names have no
     * companion key (fair queue, timeout set, token: LockDiscovery's second pass names those)
     * and no twin hash (§14.4). What the plain read cannot tell alone goes to the script in the
     * same read(): another type (WRONGTYPE), more than 16 fields (the script samples), a field
     * `mode` (read-write lock: the TTLs of the read holds), and a read that is not consistent
     * (fields without a TTL key, PTTL -2). Snapshots then do not come in input order.
     * Redis before 6.2 (no HRANDFIELD): every name goes to the script.
     */
    void read(const QStringList &names, const QStringList &plainNames, QObject *context, Callback callback,
              Callback onBatch);
    /** Runs the snapshot script once with no lock (TIME only): `done(error)`, empty when the
     *  connection's user may run it. Plain reads need no script for most locks, but the rest (and
     *  every later re-read) do: asked up front, a user who may not run scripts is told at once
     *  instead of after a partial picture. */
    void probeScript(QObject *context, std::function<void(const QString &error)> done);
    /** Names per plain pipeline (default 100; 1..5000). Redis serves a pipeline in reads of
     *  16 KiB (about 150 of these names), other clients' commands between them. Smaller
     *  pipelines let a discovery's SCAN replies through sooner, on the server and in this
     *  process's event loop, and the walk sets the length of a big discovery: 1M keys, `list`
     *  in 4.2-4.5 s at 75-100 names, 4.8-5.0 s at 500, 5.1 s at 50 (alternating runs). */
    void setPlainBatchSize(int n) { m_plainBatch = qBound(1, n, 5000); }
    int plainBatchSize() const { return m_plainBatch; }
    /** Plain pipelines sent so far, and names of them the script read after all. */
    qint64 plainBatchesSent() const { return m_plainBatchesSent; }
    qint64 plainNamesRetried() const { return m_plainRetried; }

    /**
     * Classifies one entry of snapshot.lua's reply (exposed for tests). `twinHashExists`: the
     * hash of LockNames::twinName(name) exists (snapshot.lua's trailing array, §14.4). Rules:
     *  - this hash absent, the twin's present: the shared companion keys (queue, timeout set,
     *    token, unlock-channel subscribers) are the twin's; this name is not a lock;
     *  - both present: each is a lock with the shared companions, flagged companionsShared();
     *  - neither present (a free fair lock seen through its queue only): a lock whose
     *    nameCertain() is false. Both names then read alike; LockMonitor lists only one of them
     *    (the one it already lists, else the plain name `x`).
     *  - a hash whose fields are all `h` -> `<clientId>:<threadId>`, `h:<owner>:expire_time`,
     *    `h:<owner>:lock_count` (at least one of the latter) is a faster multilock group (§14.10),
     *    never a corrupt RLock.
     */
    static LockSnapshot parse(const QString &name, const RedisReply &entry, qint64 serverTimeMs, qint64 readAtSteadyMs,
                              bool twinHashExists = false);

private:
    struct ReadState;
    void sendMore(const std::shared_ptr<ReadState> &state);
    void sendPlain(const std::shared_ptr<ReadState> &state);
    /** After a part's reply: the next parts go out, or, when the reader is gone, none will (so
     *  the last part in flight calls back with what was read). */
    static void sendMoreOrStop(const QPointer<SnapshotReader> &self, const std::shared_ptr<ReadState> &state);
    /** Counts the finished batch; the last one calls back. */
    static void finishBatch(const std::shared_ptr<ReadState> &state, int part, QVector<LockSnapshot> out);
    void retryWithScript(const std::shared_ptr<ReadState> &state, const QStringList &names);
    /** setRoutedSend(): reads `names` key by key as part `part` of `state` (already counted in
     *  flight); `migrating`: the slot is being migrated (ASK, TRYAGAIN), not moved (MOVED). */
    void readKeyByKey(const std::shared_ptr<ReadState> &state, const QStringList &names, int part, bool migrating);
    /** Sizes the next batch after a call over `locks` that kept Redis busy for `usedUs`. */
    void adapt(int locks, qint64 usedUs);

    RedisConnection *m_connection;
    RedisScript m_script;
    int m_batchSize = 50;
    qint64 m_budgetUs = 500;
    int m_maxInFlight = 2;
    qint64 m_slowestBatchUs = 0;
    qint64 m_callsSent = 0;
    int m_maxWaiters = 100;
    bool m_oneSlotPerBatch = false;
    int m_plainBatch = 100;
    bool m_plainRefused = false; ///< HRANDFIELD unknown (Redis < 6.2): plain reads off
    qint64 m_plainBatchesSent = 0;
    qint64 m_plainRetried = 0;
    RoutedSend m_routedSend;
    qint64 m_keyByKey = 0;
};

} // namespace lockscope
