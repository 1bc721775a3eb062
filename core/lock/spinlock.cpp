#include "spinlock.h"

#include "lockacquisition.h"
#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"

#include <QRandomGenerator>
#include <QTimer>

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

} // namespace

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
    // Redisson RedissonSpinLock.lock/tryLock with the LockOptions.ExponentialBackOff defaults: no
    // channel, just the next backoff period between attempts.
    LockAcquisition::Steps steps;
    steps.attempt = [this, name, threadId, leaseMs](QObject *attemptContext, LockClient::AcquireCallback done) {
        tryAcquire(name, threadId, leaseMs, attemptContext, std::move(done));
    };
    // Exponential backoff: the current period, which then grows x2 plus 0..fails-1 ms.
    steps.retryDelay = [next = kBackoffInitialMs, fails = qint64(0)](const AcquireResult &, bool) mutable {
        if (next >= kBackoffMaxMs)
            return kBackoffMaxMs;
        const qint64 sleep = next;
        ++fails;
        next = qMin(kBackoffMaxMs,
                    next * kBackoffMultiplier + QRandomGenerator::global()->bounded(static_cast<int>(fails)));
        return sleep;
    };
    steps.releaseOrphan = [this, name, threadId] { unlock(name, threadId, nullptr, nullptr); };
    LockAcquisition::start(this, m_client, waitMs, context, std::move(callback), std::move(steps));
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
