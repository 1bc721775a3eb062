#pragma once

#include "protocol/locksnapshot.h"
#include "protocol/replicationinfo.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QVector>

#include <functional>
#include <memory>

class QTimer;

namespace lockscope
{

class ExposureTracker;
class LockEvent;
class RedisConnection;

/**
 * Which held locks no replica has yet, for LockSession (split out of it by concern): reads each
 * master's `INFO replication` about once a second while watching (at most one in flight per
 * master), matches it with the lock writes the session saw (ExposureTracker: acquired, reentered,
 * renewed) and says which verdicts changed; every 30 polls it compares `INFO commandstats`' WAIT
 * and WAITAOF calls with those lock writes and says, once per change, whether the services wait
 * for a replica after a lock write (Redisson's checkLockSyncedSlaves). It also judges one-shot
 * reads (judge()). Replication runs on real (steady) time, whatever clock the session's rules use.
 *
 * Reads only; an INFO refused (an ACL without +info) or lost leaves the verdicts as they were.
 * Lives on the session's thread; the session gives it its masters and connections.
 */
class ReplicationWatch : public QObject
{
    Q_OBJECT
public:
    struct Routes {
        std::function<QStringList()> masters;                                 ///< the topology's masters now
        std::function<QString(const QString &lock)> masterOf;                 ///< the master serving a lock
        std::function<RedisConnection *(const QString &master)> connectionOf; ///< its command connection
    };

    explicit ReplicationWatch(Routes routes, QObject *parent = nullptr);
    ~ReplicationWatch() override;

    /** Starts the once-a-second reading (the session's watch started). */
    void start();
    /** Forgets every master's replicas, offsets and writes (another server, a failover). */
    void clear();

    /** The watcher read `s` (`s` held: its exposure clock may start; else forgotten), at steady ms. */
    void observe(const LockSnapshot &s, qint64 steadyMs);
    /** `lock` is gone. */
    void forget(const QString &lock);
    /** The session saw lock events: the writes among them (acquired, reentered, renewed) start an
     *  exposure clock and count as lock writes for the WAIT check. */
    void observeEvents(const QVector<LockEvent> &events, qint64 steadyMs);
    /** `s` with its replication verdict now (LockSnapshot::replication, replicatedOn, exposedMs). */
    void apply(LockSnapshot &s, qint64 steadyMs) const;
    /** The locks a write of which no replica has acknowledged yet. */
    QStringList exposed() const;

    /**
     * One-shot reads (`show`, `list`): what can be known of `locks` from each master's INFO
     * replication, read now and, unless a replica already has the master's offset, once more after
     * ExposureTracker::kAckIntervalMs + kMarginMs (see LockSession::judgeReplication). `done` once.
     */
    void judge(QVector<LockSnapshot> locks, std::function<void(QVector<LockSnapshot>)> done);

signals:
    /** A master's INFO replication was read (the exporter's replica lag gauges). */
    void replicationRead(const QString &master, const lockscope::ReplicationInfo &info);
    /** These locks' verdicts changed, or they are exposed and their exposure time went on. */
    void verdictsChanged(const QSet<QString> &locks);
    /** A sentence worth saying once: whether lock writes are followed by WAIT on `master`. */
    void noticeOccurred(const QString &message);

private:
    void poll();
    void checkWaitGuard();

    Routes m_routes;
    std::unique_ptr<ExposureTracker> m_exposure;
    QTimer *m_timer = nullptr;
    QSet<QString> m_asked; ///< masters with an INFO replication in flight
    /** Per master: INFO commandstats' WAIT + WAITAOF calls and the lock writes seen since the last
     *  reading, and the last verdict said (once per change). */
    struct WaitGuard {
        qint64 waitCalls = -1; ///< at the last reading; -1 before one
        qint64 lockWrites = 0; ///< lock writes seen since it
        qint64 readAtMs = 0;   ///< when (steady ms)
        QString said;          ///< the last verdict said
    };
    QHash<QString, WaitGuard> m_waitGuards;
    int m_ticks = 0;
    static constexpr int kWaitGuardTicks = 30;
};

} // namespace lockscope
