#pragma once

#include "scenario.h"
#include "stepreport.h"

#include "protocol/acquireplan.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>

class QObject;

namespace lockscope
{

class LockClient;
class LockVariant;
class RedLockStage;
class RedisConnection;
class RedisSubscriber;

/** One simulated Redisson client of a running scenario (WorkshopCast): its client id, its own
 *  connection and subscriber, its LockClient, and one LockVariant per lock kind on it. */
struct WorkshopActor {
    Scenario::Actor def;
    QString clientId;
    RedisConnection *connection = nullptr;
    RedisSubscriber *subscriber = nullptr;
    LockClient *client = nullptr;
    /** Its lock of each kind (LockVariantFactory::kinds()), all on `client`. */
    QMap<AcquireKind, LockVariant *> locks;
    qint64 lastToken = -1;      ///< the fencing token of its latest fenced acquire, -1 = none
    QSet<QByteArray> waitingOn; ///< channels subscribed as a waiting Redisson client would
    /** The holder field "<clientId>:<threadId>" of its thread. */
    QString holderField() const;
    /** Its lock of `kind`; nullptr before WorkshopCast::connectAll() made them. */
    LockVariant *lock(AcquireKind kind) const { return locks.value(kind); }
};

/** What a workshop action answered (WorkshopAction::run). Times in ms. */
struct StepOutcome {
    QString result; ///< acquired, refused, queued, released, ... (StepReport::result)
    QString reply;  ///< the raw reply as text
    QString error;  ///< transport or server error; the step then fails
    qint64 pttlMs = -2;
    qint64 token = -1;
    qint64 waitedMs = 0; ///< the step's duration (filled in by the runner)
    QStringList findings;
    bool deadlock = false;
    int granted = -1;               ///< redlock: components granted
    QString components;             ///< redlock: each server's outcome, as text
    QList<QByteArray> unsubscribed; ///< channels the action made the actor drop
    QString failover;               ///< failover: a replica became the master (what happened, in words)
};

/** What an action's functions see of the running scenario (built by ScenarioRunner per step). */
struct ActionContext {
    using Probe = std::function<void(std::function<void(bool)> answer)>;

    const Scenario *scenario = nullptr;
    const Scenario::Step *step = nullptr;
    WorkshopActor *actor = nullptr;        ///< nullptr for actor-less steps (pause, doctor, stopServer)
    QString field;                         ///< the actor's holder field, empty without actor
    qint64 leaseMs = 0;                    ///< the step's lease, or the actor's lockWatchdogTimeout
    RedisConnection *connection = nullptr; ///< the actor's connection, or the runner's own
    RedLockStage *stage = nullptr;         ///< RedLock servers, nullptr when the scenario has none
    QObject *receiver = nullptr;           ///< context object of every callback
    const StepReport *report = nullptr;    ///< the step so far: keys before (and after, for branch())
    /** Asks `probe` every 20 ms until it answers true or `timeoutMs` passed, then `done(ok)`. */
    std::function<void(Probe probe, int timeoutMs, std::function<void(bool)> done)> poll;
};

/**
 * One workshop action (Scenario step "action"): everything the scenario parser and the runner
 * know of it, in one record. Adding an action is one record in workshopactions.cpp.
 */
struct WorkshopAction {
    using Done = std::function<void(const StepOutcome &)>;

    QString name;
    bool needsActor = true; ///< false: the step may have no "actor" (pause, doctor, stopServer)
    bool needsLock = true;  ///< false: no lock name needed
    bool usesLock = true;   ///< its lock is one of Scenario::lockNames() (a pause's default lock is not)
    /** Parse-time requirements beyond the common ones ("" = fine), e.g. tryLock's waitMs. */
    std::function<QString(const Scenario::Step &, const Scenario &)> validate;
    /** The call in Redisson terms, e.g. "RLock.unlock() on \"orders\"". */
    std::function<QString(const ActionContext &)> call;
    /** Performs it; `done` exactly once. */
    std::function<void(const ActionContext &, Done done)> run;
    /** After the keys after it were read: corrects the outcome by them (fairLock: queued only
     *  when in the queue). May be empty. */
    std::function<void(const ActionContext &, StepOutcome &)> refine;
    /** The unlock message the script published, as (channel, payload); empty channel = none.
     *  May be empty (never publishes). */
    std::function<QPair<QString, QString>(const ActionContext &, const StepOutcome &)> message;
    /** Which branch of the script ran and why, from the keys before/after and the outcome. */
    std::function<QString(const ActionContext &, const StepOutcome &)> branch;
    /** The channel a refused caller subscribes to before it waits (and drops once it acquires);
     *  may be empty (no subscription). */
    std::function<QByteArray(const ActionContext &)> waitChannel;
    bool subscribesWhenRefused = true; ///< false: the call waited itself (tryLock), nothing stays subscribed
    bool reportsToken = false;         ///< StepReport::token is the outcome's (fenced lock and write)
    QString holderSuffix;              ///< holdCount expectation: the field's suffix (":write")
};

/** The table of every workshop action, in the order Scenario::actions() lists them.
 *  workshopactions.cpp is longer than 500 lines on purpose: it is the table (about 20 records,
 *  a few short functions each), so that adding an action touches that one file. *
 * Why workshopactions.cpp is long: it is one table (makeTable(), read by all()) with an entry per
 * action of the scenario language, each its run, expectation and branch text, so that a scenario
 * author finds every action, what it sends and what the stage says of it in one place.
 */
class WorkshopActions
{
public:
    static const QVector<WorkshopAction> &all();
    /** The action named `name`, nullptr when there is none. */
    static const WorkshopAction *find(const QString &name);
    static QStringList names();
};

} // namespace lockscope
