#include "lockclient.h"

#include "lockacquisition.h"
#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QRandomGenerator>
#include <QUuid>

namespace lockscope {

LockClient::LockClient(RedisConnection *connection, RedisSubscriber *subscriber, QObject *parent,
                       const QString &clientId)
    : QObject(parent), m_connection(connection), m_subscriber(subscriber),
      m_clientId(clientId.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : clientId),
      m_acquire(RedisScript::fromResource(QStringLiteral("lock_acquire"))),
      m_unlock(RedisScript::fromResource(QStringLiteral("lock_unlock"))),
      m_renew(RedisScript::fromResource(QStringLiteral("lock_renew"))),
      m_forceUnlock(RedisScript::fromResource(QStringLiteral("lock_force_unlock")))
{
    m_watchdog = new LockWatchdog(connection, kDefaultWatchdogTimeoutMs, this);
    connect(m_watchdog, &LockWatchdog::renewed, this, &LockClient::watchdogRenewed);
    connect(m_watchdog, &LockWatchdog::lost, this, &LockClient::watchdogLost);
}

LockClient::~LockClient() = default;

QString LockClient::holderField(qint64 threadId) const
{
    return m_clientId + QLatin1Char(':') + QString::number(threadId);
}

QString LockClient::newUnlockLatchKey(const QString &name)
{
    QByteArray requestId(16, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(requestId.data()), 4);
    return LockNames::unlockLatchKey(name, QString::fromLatin1(requestId.toHex()));
}

void LockClient::rememberLease(const QString &name, qint64 threadId, qint64 leaseMs)
{
    m_leaseMs.insert(name + QLatin1Char('\n') + holderField(threadId), leaseMs > 0 ? leaseMs : m_watchdog->timeoutMs());
}

void LockClient::setWatchdogTimeoutMs(qint64 ms) { m_watchdog->setTimeoutMs(ms); }
qint64 LockClient::watchdogTimeoutMs() const { return m_watchdog->timeoutMs(); }

void LockClient::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                            AcquireCallback callback)
{
    const bool useWatchdog = leaseMs <= 0;
    const qint64 lease = useWatchdog ? m_watchdog->timeoutMs() : leaseMs;
    const QString field = holderField(threadId);
    QPointer<LockClient> self(this);
    m_acquire.eval(m_connection, {name.toUtf8()}, {QByteArray::number(lease), field.toUtf8()}, context,
                   [self, name, field, lease, useWatchdog, callback](const RedisReply &r) {
                       AcquireResult result;
                       if (r.isError()) {
                           result.error = r.errorMessage();
                       } else if (r.isNil()) {
                           result.acquired = true;
                           if (self) {
                               self->m_leaseMs.insert(name + QLatin1Char('\n') + field, lease);
                               if (useWatchdog)
                                   self->m_watchdog->add(name, field);
                           }
                       } else {
                           result.pttlMs = r.toInteger(-2);
                       }
                       if (callback)
                           callback(result);
                   });
}

void LockClient::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                         AcquireCallback callback)
{
    LockAcquisition::Steps steps;
    steps.attempt = [this, name, threadId, leaseMs](QObject *attemptContext, AcquireCallback done) {
        tryAcquire(name, threadId, leaseMs, attemptContext, std::move(done));
    };
    steps.channel = LockNames::unlockChannel(name).toUtf8();
    LockAcquisition::start(this, this, waitMs, context, std::move(callback), std::move(steps));
}

void LockClient::unlock(const QString &name, qint64 threadId, QObject *context, UnlockCallback callback)
{
    const QByteArray latch = newUnlockLatchKey(name).toUtf8();
    const QString field = holderField(threadId);
    QPointer<LockClient> self(this);
    QPointer<RedisConnection> conn(m_connection);
    // Redisson passes internalLockLeaseTime: the lease of the acquire, or the watchdog timeout.
    const qint64 lease = m_leaseMs.value(name + QLatin1Char('\n') + field, m_watchdog->timeoutMs());
    m_unlock.eval(m_connection, {name.toUtf8(), LockNames::unlockChannel(name).toUtf8(), latch},
                  {"0", QByteArray::number(lease), field.toUtf8(), m_publishCommand,
                   QByteArray::number(kUnlockLatchTtlMs)},
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
                              self->m_watchdog->remove(name);
                              self->m_leaseMs.remove(name + QLatin1Char('\n') + field);
                          }
                      }
                      if (callback)
                          callback(result);
                  });
}

void LockClient::renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context, BoolCallback callback)
{
    const qint64 lease = leaseMs > 0 ? leaseMs : m_watchdog->timeoutMs();
    m_renew.eval(m_connection, {name.toUtf8()}, {QByteArray::number(lease), holderField(threadId).toUtf8()}, context,
                 [callback](const RedisReply &r) {
                     if (!callback)
                         return;
                     if (r.isError())
                         callback(false, r.errorMessage());
                     else
                         callback(r.at(0).toInteger() == 1, QString());
                 });
}

void LockClient::forceUnlock(const QString &name, QObject *context, BoolCallback callback)
{
    m_watchdog->remove(name);
    m_forceUnlock.eval(m_connection, {name.toUtf8(), LockNames::unlockChannel(name).toUtf8()},
                       {"0", m_publishCommand}, context, [callback](const RedisReply &r) {
                           if (!callback)
                               return;
                           if (r.isError())
                               callback(false, r.errorMessage());
                           else
                               callback(r.toInteger() == 1, QString());
                       });
}

void LockClient::holdCount(const QString &name, qint64 threadId, QObject *context, std::function<void(qint64)> callback)
{
    m_connection->send({"HGET", name.toUtf8(), holderField(threadId).toUtf8()}, context,
                       [callback](const RedisReply &r) {
                           if (callback)
                               callback(r.isNil() || r.isError() ? 0 : r.toInteger());
                       });
}

void LockClient::retainChannel(const QByteArray &channel)
{
    if (m_channelRefs[channel]++ == 0 && m_subscriber)
        m_subscriber->subscribe(channel);
}

void LockClient::releaseChannel(const QByteArray &channel)
{
    auto it = m_channelRefs.find(channel);
    if (it == m_channelRefs.end())
        return;
    if (--it.value() <= 0) {
        m_channelRefs.erase(it);
        if (m_subscriber)
            m_subscriber->unsubscribe(channel);
    }
}

} // namespace lockscope
