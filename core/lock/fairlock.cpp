#include "fairlock.h"

#include "lockacquisition.h"
#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"

#include <QDateTime>
#include <QTimer>

namespace lockscope {

namespace {

constexpr qint64 kPollInitialMs = 50;
constexpr qint64 kPollMaxMs = 1000;

qint64 nowEpochMs() { return QDateTime::currentMSecsSinceEpoch(); }

QString leaseKey(const QString &name, const QString &field) { return name + QLatin1Char('\n') + field; }

/** KEYS of acquireFailed (§3.4): waiter queue, timeout set. */
QList<QByteArray> queueKeys(const QString &name)
{
    return {LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()};
}

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

} // namespace

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
    const bool watch = leaseMs <= 0;
    const qint64 lease = leaseFor(leaseMs);
    const qint64 wait = effectiveWaitMs(waitMs);
    const QString field = m_client->holderField(threadId);
    QPointer<LockClient> client(m_client);

    LockAcquisition::Steps steps;
    // The waiting variant (§3.2): enqueues on the first miss with deadline ttl + wait + now.
    steps.attempt = [this, client, name, field, lease, wait, watch](QObject *attemptContext,
                                                                    LockClient::AcquireCallback done) {
        if (!client || !client->connection()) {
            AcquireResult r;
            r.error = notConnected();
            done(r);
            return;
        }
        QPointer<FairLock> self(this);
        m_acquire.eval(client->connection(),
                       {name.toUtf8(), LockNames::fairQueueKey(name).toUtf8(), LockNames::fairTimeoutKey(name).toUtf8()},
                       {QByteArray::number(lease), field.toUtf8(), QByteArray::number(wait),
                        QByteArray::number(nowEpochMs())},
                       attemptContext, [self, name, field, lease, watch, done](const RedisReply &r) {
                           AcquireResult result;
                           if (r.isError()) {
                               result.error = r.errorMessage();
                           } else if (r.isNil()) {
                               result.acquired = true;
                               if (self)
                                   self->noteAcquired(name, field, lease, watch);
                           } else {
                               result.pttlMs = r.toInteger(-2);
                           }
                           done(result);
                       });
    };
    steps.channel = waiterChannel(name, field).toUtf8();
    steps.wakeMessages = {"0", "1"};
    steps.retryDelay = [wait, pollMs = kPollInitialMs](const AcquireResult &last, bool) mutable {
        qint64 delay;
        if (last.pttlMs > 0) {
            delay = last.pttlMs;
            pollMs = kPollInitialMs;
        } else {
            // Free but not our turn, or held with no expiry: the head is woken by a message, we
            // poll gently in case that message never comes.
            delay = pollMs;
            pollMs = qMin(pollMs * 2, kPollMaxMs);
        }
        // Retry well before our own deadline (ttl + wait + now at enqueue, moved up by others).
        return qMin(delay, qMax<qint64>(1, wait / 2));
    };
    // Leave the queue (§3.4) on timeout, error or a destroyed context; with its own copy of the
    // script, so it also works from the acquisition's destructor after this FairLock is gone.
    steps.giveUp = [client, script = m_acquireFailed, name, field, wait](QObject *giveUpContext,
                                                                         std::function<void()> done) {
        if (!client || !client->connection()) {
            if (done)
                done();
            return;
        }
        RedisConnection::ReplyCallback onReply;
        if (done)
            onReply = [done](const RedisReply &) { done(); };
        script.eval(client->connection(), queueKeys(name), {field.toUtf8(), QByteArray::number(wait)}, giveUpContext,
                    std::move(onReply));
    };
    steps.releaseOrphan = [this, name, threadId] { unlock(name, threadId, nullptr, nullptr); };
    LockAcquisition::start(this, m_client, waitMs, context, std::move(callback), std::move(steps));
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
    m_acquireFailed.eval(m_client->connection(), queueKeys(name),
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
