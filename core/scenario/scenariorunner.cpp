#include "scenariorunner.h"

#include "redlockstage.h"
#include "stepexpectations.h"
#include "workshopcast.h"

#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"

#include <QTimer>

#include <algorithm>

namespace lockscope
{

ScenarioRunner::ScenarioRunner(const Scenario &scenario, const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent), m_scenario(scenario), m_dump(RedisScript::fromResource(QStringLiteral("workshop_dump"))),
      m_cast(std::make_unique<WorkshopCast>(scenario, endpoint)), m_stageClock(std::make_unique<StageClock>())
{
    m_clock.start();
    // Replication scenarios write their locks on stage server 1, the master, until a failover.
    for (const Scenario::Step &st : m_scenario.steps)
        if (st.action == QLatin1String("replicate"))
            m_primary = 0;
    m_stageClock->setServers([this] { return clockServers(); });
    connect(m_stageClock.get(), &StageClock::holdingChanged, this, &ScenarioRunner::timeHeldChanged);
    connect(m_stageClock.get(), &StageClock::applied, this, &ScenarioRunner::timeReapplied);
    connect(m_cast.get(), &WorkshopCast::received, this, [this](const QString &actor, const QByteArray &channel) {
        m_received.append({actor, channel});
    });
}

ScenarioRunner::~ScenarioRunner()
{
    // The clock first (its timer and provider use the cast), then the cast; the callbacks they
    // still hold (replies, polls, the rewind's closures with their checkpoint copies) are
    // dropped unrun while every member of the runner is still alive.
    m_stageClock.reset();
    m_cast.reset();
}

QHash<QString, QString> ScenarioRunner::actorOfClientId() const
{
    return m_cast->actorOfClientId();
}

QVector<RedisConnection *> ScenarioRunner::clockServers() const
{
    QVector<RedisConnection *> servers{m_cast->control()};
    if (m_cast->stage())
        for (int i = 0; i < m_cast->stage()->count(); ++i)
            // A replica refuses the clock's writes (and a paused one would hold them): skipped.
            servers << (m_cast->stage()->replicaOf(i) >= 0 ? nullptr : m_cast->stage()->reader(i));
    return servers;
}

void ScenarioRunner::setTimeRuns(bool runs)
{
    if (runs == m_timeRuns)
        return;
    m_timeRuns = runs;
    if (m_busy || !m_started || m_failed)
        return; // a step in flight: its end holds the clock or not
    if (runs)
        m_stageClock->release(nullptr);
    else
        holdThen([] {});
}

void ScenarioRunner::holdThen(std::function<void()> then)
{
    if (m_timeRuns || m_failed) {
        then();
        return;
    }
    m_stageClock->read(false, [this, then](const StageClock::Reading &reading) {
        m_stageClock->hold(reading);
        then();
    });
}

ScenarioRunner::Checkpoint ScenarioRunner::checkpoint(const StageClock::Reading &servers) const
{
    Checkpoint cp;
    cp.servers = servers;
    cp.done = m_done;
    cp.reports = int(m_reports.size());
    cp.leaseWatch = m_leaseWatch;
    cp.stageMs = m_stageMs;
    cp.primary = m_primary;
    if (m_cast->stage())
        for (int i = 0; i < m_cast->stage()->count(); ++i)
            cp.stopped << m_cast->stage()->isStopped(i);
    for (const WorkshopActor &a : m_cast->actors()) {
        cp.waitingOn.insert(a.def.name, a.waitingOn);
        cp.lastToken.insert(a.def.name, a.lastToken);
        const QString field = a.holderField();
        for (const QString &lock : m_scenario.lockNames())
            for (const QString &f : {field, field + QStringLiteral(":write")})
                cp.leases.insert(a.def.name + QLatin1Char('\n') + lock + QLatin1Char('\n') + f,
                                 a.client->unlockLeaseMs(lock, f));
    }
    return cp;
}

bool ScenarioRunner::replicates() const
{
    return std::any_of(m_scenario.steps.cbegin(), m_scenario.steps.cend(),
                       [](const Scenario::Step &st) { return st.action == QLatin1String("replicate"); });
}

QList<int> ScenarioRunner::rewindableSteps() const
{
    QList<int> out;
    if (replicates())
        return out;
    for (auto it = m_checkpoints.cbegin(); it != m_checkpoints.cend(); ++it)
        if (it->reports < m_reports.size())
            out << it.key();
    std::sort(out.begin(), out.end());
    return out;
}

bool ScenarioRunner::stepBack(QString *error)
{
    if (m_reports.isEmpty()) {
        if (error)
            *error = tr("no step has run yet");
        return false;
    }
    return rewindTo(m_reports.last().index, error);
}

bool ScenarioRunner::rewindTo(int index, QString *error)
{
    auto refuse = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (m_busy)
        return refuse(tr("a step is running: go back when it has finished"));
    if (replicates())
        return refuse(tr("this scenario cannot step back: a replica's link, its paused stream and a killed master "
                         "cannot be put back as they were; restart the scenario instead"));
    const auto it = m_checkpoints.constFind(index);
    if (it == m_checkpoints.cend() || it->reports >= m_reports.size())
        return refuse(tr("step %1 has not run: there is nothing to go back to").arg(index + 1));
    const Checkpoint cp = *it;
    // RedLock servers stopped since come back (empty; the restore below gives them their keys).
    for (int i = 0; m_cast->stage() && i < cp.stopped.size(); ++i) {
        QString why;
        if (cp.stopped.at(i))
            m_cast->stage()->stopServer(i);
        else if (!m_cast->stage()->restartServer(i, &why))
            return refuse(why);
    }
    m_busy = true;
    m_running = false;
    m_stageClock->release([this, cp, index] {
        m_stageClock->restore(cp.servers, [this, cp, index](const QString &restoreError) {
            for (auto c = m_checkpoints.begin(); c != m_checkpoints.end();)
                c = c->reports > cp.reports ? m_checkpoints.erase(c) : std::next(c);
            restoreClients(cp, [this, index, restoreError] {
                // restore() holds the clock at the checkpoint; let it run if the teacher said so.
                auto done = [this, index, restoreError] {
                    m_busy = false;
                    emit rewound(index, restoreError);
                };
                if (m_timeRuns)
                    m_stageClock->release(done);
                else
                    done();
            });
        });
    });
    return true;
}

void ScenarioRunner::restoreClients(const Checkpoint &cp, std::function<void()> then)
{
    m_done = cp.done;
    m_reports.resize(cp.reports);
    m_leaseWatch = cp.leaseWatch;
    m_stageMs = cp.stageMs;
    m_primary = cp.primary;
    m_lastAfterUs = -1;
    m_received.clear();
    QSet<QByteArray> changed;
    for (WorkshopActor &a : m_cast->actors()) {
        a.lastToken = cp.lastToken.value(a.def.name, -1);
        const QSet<QByteArray> want = cp.waitingOn.value(a.def.name);
        // Named sets, not `for (ch : QSet(x).subtract(y))`: subtract() returns a reference to the
        // temporary copy, which dies before the loop runs (a range-for keeps only the reference),
        // so the loop read freed memory and took references to its channel names. That corrupted
        // the heap after a step back (the crash in ~WorkshopActor on the next restart or switch).
        const QSet<QByteArray> drop = QSet<QByteArray>(a.waitingOn).subtract(want);
        const QSet<QByteArray> take = QSet<QByteArray>(want).subtract(a.waitingOn);
        for (const QByteArray &ch : drop) {
            a.client->releaseChannel(ch);
            changed.insert(ch);
        }
        for (const QByteArray &ch : take) {
            a.client->retainChannel(ch);
            changed.insert(ch);
        }
        a.waitingOn = want;
    }
    for (auto l = cp.leases.cbegin(); l != cp.leases.cend(); ++l) {
        const QStringList parts = l.key().split(QLatin1Char('\n'));
        if (WorkshopActor *a = parts.size() == 3 ? m_cast->actor(parts.at(0)) : nullptr)
            a->client->noteAcquired(parts.at(1), parts.at(2), l.value(), false);
    }
    m_cast->awaitSubscriptions(m_cast->control(), QList<QByteArray>(changed.cbegin(), changed.cend()), std::move(then));
}

bool ScenarioRunner::allExpectationsHeld() const
{
    if (m_failed)
        return false;
    for (const StepReport &r : m_reports)
        if (!r.ok)
            return false;
    return true;
}

qint64 ScenarioRunner::leaseOf(const Scenario::Step &step) const
{
    if (step.leaseMs > 0)
        return step.leaseMs;
    const Scenario::Actor *a = m_scenario.actor(step.actor);
    return a ? a->watchdogTimeoutMs : LockClient::kDefaultWatchdogTimeoutMs;
}

QString ScenarioRunner::watchedAddress() const
{
    if (m_primary >= 0 && m_cast->stage())
        return m_cast->stage()->address(m_primary);
    return m_cast->endpoint().address();
}

QString ScenarioRunner::watchedKey(const QString &lock) const
{
    if (m_primary >= 0 && m_cast->stage())
        return m_cast->stage()->keyName(m_primary, lock);
    return lock;
}

int ScenarioRunner::firstPending() const
{
    for (int i = 0; i < m_scenario.steps.size(); ++i)
        if (i >= m_done.size() || !m_done.at(i))
            return i;
    return -1;
}

QStringList ScenarioRunner::pendingActors() const
{
    QStringList out;
    for (int i = 0; i < m_scenario.steps.size(); ++i)
        if ((i >= m_done.size() || !m_done.at(i)) && !out.contains(m_scenario.steps.at(i).actor))
            out << m_scenario.steps.at(i).actor;
    return out;
}

bool ScenarioRunner::nextFor(const QString &actorName)
{
    if (m_busy || m_failed)
        return false;
    for (int i = 0; i < m_scenario.steps.size(); ++i) {
        if ((i < m_done.size() && m_done.at(i)) || m_scenario.steps.at(i).actor != actorName)
            continue;
        startStep(i);
        return true;
    }
    return false;
}

bool ScenarioRunner::next()
{
    if (m_busy || atEnd() || m_failed)
        return false;
    startStep(firstPending());
    return true;
}

void ScenarioRunner::prepare()
{
    if (m_started || m_connecting || m_failed)
        return;
    connectAll([this] {
        if (m_busy)
            beginStep(); // a step asked for meanwhile
    });
}

void ScenarioRunner::startStep(int index)
{
    m_nextIndex = index;
    m_busy = true;
    emit stepStarting(index);
    if (m_started)
        beginStep();
    else if (!m_connecting)
        connectAll([this] { beginStep(); }); // the first step connects every actor first
    // else: prepare()'s connecting; it begins the step when connected
}

void ScenarioRunner::run()
{
    m_running = true;
    if (!m_busy && !next() && !m_busy)
        emit finished(allExpectationsHeld());
}

void ScenarioRunner::connectAll(std::function<void()> then)
{
    m_connecting = true;
    m_cast->connectAll(
        [this, then] {
            m_connecting = false;
            m_started = true;
            emit prepared();
            emit watchedServerChanged(watchedAddress(), false);
            then();
        },
        [this](const QString &error) {
            m_connecting = false;
            m_failed = true;
            m_busy = false;
            emit failed(error);
        });
}

void ScenarioRunner::dump(RedisConnection *connection,
                          std::function<void(const StepReport::Keys &, const QString &)> then)
{
    m_dump.eval(connection, {}, {}, this, [this, then](const RedisReply &r) {
        const StepReport::Keys keys = StepReport::parseDump(r);
        const QString error = r.isError() ? r.errorMessage() : QString();
        if (!m_cast->stage() || m_scenario.lockNames().isEmpty()) {
            then(keys, error);
            return;
        }
        // RedLock scenarios: each independent server's copy of the lock too.
        m_cast->stage()->dump(m_scenario.lockNames().first(), [keys, error, then](const StepReport::Keys &servers) {
            StepReport::Keys all = keys;
            for (auto it = servers.cbegin(); it != servers.cend(); ++it)
                all.insert(it.key(), it.value());
            then(all, error);
        });
    });
}

void ScenarioRunner::beginStep()
{
    // The picture before the step is kept for rewindTo(). Time still stands while it is taken:
    // it runs again only for the action itself (runStep), so the runner's own reads and
    // bookkeeping never eat a lease or a waiter's deadline, however slow the machine is.
    m_stageClock->read(true, [this](const StageClock::Reading &reading) {
        m_checkpoints.insert(m_nextIndex, checkpoint(reading));
        runStep();
    });
}

ActionContext ScenarioRunner::contextOf(const Scenario::Step &step)
{
    ActionContext c;
    c.scenario = &m_scenario;
    c.step = &step;
    c.actor = m_cast->actor(step.actor);
    c.field = c.actor ? c.actor->holderField() : QString();
    c.leaseMs = leaseOf(step);
    c.connection = m_cast->connectionOf(step.actor);
    c.stage = m_cast->stage();
    c.receiver = this;
    c.report = &m_current;
    c.poll = [this](ActionContext::Probe probe, int timeoutMs, std::function<void(bool)> done) {
        m_cast->poll(std::move(probe), timeoutMs, std::move(done));
    };
    return c;
}

void ScenarioRunner::runStep()
{
    const Scenario::Step &step = m_scenario.steps.at(m_nextIndex);
    const WorkshopAction *action = WorkshopActions::find(step.action);
    m_current = StepReport();
    m_current.index = step.index;
    m_current.line = step.line;
    m_current.action = step.action;
    m_current.lock = step.lock;
    m_current.narration = step.narration;
    if (const WorkshopActor *a = m_cast->actor(step.actor)) {
        m_current.actor = a->def.name;
        m_current.clientId = a->clientId;
        m_current.threadId = a->def.threadId;
    }
    m_current.call = action ? action->call(contextOf(step)) : step.action;
    m_received.clear();
    m_current.startedUs = m_clock.nsecsElapsed() / 1000;
    dump(m_cast->connectionOf(step.actor), [this, step, action](const StepReport::Keys &keys, const QString &error) {
        m_current.before = keys;
        if (!error.isEmpty() || !action) {
            m_beforeUs = m_clock.nsecsElapsed() / 1000;
            StepOutcome o;
            o.result = QStringLiteral("error");
            o.error = !error.isEmpty() ? error : QStringLiteral("action \"%1\" is not implemented").arg(step.action);
            afterAction(step, o);
            return;
        }
        // Time runs for the action only, and stands again as soon as it has answered (before the
        // keys after it are read and the wake-ups settle).
        m_stageClock->release([this, step, action] {
            m_beforeUs = m_clock.nsecsElapsed() / 1000;
            if (m_timeRuns && m_lastAfterUs >= 0) // time ran on the stage since the last step
                m_stageMs += (m_beforeUs - m_lastAfterUs) / 1000;
            action->run(contextOf(step), [this, step](const StepOutcome &o) {
                const qint64 endUs = m_clock.nsecsElapsed() / 1000;
                holdThen([this, step, o, endUs] { afterAction(step, o, endUs); });
            });
        });
    });
}

void ScenarioRunner::afterAction(const Scenario::Step &step, const StepOutcome &outcome, qint64 actionEndUs)
{
    dump(m_cast->connectionOf(step.actor),
         [this, step, outcome, actionEndUs](const StepReport::Keys &keys, const QString &error) {
             m_current.after = keys;
             StepOutcome o = outcome;
             if (o.error.isEmpty() && !error.isEmpty())
                 o.error = error;
             const WorkshopAction *action = WorkshopActions::find(step.action);
             if (action && action->refine)
                 action->refine(contextOf(step), o);
             // Stage time ran from the release to the action's answer (to now when time is not held).
             const qint64 nowUs = m_clock.nsecsElapsed() / 1000;
             const qint64 ranUntilUs = m_timeRuns || actionEndUs < 0 ? nowUs : actionEndUs;
             m_stageMs += qMax<qint64>(0, ranUntilUs - m_beforeUs) / 1000;
             m_lastAfterUs = nowUs;
             if (!o.failover.isEmpty() && step.server > 0) {
                 m_primary = step.server - 1; // LockScope follows the new master, as it does after Sentinel
                 emit watchedServerChanged(watchedAddress(), true);
             }
             m_current.events = m_leaseWatch.observe(
                 keys, m_scenario.lockNames(), [this](const QString &lock) { return watchedKey(lock); }, m_stageMs,
                 o.failover);
             o.waitedMs = (m_clock.nsecsElapsed() / 1000 - m_current.startedUs) / 1000;
             settle(step, o);
         });
}

void ScenarioRunner::settle(const Scenario::Step &step, const StepOutcome &outcome)
{
    WorkshopActor *a = m_cast->actor(step.actor);
    const WorkshopAction *action = WorkshopActions::find(step.action);
    const ActionContext context = contextOf(step);

    // The unlock message the script published (derived from the branch that ran).
    if (action && action->message) {
        const QPair<QString, QString> m = action->message(context, outcome);
        if (!m.first.isEmpty()) {
            m_current.messageChannel = m.first;
            m_current.messagePayload = m.second;
        }
    }
    // After the message: the fair unlock branch names it.
    m_current.branch = !outcome.error.isEmpty() ? QStringLiteral("error: %1").arg(outcome.error)
                       : action                 ? action->branch(context, outcome)
                                                : QString();

    // Who should receive it: actors subscribed to that channel as waiting clients.
    QStringList expected;
    if (!m_current.messageChannel.isEmpty()) {
        const QByteArray ch = m_current.messageChannel.toUtf8();
        for (const WorkshopActor &other : std::as_const(m_cast->actors()))
            if (other.waitingOn.contains(ch))
                expected.append(other.def.name);
    }
    auto received = [this, expected] {
        for (const QString &n : expected) {
            bool got = false;
            for (const auto &m : std::as_const(m_received))
                got = got || m.first == n;
            if (!got)
                return false;
        }
        return true;
    };

    // Then the subscriptions a waiting Redisson client makes or drops after this attempt.
    const QByteArray channel = a && action && action->waitChannel ? action->waitChannel(context) : QByteArray();
    QList<QByteArray> changed = outcome.unsubscribed; // channels whose subscriptions this step made or dropped
    if (!channel.isEmpty()) {
        const bool waits = outcome.result == QLatin1String("refused") || outcome.result == QLatin1String("queued");
        if (waits && action->subscribesWhenRefused && !a->waitingOn.contains(channel)) {
            a->waitingOn.insert(channel);
            a->client->retainChannel(channel);
            changed.append(channel);
        } else if (outcome.result == QLatin1String("acquired") && a->waitingOn.contains(channel)) {
            a->waitingOn.remove(channel);
            a->client->releaseChannel(channel);
            changed.append(channel);
        }
    }
    m_cast->poll([received](std::function<void(bool)> answer) { answer(received()); }, WorkshopCast::kSettleTimeoutMs,
                 [this, step, outcome, changed, a](bool) {
                     // Wait until the server has applied the (un)subscriptions, so the next step's publish
                     // meets exactly the subscriptions this step made.
                     m_cast->awaitSubscriptions(a ? a->connection : m_cast->control(), changed,
                                                [this, step, outcome] { finishStep(step, outcome); });
                 });
}

void ScenarioRunner::finishStep(const Scenario::Step &step, const StepOutcome &outcome)
{
    m_current.finishedUs = m_clock.nsecsElapsed() / 1000;
    m_current.result = outcome.result;
    m_current.reply = outcome.reply;
    m_current.error = outcome.error;
    m_current.findings = outcome.findings;
    const WorkshopAction *action = WorkshopActions::find(step.action);
    if (m_cast->actor(step.actor) && action && action->reportsToken)
        m_current.token = outcome.token;
    QSet<QString> woke;
    for (const auto &m : std::as_const(m_received))
        woke.insert(m.first);
    m_current.woke = QStringList(woke.values());
    m_current.woke.sort();
    StepExpectations::check(step, outcome, *m_cast, &m_current);
    m_reports.append(m_current);
    if (m_done.size() < m_scenario.steps.size())
        m_done.resize(m_scenario.steps.size(), false);
    m_done[m_nextIndex] = true;
    holdThen([this] {
        m_busy = false;
        emit stepFinished(m_current);
        if (m_running) {
            if (atEnd()) {
                m_running = false;
                emit finished(allExpectationsHeld());
            } else {
                QTimer::singleShot(m_paceMs, Qt::PreciseTimer, this, [this] { // coarse timers fire up to 5 % early
                    if (m_running)
                        next();
                });
            }
        }
    });
}

} // namespace lockscope
