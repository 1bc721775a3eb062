#pragma once

#include "redis/redisscript.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace lockscope
{

class RedisConnection;

/**
 * Lease renewal for one LockClient, as Redisson 3.44+ does it (protocol §2.6, §14.2): one timer
 * per client firing every timeoutMs/3, renewing all watched locks with one batched script
 * (resources/scripts/lock_renew.lua) per chunk of up to 100 names (lockWatchdogBatchSize). With
 * setOneSlotPerBatch() (Redis Cluster) the names are first grouped by hash slot, as Redisson's
 * RenewalTask does in cluster mode: a chunk mixing slots would fail as a whole with CROSSSLOT,
 * on a single cluster node too.
 *
 * A lock whose renewal returns 0 (key or field gone) is dropped and reported with `lost()`.
 * A renewal that fails (error reply: CROSSSLOT, NOPERM, WRONGTYPE, a lost connection, ...)
 * marks every lock of its chunk *at risk* (atRisk(): the error and the time of its last
 * successful renewal) and is reported with `renewalFailed()`; Redisson logs it and retries at the
 * next tick, and so does this class: the hold expires when no renewal succeeds within the lease.
 * The next successful renewal of an at-risk lock reports `recovered()`.
 */
class LockWatchdog : public QObject
{
    Q_OBJECT
public:
    /** lockWatchdogBatchSize default (§1.6). */
    static constexpr int kBatchSize = 100;

    /** Why a watched lock is at risk. Times are local wall-clock epoch ms. */
    struct Risk {
        QString error;                 ///< the server's or transport's error text of the last renewal
        qint64 failedAtEpochMs = 0;    ///< when the last renewal failed
        qint64 lastRenewedEpochMs = 0; ///< last successful renewal (or the add(), when none yet)
    };

    LockWatchdog(RedisConnection *connection, qint64 timeoutMs, QObject *parent = nullptr);

    void setTimeoutMs(qint64 ms);
    qint64 timeoutMs() const { return m_timeoutMs; }
    /** Redis Cluster: one slot per renewal script (Redisson groups by slot in cluster mode only). */
    void setOneSlotPerBatch(bool on) { m_oneSlotPerBatch = on; }
    bool oneSlotPerBatch() const { return m_oneSlotPerBatch; }
    /** Starts renewing `name` for holder `field`; the first registered field of a name wins, as in Redisson. */
    void add(const QString &name, const QString &field);
    /** Stops renewing `name` (and forgets that it was at risk). */
    void remove(const QString &name);
    bool contains(const QString &name) const { return m_locks.contains(name); }
    /** Holder field renewed for `name`, empty when not watched. */
    QString fieldOf(const QString &name) const { return m_locks.value(name); }
    QStringList lockNames() const { return m_locks.keys(); }
    /** Watched locks whose last renewal failed, by name. Empty when every renewal worked. */
    QHash<QString, Risk> atRisk() const { return m_atRisk; }
    /** The renewal chunks of the watched names (what one round sends, one script each). */
    QList<QStringList> batches() const;
    /** Runs one renewal round now (also what the timer does). */
    void renewNow();

signals:
    void renewed(const QStringList &names);
    void lost(const QString &name);
    /** A renewal script failed: `names` (one chunk) are at risk; `error` is the reply's text. */
    void renewalFailed(const QStringList &names, const QString &error);
    /** These at-risk locks were renewed again. */
    void recovered(const QStringList &names);
    /** A sentence for the operator about a failed renewal (also sent with renewalFailed()). */
    void errorOccurred(const QString &message);

private:
    void onReply(const QStringList &chunk, const RedisReply &reply);

    QPointer<RedisConnection> m_connection;
    RedisScript m_script;
    qint64 m_timeoutMs;
    bool m_oneSlotPerBatch = false;
    QHash<QString, QString> m_locks;
    QHash<QString, qint64> m_lastRenewedMs; ///< epoch ms of the last successful renewal (or add)
    QHash<QString, Risk> m_atRisk;
    QTimer m_timer;
};

} // namespace lockscope
