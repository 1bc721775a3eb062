#include "multilock.h"
#include "redis/redisbytes.h"

#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "text/enumwords.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QTimer>

#include <memory>
#include <utility>

namespace lockscope
{

using Status = MultiLockComponentOutcome::Status;

namespace
{

const EnumWords<Status> kStatusWords{{Status::NotTried, "not_tried"}, {Status::Granted, "granted"},
                                     {Status::Refused, "refused"},    {Status::Error, "error"},
                                     {Status::Unknown, "unknown"},    {Status::Released, "released"},
                                     {Status::Unlocked, "unlocked"},  {Status::NotHeld, "not_held"}};

/** Takes the indexes out of `indexes` (left empty) and calls `each(index, done)` for every one;
 *  `then` runs once every one has called its `done`, at once when there is none. */
void joinEach(QVector<int> &indexes, const std::function<void()> &then,
              const std::function<void(int index, const std::function<void()> &done)> &each)
{
    const QVector<int> taken = std::exchange(indexes, {});
    if (taken.isEmpty()) {
        then();
        return;
    }
    auto left = std::make_shared<int>(int(taken.size()));
    const std::function<void()> done = [left, then] {
        if (--*left == 0)
            then();
    };
    for (int index : taken)
        each(index, done);
}

} // namespace

QString MultiLockComponentOutcome::statusName(Status status)
{
    return kStatusWords.word(status);
}

QJsonObject MultiLockComponentOutcome::toJson() const
{
    QJsonObject o{{QStringLiteral("server"), server},
                  {QStringLiteral("name"), name},
                  {QStringLiteral("status"), statusName(status)},
                  {QStringLiteral("attempts"), attempts}};
    if (status == Status::Refused)
        o.insert(QStringLiteral("pttl_ms"), pttlMs);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    return o;
}

int MultiLockResult::grantedCount() const
{
    int n = 0;
    for (const auto &c : components)
        n += c.status == Status::Granted || c.status == Status::Unlocked;
    return n;
}

QStringList MultiLockResult::grantedServers() const
{
    QStringList servers;
    for (const auto &c : components)
        if (c.status == Status::Granted || c.status == Status::Unlocked)
            servers << c.server;
    return servers;
}

QJsonObject MultiLockResult::toJson() const
{
    QJsonArray comps;
    for (const auto &c : components)
        comps.append(c.toJson());
    return QJsonObject{{QStringLiteral("acquired"), acquired},
                       {QStringLiteral("mode"), redLock ? QStringLiteral("redlock") : QStringLiteral("multilock")},
                       {QStringLiteral("required"), required},
                       {QStringLiteral("granted"), grantedCount()},
                       {QStringLiteral("servers_granted"), QJsonArray::fromStringList(grantedServers())},
                       {QStringLiteral("rounds"), rounds},
                       {QStringLiteral("elapsed_ms"), elapsedMs},
                       {QStringLiteral("lease_ms"), leaseMs},
                       {QStringLiteral("error"), error},
                       {QStringLiteral("components"), comps}};
}

/** The state of one acquire() call. */
struct MultiLock::Run {
    qint64 threadId = 0;
    qint64 leaseMs = 0;
    qint64 waitMs = 0;
    qint64 componentLeaseMs = 0;
    qint64 lockWaitMs = 0;  ///< calcLockWaitTime(waitMs), once per call as in Redisson
    qint64 remainMs = -1;   ///< -1 = no waiting
    qint64 lastMs = 0;      ///< clock reading of the last remainMs update
    int failedLimit = 0;    ///< failed components still allowed in this round
    int index = 0;          ///< the component tried next
    QVector<int> granted;   ///< components granted in this round
    QVector<int> uncertain; ///< components whose acquire got no reply: they may hold
    QElapsedTimer clock;
    QPointer<QObject> context;
    bool hasContext = false;
    Callback callback;
    MultiLockResult result;
};

MultiLock::MultiLock(Mode mode, const QVector<MultiLockComponent> &components, QObject *parent)
    : QObject(parent), m_mode(mode), m_components(components)
{
}

MultiLock::~MultiLock() = default;

int MultiLock::minLocksAmount() const
{
    const int n = static_cast<int>(m_components.size());
    return m_mode == Mode::RedLock ? n / 2 + 1 : n;
}

int MultiLock::failedLocksLimit() const
{
    return static_cast<int>(m_components.size()) - minLocksAmount();
}

qint64 MultiLock::lockWaitMs(qint64 remainMs) const
{
    if (m_mode == Mode::MultiLock || m_components.isEmpty())
        return remainMs;
    return qMax(remainMs / m_components.size(), qint64(1));
}

qint64 MultiLock::componentLeaseMs(qint64 leaseMs, qint64 waitMs)
{
    return leaseMs > 0 && waitMs > 0 ? 2 * waitMs : leaseMs;
}

QString MultiLock::serverOf(int index) const
{
    const MultiLockComponent &c = m_components.at(index);
    if (!c.server.isEmpty())
        return c.server;
    if (c.client && c.client->connection())
        return c.client->connection()->endpoint().address();
    return QStringLiteral("component %1").arg(index + 1);
}

std::shared_ptr<MultiLock::Run> MultiLock::newRun(qint64 threadId, QObject *context, Callback callback) const
{
    auto run = std::make_shared<Run>();
    run->threadId = threadId;
    run->context = context;
    run->hasContext = context != nullptr;
    run->callback = std::move(callback);
    run->clock.start();
    run->result.redLock = m_mode == Mode::RedLock;
    run->result.required = minLocksAmount();
    for (int i = 0; i < m_components.size(); ++i) {
        MultiLockComponentOutcome o;
        o.server = serverOf(i);
        o.name = m_components.at(i).name;
        run->result.components << o;
    }
    return run;
}

void MultiLock::acquire(qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context, Callback callback)
{
    const std::shared_ptr<Run> run = newRun(threadId, context, std::move(callback));
    run->leaseMs = leaseMs;
    run->waitMs = waitMs;
    run->componentLeaseMs = componentLeaseMs(leaseMs, waitMs);
    run->remainMs = waitMs > 0 ? waitMs : -1;
    run->lockWaitMs = lockWaitMs(run->remainMs);
    run->failedLimit = failedLocksLimit();
    run->result.leaseMs = leaseMs > 0 ? leaseMs : 0;
    run->result.rounds = 1;
    if (m_components.isEmpty() || m_busy) {
        const QString error = m_components.isEmpty()
                                  ? QStringLiteral("a MultiLock needs at least one component lock")
                                  : QStringLiteral("an acquire of this MultiLock is already running");
        QTimer::singleShot(0, this, [this, run, error] {
            run->result.error = error;
            if (run->callback && (!run->hasContext || run->context))
                run->callback(run->result);
        });
        return;
    }
    m_busy = true;
    step(run);
}

void MultiLock::step(const std::shared_ptr<Run> &run)
{
    if (run->index >= m_components.size()) {
        succeed(run);
        return;
    }
    const int index = run->index;
    const MultiLockComponent &c = m_components.at(index);
    auto done = [this, run, index](const AcquireResult &r) { onComponent(run, index, r); };
    if (!c.client || !c.client->connection()) {
        AcquireResult r;
        r.error = QStringLiteral("the lock client of this component (or its connection) is gone");
        QTimer::singleShot(0, this, [done, r] { done(r); });
        return;
    }
    // Redisson: tryLock() when neither wait nor lease is given, else tryLock(min(lockWaitTime,
    // remainTime), newLeaseTime); a wait <= 0 there means one attempt.
    const qint64 awaitMs = run->waitMs <= 0 && run->leaseMs <= 0 ? -1 : qMin(run->lockWaitMs, run->remainMs);
    if (awaitMs <= 0)
        c.client->tryAcquire(c.name, run->threadId, run->componentLeaseMs, this, done);
    else
        c.client->acquire(c.name, run->threadId, run->componentLeaseMs, awaitMs, this, done);
}

void MultiLock::onComponent(const std::shared_ptr<Run> &run, int index, const AcquireResult &r)
{
    MultiLockComponentOutcome &o = run->result.components[index];
    ++o.attempts;
    o.error = r.error;
    o.pttlMs = r.pttlMs;
    const int n = static_cast<int>(m_components.size());
    bool restart = false;
    if (r.acquired) {
        o.status = Status::Granted;
        run->granted << index;
    } else {
        o.status = r.error.isEmpty() ? Status::Refused : r.noReply ? Status::Unknown : Status::Error;
        if (o.status == Status::Unknown && !run->uncertain.contains(index))
            run->uncertain << index;                         // the script may have run before the reply was lost
        if (n - run->granted.size() == failedLocksLimit()) { // enough granted: stop here
            succeed(run);
            return;
        }
        if (run->failedLimit == 0)
            restart = true;
        else
            --run->failedLimit;
    }
    auto checkTimeAndGoOn = [this, run, restart] {
        if (run->remainMs > 0) {
            const qint64 now = run->clock.elapsed();
            run->remainMs -= now - run->lastMs;
            run->lastMs = now;
            if (run->remainMs <= 0) {
                releaseGranted(
                    run, [this, run] { fail(run, QStringLiteral("the wait time of %1 ms is over").arg(run->waitMs)); });
                return;
            }
        }
        if (!restart) {
            ++run->index;
            step(run);
            return;
        }
        // A new round: every component again, from the first one.
        QTimer::singleShot(static_cast<int>(qMin(kRoundPauseMs, qMax(run->remainMs, qint64(1)))), this, [this, run] {
            run->index = 0;
            run->failedLimit = failedLocksLimit();
            ++run->result.rounds; // components keep their last status until they are tried again
            step(run);
        });
    };
    if (!restart) {
        checkTimeAndGoOn();
        return;
    }
    releaseGranted(run, [this, run, checkTimeAndGoOn] {
        if (run->waitMs <= 0) {
            fail(run, QString());
            return;
        }
        checkTimeAndGoOn();
    });
}

void MultiLock::releaseGranted(const std::shared_ptr<Run> &run, std::function<void()> then)
{
    joinEach(run->granted, then, [this, run](int index, const std::function<void()> &done) {
        run->result.components[index].status = Status::Released;
        const MultiLockComponent &c = m_components.at(index);
        auto one = [run, index, done](const UnlockResult &u) {
            if (u.status == UnlockResult::Status::Error)
                run->result.components[index].error = QStringLiteral("release failed: %1").arg(u.error);
            done();
        };
        if (c.client && c.client->connection())
            c.client->unlock(c.name, run->threadId, this, one);
        else
            one(UnlockResult());
    });
}

void MultiLock::succeed(const std::shared_ptr<Run> &run)
{
    run->result.acquired = true;
    if (!(run->leaseMs > 0 && run->waitMs > 0)) {
        finish(run);
        return;
    }
    // Acquired with lease 2 x wait: now every component gets the lease asked for (§5.3).
    auto left = std::make_shared<int>(static_cast<int>(run->granted.size()));
    if (*left == 0) {
        finish(run);
        return;
    }
    for (int index : run->granted) {
        const MultiLockComponent &c = m_components.at(index);
        auto one = [this, run, left, index](const RedisReply &reply) {
            if (reply.isError())
                run->result.components[index].error =
                    QStringLiteral("PEXPIRE to the lease failed: %1").arg(reply.errorMessage());
            else if (reply.toInteger() != 1)
                run->result.components[index].error = QStringLiteral("PEXPIRE to the lease found no lock (it expired)");
            if (--*left == 0)
                finish(run);
        };
        if (c.client && c.client->connection())
            c.client->connection()->send({"PEXPIRE", RedisBytes::toBytes(c.name), QByteArray::number(run->leaseMs)},
                                         this, one);
        else
            one(RedisReply::makeError(QStringLiteral("the lock client of this component is gone"), true));
    }
}

void MultiLock::fail(const std::shared_ptr<Run> &run, const QString &error)
{
    run->result.acquired = false;
    if (!error.isEmpty()) {
        run->result.error = error;
    } else {
        int granted = 0;
        for (const auto &c : run->result.components)
            granted += c.status == Status::Released;
        run->result.error =
            QStringLiteral("%1 of %2 component locks granted, %3 needed%4")
                .arg(granted)
                .arg(m_components.size())
                .arg(minLocksAmount())
                .arg(granted > 0 ? QStringLiteral(" (the granted ones were released again)") : QString());
    }
    finish(run);
}

void MultiLock::releaseUncertain(const std::shared_ptr<Run> &run, std::function<void()> then)
{
    // A component acquired with the watchdog (lease <= 0) has its client's watchdog timeout; no
    // watchdog renews a hold whose acquire got no reply, so it ends by then.
    const qint64 leaseMs = run->componentLeaseMs > 0 ? run->componentLeaseMs : LockClient::kDefaultWatchdogTimeoutMs;
    joinEach(run->uncertain, then, [this, run, leaseMs](int index, const std::function<void()> &joined) {
        auto since = std::make_shared<QElapsedTimer>();
        since->start();
        auto attempt = std::make_shared<std::function<void()>>();
        *attempt = [this, run, index, joined, since, leaseMs, attempt] {
            const MultiLockComponent &c = m_components.at(index);
            MultiLockComponentOutcome &o = run->result.components[index];
            auto done = [joined, attempt] {
                *attempt = nullptr; // breaks the cycle
                joined();
            };
            if (!c.client) {
                o.error += QStringLiteral("; the compensating unlock could not be sent (the lock client is gone)");
                done();
                return;
            }
            c.client->unlock(
                c.name, run->threadId, this, [this, &o, since, leaseMs, attempt, done](const UnlockResult &u) {
                    if (u.status == UnlockResult::Status::Released || u.status == UnlockResult::Status::StillHeld) {
                        o.status = Status::Released;
                        o.error = QStringLiteral("its reply was lost, but it had taken the lock: released again");
                        done();
                    } else if (u.status == UnlockResult::Status::NotHeld) {
                        o.status = Status::Error;
                        o.error +=
                            QStringLiteral("; nothing of this holder was there afterwards (the acquire did not take "
                                           "it, or it expired)");
                        done();
                    } else if (u.transport && since->elapsed() + kCompensateRetryMs < leaseMs) {
                        // No answer yet: the connection reconnects by itself; try again.
                        QTimer::singleShot(int(kCompensateRetryMs), this, [attempt] {
                            if (*attempt)
                                (*attempt)();
                        });
                    } else {
                        o.error +=
                            QStringLiteral("; the compensating unlock got no answer (%1): a hold there ends with its "
                                           "lease, %2 ms after the acquire")
                                .arg(u.error)
                                .arg(leaseMs);
                        done();
                    }
                });
        };
        (*attempt)();
    });
}

void MultiLock::finish(const std::shared_ptr<Run> &run)
{
    if (!run->uncertain.isEmpty()) {
        // Every component that may hold is settled before anyone is told the outcome.
        releaseUncertain(run, [this, run] { finish(run); });
        return;
    }
    m_busy = false;
    run->result.elapsedMs = run->clock.elapsed();
    if (run->callback && (!run->hasContext || run->context))
        run->callback(run->result);
}

void MultiLock::unlock(qint64 threadId, QObject *context, Callback callback)
{
    const std::shared_ptr<Run> run = newRun(threadId, context, std::move(callback));
    auto left = std::make_shared<int>(static_cast<int>(m_components.size()));
    auto done = [run, left] {
        if (--*left > 0)
            return;
        QStringList failed;
        for (const auto &c : run->result.components)
            if (c.status == Status::Error)
                failed << QStringLiteral("%1: %2").arg(c.server, c.error);
        if (!failed.isEmpty())
            run->result.error = QStringLiteral("unlock failed on %1").arg(failed.join(QStringLiteral("; ")));
        run->result.elapsedMs = run->clock.elapsed();
        if (run->callback && (!run->hasContext || run->context))
            run->callback(run->result);
    };
    if (m_components.isEmpty()) {
        QTimer::singleShot(0, this, [left, done] {
            *left = 1;
            done();
        });
        return;
    }
    for (int i = 0; i < m_components.size(); ++i) {
        const MultiLockComponent &c = m_components.at(i);
        auto one = [run, i, done](const UnlockResult &u) {
            MultiLockComponentOutcome &o = run->result.components[i];
            ++o.attempts;
            switch (u.status) {
            case UnlockResult::Status::Released:
            case UnlockResult::Status::StillHeld:
                o.status = Status::Unlocked;
                break;
            case UnlockResult::Status::NotHeld:
                o.status = Status::NotHeld;
                break;
            case UnlockResult::Status::Error:
                o.status = Status::Error;
                break;
            }
            o.error = u.error;
            done();
        };
        if (c.client && c.client->connection()) {
            c.client->unlock(c.name, threadId, this, one);
        } else {
            UnlockResult u;
            u.error = QStringLiteral("the lock client of this component (or its connection) is gone");
            QTimer::singleShot(0, this, [one, u] { one(u); });
        }
    }
}

} // namespace lockscope
