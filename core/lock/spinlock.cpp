#include "spinlock.h"

#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTimer>

#include <limits>

namespace lockscope {

namespace {

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

int timerMs(qint64 ms) { return static_cast<int>(qBound(qint64(1), ms, qint64(std::numeric_limits<int>::max()))); }

} // namespace

/**
 * One polling spin acquire (Redisson RedissonSpinLock.lock/tryLock with
 * LockOptions.ExponentialBackOff defaults): attempt, sleep the next backoff period, repeat until
 * acquired or the wait is over. Deletes itself after finishing.
 */
class SpinLock::Acquisition : public QObject
{
public:
    Acquisition(SpinLock *lock, const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                LockClient::AcquireCallback callback)
        : QObject(lock), m_lock(lock), m_name(name), m_threadId(threadId), m_leaseMs(leaseMs), m_waitMs(waitMs),
          m_context(context), m_hasContext(context != nullptr), m_callback(std::move(callback))
    {
        m_retryTimer.setParent(this);
        m_retryTimer.setSingleShot(true);
        connect(&m_retryTimer, &QTimer::timeout, this, [this] { attempt(); });
        if (context)
            connect(context, &QObject::destroyed, this, [this] { cancel(); });
    }

    void start()
    {
        m_clock.start();
        attempt();
    }

private:
    qint64 remainingMs() const
    {
        if (m_waitMs < 0)
            return std::numeric_limits<qint64>::max();
        return m_waitMs - m_clock.elapsed();
    }

    /** Exponential backoff: returns the current period, then grows it x2 plus 0..fails-1 ms. */
    qint64 nextSleepMs()
    {
        if (m_nextSleepMs >= kBackoffMaxMs)
            return kBackoffMaxMs;
        const qint64 sleep = m_nextSleepMs;
        ++m_fails;
        m_nextSleepMs = qMin(kBackoffMaxMs, m_nextSleepMs * kBackoffMultiplier +
                                                QRandomGenerator::global()->bounded(static_cast<int>(m_fails)));
        return sleep;
    }

    void attempt()
    {
        if (m_done)
            return;
        if (!m_lock) {
            AcquireResult r;
            r.error = notConnected();
            finish(r);
            return;
        }
        m_attemptInFlight = true;
        m_lock->tryAcquire(m_name, m_threadId, m_leaseMs, this, [this](const AcquireResult &r) { onResult(r); });
    }

    void onResult(const AcquireResult &r)
    {
        m_attemptInFlight = false;
        if (r.acquired) {
            if (m_cancelled && m_lock) // nobody is left to use it
                m_lock->unlock(m_name, m_threadId, nullptr, nullptr);
            finish(r);
            return;
        }
        const qint64 remaining = remainingMs();
        if (!r.error.isEmpty() || m_cancelled || remaining <= 0) {
            finish(r);
            return;
        }
        m_retryTimer.start(timerMs(qMin(nextSleepMs(), remaining)));
    }

    void cancel()
    {
        if (m_done || m_cancelled)
            return;
        m_cancelled = true;
        m_retryTimer.stop();
        if (!m_attemptInFlight)
            finish(AcquireResult());
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

    QPointer<SpinLock> m_lock;
    QString m_name;
    qint64 m_threadId;
    qint64 m_leaseMs;
    qint64 m_waitMs;
    QPointer<QObject> m_context;
    bool m_hasContext;
    LockClient::AcquireCallback m_callback;
    bool m_attemptInFlight = false;
    bool m_cancelled = false;
    bool m_done = false;
    qint64 m_nextSleepMs = kBackoffInitialMs;
    qint64 m_fails = 0;
    QElapsedTimer m_clock;
    QTimer m_retryTimer;
};

SpinLock::SpinLock(LockClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_acquire(RedisScript::fromResource(QStringLiteral("lock_acquire"))),
      m_unlock(RedisScript::fromResource(QStringLiteral("spin_unlock")))
{
}

SpinLock::~SpinLock() = default;

void SpinLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
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
    const bool useWatchdog = leaseMs <= 0;
    const qint64 lease = useWatchdog ? m_client->watchdogTimeoutMs() : leaseMs;
    const QString field = m_client->holderField(threadId);
    QPointer<SpinLock> self(this);
    m_acquire.eval(m_client->connection(), {name.toUtf8()}, {QByteArray::number(lease), field.toUtf8()}, context,
                   [self, name, field, lease, useWatchdog, callback](const RedisReply &r) {
                       AcquireResult result;
                       if (r.isError()) {
                           result.error = r.errorMessage();
                       } else if (r.isNil()) {
                           result.acquired = true;
                           if (self) {
                               self->m_leaseMs.insert(leaseKey(name, field), lease);
                               if (useWatchdog && self->m_client)
                                   self->m_client->watchdog()->add(name, field);
                           }
                       } else {
                           result.pttlMs = r.toInteger(-2);
                       }
                       if (callback)
                           callback(result);
                   });
}

void SpinLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                       LockClient::AcquireCallback callback)
{
    auto *a = new Acquisition(this, name, threadId, leaseMs, waitMs, context, std::move(callback));
    a->start();
}

void SpinLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
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
    QPointer<SpinLock> self(this);
    QPointer<RedisConnection> conn(m_client->connection());
    m_unlock.eval(conn, {name.toUtf8(), latch},
                  {QByteArray::number(lease), field.toUtf8(), QByteArray::number(LockClient::kUnlockLatchTtlMs)},
                  context, [self, conn, name, field, latch, callback](const RedisReply &r) {
                      UnlockResult result;
                      if (r.isError()) {
                          result.error = r.errorMessage();
                      } else {
                          if (conn)
                              conn->send({"DEL", latch}); // fire-and-forget, as Redisson does
                          if (r.isNil()) {
                              result.status = UnlockResult::Status::NotHeld;
                              const int colon = field.indexOf(QLatin1Char(':'));
                              result.error = QStringLiteral("attempt to unlock lock, not locked by current thread by "
                                                            "node id: %1 thread-id: %2")
                                                 .arg(field.left(colon), field.mid(colon + 1));
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
