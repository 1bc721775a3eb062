#include "scenariorunner.h"

#include "redlockstage.h"

#include "diagnose/lockdoctor.h"
#include "lock/fairlock.h"
#include "lock/fencedlock.h"
#include "lock/lockclient.h"
#include "lock/readwritelock.h"
#include "protocol/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "redis/redissubscriber.h"
#include "watch/snapshotreader.h"

#include <QDateTime>
#include <QJsonArray>
#include <QPointer>
#include <QTimer>
#include <QUuid>

namespace lockscope
{

namespace
{

constexpr int kConnectTimeoutMs = 5000;
constexpr int kSettleTimeoutMs = 1000;
constexpr int kPollEveryMs = 20;

bool isLockAction(const QString &a)
{
    return a == QLatin1String("lock") || a == QLatin1String("fencedLock") || a == QLatin1String("tryLock");
}

QJsonObject hashOf(const StepReport::Keys &keys, const QString &name)
{
    const auto it = keys.constFind(name);
    if (it == keys.constEnd() || it->type != QLatin1String("hash"))
        return {};
    return it->value.toObject();
}

QStringList listOf(const StepReport::Keys &keys, const QString &name)
{
    QStringList l;
    for (const QJsonValue &v : keys.value(name).value.toArray())
        l.append(v.toString());
    return l;
}

qint64 pttlOf(const StepReport::Keys &keys, const QString &name)
{
    const auto it = keys.constFind(name);
    return it == keys.constEnd() ? -2 : it->pttlMs;
}

/** Holder fields of a lock hash (every field but "mode") -> hold count. */
QJsonObject holdersOf(const StepReport::Keys &keys, const QString &name)
{
    QJsonObject h = hashOf(keys, name);
    h.remove(QStringLiteral("mode"));
    return h;
}

QString fieldsText(const QJsonObject &holders)
{
    QStringList parts;
    for (auto it = holders.begin(); it != holders.end(); ++it)
        parts.append(QStringLiteral("%1 x%2").arg(it.key()).arg(qint64(it.value().toDouble())));
    return parts.isEmpty() ? QStringLiteral("nobody") : parts.join(QStringLiteral(", "));
}

QString unlockStatus(const UnlockResult &r)
{
    switch (r.status) {
    case UnlockResult::Status::Released:
        return QStringLiteral("released");
    case UnlockResult::Status::StillHeld:
        return QStringLiteral("still_held");
    case UnlockResult::Status::NotHeld:
        return QStringLiteral("not_held");
    case UnlockResult::Status::Error:
        break;
    }
    return QStringLiteral("error");
}

} // namespace

ScenarioRunner::ScenarioRunner(const Scenario &scenario, const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent), m_scenario(scenario), m_endpoint(endpoint),
      m_dump(RedisScript::fromResource(QStringLiteral("workshop_dump"))),
      m_fairAcquire(RedisScript::fromResource(QStringLiteral("fair_acquire"))),
      m_fencedWrite(RedisScript::fromResource(QStringLiteral("workshop_fenced_write"))),
      m_stageClock(new StageClock(this))
{
    m_clock.start();
    m_stageClock->setServers([this] { return clockServers(); });
    connect(m_stageClock, &StageClock::holdingChanged, this, &ScenarioRunner::timeHeldChanged);
    connect(m_stageClock, &StageClock::applied, this, &ScenarioRunner::timeReapplied);
}

QVector<RedisConnection *> ScenarioRunner::clockServers() const
{
    QVector<RedisConnection *> servers{m_control};
    if (m_stage)
        for (int i = 0; i < m_stage->count(); ++i)
            servers << m_stage->reader(i);
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
    if (m_stage)
        for (int i = 0; i < m_stage->count(); ++i)
            cp.stopped << m_stage->isStopped(i);
    for (const ActorRuntime &a : m_actors) {
        cp.waitingOn.insert(a.def.name, a.waitingOn);
        cp.lastToken.insert(a.def.name, a.lastToken);
        const QString field = a.client->holderField(a.def.threadId);
        for (const QString &lock : m_scenario.lockNames())
            for (const QString &f : {field, field + QStringLiteral(":write")})
                cp.leases.insert(a.def.name + QLatin1Char('\n') + lock + QLatin1Char('\n') + f,
                                 a.client->unlockLeaseMs(lock, f));
    }
    return cp;
}

QList<int> ScenarioRunner::rewindableSteps() const
{
    QList<int> out;
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
    const auto it = m_checkpoints.constFind(index);
    if (it == m_checkpoints.cend() || it->reports >= m_reports.size())
        return refuse(tr("step %1 has not run: there is nothing to go back to").arg(index + 1));
    const Checkpoint cp = *it;
    for (int i = 0; m_stage && i < cp.stopped.size(); ++i)
        if (!cp.stopped.at(i) && m_stage->isStopped(i))
            return refuse(tr("RedLock server %1 was stopped after step %2, and a stopped server cannot come back: "
                             "Restart the scenario instead")
                              .arg(i + 1)
                              .arg(index + 1));
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
    m_received.clear();
    QSet<QByteArray> changed;
    for (ActorRuntime &a : m_actors) {
        a.lastToken = cp.lastToken.value(a.def.name, -1);
        const QSet<QByteArray> want = cp.waitingOn.value(a.def.name);
        for (const QByteArray &ch : QSet<QByteArray>(a.waitingOn).subtract(want)) {
            a.client->releaseChannel(ch);
            changed.insert(ch);
        }
        for (const QByteArray &ch : QSet<QByteArray>(want).subtract(a.waitingOn)) {
            a.client->retainChannel(ch);
            changed.insert(ch);
        }
        a.waitingOn = want;
    }
    for (auto l = cp.leases.cbegin(); l != cp.leases.cend(); ++l) {
        const QStringList parts = l.key().split(QLatin1Char('\n'));
        if (ActorRuntime *a = parts.size() == 3 ? actor(parts.at(0)) : nullptr)
            a->client->noteAcquired(parts.at(1), parts.at(2), l.value(), false);
    }
    awaitSubscriptions(m_control, QList<QByteArray>(changed.cbegin(), changed.cend()), std::move(then));
}

void ScenarioRunner::awaitSubscriptions(RedisConnection *conn, const QList<QByteArray> &channels,
                                        std::function<void()> then)
{
    if (channels.isEmpty()) {
        then();
        return;
    }
    // channel -> how many actors now wait on it (their subscriber is subscribed).
    QList<QByteArray> numsub{"PUBSUB", "NUMSUB"};
    QVector<qint64> wanted;
    for (const QByteArray &ch : channels) {
        qint64 n = 0;
        for (const ActorRuntime &a : std::as_const(m_actors))
            n += a.waitingOn.contains(ch) ? 1 : 0;
        wanted.append(n);
        numsub.append(ch);
    }
    poll(
        [this, conn, numsub, wanted](std::function<void(bool)> answer) {
            conn->send(numsub, this, [answer, wanted](const RedisReply &r) {
                bool all = r.isArray() && r.size() == 2 * wanted.size();
                for (int i = 0; all && i < wanted.size(); ++i)
                    all = r.at(2 * i + 1).toInteger() == wanted.at(i);
                answer(all);
            });
        },
        kSettleTimeoutMs, [then](bool) { then(); });
}

ScenarioRunner::~ScenarioRunner() = default;

bool ScenarioRunner::allExpectationsHeld() const
{
    if (m_failed)
        return false;
    for (const StepReport &r : m_reports)
        if (!r.ok)
            return false;
    return true;
}

QHash<QString, QString> ScenarioRunner::actorOfClientId() const
{
    QHash<QString, QString> h;
    for (const ActorRuntime &a : m_actors)
        h.insert(a.clientId, a.def.name);
    return h;
}

ScenarioRunner::ActorRuntime *ScenarioRunner::actor(const QString &name)
{
    for (ActorRuntime &a : m_actors)
        if (a.def.name == name)
            return &a;
    return nullptr;
}

RedisConnection *ScenarioRunner::connectionOf(const Scenario::Step &step) const
{
    for (const ActorRuntime &a : m_actors)
        if (a.def.name == step.actor)
            return a.connection;
    return m_control;
}

QString ScenarioRunner::actorOfField(const QString &field) const
{
    QString f = field;
    if (f.endsWith(QLatin1String(":write")))
        f.chop(6);
    for (const ActorRuntime &a : m_actors)
        if (f == a.client->holderField(a.def.threadId))
            return a.def.name;
    return field;
}

qint64 ScenarioRunner::leaseOf(const Scenario::Step &step) const
{
    if (step.leaseMs > 0)
        return step.leaseMs;
    const Scenario::Actor *a = m_scenario.actor(step.actor);
    return a ? a->watchdogTimeoutMs : LockClient::kDefaultWatchdogTimeoutMs;
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

void ScenarioRunner::startStep(int index)
{
    m_nextIndex = index;
    m_busy = true;
    if (!m_started)
        connectAll([this] { beginStep(); }); // the first step connects every actor first
    else
        beginStep();
}

void ScenarioRunner::run()
{
    m_running = true;
    if (!m_busy && !next() && !m_busy)
        emit finished(allExpectationsHeld());
}

void ScenarioRunner::connectAll(std::function<void()> then)
{
    m_control = new RedisConnection(m_endpoint, this);
    m_control->setClientName("lockscope-workshop");
    QVector<QObject *> pending;
    auto waitReady = [&pending](QObject *o) { pending.append(o); };
    waitReady(m_control);
    for (const Scenario::Actor &def : m_scenario.actors) {
        ActorRuntime a;
        a.def = def;
        a.clientId = def.clientId.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : def.clientId;
        a.connection = new RedisConnection(m_endpoint, this);
        a.connection->setClientName(QStringLiteral("workshop-%1").arg(def.name).toUtf8());
        a.subscriber = new RedisSubscriber(m_endpoint, this);
        a.client = new LockClient(a.connection, a.subscriber, this, a.clientId);
        a.client->setWatchdogTimeoutMs(def.watchdogTimeoutMs);
        a.fair = new FairLock(a.client, this);
        a.rw = new ReadWriteLock(a.client, this);
        a.fenced = new FencedLock(a.client, this);
        const QString name = def.name;
        connect(a.subscriber, &RedisSubscriber::message, this,
                [this, name](const QByteArray &channel, const QByteArray &, const QByteArray &) {
                    m_received.append({name, channel});
                });
        waitReady(a.connection);
        waitReady(a.subscriber);
        m_actors.append(a);
    }
    QVector<RedisConnection *> stageConnections;
    if (m_scenario.servers > 0) {
        m_stage = new RedLockStage(this);
        QString error;
        if (!m_stage->start(m_scenario.servers, &error)) {
            m_failed = true;
            m_busy = false;
            QTimer::singleShot(0, this, [this, error] { emit failed(error); });
            return;
        }
        for (const ActorRuntime &a : std::as_const(m_actors))
            for (QObject *o : m_stage->addActor(a.def.name, a.clientId, a.def.watchdogTimeoutMs))
                if (auto *c = qobject_cast<RedisConnection *>(o)) {
                    waitReady(c);
                    stageConnections << c;
                }
    }
    auto remaining = std::make_shared<int>(int(pending.size()));
    auto done = std::make_shared<bool>(false);
    auto timer = new QTimer(this);
    timer->setSingleShot(true);
    auto oneReady = [this, remaining, done, timer, then] {
        if (*done || --*remaining > 0)
            return;
        *done = true;
        timer->deleteLater();
        m_control->send({"FLUSHALL"}, this, [this, then](const RedisReply &r) {
            if (r.isError()) {
                m_failed = true;
                m_busy = false;
                emit failed(QStringLiteral("cannot reset the workshop server: %1").arg(r.errorMessage()));
                return;
            }
            m_started = true;
            then();
        });
    };
    connect(timer, &QTimer::timeout, this, [this, done] {
        if (*done)
            return;
        *done = true;
        m_failed = true;
        m_busy = false;
        emit failed(QStringLiteral("the workshop redis-server at %1 did not answer within %2 ms")
                        .arg(m_endpoint.address())
                        .arg(kConnectTimeoutMs));
    });
    timer->start(kConnectTimeoutMs);
    connect(m_control, &RedisConnection::ready, this, oneReady, Qt::SingleShotConnection);
    m_control->open();
    for (RedisConnection *c : std::as_const(stageConnections))
        connect(c, &RedisConnection::ready, this, oneReady, Qt::SingleShotConnection);
    if (m_stage)
        m_stage->open();
    for (ActorRuntime &a : m_actors) {
        connect(a.connection, &RedisConnection::ready, this, oneReady, Qt::SingleShotConnection);
        connect(a.subscriber, &RedisSubscriber::ready, this, oneReady, Qt::SingleShotConnection);
        a.connection->open();
        a.subscriber->open();
    }
}

void ScenarioRunner::dump(RedisConnection *connection,
                          std::function<void(const StepReport::Keys &, const QString &)> then)
{
    m_dump.eval(connection, {}, {}, this, [this, then](const RedisReply &r) {
        const StepReport::Keys keys = StepReport::parseDump(r);
        const QString error = r.isError() ? r.errorMessage() : QString();
        if (!m_stage || m_scenario.lockNames().isEmpty()) {
            then(keys, error);
            return;
        }
        // RedLock scenarios: each independent server's copy of the lock too.
        m_stage->dump(m_scenario.lockNames().first(), [keys, error, then](const StepReport::Keys &servers) {
            StepReport::Keys all = keys;
            for (auto it = servers.cbegin(); it != servers.cend(); ++it)
                all.insert(it.key(), it.value());
            then(all, error);
        });
    });
}

void ScenarioRunner::poll(Poll probe, int timeoutMs, std::function<void(bool)> done)
{
    QElapsedTimer t;
    t.start();
    auto attempt = std::make_shared<std::function<void()>>();
    *attempt = [this, probe, timeoutMs, done, t, attempt] {
        probe([this, timeoutMs, done, t, attempt](bool ok) {
            if (ok || t.elapsed() >= timeoutMs) {
                done(ok);
                *attempt = nullptr; // break the cycle
                return;
            }
            QTimer::singleShot(kPollEveryMs, this, [attempt] {
                if (*attempt)
                    (*attempt)();
            });
        });
    };
    (*attempt)();
}

void ScenarioRunner::beginStep()
{
    // Time runs again for the step (it held still since the last one), and the picture before
    // the step is kept for rewindTo().
    m_stageClock->release([this] {
        m_stageClock->read(true, [this](const StageClock::Reading &reading) {
            m_checkpoints.insert(m_nextIndex, checkpoint(reading));
            runStep();
        });
    });
}

void ScenarioRunner::runStep()
{
    const Scenario::Step &step = m_scenario.steps.at(m_nextIndex);
    m_current = StepReport();
    m_current.index = step.index;
    m_current.line = step.line;
    m_current.action = step.action;
    m_current.lock = step.lock;
    m_current.narration = step.narration;
    if (ActorRuntime *a = actor(step.actor)) {
        m_current.actor = a->def.name;
        m_current.clientId = a->clientId;
        m_current.threadId = a->def.threadId;
    }
    m_current.call = callOf(step);
    m_received.clear();
    m_current.startedUs = m_clock.nsecsElapsed() / 1000;
    dump(connectionOf(step), [this, step](const StepReport::Keys &keys, const QString &error) {
        m_current.before = keys;
        if (!error.isEmpty()) {
            Outcome o;
            o.result = QStringLiteral("error");
            o.error = error;
            afterAction(step, o);
            return;
        }
        act(step, [this, step](const Outcome &o) { afterAction(step, o); });
    });
}

QString ScenarioRunner::callOf(const Scenario::Step &step) const
{
    const qint64 lease = leaseOf(step);
    const QString leaseText = step.leaseMs > 0 ? QStringLiteral("leaseTime=%1 ms").arg(lease)
                                               : QStringLiteral("no leaseTime: lockWatchdogTimeout %1 ms").arg(lease);
    const QString a = step.action;
    const QString on = QStringLiteral(" on \"%1\"").arg(step.lock);
    if (a == QLatin1String("lock"))
        return QStringLiteral("RLock.lock(%1), one attempt").arg(leaseText) + on;
    if (a == QLatin1String("tryLock"))
        return QStringLiteral("RLock.tryLock(waitTime=%1 ms, %2)").arg(step.waitMs).arg(leaseText) + on;
    if (a == QLatin1String("unlock"))
        return QStringLiteral("RLock.unlock()") + on;
    if (a == QLatin1String("renew"))
        return QStringLiteral("watchdog renewal (renewExpiration, PEXPIRE %1 ms)").arg(lease) + on;
    if (a == QLatin1String("forceUnlock"))
        return QStringLiteral("RLock.forceUnlock()") + on;
    if (a == QLatin1String("fairLock"))
        return QStringLiteral("RFairLock.lock(%1), one attempt (wait %2 ms)")
                   .arg(leaseText)
                   .arg(step.waitMs > 0 ? step.waitMs : FairLock::kDefaultWaitTimeoutMs) +
               on;
    if (a == QLatin1String("fairUnlock"))
        return QStringLiteral("RFairLock.unlock()") + on;
    if (a == QLatin1String("readLock"))
        return QStringLiteral("RReadWriteLock.readLock().lock(%1), one attempt").arg(leaseText) + on;
    if (a == QLatin1String("readUnlock"))
        return QStringLiteral("RReadWriteLock.readLock().unlock()") + on;
    if (a == QLatin1String("writeLock"))
        return QStringLiteral("RReadWriteLock.writeLock().lock(%1), one attempt").arg(leaseText) + on;
    if (a == QLatin1String("writeUnlock"))
        return QStringLiteral("RReadWriteLock.writeLock().unlock()") + on;
    if (a == QLatin1String("fencedLock"))
        return QStringLiteral("RFencedLock.lockAndGetToken(%1), one attempt").arg(leaseText) + on;
    if (a == QLatin1String("fencedWrite"))
        return QStringLiteral("write to the protected resource with its fencing token") + on;
    if (a == QLatin1String("dropSubscription"))
        return QStringLiteral("pub/sub subscription lost (the unlock message will not reach it)") + on;
    if (a == QLatin1String("pause"))
        return QStringLiteral("pause %1 ms (time passes; no client of this actor runs)").arg(step.ms);
    if (a == QLatin1String("expireWait"))
        return QStringLiteral("wait until the lease expires (at most %1 ms)").arg(step.ms > 0 ? step.ms : 10000) + on;
    if (a == QLatin1String("doctor"))
        return QStringLiteral("lockscope doctor: deadlocks in the wait-for graph");
    if (a == QLatin1String("redlock"))
        return QStringLiteral("RedissonRedLock.tryLock(waitTime=%1 ms, leaseTime=%2 ms) over %3 independent servers")
                   .arg(qMax<qint64>(0, step.waitMs))
                   .arg(qMax<qint64>(0, step.leaseMs))
                   .arg(m_scenario.servers) +
               on;
    if (a == QLatin1String("redlockUnlock"))
        return QStringLiteral("RedissonRedLock.unlock() on every server") + on;
    if (a == QLatin1String("stopServer"))
        return QStringLiteral("server %1 (%2) stops: a master is lost")
            .arg(step.server)
            .arg(m_stage ? m_stage->address(step.server - 1) : QString());
    return a;
}

void ScenarioRunner::act(const Scenario::Step &step, Done done)
{
    ActorRuntime *a = actor(step.actor);
    const QString name = step.lock;
    const qint64 lease = leaseOf(step);
    const QString a_ = step.action;
    auto acquired = [done](const AcquireResult &r) {
        Outcome o;
        o.result = !r.error.isEmpty() ? QStringLiteral("error")
                   : r.acquired       ? QStringLiteral("acquired")
                                      : QStringLiteral("refused");
        o.error = r.error;
        o.pttlMs = r.pttlMs;
        o.token = r.token;
        o.reply = r.acquired ? (r.token >= 0 ? QStringLiteral("{-1, %1}").arg(r.token) : QStringLiteral("nil"))
                             : QString::number(r.pttlMs);
        done(o);
    };
    auto unlocked = [done](const UnlockResult &r) {
        Outcome o;
        o.result = unlockStatus(r);
        o.error = r.status == UnlockResult::Status::Error ? r.error : QString();
        o.reply = r.status == UnlockResult::Status::NotHeld     ? QStringLiteral("nil (%1)").arg(r.error)
                  : r.status == UnlockResult::Status::Released  ? QStringLiteral("1")
                  : r.status == UnlockResult::Status::StillHeld ? QStringLiteral("0")
                                                                : r.error;
        done(o);
    };
    if (a_ == QLatin1String("lock")) {
        a->client->tryAcquire(name, a->def.threadId, lease, this, acquired);
    } else if (a_ == QLatin1String("tryLock")) {
        a->client->acquire(name, a->def.threadId, lease, step.waitMs, this, acquired);
        // waitedMs is filled in by afterAction from the step's duration.
    } else if (a_ == QLatin1String("unlock")) {
        a->client->unlock(name, a->def.threadId, this, unlocked);
    } else if (a_ == QLatin1String("renew")) {
        a->client->renew(name, a->def.threadId, lease, this, [done](bool ok, const QString &error) {
            Outcome o;
            o.result = !error.isEmpty() ? QStringLiteral("error")
                       : ok             ? QStringLiteral("renewed")
                                        : QStringLiteral("lost");
            o.error = error;
            o.reply = ok ? QStringLiteral("1") : QStringLiteral("0");
            done(o);
        });
    } else if (a_ == QLatin1String("forceUnlock")) {
        a->client->forceUnlock(name, this, [done](bool ok, const QString &error) {
            Outcome o;
            o.result = !error.isEmpty() ? QStringLiteral("error")
                       : ok             ? QStringLiteral("deleted")
                                        : QStringLiteral("nothing");
            o.error = error;
            o.reply = ok ? QStringLiteral("1") : QStringLiteral("0");
            done(o);
        });
    } else if (a_ == QLatin1String("fairLock")) {
        // One iteration of RedissonFairLock's lock loop: the EVAL_LONG acquire script (§3.2), which
        // enqueues the caller when it cannot take the lock. FairLock::acquire runs the same script
        // in its loop; here the loop is the scenario's steps.
        const QString field = a->client->holderField(a->def.threadId);
        const qint64 wait = step.waitMs > 0 ? step.waitMs : FairLock::kDefaultWaitTimeoutMs;
        LockClient *client = a->client;
        m_fairAcquire.eval(
            a->connection,
            {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()},
            {QByteArray::number(lease), field.toUtf8(), QByteArray::number(wait),
             QByteArray::number(QDateTime::currentMSecsSinceEpoch())},
            this, [done, client, name, field, lease](const RedisReply &r) {
                Outcome o;
                if (r.isError()) {
                    o.result = QStringLiteral("error");
                    o.error = r.errorMessage();
                } else if (r.isNil()) {
                    o.result = QStringLiteral("acquired");
                    o.reply = QStringLiteral("nil");
                    client->noteAcquired(name, field, lease, false);
                } else {
                    o.result = QStringLiteral("queued"); // refined in afterAction
                    o.pttlMs = r.toInteger();
                    o.reply = QString::number(o.pttlMs);
                }
                done(o);
            });
    } else if (a_ == QLatin1String("fairUnlock")) {
        a->fair->unlock(name, a->def.threadId, this, unlocked);
    } else if (a_ == QLatin1String("readLock")) {
        a->rw->tryAcquireRead(name, a->def.threadId, lease, this, acquired);
    } else if (a_ == QLatin1String("readUnlock")) {
        a->rw->unlockRead(name, a->def.threadId, this, unlocked);
    } else if (a_ == QLatin1String("writeLock")) {
        a->rw->tryAcquireWrite(name, a->def.threadId, lease, this, acquired);
    } else if (a_ == QLatin1String("writeUnlock")) {
        a->rw->unlockWrite(name, a->def.threadId, this, unlocked);
    } else if (a_ == QLatin1String("fencedLock")) {
        a->fenced->tryAcquire(name, a->def.threadId, lease, this, acquired);
    } else if (a_ == QLatin1String("fencedWrite")) {
        const qint64 token = a->lastToken;
        m_fencedWrite.eval(
            a->connection, {QStringLiteral("workshop_resource:{%1}").arg(name).toUtf8()},
            {QByteArray::number(token), a->client->holderField(a->def.threadId).toUtf8()}, this,
            [done, token](const RedisReply &r) {
                Outcome o;
                o.token = token;
                if (r.isError() || !r.isArray() || r.size() < 2) {
                    o.result = QStringLiteral("error");
                    o.error =
                        r.isError() ? r.errorMessage() : QStringLiteral("unexpected reply %1").arg(r.debugString());
                } else {
                    o.result = r.at(0).toInteger() == 1 ? QStringLiteral("accepted") : QStringLiteral("rejected");
                    o.reply = QStringLiteral("{%1, %2}").arg(r.at(0).toInteger()).arg(r.at(1).toInteger());
                    o.pttlMs = r.at(1).toInteger(); // the highest token the resource has seen
                }
                done(o);
            });
    } else if (a_ == QLatin1String("dropSubscription")) {
        for (const QByteArray &ch : std::as_const(a->waitingOn))
            a->client->releaseChannel(ch);
        const QStringList dropped = [&] {
            QStringList l;
            for (const QByteArray &ch : std::as_const(a->waitingOn))
                l.append(QString::fromUtf8(ch));
            return l;
        }();
        a->waitingOn.clear();
        Outcome o;
        o.result = QStringLiteral("dropped");
        o.reply = dropped.join(QStringLiteral(", "));
        done(o);
    } else if (a_ == QLatin1String("redlock") || a_ == QLatin1String("redlockUnlock")) {
        MultiLock *redLock = m_stage ? m_stage->redLockOf(step.actor, name) : nullptr;
        if (!redLock) {
            Outcome o;
            o.result = QStringLiteral("error");
            o.error = QStringLiteral("no RedLock servers");
            done(o);
            return;
        }
        auto report = [done, a_](const MultiLockResult &r) {
            Outcome o;
            QStringList parts;
            for (int i = 0; i < r.components.size(); ++i)
                parts << QStringLiteral("s%1 %2").arg(i + 1).arg(
                    MultiLockComponentOutcome::statusName(r.components[i].status));
            o.components = parts.join(QStringLiteral(", "));
            o.granted = r.grantedCount();
            if (a_ == QLatin1String("redlock")) {
                o.result = r.acquired ? QStringLiteral("acquired") : QStringLiteral("refused");
                o.reply = QStringLiteral("%1 of %2 granted, quorum %3")
                              .arg(r.grantedCount())
                              .arg(r.components.size())
                              .arg(r.required);
            } else {
                o.result = r.grantedCount() > 0 ? QStringLiteral("released") : QStringLiteral("not_held");
                o.reply = QStringLiteral("%1 of %2 released").arg(r.grantedCount()).arg(r.components.size());
            }
            done(o);
        };
        if (a_ == QLatin1String("redlock"))
            redLock->acquire(a->def.threadId, qMax<qint64>(0, step.leaseMs), qMax<qint64>(0, step.waitMs), this,
                             report);
        else
            redLock->unlock(a->def.threadId, this, report);
    } else if (a_ == QLatin1String("stopServer")) {
        if (m_stage)
            m_stage->stopServer(step.server - 1);
        Outcome o;
        o.result = QStringLiteral("stopped");
        done(o);
    } else if (a_ == QLatin1String("pause")) {
        QTimer::singleShot(int(step.ms), this, [done] {
            Outcome o;
            o.result = QStringLiteral("ok");
            done(o);
        });
    } else if (a_ == QLatin1String("expireWait")) {
        RedisConnection *conn = connectionOf(step);
        const QByteArray key = name.toUtf8();
        auto last = std::make_shared<qint64>(-2);
        poll(
            [this, conn, key, last](std::function<void(bool)> answer) {
                conn->send({"PTTL", key}, this, [answer, last](const RedisReply &r) {
                    *last = r.isInteger() ? r.toInteger() : -2;
                    answer(r.isInteger() && r.toInteger() == -2);
                });
            },
            int(step.ms > 0 ? step.ms : 10000),
            [done, last](bool gone) {
                Outcome o;
                o.result = gone ? QStringLiteral("expired") : QStringLiteral("not_expired");
                o.reply = QString::number(*last);
                done(o);
            });
    } else if (a_ == QLatin1String("doctor")) {
        const QStringList locks = step.locks.isEmpty() ? m_scenario.lockNames() : step.locks;
        auto *reader = new SnapshotReader(connectionOf(step), this);
        reader->read(locks, this, [done, reader](const QVector<LockSnapshot> &snaps, const QString &error) {
            reader->deleteLater();
            QHash<QString, LockSnapshot> byName;
            for (const LockSnapshot &s : snaps)
                byName.insert(s.name, s);
            Outcome o;
            o.error = error;
            const QVector<LockFinding> found = LockDoctor::deadlocks(byName);
            for (const LockFinding &f : found)
                o.findings.append(
                    QStringLiteral("%1: %2 (locks %3)").arg(f.code, f.title, f.locks.join(QStringLiteral(", "))));
            o.deadlock = !found.isEmpty();
            o.result = !error.isEmpty() ? QStringLiteral("error")
                       : o.deadlock     ? QStringLiteral("deadlock")
                                        : QStringLiteral("no_deadlock");
            done(o);
        });
    } else {
        Outcome o;
        o.result = QStringLiteral("error");
        o.error = QStringLiteral("action \"%1\" is not implemented").arg(a_);
        done(o);
    }
}

void ScenarioRunner::afterAction(const Scenario::Step &step, const Outcome &outcome)
{
    dump(connectionOf(step), [this, step, outcome](const StepReport::Keys &keys, const QString &error) {
        m_current.after = keys;
        Outcome o = outcome;
        if (o.error.isEmpty() && !error.isEmpty())
            o.error = error;
        // fairLock: "queued" only when the caller really is in the queue now.
        if (step.action == QLatin1String("fairLock") && o.result == QLatin1String("queued")) {
            const ActorRuntime *a = actor(step.actor);
            if (!listOf(keys, LockNames::fairQueueKey(step.lock)).contains(a->client->holderField(a->def.threadId)))
                o.result = QStringLiteral("refused");
        }
        if (step.action == QLatin1String("tryLock"))
            o.waitedMs = (m_clock.nsecsElapsed() / 1000 - m_current.startedUs) / 1000;
        settle(step, o);
    });
}

void ScenarioRunner::settle(const Scenario::Step &step, const Outcome &outcome)
{
    ActorRuntime *a = actor(step.actor);
    const QString name = step.lock;

    // The unlock message the script published (derived from the branch that ran).
    const QString s = step.action;
    if ((s == QLatin1String("unlock") && outcome.result == QLatin1String("released")) ||
        (s == QLatin1String("forceUnlock") && outcome.result == QLatin1String("deleted"))) {
        m_current.messageChannel = LockNames::unlockChannel(name);
        m_current.messagePayload = QStringLiteral("0");
    } else if (s == QLatin1String("fairUnlock") && outcome.result == QLatin1String("released")) {
        const QStringList queue = listOf(m_current.before, LockNames::fairQueueKey(name));
        const QStringList queueAfter = listOf(m_current.after, LockNames::fairQueueKey(name));
        const QString head = !queueAfter.isEmpty() ? queueAfter.first() : QString();
        if (!head.isEmpty() || !queue.isEmpty()) {
            m_current.messageChannel = FairLock::waiterChannel(name, head.isEmpty() ? queue.first() : head);
            m_current.messagePayload = QStringLiteral("0");
        }
    } else if (s == QLatin1String("readUnlock") && outcome.result == QLatin1String("released")) {
        m_current.messageChannel = ReadWriteLock::channel(name);
        m_current.messagePayload = QStringLiteral("0");
    } else if (s == QLatin1String("writeUnlock") && outcome.result == QLatin1String("released") &&
               !m_current.after.contains(name)) {
        m_current.messageChannel = ReadWriteLock::channel(name);
        m_current.messagePayload = QStringLiteral("1");
    }
    m_current.branch = branchOf(step, outcome); // after the message: the fair unlock branch names it

    // Who should receive it: actors subscribed to that channel as waiting clients.
    QStringList expected;
    if (!m_current.messageChannel.isEmpty()) {
        const QByteArray ch = m_current.messageChannel.toUtf8();
        for (const ActorRuntime &other : std::as_const(m_actors))
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
    QByteArray channel;
    if (a) {
        if (s == QLatin1String("lock") || s == QLatin1String("fencedLock") || s == QLatin1String("tryLock"))
            channel = LockNames::unlockChannel(name).toUtf8();
        else if (s == QLatin1String("readLock") || s == QLatin1String("writeLock"))
            channel = ReadWriteLock::channel(name).toUtf8();
        else if (s == QLatin1String("fairLock"))
            channel = FairLock::waiterChannel(name, a->client->holderField(a->def.threadId)).toUtf8();
    }
    QList<QByteArray> changed; // channels whose subscriptions this step made or dropped
    if (!channel.isEmpty()) {
        const bool waits = outcome.result == QLatin1String("refused") || outcome.result == QLatin1String("queued");
        if (waits && s != QLatin1String("tryLock") && !a->waitingOn.contains(channel)) {
            a->waitingOn.insert(channel);
            a->client->retainChannel(channel);
            changed.append(channel);
        } else if (outcome.result == QLatin1String("acquired") && a->waitingOn.contains(channel)) {
            a->waitingOn.remove(channel);
            a->client->releaseChannel(channel);
            changed.append(channel);
        }
    }
    if (s == QLatin1String("dropSubscription"))
        for (const QString &c : outcome.reply.split(QStringLiteral(", "), Qt::SkipEmptyParts))
            changed.append(c.toUtf8());
    poll([received](std::function<void(bool)> answer) { answer(received()); }, kSettleTimeoutMs,
         [this, step, outcome, changed, a](bool) {
             // Wait until the server has applied the (un)subscriptions, so the next step's publish
             // meets exactly the subscriptions this step made.
             awaitSubscriptions(a ? a->connection : m_control, changed,
                                [this, step, outcome] { finishStep(step, outcome); });
         });
}

void ScenarioRunner::finishStep(const Scenario::Step &step, const Outcome &outcome)
{
    m_current.finishedUs = m_clock.nsecsElapsed() / 1000;
    m_current.result = outcome.result;
    m_current.reply = outcome.reply;
    m_current.error = outcome.error;
    m_current.findings = outcome.findings;
    if (ActorRuntime *a = actor(step.actor)) {
        if (step.action == QLatin1String("fencedLock") && outcome.result == QLatin1String("acquired"))
            a->lastToken = outcome.token;
        if (step.action == QLatin1String("fencedLock") || step.action == QLatin1String("fencedWrite"))
            m_current.token = outcome.token;
    }
    QSet<QString> woke;
    for (const auto &m : std::as_const(m_received))
        woke.insert(m.first);
    m_current.woke = QStringList(woke.values());
    m_current.woke.sort();
    check(step, outcome);
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

QString ScenarioRunner::branchOf(const Scenario::Step &step, const Outcome &o) const
{
    const QString name = step.lock;
    const QString s = step.action;
    const ActorRuntime *a = nullptr;
    for (const ActorRuntime &x : m_actors)
        if (x.def.name == step.actor)
            a = &x;
    if (!o.error.isEmpty())
        return QStringLiteral("error: %1").arg(o.error);
    const QString field = a ? a->client->holderField(a->def.threadId) : QString();
    const qint64 lease = leaseOf(step);
    const QJsonObject hb = holdersOf(m_current.before, name);
    const qint64 countBefore = qint64(hb.value(field).toDouble());
    const qint64 countAfter = qint64(holdersOf(m_current.after, name).value(field).toDouble());
    const bool existedBefore = m_current.before.contains(name);
    const QString channel = LockNames::unlockChannel(name);
    const QString tokenKey = LockNames::tokenKey(name);

    if (isLockAction(s)) {
        QString prefix;
        if (s == QLatin1String("tryLock") && o.waitedMs > 0 && existedBefore && !hb.contains(field))
            prefix = QStringLiteral("acquire: held by another (%1) -> PTTL %2 ms = refused; subscribed to %3 and "
                                    "waited %4 ms (woken by an unlock message or at the TTL), then retry: ")
                         .arg(fieldsText(hb))
                         .arg(pttlOf(m_current.before, name))
                         .arg(channel)
                         .arg(o.waitedMs);
        if (o.result == QLatin1String("acquired")) {
            const QString tok = s == QLatin1String("fencedLock")
                                    ? QStringLiteral("INCR %1 = %2, ").arg(tokenKey).arg(o.token)
                                    : QString();
            const QString rep =
                s == QLatin1String("fencedLock") ? QStringLiteral("{-1, %1}").arg(o.token) : QStringLiteral("nil");
            if (countBefore > 0)
                return prefix + QStringLiteral("acquire: held by this thread (hold count %1) -> %2HINCRBY %3 1 = %4, "
                                               "PEXPIRE %5 -> %6 = re-entered")
                                    .arg(countBefore)
                                    .arg(tok, field)
                                    .arg(countAfter)
                                    .arg(lease)
                                    .arg(rep);
            return prefix + QStringLiteral("acquire: key absent -> %1HINCRBY %2 1, PEXPIRE %3 -> %4 = acquired")
                                .arg(tok, field)
                                .arg(lease)
                                .arg(rep);
        }
        if (s == QLatin1String("tryLock"))
            return QStringLiteral("acquire: held by another (%1) -> PTTL; subscribed to %2, retried on messages or at "
                                  "the TTL for %3 ms -> waitTime used up = false (refused)")
                .arg(fieldsText(hb), channel)
                .arg(step.waitMs);
        return QStringLiteral(
                   "acquire: held by another (%1) -> return PTTL %2 ms = refused; the caller subscribes to %3 "
                   "and waits for \"0\" or the TTL")
            .arg(fieldsText(hb))
            .arg(o.pttlMs)
            .arg(channel);
    }
    if (s == QLatin1String("unlock")) {
        if (o.result == QLatin1String("not_held"))
            return existedBefore
                       ? QStringLiteral("unlock: HEXISTS %1 = 0 (held by %2) -> nil = IllegalMonitorStateException")
                             .arg(field, fieldsText(hb))
                       : QStringLiteral(
                             "unlock: key absent (expired or deleted) -> nil = IllegalMonitorStateException");
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("unlock: hold count %1 -> %2, PEXPIRE %3 -> 0 = still held, no message")
                .arg(countBefore)
                .arg(countAfter)
                .arg(lease);
        if (o.result == QLatin1String("released"))
            return QStringLiteral("unlock: hold count %1 -> 0 -> DEL %2, PUBLISH %3 0 -> 1 = released")
                .arg(countBefore)
                .arg(name, channel);
    }
    if (s == QLatin1String("renew"))
        return o.result == QLatin1String("renewed")
                   ? QStringLiteral("renewExpiration: HEXISTS %1 = 1 -> PEXPIRE %2 (PTTL %3 -> %4 ms) -> 1 = renewed")
                         .arg(field)
                         .arg(lease)
                         .arg(pttlOf(m_current.before, name))
                         .arg(pttlOf(m_current.after, name))
                   : QStringLiteral("renewExpiration: HEXISTS %1 = 0 (%2) -> 0 = the lock is lost, the watchdog stops")
                         .arg(field, existedBefore ? QStringLiteral("held by %1").arg(fieldsText(hb))
                                                   : QStringLiteral("key absent"));
    if (s == QLatin1String("forceUnlock"))
        return o.result == QLatin1String("deleted")
                   ? QStringLiteral("forceUnlock: DEL %1 = 1 (was held by %2), PUBLISH %3 0 -> true")
                         .arg(name, fieldsText(hb), channel)
                   : QStringLiteral("forceUnlock: DEL %1 = 0 (key absent) -> false, no message").arg(name);
    if (s == QLatin1String("fairLock")) {
        const QString qk = LockNames::fairQueueKey(name);
        const QStringList qb = listOf(m_current.before, qk), qa = listOf(m_current.after, qk);
        QStringList pruned;
        for (const QString &w : qb)
            if (!qa.contains(w) && w != field)
                pruned.append(w);
        const QString prune = pruned.isEmpty() ? QStringLiteral("PRUNE: nothing expired; ")
                                               : QStringLiteral("PRUNE: removed %1 (deadline passed: a dead waiter); ")
                                                     .arg(pruned.join(QStringLiteral(", ")));
        if (o.result == QLatin1String("acquired")) {
            if (countBefore > 0)
                return prune +
                       QStringLiteral("held by this thread -> HINCRBY %1 1 = %2, PEXPIRE %3 -> nil = re-entered")
                           .arg(field)
                           .arg(countAfter)
                           .arg(lease);
            return prune + QStringLiteral(
                               "lock free and %1 -> LPOP queue, ZREM timeout, HSET %2 1, PEXPIRE %3 -> nil = acquired")
                               .arg(qb.contains(field) ? QStringLiteral("the caller is first in line")
                                                       : QStringLiteral("nobody queued"),
                                    field)
                               .arg(lease);
        }
        const int pos = int(qa.indexOf(field)) + 1;
        const QString deadline = QString::number(
            qint64(m_current.after.value(LockNames::fairTimeoutKey(name)).value.toObject().value(field).toDouble()));
        if (qb.contains(field))
            return prune + QStringLiteral("%1 already queued at position %2 -> ttl %3 ms = still waiting")
                               .arg(field)
                               .arg(pos)
                               .arg(o.pttlMs);
        const QString why = existedBefore ? QStringLiteral("held by %1").arg(fieldsText(hb))
                                          : QStringLiteral("lock free but %1 is first in line").arg(qb.value(0));
        return prune +
               QStringLiteral(
                   "%1 -> RPUSH queue %2, ZADD timeout %2 %3 (ttl + wait + now) -> ttl %4 ms = queued at position %5")
                   .arg(why, field, deadline)
                   .arg(o.pttlMs)
                   .arg(pos);
    }
    if (s == QLatin1String("fairUnlock")) {
        if (o.result == QLatin1String("released") && !existedBefore)
            return m_current.messageChannel.isEmpty()
                       ? QStringLiteral("fair unlock: PRUNE; %1 is gone (expired or deleted meanwhile), queue empty: "
                                        "no message -> 1 "
                                        "(Redisson reports success although nothing was held)")
                             .arg(name)
                       : QStringLiteral(
                             "fair unlock: PRUNE; %1 is gone (expired or deleted meanwhile) -> PUBLISH %2 0 (the head "
                             "waiter) -> 1 (Redisson reports success although nothing was held)")
                             .arg(name, m_current.messageChannel);
        if (o.result == QLatin1String("released"))
            return m_current.messageChannel.isEmpty()
                       ? QStringLiteral("fair unlock: PRUNE; hold count %1 -> 0 -> DEL %2, queue empty: no message -> "
                                        "1 = released")
                             .arg(countBefore)
                             .arg(name)
                       : QStringLiteral("fair unlock: PRUNE; hold count %1 -> 0 -> DEL %2, PUBLISH %3 0 (the head "
                                        "waiter only) -> 1 = released")
                             .arg(countBefore)
                             .arg(name, m_current.messageChannel);
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("fair unlock: hold count %1 -> %2, PEXPIRE %3 -> 0 = still held")
                .arg(countBefore)
                .arg(countAfter)
                .arg(lease);
        return QStringLiteral("fair unlock: HEXISTS %1 = 0 -> nil = IllegalMonitorStateException").arg(field);
    }
    if (s == QLatin1String("readLock") || s == QLatin1String("writeLock")) {
        const QString modeBefore = hashOf(m_current.before, name).value(QStringLiteral("mode")).toString();
        if (o.result == QLatin1String("acquired")) {
            if (s == QLatin1String("readLock"))
                return QStringLiteral("read acquire: %1 -> HSET mode read, HINCRBY %2 1 = %3, SET %4:%3 PX %5, PEXPIRE "
                                      ">= %5 -> nil = acquired")
                    .arg(existedBefore ? QStringLiteral("mode %1 (readers share)").arg(modeBefore)
                                       : QStringLiteral("key absent"),
                         field)
                    .arg(countAfter)
                    .arg(ReadWriteLock::timeoutPrefix(name, field))
                    .arg(lease);
            return QStringLiteral(
                       "write acquire: %1 -> HSET mode write, HINCRBY %2:write 1, PEXPIRE %3 -> nil = acquired")
                .arg(existedBefore ? QStringLiteral("held by this thread in write mode") : QStringLiteral("key absent"),
                     field)
                .arg(lease);
        }
        return QStringLiteral(
                   "%1 acquire: mode %2 held by %3 -> return PTTL %4 ms = refused; the caller subscribes to %5")
            .arg(s == QLatin1String("readLock") ? QStringLiteral("read") : QStringLiteral("write"), modeBefore,
                 fieldsText(hb))
            .arg(o.pttlMs)
            .arg(ReadWriteLock::channel(name));
    }
    if (s == QLatin1String("readUnlock")) {
        if (o.result == QLatin1String("released"))
            return QStringLiteral("read unlock: HINCRBY %1 -1 = 0, DEL its rwlock_timeout key; no reader left -> DEL "
                                  "%2, PUBLISH %3 0 -> 1 = released")
                .arg(field, name, ReadWriteLock::channel(name));
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("read unlock: HINCRBY %1 -1 = %2, DEL its rwlock_timeout key; holders left (%3) -> "
                                  "PEXPIRE to the longest "
                                  "remaining hold -> 0 = still held, no message")
                .arg(field)
                .arg(countAfter)
                .arg(fieldsText(holdersOf(m_current.after, name)));
        return QStringLiteral("read unlock: %1 holds no read lock -> nil = IllegalMonitorStateException").arg(field);
    }
    if (s == QLatin1String("writeUnlock")) {
        if (o.result == QLatin1String("released"))
            return m_current.after.contains(name)
                       ? QStringLiteral("write unlock: write hold 1 -> 0, own read holds left -> HSET mode read "
                                        "(downgrade), no message -> 1")
                       : QStringLiteral("write unlock: write hold 1 -> 0 -> DEL %1, PUBLISH %2 1 -> 1 = released")
                             .arg(name, ReadWriteLock::channel(name));
        if (o.result == QLatin1String("still_held"))
            return QStringLiteral("write unlock: write hold count -1, PEXPIRE %1 -> 0 = still held").arg(lease);
        return QStringLiteral("write unlock: %1:write is not a holder -> nil = IllegalMonitorStateException")
            .arg(field);
    }
    if (s == QLatin1String("fencedWrite"))
        return o.result == QLatin1String("accepted")
                   ? QStringLiteral("resource: token %1 >= highest seen -> HSET highest_token %1 -> {1, %1} = accepted")
                         .arg(o.token)
                   : QStringLiteral(
                         "resource: token %1 < highest seen %2 -> {0, %2} = rejected: a newer holder has written")
                         .arg(o.token)
                         .arg(o.pttlMs);
    if (s == QLatin1String("dropSubscription"))
        return QStringLiteral(
                   "UNSUBSCRIBE %1: this client no longer hears unlock messages; it will retry only when the TTL it "
                   "read runs out")
            .arg(o.reply.isEmpty() ? QStringLiteral("(nothing subscribed)") : o.reply);
    if (s == QLatin1String("pause"))
        return QStringLiteral("no Redis call: time passes; PTTLs run down, nothing renews them");
    if (s == QLatin1String("expireWait"))
        return o.result == QLatin1String("expired")
                   ? QStringLiteral(
                         "no script: the lease ran out and Redis deleted %1 by itself; no unlock message is published")
                         .arg(name)
                   : QStringLiteral("the key did not expire within %1 ms (PTTL %2)").arg(step.ms).arg(o.reply);
    if (s == QLatin1String("redlock"))
        return QStringLiteral(
                   "the RLock acquire script (§2.2) on each server in turn, each waiting at most max(wait / N, 1) ms "
                   "(§5.4): %1 -> %2 = %3")
            .arg(o.components, o.reply, o.result);
    if (s == QLatin1String("redlockUnlock"))
        return QStringLiteral("the RLock unlock script (§2.3) on every server: %1 -> %2").arg(o.components, o.reply);
    if (s == QLatin1String("stopServer"))
        return QStringLiteral(
            "no script: the server process stops; its copy of the lock is gone with it, and the clients' "
            "calls to it fail at once");
    if (s == QLatin1String("doctor"))
        return o.deadlock
                   ? QStringLiteral(
                         "snapshot.lua on every lock, then a cycle in the wait-for graph (queued waiter -> holder "
                         "-> lock it waits for): %1")
                         .arg(o.findings.join(QStringLiteral("; ")))
                   : QStringLiteral("snapshot.lua on every lock: no cycle in the wait-for graph");
    return QString();
}

void ScenarioRunner::check(const Scenario::Step &step, const Outcome &o)
{
    const QString name = step.lock;
    const QJsonObject after = holdersOf(m_current.after, name);
    ActorRuntime *a = actor(step.actor);
    const QString field = a ? a->client->holderField(a->def.threadId) : QString();
    bool ok = o.error.isEmpty();
    for (auto it = step.expect.begin(); it != step.expect.end(); ++it) {
        StepReport::Check c;
        c.name = it.key();
        c.expected = it.value();
        if (c.name == QLatin1String("result")) {
            c.actual = o.result;
        } else if (c.name == QLatin1String("holder")) {
            QStringList holders;
            for (auto h = after.begin(); h != after.end(); ++h) {
                const QString n = actorOfField(h.key());
                if (!holders.contains(n))
                    holders.append(n);
            }
            holders.sort();
            c.actual = holders.isEmpty() ? QStringLiteral("none") : holders.join(QLatin1Char(','));
            c.held = it.value().toString() == QLatin1String("none") ? holders.isEmpty()
                                                                    : holders.contains(it.value().toString());
        } else if (c.name == QLatin1String("holdCount")) {
            const bool write = step.action.startsWith(QLatin1String("write"));
            c.actual = after.value(write ? field + QStringLiteral(":write") : field).toDouble();
        } else if (c.name == QLatin1String("queue")) {
            QJsonArray q;
            for (const QString &w : listOf(m_current.after, LockNames::fairQueueKey(name)))
                q.append(actorOfField(w));
            c.actual = q;
        } else if (c.name == QLatin1String("token")) {
            c.actual = double(o.token);
        } else if (c.name == QLatin1String("tokenGreaterThan")) {
            const ActorRuntime *other = actor(it.value().toString());
            const qint64 mine = a ? a->lastToken : -1;
            c.actual = QStringLiteral("%1 > %2").arg(mine).arg(other ? other->lastToken : -1);
            c.held = other && mine > other->lastToken && other->lastToken >= 0;
        } else if (c.name == QLatin1String("pttlAtLeastMs")) {
            c.actual = double(pttlOf(m_current.after, name));
            c.held = pttlOf(m_current.after, name) >= it.value().toInteger();
        } else if (c.name == QLatin1String("pttlAtMostMs")) {
            c.actual = double(pttlOf(m_current.after, name));
            c.held = pttlOf(m_current.after, name) <= it.value().toInteger();
        } else if (c.name == QLatin1String("woke")) {
            c.actual = QJsonArray::fromStringList(m_current.woke);
            QStringList want;
            for (const QJsonValue &v : it.value().toArray())
                want.append(v.toString());
            want.sort();
            c.held = want == m_current.woke;
        } else if (c.name == QLatin1String("mode")) {
            c.actual = hashOf(m_current.after, name).value(QStringLiteral("mode")).toString();
        } else if (c.name == QLatin1String("deadlock")) {
            c.actual = o.deadlock;
        } else if (c.name == QLatin1String("exists")) {
            c.actual = m_current.after.contains(name);
        } else if (c.name == QLatin1String("granted")) {
            c.actual = double(o.granted);
        }
        static const QStringList custom{QStringLiteral("holder"), QStringLiteral("tokenGreaterThan"),
                                        QStringLiteral("pttlAtLeastMs"), QStringLiteral("pttlAtMostMs"),
                                        QStringLiteral("woke")};
        if (!custom.contains(c.name))
            c.held = c.actual == c.expected;
        ok = ok && c.held;
        m_current.checks.append(c);
    }
    m_current.ok = ok;
}

} // namespace lockscope
