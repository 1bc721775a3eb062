#pragma once

#include "stepreport.h"

#include "diagnose/leasetracker.h"
#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

namespace lockscope
{

/**
 * LockScope's lease-safety verdicts on a running workshop scenario, from the keys each step
 * leaves (ScenarioRunner): after every step a LockSnapshot of each lock of the scenario is made
 * from the dump (holders, PTTL, fencing token), LockEvent::diff() against the previous step's,
 * and the batch goes through a LeaseTracker, the same engine as `watch` and the dashboard. So a
 * step can expect `lease_lost`, `holder_returned` or `lost_in_failover` exactly as an operator
 * would see them.
 *
 * Times are the stage's, not the wall clock's: between two steps the stage clock holds every TTL
 * while the teacher talks, so the snapshots' server time, their steady time and the events' times
 * advance only by the time that ran on the stage (the caller counts it). A lock renewed at the
 * watchdog's cadence is then never taken for late or lost at any pace.
 *
 * A plain value (the tracker keeps no pointer to anything outside it), so a checkpoint of the
 * runner copies it and a step back puts it back.
 */
class StageLeaseWatch
{
public:
    StageLeaseWatch();

    /**
     * One step's end: `keys` as the step left them, `keyOf(lock)` the key that holds each lock of
     * `locks` there (the lock's own name on the main server; another server's copy in replication
     * scenarios), `stageMs` the stage time run since the start. `failover` non-empty: this step
     * moved to a new master (its words); a `failover` event goes first, so the tracker checks
     * that every lock held before is still there. Returns the step's events after the tracker.
     */
    QVector<LockEvent> observe(const StepReport::Keys &keys, const QStringList &locks,
                               const std::function<QString(const QString &)> &keyOf, qint64 stageMs,
                               const QString &failover);

    /** The wall clock at the start (epoch ms): a stage time t is shown as epochBaseMs() + t. */
    qint64 epochBaseMs() const { return m_epochBaseMs; }
    /** The lease-safety events a step can expect (LeaseTracker's own). */
    static QStringList safetyTypes();
    /** A snapshot of lock `lock` from the dump key `key` (hash of holder fields, PTTL) and the
     *  fencing token key, read at `stageMs`. */
    static LockSnapshot snapshotOf(const StepReport::Keys &keys, const QString &lock, const QString &key,
                                   qint64 stageMs, qint64 epochBaseMs);

private:
    LeaseTracker m_tracker;
    QHash<QString, LockSnapshot> m_last; ///< by lock: the previous step's snapshot
    qint64 m_epochBaseMs = 0;            ///< wall clock at the start: event times are base + stage time
};

} // namespace lockscope
