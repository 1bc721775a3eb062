#pragma once

#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"

#include <QMutex>
#include <QVector>

namespace lockscope
{

/**
 * The workshop's stage clock, for the observation engine: time that stands still while the
 * teacher talks between two steps and goes back when a step is undone. LockSession maps every
 * snapshot and event it hands on through it (setStageTime), so the lease-safety rules, the event
 * log, the charts and the countdowns of the workshop's lock views all run on the clock of the
 * stage (ScenarioRunner's stage ms, shown as epochZeroMs + stage ms), the same clock the stage's
 * own verdicts (StageLeaseWatch) use: paused time is neither silence nor a late renewal.
 *
 * Stage time is counted from real steady time (LockSnapshot::steadyNowMs) in segments: from
 * each sync() on it runs with real time or stands still. Mapped steady times are
 * kSteadyZeroMs + stage ms (never 0, which the rules take for "never"); epoch times
 * epochZeroMs + stage ms. Server-clock fields of a snapshot (server time, fair waiters' deadlines,
 * timeout set scores, multilock expiries) are shifted by the same amount, so every time left
 * stays what Redis said.
 *
 * Thread-safe: the workshop window syncs it on the GUI thread, the session maps on redis-io.
 */
class StageTime
{
public:
    static constexpr qint64 kSteadyZeroMs = 1000000;

    /** Stage time 0 at real steady `realSteadyMs`, shown as `epochZeroMs`; standing still. */
    void restart(qint64 epochZeroMs, qint64 realSteadyMs);
    /** From real steady `realSteadyMs` on, stage time is `stageMs` (or, unless `back`, the stage
     *  time reached, when that is later: times already handed out never go back by the
     *  milliseconds two counts differ) and runs (`running`) or stands still. `back`: a step undone
     *  takes the time back to its checkpoint's. */
    void sync(qint64 stageMs, bool running, qint64 realSteadyMs, bool back = false);
    /** Running or standing still from now on, at the stage time reached now. */
    void setRunning(bool running, qint64 realSteadyMs);

    /** Stage ms at real steady `realSteadyMs` (a time before the first sync: the first sync's). */
    qint64 stageMs(qint64 realSteadyMs) const;
    /** kSteadyZeroMs + stageMs(): the engine's monotonic clock on the stage. */
    qint64 steadyMs(qint64 realSteadyMs) const { return kSteadyZeroMs + stageMs(realSteadyMs); }
    /** epochZeroMs + stageMs(): the wall time shown for real steady `realSteadyMs`. */
    qint64 epochMs(qint64 realSteadyMs) const;

    /** `s` with its read time (readAtSteadyMs) on the stage clock and every server-clock field
     *  shifted by as much as the read time's wall clock. */
    LockSnapshot mapped(LockSnapshot s) const;
    /** `e` (stamped with the wall clock at about `realSteadyNowMs`) on the stage clock: timeMs,
     *  and read_steady_ms, read_server_ms and deadline_epoch_ms in its extra. */
    LockEvent mapped(LockEvent e, qint64 realSteadyNowMs) const;

private:
    struct Segment {
        qint64 realSteadyMs = 0;
        qint64 stageMs = 0;
        bool running = false;
    };
    qint64 stageMsLocked(qint64 realSteadyMs) const;
    /** Real wall ms minus stage epoch ms at real steady `realSteadyMs`. */
    qint64 epochShiftLocked(qint64 realSteadyMs) const;

    mutable QMutex m_mutex;
    qint64 m_epochZeroMs = 0;
    /** The last syncs, oldest first (a few: reads arrive within milliseconds of their time). */
    QVector<Segment> m_segments;
};

} // namespace lockscope
