#include "readwritelock.h"
#include "readlock.h"
#include "redis/redisbytes.h"
#include "writelock.h"

#include "lockcalls.h"

#include "protocol/locknames.h"
#include "redis/redisconnection.h"

namespace lockscope
{

ReadWriteLock *ReadWriteLock::of(LockClient *client, QObject *parent)
{
    if (parent) {
        const auto existing = parent->findChildren<ReadWriteLock *>(Qt::FindDirectChildrenOnly);
        for (ReadWriteLock *rw : existing)
            if (rw->client() == client)
                return rw;
    }
    return new ReadWriteLock(client, parent);
}

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

ReadLock *ReadWriteLock::readLock()
{
    if (!m_readLock)
        m_readLock = new ReadLock(this);
    return m_readLock;
}

WriteLock *ReadWriteLock::writeLock()
{
    if (!m_writeLock)
        m_writeLock = new WriteLock(this);
    return m_writeLock;
}

QString ReadWriteLock::channel(const QString &name)
{
    return LockNames::readWriteChannel(name);
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

void ReadWriteLock::tryAcquireRead(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                                   LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const QString field = m_client->holderField(threadId);
    QPointer<ReadWriteLock> self(this);
    m_readAcquire.eval(m_client->connection(),
                       {RedisBytes::toBytes(name), RedisBytes::toBytes(timeoutPrefix(name, field))},
                       {QByteArray::number(m_client->leaseFor(leaseMs)), RedisBytes::toBytes(field),
                        RedisBytes::toBytes((field + QStringLiteral(":write")))},
                       context, [self, name, threadId, leaseMs, callback](const RedisReply &r) {
                           const AcquireResult result = LockCalls::acquireResult(r);
                           if (result.acquired && self && leaseMs <= 0)
                               self->watchRead(name, threadId);
                           if (callback)
                               callback(result);
                       });
}

void ReadWriteLock::acquireRead(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                                LockClient::AcquireCallback callback)
{
    readLock()->acquire(name, threadId, leaseMs, waitMs, context, std::move(callback));
}

void ReadWriteLock::unlockRead(const QString &name, qint64 threadId, QObject *context,
                               LockClient::UnlockCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const QString field = m_client->holderField(threadId);
    QPointer<ReadWriteLock> self(this);
    LockCalls::runUnlock(m_readUnlock, m_client->connection(), name, field,
                         {RedisBytes::toBytes(name), RedisBytes::toBytes(channel(name)),
                          RedisBytes::toBytes(timeoutPrefix(name, field)), RedisBytes::toBytes(keyPrefix(name))},
                         {"0", RedisBytes::toBytes(field), m_client->publishCommand()}, context,
                         [self, name, threadId, callback](const UnlockResult &result) {
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
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const qint64 lease = m_client->leaseFor(leaseMs);
    const QString field = writerField(threadId);
    m_writeAcquire.eval(
        m_client->connection(), {RedisBytes::toBytes(name)}, {QByteArray::number(lease), RedisBytes::toBytes(field)},
        context,
        [done = LockCalls::noteAcquiredThen(m_client, name, field, lease, leaseMs <= 0, std::move(callback))](
            const RedisReply &r) { done(LockCalls::acquireResult(r)); });
}

void ReadWriteLock::acquireWrite(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                                 LockClient::AcquireCallback callback)
{
    writeLock()->acquire(name, threadId, leaseMs, waitMs, context, std::move(callback));
}

void ReadWriteLock::unlockWrite(const QString &name, qint64 threadId, QObject *context,
                                LockClient::UnlockCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const QString field = writerField(threadId);
    LockCalls::runUnlock(m_writeUnlock, m_client->connection(), name, field,
                         {RedisBytes::toBytes(name), RedisBytes::toBytes(channel(name))},
                         {"1", QByteArray::number(m_client->unlockLeaseMs(name, field)), RedisBytes::toBytes(field),
                          m_client->publishCommand()},
                         context, LockCalls::noteUnlockedThen(m_client, name, field, std::move(callback)));
}

void ReadWriteLock::renewWrite(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                               LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_renew.eval(m_client->connection(), {RedisBytes::toBytes(name)},
                 {QByteArray::number(m_client->leaseFor(leaseMs)), RedisBytes::toBytes(writerField(threadId))}, context,
                 LockCalls::renewReply(std::move(callback)));
}

void ReadWriteLock::renewRead(const QString &name, const QList<qint64> &threadIds, qint64 leaseMs, QObject *context,
                              LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    QList<QByteArray> args{QByteArray::number(m_client->leaseFor(leaseMs)), QByteArray::number(threadIds.size())};
    for (qint64 t : threadIds)
        args << RedisBytes::toBytes(m_client->holderField(t));
    m_readRenew.eval(m_client->connection(), {RedisBytes::toBytes(name), RedisBytes::toBytes(keyPrefix(name))}, args,
                     context, LockCalls::renewReply(std::move(callback)));
}

void ReadWriteLock::watchRead(const QString &name, qint64 threadId)
{
    ++m_readWatch[name][threadId];
    if (!m_readRenewTimer.isActive() && m_client)
        m_readRenewTimer.start(LockCalls::timerMs(m_client->watchdogTimeoutMs() / 3));
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
    m_readRenewTimer.setInterval(LockCalls::timerMs(m_client->watchdogTimeoutMs() / 3));
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
