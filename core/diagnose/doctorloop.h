#pragma once

#include "diagnose/doctorprobe.h"
#include "diagnose/lockdoctor.h"

#include <QObject>

#include <functional>

class QTimer;

namespace lockscope
{

/**
 * The doctor's loop, one component for every place that diagnoses, so
 * they cannot drift apart: LockSession (the
 * dashboard, `serve`, `doctor --observe-ms`), the CLI's one-pass doctor and a replay. It owns a
 * LockDoctor and its timer, is fed with observe() (the watcher's batches), asks the probe
 * (DoctorProbe through LockSession::probeForDoctor: orphaned waiters, unlock latches) and
 * diagnoses over the locks `locks()` returns at the time `clock()` says.
 *
 * Periodic (start()): findingsUpdated() every kIntervalMs (2 s) of wall time; the probe on the
 * first tick and every kProbeEveryTicks-th after it (20 s), its result absorbed when it arrives.
 * Once (diagnoseAfter()): probe, wait, probe again, report. Without a probe (a replay: nothing
 * asks Redis) only the snapshot and history rules run.
 */
class DoctorLoop : public QObject
{
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 2000;
    static constexpr int kProbeEveryTicks = 10;

    using Locks = std::function<QHash<QString, LockSnapshot>()>;
    using ProbeDone = std::function<void(const DoctorProbe::Result &)>;
    /** Runs the probe and calls `done` with its result. A periodic tick lets it skip (not
     *  connected: no call); diagnoseAfter() waits for the call. */
    using Probe = std::function<void(ProbeDone done)>;
    using Report = std::function<void(const QVector<LockFinding> &findings, const DoctorProbe::Result &probe)>;

    /** `locks`: the current snapshots (e.g. LockWatcher::locks()), read at each diagnosis. */
    explicit DoctorLoop(Locks locks, QObject *parent = nullptr);
    ~DoctorLoop() override;

    void setProbe(Probe probe) { m_probe = std::move(probe); }
    /** The monotonic clock of the rules, ms (default LockSnapshot::steadyNowMs; a replay: its clock). */
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }
    /** The rules' settings (thresholds, the command connection of the suggested commands). */
    LockDoctor &doctor() { return m_doctor; }

    /** A batch of the watcher: snapshots read, locks gone (removals applied first). */
    void observe(const QVector<LockSnapshot> &changed, const QStringList &removed);
    /** A batch of events (after the observe() of the same read): the lease-safety rules
     *  (LeaseTracker::process) record them and return the batch as it should be shown, with
     *  lease_lost, lost_in_failover, renewal_late and holder_returned where they apply. */
    QVector<LockEvent> observeEvents(const QVector<LockEvent> &events);
    /** A probe's result: orphaned waiters (timed from now) and latches (replacing the last ones). */
    void absorb(const DoctorProbe::Result &result);
    /** Every finding now (LockDoctor::diagnose over locks() at clock()). */
    QVector<LockFinding> diagnose() const;
    /** Forgets every lock's history (a replay after a seek); settings kept. */
    void reset();

    /** Starts the periodic loop (again from its first tick, which probes). */
    void start();
    void stop();
    bool isActive() const;

    /** Once: probes (the clock of "waiting without a holder since" starts), waits `observeMs`
     *  (0: not at all, one probe), probes again and reports the findings with that probe's result. */
    void diagnoseAfter(qint64 observeMs, Report report);

signals:
    /** The findings of a periodic tick. */
    void findingsUpdated(const QVector<LockFinding> &findings);

private:
    void tick();

    Locks m_locks;
    Probe m_probe;
    std::function<qint64()> m_clock;
    LockDoctor m_doctor;
    QTimer *m_timer = nullptr;
    int m_ticks = 0;
};

} // namespace lockscope
