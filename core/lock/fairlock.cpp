#include "fairlock.h"
#include "redis/redisbytes.h"

#include "lockacquisition.h"
#include "lockcalls.h"

#include "protocol/locknames.h"
#include "redis/redisconnection.h"

#include <QDateTime>

namespace lockscope
{

namespace
{

constexpr qint64 kPollInitialMs = 50;
constexpr qint64 kPollMaxMs = 1000;

qint64 nowEpochMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

/** KEYS of the acquire scripts (§3.2, §3.3): lock, waiter queue, timeout set. */
QList<QByteArray> lockKeys(const QString &name)
{
    return {RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::fairQueueKey(name)),
            RedisBytes::toBytes(LockNames::fairTimeoutKey(name))};
}

/** KEYS of acquireFailed (§3.4): waiter queue, timeout set. */
QList<QByteArray> queueKeys(const QString &name)
{
    return {RedisBytes::toBytes(LockNames::fairQueueKey(name)), RedisBytes::toBytes(LockNames::fairTimeoutKey(name))};
}

} // namespace

FairLock::FairLock(LockClient *client, QObject *parent)
    : LockVariant(client, parent), m_acquire(RedisScript::fromResource(QStringLiteral("fair_acquire"))),
      m_tryAcquire(RedisScript::fromResource(QStringLiteral("fair_try_acquire"))),
      m_acquireFailed(RedisScript::fromResource(QStringLiteral("fair_acquire_failed"))),
      m_unlock(RedisScript::fromResource(QStringLiteral("fair_unlock")))
{
}

FairLock::~FairLock() = default;

void FairLock::setWaitTimeoutMs(qint64 ms)
{
    m_waitTimeoutMs = ms > 0 ? ms : kDefaultWaitTimeoutMs;
}

QString FairLock::waiterChannel(const QString &name, const QString &holderField)
{
    return LockNames::unlockChannel(name) + QLatin1Char(':') + holderField;
}

void FairLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                          LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const qint64 lease = m_client->leaseFor(leaseMs);
    const QString field = m_client->holderField(threadId);
    QPointer<RedisConnection> conn(m_client->connection());
    m_tryAcquire.eval(conn, lockKeys(name),
                      {QByteArray::number(lease), RedisBytes::toBytes(field), QByteArray::number(nowEpochMs()),
                       QByteArray::number(m_waitTimeoutMs)},
                      context,
                      [conn, context, name,
                       done = LockCalls::noteAcquiredThen(m_client, name, field, lease, leaseMs <= 0,
                                                          std::move(callback))](const RedisReply &r) {
                          AcquireResult result;
                          if (r.isError()) {
                              result.error = r.errorMessage();
                          } else if (r.isNil()) {
                              result.acquired = true;
                          } else if (conn) {
                              // The no-wait script answers 1, not a TTL: read the TTL for the caller.
                              conn->send({"PTTL", RedisBytes::toBytes(name)}, context, [done](const RedisReply &ttl) {
                                  AcquireResult notAcquired;
                                  notAcquired.pttlMs = ttl.isError() ? -2 : ttl.toInteger(-2);
                                  done(notAcquired);
                              });
                              return;
                          }
                          done(result);
                      });
}

void FairLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                       LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const bool watch = leaseMs <= 0;
    const qint64 lease = m_client->leaseFor(leaseMs);
    const qint64 wait = effectiveWaitMs(waitMs);
    const QString field = m_client->holderField(threadId);
    QPointer<LockClient> client(m_client);

    LockAcquisition::Steps steps;
    // The waiting variant (§3.2): enqueues on the first miss with deadline ttl + wait + now.
    steps.attempt = [this, client, name, field, lease, wait, watch](QObject *attemptContext,
                                                                    LockClient::AcquireCallback done) {
        if (!client || !client->connection()) {
            AcquireResult r;
            r.error = LockCalls::notConnectedMessage();
            done(r);
            return;
        }
        m_acquire.eval(client->connection(), lockKeys(name),
                       {QByteArray::number(lease), RedisBytes::toBytes(field), QByteArray::number(wait),
                        QByteArray::number(nowEpochMs())},
                       attemptContext,
                       [done = LockCalls::noteAcquiredThen(client, name, field, lease, watch, std::move(done))](
                           const RedisReply &r) { done(LockCalls::acquireResult(r)); });
    };
    steps.channel = RedisBytes::toBytes(waiterChannel(name, field));
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
        script.eval(client->connection(), queueKeys(name), {RedisBytes::toBytes(field), QByteArray::number(wait)},
                    giveUpContext, std::move(onReply));
    };
    steps.releaseOrphan = [this, name, threadId] { unlock(name, threadId, nullptr, nullptr); };
    LockAcquisition::start(this, m_client, waitMs, context, std::move(callback), std::move(steps));
}

void FairLock::acquireFailed(const QString &name, qint64 threadId, qint64 waitMs, QObject *context,
                             LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_acquireFailed.eval(
        m_client->connection(), queueKeys(name),
        {RedisBytes::toBytes(m_client->holderField(threadId)), QByteArray::number(effectiveWaitMs(waitMs))}, context,
        [callback](const RedisReply &r) {
            if (callback)
                callback(!r.isError(), r.errorMessage());
        });
}

void FairLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const QString field = m_client->holderField(threadId);
    LockCalls::runUnlock(m_unlock, m_client->connection(), name, field,
                         {RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::fairQueueKey(name)),
                          RedisBytes::toBytes(LockNames::fairTimeoutKey(name)),
                          RedisBytes::toBytes(LockNames::unlockChannel(name))},
                         {"0", QByteArray::number(m_client->unlockLeaseMs(name, field)), RedisBytes::toBytes(field),
                          QByteArray::number(nowEpochMs()), m_client->publishCommand()},
                         context, LockCalls::noteUnlockedThen(m_client, name, field, std::move(callback)));
}

void FairLock::forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    forceUnlockByData(name, context, std::move(callback));
}

QByteArray FairLock::waitChannel(const QString &name, qint64 threadId) const
{
    return RedisBytes::toBytes(waiterChannel(name, holderField(threadId)));
}

LockKindDescriptor FairLock::descriptor()
{
    LockKindDescriptor d = kindDescriptor(
        AcquireKind::Fair, QStringLiteral("fair"), QT_TRANSLATE_NOOP("LockKinds", "&Fair"),
        QT_TRANSLATE_NOOP(
            "LockKinds",
            "Fair lock (getFairLock): waits in the queue behind earlier waiters, woken on its own channel"),
        &makeKind<FairLock>);
    d.foundAs = LockKind::FairLock;
    d.waitChannel = LockKindDescriptor::WaitChannel::PerWaiterChannel;
    d.protocolSection = "§3";
    return d;
}

} // namespace lockscope
