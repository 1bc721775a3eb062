#include "readwritelock.h"

#include "lockacquisition.h"
#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"


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

QString notHeldMessage(const QString &field)
{
    const int colon = field.indexOf(QLatin1Char(':'));
    return QStringLiteral("attempt to unlock lock, not locked by current thread by node id: %1 thread-id: %2")
        .arg(field.left(colon), field.mid(colon + 1));
}

int timerMs(qint64 ms) { return static_cast<int>(qBound(qint64(1), ms, qint64(std::numeric_limits<int>::max()))); }

UnlockResult unlockResultFrom(const RedisReply &r, const QString &field)
{
    UnlockResult result;
    if (r.isError()) {
        result.error = r.errorMessage();
    } else if (r.isNil()) {
        result.status = UnlockResult::Status::NotHeld;
        result.error = notHeldMessage(field);
    } else if (r.toInteger() == 1) {
        result.status = UnlockResult::Status::Released;
    } else {
        result.status = UnlockResult::Status::StillHeld;
    }
    return result;
}

} // namespace

ReadWriteLock::ReadWriteLock(LockClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_readAcquire(RedisScript::fromResource(QStringLiteral("rw_read_acquire"))),
      m_readUnlock(RedisScript::fromResource(QStringLiteral("rw_read_unlock"))),
      m_writeAcquire(RedisScript::fromResource(QStringLiteral("rw_write_acquire"))),
      m_writeUnlock(RedisScript::fromResource(QStringLiteral("rw_write_unlock"))),
      m_readRenew(RedisScript::fromResource(QStringLiteral("rw_read_renew"))),
      m_renew(RedisScript::fromResource(QStringLiteral("lock_renew")))
{
    m_readRenewTimer.setParent(this);
    connect(&m_readRenewTimer, &QTimer::timeout, this, &ReadWriteLock::renewWatchedReads);
}

ReadWriteLock::~ReadWriteLock() = default;

QString ReadWriteLock::channel(const QString &name)
{
    return LockNames::prefixName(QStringLiteral("redisson_rwlock"), name);
}

QString ReadWriteLock::timeoutPrefix(const QString &name, const QString &holderField)
{
    return LockNames::suffixName(name, holderField) + QStringLiteral(":rwlock_timeout");
}

QString ReadWriteLock::keyPrefix(const QString &name)
{
    // suffixName(name, x) is keyPrefix + ":" + x.
    return name.contains(QLatin1Char('{')) ? name : QLatin1Char('{') + name + QLatin1Char('}');
}

QString ReadWriteLock::writerField(qint64 threadId) const
{
    return m_client ? m_client->holderField(threadId) + QStringLiteral(":write") : QString();
}

qint64 ReadWriteLock::leaseFor(qint64 leaseMs) const
{
    if (leaseMs > 0)
        return leaseMs;
    return m_client ? m_client->watchdogTimeoutMs() : LockClient::kDefaultWatchdogTimeoutMs;
}

void ReadWriteLock::tryAcquireRead(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
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
    QPointer<ReadWriteLock> self(this);
    m_readAcquire.eval(m_client->connection(), {name.toUtf8(), timeoutPrefix(name, field).toUtf8()},
                       {QByteArray::number(lease), field.toUtf8(), (field + QStringLiteral(":write")).toUtf8()},
                       context, [self, name, threadId, leaseMs, callback](const RedisReply &r) {
                           AcquireResult result;
                           if (r.isError()) {
                               result.error = r.errorMessage();
                           } else if (r.isNil()) {
                               result.acquired = true;
                               if (self && leaseMs <= 0)
                                   self->watchRead(name, threadId);
                           } else {
                               result.pttlMs = r.toInteger(-2);
                           }
                           if (callback)
                               callback(result);
                       });
}

void ReadWriteLock::acquireRead(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                                QObject *context, LockClient::AcquireCallback callback)
{
    acquire(false, name, threadId, leaseMs, waitMs, context, std::move(callback));
}

void ReadWriteLock::unlockRead(const QString &name, qint64 threadId, QObject *context,
                               LockClient::UnlockCallback callback)
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
    QPointer<ReadWriteLock> self(this);
    QPointer<RedisConnection> conn(m_client->connection());
    m_readUnlock.eval(conn,
                      {name.toUtf8(), channel(name).toUtf8(), timeoutPrefix(name, field).toUtf8(),
                       keyPrefix(name).toUtf8(), latch},
                      {"0", field.toUtf8(), m_client->publishCommand(),
                       QByteArray::number(LockClient::kUnlockLatchTtlMs)},
                      context, [self, conn, name, threadId, field, latch, callback](const RedisReply &r) {
                          const UnlockResult result = unlockResultFrom(r, field);
                          if (!r.isError() && conn)
                              conn->send({"DEL", latch}); // fire-and-forget, as Redisson does
                          if (self) {
                              if (result.status == UnlockResult::Status::Released)
                                  self->m_readWatch.remove(name); // hash deleted: nobody holds it
                              else if (result.status != UnlockResult::Status::Error)
                                  self->unwatchRead(name, threadId, result.status == UnlockResult::Status::NotHeld);
                          }
                          if (callback)
                              callback(result);
                      });
}

