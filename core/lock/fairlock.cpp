#include "fairlock.h"

#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTimer>

#include <limits>

namespace lockscope {

namespace {

constexpr qint64 kPollInitialMs = 50;
constexpr qint64 kPollMaxMs = 1000;

qint64 nowEpochMs() { return QDateTime::currentMSecsSinceEpoch(); }

QString leaseKey(const QString &name, const QString &field) { return name + QLatin1Char('\n') + field; }

/** Runs `fn` from the event loop (never re-entrantly), unless `context` died meanwhile. */
void later(QObject *context, std::function<void()> fn)
{
    QPointer<QObject> ctx(context);
    const bool hasContext = context != nullptr;
    QTimer::singleShot(0, [ctx, hasContext, fn = std::move(fn)] {
        if (!hasContext || ctx)
            fn();
    });
}

QString notConnected() { return QStringLiteral("lock client has no Redis connection"); }

QString notHeldMessage(const QString &field)
{
    const int colon = field.indexOf(QLatin1Char(':'));
    return QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: %2")
        .arg(field.left(colon), field.mid(colon + 1));
}

int timerMs(qint64 ms) { return static_cast<int>(qBound(qint64(1), ms, qint64(std::numeric_limits<int>::max()))); }

} // namespace

/**
 * One waiting fair acquire (§3.2, §3.7): attempt (enqueues on the first miss), listen on the
 * per-waiter channel, retry on "0"/"1" or on a timer well before the waiter's deadline, and leave
 * the queue (acquireFailed, §3.4) when the wait is over or the caller's context died. Deletes
 * itself after finishing. Keeps its own copies of the scripts, so it can still leave the queue
 * from its destructor after the FairLock is gone.
 */
class FairLock::Acquisition : public QObject
{
public:
    Acquisition(FairLock *lock, const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                QObject *context, LockClient::AcquireCallback callback)
        : QObject(lock), m_lock(lock), m_client(lock->client()), m_acquire(lock->m_acquire),
          m_acquireFailed(lock->m_acquireFailed), m_name(name), m_field(lock->client()->holderField(threadId)),
          m_threadId(threadId), m_leaseMs(leaseMs), m_waitMs(waitMs), m_wait(lock->effectiveWaitMs(waitMs)),
          m_lease(lock->leaseFor(leaseMs)), m_context(context), m_hasContext(context != nullptr),
          m_callback(std::move(callback)), m_channel(FairLock::waiterChannel(name, m_field).toUtf8())
    {
        m_retryTimer.setParent(this);
        m_retryTimer.setSingleShot(true);
        connect(&m_retryTimer, &QTimer::timeout, this, [this] { attempt(); });
        if (context)
            connect(context, &QObject::destroyed, this, [this] { cancel(); });
    }

    ~Acquisition() override
    {
        if (m_subscribed && m_client)
            m_client->releaseChannel(m_channel);
        // Destroyed mid-wait (the FairLock or the client went away): do not stay queued.
        if (!m_done && m_client && m_client->connection())
            m_acquireFailed.eval(m_client->connection(), queueKeys(), {m_field.toUtf8(), QByteArray::number(m_wait)},
                                 nullptr, nullptr);
    }

    void start()
    {
        m_clock.start();
        attempt();
    }

private:
    QList<QByteArray> queueKeys() const
    {
        return {LockNames::fairQueueKey(m_name).toUtf8(), LockNames::fairTimeoutKey(m_name).toUtf8()};
    }

    qint64 remainingMs() const
    {
        if (m_waitMs < 0)
            return std::numeric_limits<qint64>::max();
        return m_waitMs - m_clock.elapsed();
    }

    void attempt()
    {
        if (m_done)
            return;
        if (!m_lock || !m_client || !m_client->connection()) {
            AcquireResult r;
            r.error = notConnected();
            finish(r);
            return;
        }
        if (m_attemptInFlight) {
            m_retryWanted = true; // woken during an attempt: try once more after it
            return;
        }
        m_attemptInFlight = true;
        const QByteArray name = m_name.toUtf8();
        m_acquire.eval(m_client->connection(),
                       {name, LockNames::fairQueueKey(m_name).toUtf8(), LockNames::fairTimeoutKey(m_name).toUtf8()},
                       {QByteArray::number(m_lease), m_field.toUtf8(), QByteArray::number(m_wait),
                        QByteArray::number(nowEpochMs())},
                       this, [this](const RedisReply &r) { onReply(r); });
    }

