#pragma once

#include "locksnapshot.h"

#include "redis/redisscript.h"

#include <QObject>
#include <QStringList>

#include <functional>

namespace lockscope {

class RedisConnection;
class RedisReply;

/**
 * Reads LockSnapshots: one read-only Lua script (resources/scripts/snapshot.lua) per batch of up
 * to `batchSize()` locks, so each lock's hash, PTTL, fair queue, timeout set, fence token,
 * unlock-channel subscriber count and the server TIME come from one atomic step. Batches are
 * pipelined; nothing is written.
 */
class SnapshotReader : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const QVector<LockSnapshot> &snapshots, const QString &error)>;

    explicit SnapshotReader(RedisConnection *connection, QObject *parent = nullptr);

    void setBatchSize(int n) { m_batchSize = qMax(1, n); }
    int batchSize() const { return m_batchSize; }
    /** Redis Cluster: the KEYS of one EVAL must share a hash slot, so each batch holds names of
     *  one slot only (read() then returns the snapshots grouped by slot, not in input order). */
    void setOneSlotPerBatch(bool on) { m_oneSlotPerBatch = on; }
    /** Fair-queue entries read per lock at most (the full length is always reported). */
    void setMaxWaiters(int n) { m_maxWaiters = qMax(1, n); }

    /**
     * Reads `names`. `callback` runs once with one snapshot per name, in order, including names
     * that turned out not to be locks (`isLock == false`; `exists == false` when the key is gone).
     * On a server or transport error the callback gets the snapshots of the batches that did
     * succeed and `error` says what failed. Runs on the connection's thread.
     */
    void read(const QStringList &names, QObject *context, Callback callback);

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
    static LockSnapshot parse(const QString &name, const RedisReply &entry, qint64 serverTimeMs,
                              qint64 readAtSteadyMs, bool twinHashExists = false);

private:
    RedisConnection *m_connection;
    RedisScript m_script;
    int m_batchSize = 200;
    int m_maxWaiters = 100;
    bool m_oneSlotPerBatch = false;
};

} // namespace lockscope