void ReadWriteLock::tryAcquireWrite(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
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
    const QString field = writerField(threadId);
    QPointer<ReadWriteLock> self(this);
    m_writeAcquire.eval(m_client->connection(), {name.toUtf8()}, {QByteArray::number(lease), field.toUtf8()}, context,
                        [self, name, field, lease, leaseMs, callback](const RedisReply &r) {
                            AcquireResult result;
                            if (r.isError()) {
                                result.error = r.errorMessage();
                            } else if (r.isNil()) {
                                result.acquired = true;
                                if (self) {
                                    self->m_writeLeaseMs.insert(leaseKey(name, field), lease);
                                    if (leaseMs <= 0 && self->m_client)
                                        self->m_client->watchdog()->add(name, field);
                                }
                            } else {
                                result.pttlMs = r.toInteger(-2);
                            }
                            if (callback)
                                callback(result);
                        });
}

void ReadWriteLock::acquireWrite(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                                 QObject *context, LockClient::AcquireCallback callback)
{
    acquire(true, name, threadId, leaseMs, waitMs, context, std::move(callback));
}

void ReadWriteLock::acquire(bool write, const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                            QObject *context, LockClient::AcquireCallback callback)
{
    // §1.5 on the channel shared by both halves; a hold won after the caller's context died is
    // released again.
    LockAcquisition::Steps steps;
    steps.attempt = [this, write, name, threadId, leaseMs](QObject *attemptContext, LockClient::AcquireCallback done) {
        if (write)
            tryAcquireWrite(name, threadId, leaseMs, attemptContext, std::move(done));
        else
            tryAcquireRead(name, threadId, leaseMs, attemptContext, std::move(done));
    };
    steps.channel = channel(name).toUtf8();
    steps.wakeMessages = {"0", "1"};
    steps.releaseOrphan = [this, write, name, threadId] {
        if (write)
            unlockWrite(name, threadId, nullptr, nullptr);
        else
            unlockRead(name, threadId, nullptr, nullptr);
    };
    LockAcquisition::start(this, m_client, waitMs, context, std::move(callback), std::move(steps));
}