    void onReply(const RedisReply &r)
    {
        m_attemptInFlight = false;
        if (r.isError()) {
            AcquireResult result;
            result.error = r.errorMessage();
            leaveQueueAndFinish(result); // best effort: we may have been enqueued by an earlier attempt
            return;
        }
        if (r.isNil()) {
            if (m_lock)
                m_lock->noteAcquired(m_name, m_field, m_lease, m_leaseMs <= 0);
            if (m_cancelled && m_lock) // nobody is left to use it
                m_lock->unlock(m_name, m_threadId, nullptr, nullptr);
            AcquireResult result;
            result.acquired = true;
            finish(result);
            return;
        }
        m_lastTtl = r.toInteger(-2);
        const qint64 remaining = remainingMs();
        if (m_cancelled || remaining <= 0) {
            AcquireResult result;
            result.pttlMs = m_lastTtl;
            leaveQueueAndFinish(result);
            return;
        }
        subscribe();
        if (m_retryWanted) {
            m_retryWanted = false;
            m_retryTimer.start(0);
            return;
        }
        qint64 delay;
        if (m_lastTtl > 0) {
            delay = m_lastTtl;
            m_pollMs = kPollInitialMs;
        } else {
            // Free but not our turn, or held with no expiry: the head is woken by a message, we
            // poll gently in case that message never comes.
            delay = m_pollMs;
            m_pollMs = qMin(m_pollMs * 2, kPollMaxMs);
        }
        // Retry well before our own deadline (ttl + wait + now at enqueue, moved up by others).
        delay = qMin(qMin(delay, remaining), qMax<qint64>(1, m_wait / 2));
        m_retryTimer.start(timerMs(delay));
    }

    void subscribe()
    {
        if (m_subscribed || !m_client || !m_client->subscriber())
            return;
        m_subscribed = true;
        RedisSubscriber *sub = m_client->subscriber();
        connect(sub, &RedisSubscriber::message, this,
                [this](const QByteArray &channel, const QByteArray &payload, const QByteArray &) {
                    if (channel == m_channel && (payload == "0" || payload == "1"))
                        attempt();
                });
        // Retry once the subscription is confirmed: a release between the attempt and the
        // SUBSCRIBE would otherwise go unnoticed until the timer.
        connect(sub, &RedisSubscriber::subscribed, this, [this](const QByteArray &channel) {
            if (channel == m_channel)
                attempt();
        });
        m_client->retainChannel(m_channel);
    }

    void cancel()
    {
        if (m_done || m_cancelled)
            return;
        m_cancelled = true;
        m_retryTimer.stop();
        if (!m_attemptInFlight)
            leaveQueueAndFinish(AcquireResult());
        // else: onReply() finishes (and unlocks a lock won in that race)
    }

    void leaveQueueAndFinish(const AcquireResult &result)
    {
        if (m_done)
            return;
        m_retryTimer.stop();
        if (!m_client || !m_client->connection()) {
            finish(result);
            return;
        }
        m_acquireFailed.eval(m_client->connection(), queueKeys(), {m_field.toUtf8(), QByteArray::number(m_wait)}, this,
                             [this, result](const RedisReply &) { finish(result); });
    }

    void finish(const AcquireResult &result)
    {
        if (m_done)
            return;
        m_done = true;
        m_retryTimer.stop();
        if (m_callback && !m_cancelled && (!m_hasContext || m_context))
            m_callback(result);
        deleteLater();
    }

