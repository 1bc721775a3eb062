#pragma once

#include "scenario.h"
#include "stepreport.h"

#include "redis/redisendpoint.h"
#include "redis/redisscript.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QVector>

#include <functional>

namespace lockscope {

class FairLock;
class FencedLock;
class LockClient;
class ReadWriteLock;
class RedLockStage;
class RedisConnection;
class RedisSubscriber;

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
 * For every step a StepReport gives the actor, the call in Redisson terms, the script branch
 * (derived from the keys before/after and the reply), the keys before/after (workshop_dump.lua,
 * read on the actor's own connection, so the fire-and-forget latch DEL of an unlock is already
 * applied), the published unlock message and which actors' subscribers received it (waited for
 * up to 1 s), the narration and the checks of the step's expectations.
 *
 * Transport and server errors do not stop the run: the step reports `error` and fails.
 */
class ScenarioRunner : public QObject
{
    Q_OBJECT
public:
    ScenarioRunner(const Scenario &scenario, const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~ScenarioRunner() override;

    const Scenario &scenario() const { return m_scenario; }

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

signals:
    void stepFinished(const lockscope::StepReport &report);
    /** After the last step. */
    void finished(bool allExpectationsHeld);
    /** The sandbox could not be reached (no step can run). */
    void failed(const QString &error);

private:
    struct ActorRuntime
    {
        Scenario::Actor def;
        QString clientId;
        RedisConnection *connection = nullptr;
        RedisSubscriber *subscriber = nullptr;
        LockClient *client = nullptr;
        FairLock *fair = nullptr;
        ReadWriteLock *rw = nullptr;
        FencedLock *fenced = nullptr;
        qint64 lastToken = -1;
        QSet<QByteArray> waitingOn; ///< channels subscribed as a waiting Redisson client would
    };
    /** What the action itself answered. */
    struct Outcome
    {
        QString result;
        QString reply;
        QString error;
        qint64 pttlMs = -2;
        qint64 token = -1;
        qint64 waitedMs = 0;
        QStringList findings;
        bool deadlock = false;
        int granted = -1;      ///< redlock: components granted
        QString components;    ///< redlock: each server's outcome, as text
    };
    using Done = std::function<void(const Outcome &)>;
    using Poll = std::function<void(std::function<void(bool)> answer)>;

    /** Marks step `index` in flight and begins it (connecting first on the first step). */
    void startStep(int index);
    void connectAll(std::function<void()> then);
    void beginStep();
    void act(const Scenario::Step &step, Done done);
    void afterAction(const Scenario::Step &step, const Outcome &outcome);
    void settle(const Scenario::Step &step, const Outcome &outcome);
    void finishStep(const Scenario::Step &step, const Outcome &outcome);
    void dump(RedisConnection *connection, std::function<void(const StepReport::Keys &, const QString &)> then);
    void poll(Poll probe, int timeoutMs, std::function<void(bool)> done);
    QString branchOf(const Scenario::Step &step, const Outcome &outcome) const;
    QString callOf(const Scenario::Step &step) const;
    void check(const Scenario::Step &step, const Outcome &outcome);
    /** Actor name of a holder field "<clientId>:<threadId>[:write]", or the field itself. */
    QString actorOfField(const QString &field) const;
    qint64 leaseOf(const Scenario::Step &step) const;
    ActorRuntime *actor(const QString &name);
    RedisConnection *connectionOf(const Scenario::Step &step) const;

    Scenario m_scenario;
    RedisEndpoint m_endpoint;
    RedisConnection *m_control = nullptr;
    RedLockStage *m_stage = nullptr; ///< the independent servers of redlock steps (Scenario::servers)
    QVector<ActorRuntime> m_actors;
    RedisScript m_dump;
    RedisScript m_fairAcquire;
    RedisScript m_fencedWrite;
    QVector<StepReport> m_reports;
    StepReport m_current;
    QElapsedTimer m_clock;
    QVector<QPair<QString, QByteArray>> m_received; ///< (actor, channel) messages during the step
    int m_nextIndex = 0;       ///< the step in flight (or the last one started)
    QVector<bool> m_done;      ///< per step: it has run
    bool m_started = false;
    bool m_connecting = false;
    bool m_busy = false;
    bool m_running = false;
    bool m_failed = false;
};

} // namespace lockscope