void ReadWriteLock::unlockWrite(const QString &name, qint64 threadId, QObject *context,
                                LockClient::UnlockCallback callback)
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
    const QString field = writerField(threadId);
    const qint64 lease = m_writeLeaseMs.value(leaseKey(name, field), m_client->watchdogTimeoutMs());
    QPointer<ReadWriteLock> self(this);
    QPointer<RedisConnection> conn(m_client->connection());
    m_writeUnlock.eval(conn, {name.toUtf8(), channel(name).toUtf8(), latch},
                       {"1", QByteArray::number(lease), field.toUtf8(), m_client->publishCommand(),
                        QByteArray::number(LockClient::kUnlockLatchTtlMs)},
                       context, [self, conn, name, field, latch, callback](const RedisReply &r) {
                           const UnlockResult result = unlockResultFrom(r, field);
                           if (!r.isError() && conn)
                               conn->send({"DEL", latch}); // fire-and-forget, as Redisson does
                           if (self && result.status != UnlockResult::Status::StillHeld &&
                               result.status != UnlockResult::Status::Error) {
                               self->m_writeLeaseMs.remove(leaseKey(name, field));
                               if (self->m_client)
                                   self->m_client->watchdog()->remove(name);
                           }
                           if (callback)
                               callback(result);
                       });
}

void ReadWriteLock::renewWrite(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                               LockClient::BoolCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            if (callback)
                callback(false, notConnected());
        });
        return;
    }
    m_renew.eval(m_client->connection(), {name.toUtf8()},
                 {QByteArray::number(leaseFor(leaseMs)), writerField(threadId).toUtf8()}, context,
                 [callback](const RedisReply &r) {
                     if (!callback)
                         return;
                     if (r.isError())
                         callback(false, r.errorMessage());
                     else
                         callback(r.at(0).toInteger() == 1, QString());
                 });
}

void ReadWriteLock::renewRead(const QString &name, const QList<qint64> &threadIds, qint64 leaseMs, QObject *context,
                              LockClient::BoolCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            if (callback)
                callback(false, notConnected());
        });
        return;
    }
    QList<QByteArray> args{QByteArray::number(leaseFor(leaseMs)), QByteArray::number(threadIds.size())};
    for (qint64 t : threadIds)
        args << m_client->holderField(t).toUtf8();
    m_readRenew.eval(m_client->connection(), {name.toUtf8(), keyPrefix(name).toUtf8()}, args, context,
                     [callback](const RedisReply &r) {
                         if (!callback)
                             return;
                         if (r.isError())
                             callback(false, r.errorMessage());
                         else
                             callback(r.at(0).toInteger() == 1, QString());
                     });
}

void ReadWriteLock::watchRead(const QString &name, qint64 threadId)
{
    ++m_readWatch[name][threadId];
    if (!m_readRenewTimer.isActive() && m_client)
        m_readRenewTimer.start(timerMs(m_client->watchdogTimeoutMs() / 3));
}

void ReadWriteLock::unwatchRead(const QString &name, qint64 threadId, bool allHolds)
{
    auto it = m_readWatch.find(name);
    if (it == m_readWatch.end())
        return;
    auto t = it->find(threadId);
    if (t == it->end())
        return;
    if (allHolds || --t.value() <= 0)
        it->erase(t);
    if (it->isEmpty())
        m_readWatch.erase(it);
    if (m_readWatch.isEmpty())
        m_readRenewTimer.stop();
}

void ReadWriteLock::renewWatchedReads()
{
    if (m_readWatch.isEmpty() || !m_client || !m_client->connection()) {
        m_readRenewTimer.stop();
        return;
    }
    // Follow changes of the watchdog timeout, as the client's LockWatchdog does.
    m_readRenewTimer.setInterval(timerMs(m_client->watchdogTimeoutMs() / 3));
    QPointer<ReadWriteLock> self(this);
    for (auto it = m_readWatch.cbegin(); it != m_readWatch.cend(); ++it) {
        const QString name = it.key();
        renewRead(name, it->keys(), 0, this, [self, name](bool ok, const QString &error) {
            if (!self)
                return;
            if (!error.isEmpty()) {
                emit self->readWatchdogError(error); // retried next tick
            } else if (ok) {
                emit self->readWatchdogRenewed({name});
            } else {
                self->m_readWatch.remove(name);
                if (self->m_readWatch.isEmpty())
                    self->m_readRenewTimer.stop();
                emit self->readWatchdogLost(name);
            }
        });
    }
}

} // namespace lockscope
