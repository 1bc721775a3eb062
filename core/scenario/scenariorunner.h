#pragma once

#include "scenario.h"
#include "stageclock.h"
#include "stageleasewatch.h"
#include "stepreport.h"
#include "workshopactions.h"

#include "endpoint/redisendpoint.h"
#include "redis/redisscript.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QVector>

#include <functional>
#include <memory>

namespace lockscope
{

class RedisConnection;
class WorkshopCast;

/**
 * Runs a workshop Scenario on a private redis-server (the caller starts it, e.g. with
 * RedisServerProcess, and passes its endpoint; the runner FLUSHALLs it first) with LockScope's
 * own Redisson-compatible clients: per actor one LockClient (its client id, a RedisConnection and
 * a RedisSubscriber) with a FairLock, ReadWriteLock and FencedLock on it.
 *
 * Strictly one action in flight: step N+1 sends its first command only after step N's last reply
 * arrived (the keys after it, the unlock message it published and who received it). Each step is
 * one attempt of the Redisson call, as one loop iteration of the client: `lock` is one run of the
 * acquire script (refused = the client subscribes to the unlock channel, as lock() does before it
 * waits), `fairLock` one run of the fair acquire script (enqueueing the caller, §3.2), `tryLock`
 * the whole waiting call (waitTime in ms). Leases are always explicit (a lock() without lease
 * takes the actor's watchdogTimeoutMs): the watchdog's renewals are `renew` steps, so nothing
 * touches Redis between steps.
 *
 * Each action is one record of the WorkshopActions table (its call text, how it runs, the script
 * branch it reports, the message it publishes, the channel a refused caller waits on), so the
 * runner itself knows no action by name; the actors' clients are a WorkshopCast and the
 * expectations are checked by StepExpectations.
 *
 * For every step a StepReport gives the actor, the call in Redisson terms, the script branch
 * (derived from the keys before/after and the reply), the keys before/after (workshop_dump.lua,
 * read on the actor's own connection, so the fire-and-forget latch DEL of an unlock is already
 * applied), the published unlock message and which actors' subscribers received it (waited for
 * up to 1 s), the narration and the checks of the step's expectations.
 *
 * Transport and server errors do not stop the run: the step reports `error` and fails.
 *
 * Stage clock: between two steps time on the private server(s) stands still
 * (StageClock): each key's TTL and each fair waiter's time to its deadline are held where the
 * step left them, however long the teacher talks, so a scenario's expectations hold at any pace.
 * Time runs only inside a step (a `pause`, an `expireWait`, a `tryLock`'s wait, and the few ms any
 * step takes), or between steps when setTimeRuns(true) ("Let time run"). The simulated clients
 * take explicit leases (see above), so no watchdog timer of theirs runs in a pause.
 *
 * Step back: before each step the runner keeps a checkpoint: every key of the
 * server(s) (DUMP payload, TTL left, waiters' time left) and its own client state (the steps
 * done, the reports, each actor's subscriptions as a waiting client, fencing token and leases).
 * rewindTo() puts all of it back; the steps then go on in any order.
 *
 * Ownership: the runner owns its cast (the actors' clients and connections) and its stage clock
 * outright and destroys them first, so no reply, timer or subscription of theirs can reach a
 * runner whose members are gone; the checkpoints are plain values (no pointer into an actor or a
 * connection). Deleting a runner at any moment, a step or a rewind in flight, is safe: what was
 * in flight is dropped, nothing of it is reported.
 */
class ScenarioRunner : public QObject
{
    Q_OBJECT
public:
    ScenarioRunner(const Scenario &scenario, const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~ScenarioRunner() override;

    const Scenario &scenario() const { return m_scenario; }

    /** Connects every client and empties the server(s) now rather than at the first step:
     *  prepared() when done, failed() when not. A next() meanwhile starts once connected. */
    void prepare();
    bool isPrepared() const { return m_started; }

    /** Runs the next step (connecting first if needed). Returns false, doing nothing, while a step
     *  is in flight or when every step has run. */
    bool next();
    /** Runs every remaining step, one after another; finished() at the end. */
    void run();

    bool isBusy() const { return m_busy; }
    bool atEnd() const { return firstPending() < 0; }
    /**
     * "You are the scheduler": runs the next step of `actorName` that has not run yet (steps
     * without an actor, such as pauses, run when `actorName` is empty), skipping ahead of other
     * actors' steps. Steps still run strictly one at a time. The scenario's expectations were
     * written for its own order, so another order may (instructively) break them. False, doing
     * nothing, while a step is in flight or when that actor has no step left.
     */
    bool nextFor(const QString &actorName);
    /** Actors (by name; "" for actor-less steps) that still have a step to run, in the order of
     *  their next step. */
    QStringList pendingActors() const;
    /** Index of the step next() would run, -1 at the end. */
    int firstPending() const;
    const QVector<StepReport> &reports() const { return m_reports; }
    /** True when every step run so far held its expectations. */
    bool allExpectationsHeld() const;
    /** Client id -> actor name (for StepReport::toText). Empty before connecting. */
    QHash<QString, QString> actorOfClientId() const;

    /** "Let time run": false (default) holds time between steps (see the class comment); true
     *  lets TTLs and deadlines run down in real time between steps, as in production. Switching
     *  it between steps takes effect at once. */
    void setTimeRuns(bool runs);
    bool timeRuns() const { return m_timeRuns; }
    /** True while time stands still on the server(s): between steps, with time not let run. */
    /** Stage time run so far (ms): the actions' time and, while time runs, the time between
     *  steps; back to a checkpoint's on a step back. Updated as each step ends. */
    qint64 stageMs() const { return m_stageMs; }
    /** The wall time stage time 0 is shown as (epoch ms; StageLeaseWatch::epochBaseMs()). */
    qint64 stageEpochZeroMs() const { return m_leaseWatch.epochBaseMs(); }
    bool isTimeHeld() const { return m_stageClock && m_stageClock->isHolding(); }
    /** run(): wall time (ms) between one step's end and the next one's start, as a teacher
     *  talking; 0 (default) = none. The clock stands still meanwhile unless time runs. */
    void setPaceMs(int ms) { m_paceMs = qMax(0, ms); }

    /** Steps that can be gone back to (0-based indexes): those run so far, in this timeline. */
    QList<int> rewindableSteps() const;
    /**
     * Goes back to just before step `index` ran (its latest run): the server(s) get back every key
     * as it was then (FLUSH + RESTORE of the DUMP payloads, TTLs and waiters' deadlines as held),
     * the actors their subscriptions (UNSUBSCRIBE/SUBSCRIBE until PUBSUB NUMSUB agrees), fencing
     * tokens and leases; the reports of that step and later ones are dropped. Asynchronous:
     * RedLock servers stopped since start again on their address (RedLockStage::restartServer)
     * and get their keys back too. Asynchronous: rewound(index) when done; fails to start (false,
     * with `*error`) while a step runs, for a step not run, or when a stopped server does not
     * come up again.
     */
    bool rewindTo(int index, QString *error = nullptr);
    /** True for replication scenarios (a `replicate` step): they cannot step back (rewindTo()
     *  refuses, rewindableSteps() is empty). */
    bool replicates() const;
    /** rewindTo() the step run last. */
    bool stepBack(QString *error = nullptr);
    /** The server ("host:port") whose locks LockScope's views should watch now: the current master
     *  of a replication scenario (stage server 1, then the replica a `failover` step promoted),
     *  else the main server. watchedServerChanged() says when it changes. */
    QString watchedAddress() const;

signals:
    /** Step `index` begins (emitted from next()/nextFor() themselves): nothing of it has reached
     *  the server yet. */
    void stepStarting(int index);
    void stepFinished(const lockscope::StepReport &report);
    /** After prepare(): every client is connected and the server is empty. */
    void prepared();
    /** The server to watch (watchedAddress()) is now `address`: at prepared() (`failover`
     *  false) and when a `failover` step promoted a replica (true), as Sentinel would say. */
    void watchedServerChanged(const QString &address, bool failover);
    /** After the last step. */
    void finished(bool allExpectationsHeld);
    /** The sandbox could not be reached (no step can run). */
    void failed(const QString &error);
    /** After rewindTo(`index`): the server and the runner are as before that step; reports()
     *  are those of the steps before it. `error` is empty unless a server refused the restore. */
    void rewound(int index, const QString &error);
    /** Time on the server(s) began (true) or stopped (false) standing still. */
    void timeHeldChanged(bool held);
    /** A held clock was put back on the server(s) (every StageClock::kReapplyMs). */
    void timeReapplied();

private:
    /** The picture taken before a step (for rewindTo). */
    struct Checkpoint {
        StageClock::Reading servers;
        QVector<bool> done;
        int reports = 0;
        QVector<bool> stopped;                      ///< RedLock servers stopped then
        QHash<QString, QSet<QByteArray>> waitingOn; ///< actor -> channels
        QHash<QString, qint64> lastToken;           ///< actor -> fencing token
        QHash<QString, qint64> leases;              ///< "actor\nlock\nfield" -> unlock lease ms
        StageLeaseWatch leaseWatch;                 ///< LockScope's verdicts so far
        qint64 stageMs = 0;
        int primary = -1;
    };
    /** Marks step `index` in flight and begins it (connecting first on the first step). */
    void startStep(int index);
    void connectAll(std::function<void()> then);
    void beginStep();
    void runStep();
    /** After a step (or a rewind): hold the clock (unless time runs), then `then`. */
    void holdThen(std::function<void()> then);
    Checkpoint checkpoint(const StageClock::Reading &servers) const;
    void restoreClients(const Checkpoint &cp, std::function<void()> then);
    QVector<RedisConnection *> clockServers() const;
    /** What the step's action sees (WorkshopAction's functions). */
    ActionContext contextOf(const Scenario::Step &step);
    /** After the action answered (at `actionEndUs` on m_clock, -1 = not run): keys after, lease
     *  watch, then settle(). */
    void afterAction(const Scenario::Step &step, const StepOutcome &outcome, qint64 actionEndUs = -1);
    void settle(const Scenario::Step &step, const StepOutcome &outcome);
    void finishStep(const Scenario::Step &step, const StepOutcome &outcome);
    void dump(RedisConnection *connection, std::function<void(const StepReport::Keys &, const QString &)> then);
    qint64 leaseOf(const Scenario::Step &step) const;
    /** The key that holds lock `lock` on the server LockScope watches (the main one, or the
     *  current master of a replication scenario). */
    QString watchedKey(const QString &lock) const;

    Scenario m_scenario;
    RedisScript m_dump;
    QVector<StepReport> m_reports;
    StepReport m_current;
    QElapsedTimer m_clock;
    QVector<QPair<QString, QByteArray>> m_received; ///< (actor, channel) messages during the step
    int m_nextIndex = 0;                            ///< the step in flight (or the last one started)
    QVector<bool> m_done;                           ///< per step: it has run
    bool m_started = false;
    bool m_connecting = false;
    bool m_busy = false;
    bool m_running = false;
    bool m_failed = false;
    bool m_timeRuns = false;
    int m_paceMs = 0;
    QHash<int, Checkpoint> m_checkpoints; ///< step index -> before its latest run
    // Lease-safety verdicts (StepReport::events) on the stage clock: time runs on the stage during
    // a step (between its two dumps) and between steps only when time is let run.
    StageLeaseWatch m_leaseWatch;
    qint64 m_stageMs = 0;      ///< stage time run so far (ms)
    qint64 m_beforeUs = -1;    ///< the current step's keys-before read arrived (steady µs)
    qint64 m_lastAfterUs = -1; ///< the last step's keys-after read arrived
    int m_primary = -1;        ///< the stage server LockScope watches as the master, -1 = the main server
    // Declared last, destroyed first (see the ownership note above): everything that can call
    // back into the runner goes while all of the runner is still there.
    std::unique_ptr<WorkshopCast> m_cast; ///< the actors' clients, the runner's connection, the RedLock servers
    std::unique_ptr<StageClock> m_stageClock;
};

} // namespace lockscope