    QPointer<FairLock> m_lock;
    QPointer<LockClient> m_client;
    RedisScript m_acquire;
    RedisScript m_acquireFailed;
    QString m_name;
    QString m_field;
    qint64 m_threadId;
    qint64 m_leaseMs;
    qint64 m_waitMs;
    qint64 m_wait;
    qint64 m_lease;
    QPointer<QObject> m_context;
    bool m_hasContext;
    LockClient::AcquireCallback m_callback;
    QByteArray m_channel;
    bool m_subscribed = false;
    bool m_attemptInFlight = false;
    bool m_retryWanted = false;
    bool m_cancelled = false;
    bool m_done = false;
    qint64 m_lastTtl = -2;
    qint64 m_pollMs = kPollInitialMs;
    QElapsedTimer m_clock;
    QTimer m_retryTimer;
};

FairLock::FairLock(LockClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_acquire(RedisScript::fromResource(QStringLiteral("fair_acquire"))),
      m_tryAcquire(RedisScript::fromResource(QStringLiteral("fair_try_acquire"))),
      m_acquireFailed(RedisScript::fromResource(QStringLiteral("fair_acquire_failed"))),
      m_unlock(RedisScript::fromResource(QStringLiteral("fair_unlock")))
{
}

FairLock::~FairLock() = default;

void FairLock::setWaitTimeoutMs(qint64 ms) { m_waitTimeoutMs = ms > 0 ? ms : kDefaultWaitTimeoutMs; }

QString FairLock::waiterChannel(const QString &name, const QString &holderField)
{
    return LockNames::unlockChannel(name) + QLatin1Char(':') + holderField;
}

qint64 FairLock::leaseFor(qint64 leaseMs) const
{
    if (leaseMs > 0)
        return leaseMs;
    return m_client ? m_client->watchdogTimeoutMs() : LockClient::kDefaultWatchdogTimeoutMs;
}

void FairLock::noteAcquired(const QString &name, const QString &field, qint64 lease, bool useWatchdog)
{
    m_leaseMs.insert(leaseKey(name, field), lease);
    if (useWatchdog && m_client)
        m_client->watchdog()->add(name, field);
}

void FairLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                          LockClient::AcquireCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            AcquireResult r;
            r.error = notConnected();
            if (callback)
                callback(r);
        });
        return;
    }
    const qint64 lease = leaseFor(leaseMs);
    const QString field = m_client->holderField(threadId);
    QPointer<FairLock> self(this);
    QPointer<RedisConnection> conn(m_client->connection());
    m_tryAcquire.eval(conn, {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()},
                      {QByteArray::number(lease), field.toUtf8(), QByteArray::number(nowEpochMs()),
                       QByteArray::number(m_waitTimeoutMs)},
                      context, [self, conn, context, name, field, lease, leaseMs, callback](const RedisReply &r) {
                          AcquireResult result;
                          if (r.isError()) {
                              result.error = r.errorMessage();
                          } else if (r.isNil()) {
                              result.acquired = true;
                              if (self)
                                  self->noteAcquired(name, field, lease, leaseMs <= 0);
                          } else if (conn) {
                              // The no-wait script answers 1, not a TTL: read the TTL for the caller.
                              conn->send({"PTTL", name.toUtf8()}, context, [callback](const RedisReply &ttl) {
                                  AcquireResult notAcquired;
                                  notAcquired.pttlMs = ttl.isError() ? -2 : ttl.toInteger(-2);
                                  if (callback)
                                      callback(notAcquired);
                              });
                              return;
                          }
                          if (callback)
                              callback(result);
                      });
}

void FairLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                       LockClient::AcquireCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            AcquireResult r;
            r.error = notConnected();
            if (callback)
                callback(r);
        });
        return;
    }
    auto *a = new Acquisition(this, name, threadId, leaseMs, waitMs, context, std::move(callback));
    a->start();
}

void FairLock::acquireFailed(const QString &name, qint64 threadId, qint64 waitMs, QObject *context,
                             LockClient::BoolCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            if (callback)
                callback(false, notConnected());
        });
        return;
    }
    m_acquireFailed.eval(m_client->connection(),
                         {LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()},
                         {m_client->holderField(threadId).toUtf8(), QByteArray::number(effectiveWaitMs(waitMs))},
                         context, [callback](const RedisReply &r) {
                             if (callback)
                                 callback(!r.isError(), r.errorMessage());
                         });
}

void FairLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            UnlockResult r;
            r.error = notConnected();
            if (callback)
                callback(r);
        });
        return;
    }
    const QByteArray latch = LockClient::newUnlockLatchKey(name).toUtf8();
    const QString field = m_client->holderField(threadId);
    const qint64 lease = m_leaseMs.value(leaseKey(name, field), m_client->watchdogTimeoutMs());
    QPointer<FairLock> self(this);
    QPointer<RedisConnection> conn(m_client->connection());
    m_unlock.eval(conn,
                  {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8(),
                   LockNames::unlockChannel(name).toUtf8(), latch},
                  {"0", QByteArray::number(lease), field.toUtf8(), QByteArray::number(nowEpochMs()),
                   m_client->publishCommand(), QByteArray::number(LockClient::kUnlockLatchTtlMs)},
                  context, [self, conn, name, field, latch, callback](const RedisReply &r) {
                      UnlockResult result;
                      if (r.isError()) {
                          result.error = r.errorMessage();
                      } else {
                          if (conn)
                              conn->send({"DEL", latch}); // fire-and-forget, as Redisson does
                          if (r.isNil()) {
                              result.status = UnlockResult::Status::NotHeld;
                              result.error = notHeldMessage(field);
                          } else if (r.toInteger() == 1) {
                              result.status = UnlockResult::Status::Released;
                          } else {
                              result.status = UnlockResult::Status::StillHeld;
                          }
                          if (self && result.status != UnlockResult::Status::StillHeld) {
                              self->m_leaseMs.remove(leaseKey(name, field));
                              if (self->m_client)
                                  self->m_client->watchdog()->remove(name);
                          }
                      }
                      if (callback)
                          callback(result);
                  });
}

} // namespace lockscope
