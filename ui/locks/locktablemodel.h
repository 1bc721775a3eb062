#pragma once

#include "common/actornames.h"
#include "locks/leasealerts.h"

#include "protocol/clusternodestatus.h"
#include "protocol/locksnapshot.h"

#include "common/columntablemodel.h"
#include <QDateTime>
#include <QHash>
#include <QIcon>
#include <QVector>

#include <functional>

namespace lockscope
{

/**
 * The lock table: one row per lock, fed in batches by LockSession::locksUpdated (no I/O here).
 *
 * Countdowns are not stored: views compute the TTL left at paint time from the snapshot
 * (pttlMs minus the monotonic time since it was read), so the table moves smoothly without
 * re-reading Redis. A row remembers when its TTL last jumped back up with the same holders
 * (a watchdog renewal, protocol §2.6) and the largest TTL seen, used to scale its bar.
 */
class LockTableModel : public ColumnTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        KindColumn,
        HolderColumn,
        HoldCountColumn,
        TtlColumn,
        WaitingColumn,
        HeldForColumn,
        NodeColumn,
        ColumnCount
    };
    enum Role {
        SnapshotRole = Qt::UserRole + 1, ///< QVariant<LockSnapshot>
        TtlScaleRole,                    ///< qint64 ms: full length of the TTL bar
        LastRenewalRole,                 ///< qint64 steady ms of the last watchdog renewal seen, 0 = none
        SortRole,                        ///< value used by the proxy to sort each column
        OwnHoldRole,                     ///< bool: LockScope's own client holds it
        HeldSinceRole,       ///< qint64 model-clock ms of the first sighting of the current holders, 0 = free
        LeaseBadgeRole,      ///< QString: the lease-safety badge beside the holder ("lease lost"), empty = none
        LeaseBadgeColorRole, ///< QColor: its fill (LeaseAlerts::badgeColor)
    };

    explicit LockTableModel(QObject *parent = nullptr);

    /** LockScope's client id, to mark its own holds. */
    void setOwnClientId(const QString &clientId) { m_ownClientId = clientId; }
    /**
     * The clock countdowns are computed against, in the unit of LockSnapshot::readAtSteadyMs: the
     * monotonic LockSnapshot::steadyNowMs() by default, ReplayPlayer::clockMs() in a replay.
     */
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }
    /** Workshop mode: holders shown by name ("A"), the client id in the tooltip. */
    void setActorNames(const ActorNames &names);
    /** The clock of events' times, epoch ms: the wall clock by default, the replay position in a
     *  replay. Lease badges last as long as the doctor's findings on this clock. */
    void setEventClock(std::function<qint64()> clock) { m_eventClock = std::move(clock); }
    /**
     * One batch of events (LockSession::eventsOccurred or a replay's): lease_lost, holder_returned,
     * lost_in_failover, token_regressed and renewal_late give the lock's row a badge beside its
     * holder (LeaseBadgeRole) and a tooltip naming the old holder, when and the next holder. Kept by
     * name, so a lock that comes back with its next holder shows it. No I/O.
     */
    void applyEvents(const QVector<LockEvent> &events);
    /** Forgets every lease alert and takes `oldestFirst` instead (the workshop's step back: the
     *  alerts of the checkpoint, none of an undone step). */
    void restoreLeaseAlerts(const QVector<LockEvent> &oldestFirst);
    /** The lease alert shown for `name` now, nullptr for none (the detail panel's paragraph). */
    const LeaseAlerts::Alert *leaseAlert(const QString &name) const;
    const ActorNames &actorNames() const { return m_names; }
    /**
     * The first discovery is in (for the Held for column): holders of rows seen before this were
     * already there when LockScope first looked, so their "held for" is a lower bound, shown
     * "≥ 4 min 03 s". Holders that appear later are timed from when they were first seen.
     */
    void setInitialReadDone() { m_initialReadDone = true; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /**
     * Redis Cluster mode: the masters and their slot ranges, for the node column ("host:port ·
     * slot N", the master serving the lock's hash slot). Empty = not a cluster (the column stays
     * empty; the view hides it).
     */
    void setClusterNodes(const QVector<ClusterNodeStatus> &nodes);
    /** Master address serving `name`'s hash slot, empty when unknown or not a cluster. */
    QString nodeOf(const QString &name) const;

    /** Appending at least this many rows (and at least an eighth of the table) is a model reset. */
    static constexpr int kBulkInsertRows = 2000;
    /** Applies one batch: rows for `changed` are updated or appended, `removed` rows go. Appending
     *  kBulkInsertRows rows or more (an eighth of the table or more) resets the model instead of
     *  inserting rows, so sorting proxies sort once; views lose their selection then. */
    void applyBatch(const QVector<LockSnapshot> &changed, const QStringList &removed);
    /** Worst doctor severity per lock (LockFinding::Severity as int), shown on the name column. */
    void setSeverities(const QHash<QString, int> &severityByLock);
    /** No rows and no lease alerts (a replay's seek: the events up to the new position follow). */
    void clear();

    /** "as of hh:mm:ss" (local time of staleAsOfMs) for a stale snapshot (LockScope lost the
     *  connection: the row is the last read), empty for a fresh one. Shown in the TTL column and
     *  the detail panel instead of a countdown, which would be a guess. */
    static QString staleText(const LockSnapshot &s);

    /** A small badge for each lock kind (drawn, so it scales for a projector). */
    static QIcon kindIcon(LockKind kind);

    /** Snapshot of `name`, or nullptr. */
    const LockSnapshot *snapshot(const QString &name) const;
    int rowOf(const QString &name) const { return m_index.value(name, -1); }
    /** Snapshot of row `row` (0 <= row < rowCount()), without a copy (filters use it per row). */
    const LockSnapshot &snapshotAt(int row) const;

private:
    ActorNames m_names;
    struct Row {
        LockSnapshot snapshot;
        qint64 ttlScaleMs = 0;
        qint64 lastRenewalSteadyMs = 0;
        qint64 heldSinceMs = 0;        ///< model clock: first sighting of the current holders; 0 = free
        bool heldSinceAtLeast = false; ///< they were there at LockScope's first read: held at least that long
    };
    void rebuildIndex();
    /** One line per holder: name (workshop), client id, thread id, hold count. */
    QString holderTooltip(const LockSnapshot &s) const;

    QVector<Row> m_rows;
    QHash<QString, int> m_index;
    QString m_ownClientId;
    QHash<QString, int> m_severity;
    QVector<QString> m_slotMaster; ///< cluster: master address per hash slot (16384), else empty
    std::function<qint64()> m_clock = &LockSnapshot::steadyNowMs;
    std::function<qint64()> m_eventClock = &QDateTime::currentMSecsSinceEpoch;
    LeaseAlerts m_lease;
    qint64 heldForMs(qint64 sinceMs) const { return m_clock() - sinceMs; }
    bool m_initialReadDone = false;
};

} // namespace lockscope
