#include "fencedlock.h"
#include "redis/redisbytes.h"

#include "lockcalls.h"

#include "protocol/locknames.h"
#include "redis/redisconnection.h"

namespace lockscope
{

FencedLock::FencedLock(LockClient *client, QObject *parent)
    : LockVariant(client, parent), m_acquire(RedisScript::fromResource(QStringLiteral("fenced_acquire")))
{
}

FencedLock::~FencedLock() = default;

void FencedLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                            LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    const qint64 lease = m_client->leaseFor(leaseMs);
    const QString field = m_client->holderField(threadId);
    m_acquire.eval(m_client->connection(), {RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::tokenKey(name))},
                   {QByteArray::number(lease), RedisBytes::toBytes(field)}, context,
                   [done = LockCalls::noteAcquiredThen(m_client, name, field, lease, leaseMs <= 0,
                                                       std::move(callback))](const RedisReply &r) {
                       AcquireResult result;
                       if (r.isError()) {
                           result.error = r.errorMessage();
                       } else if (!r.isArray() || r.size() != 2) {
                           result.error = QStringLiteral("unexpected fenced acquire reply: %1").arg(r.debugString());
                       } else if (r.at(1).toInteger(-1) != -1) {
                           // Decide by the token, not by the first element: a lock held with no
                           // expiry answers {-1 (its PTTL), -1}.
                           result.acquired = true;
                           result.token = r.at(1).toInteger(-1);
                       } else {
                           result.pttlMs = r.at(0).toInteger(-2);
                       }
                       done(result);
                   });
}

void FencedLock::token(const QString &name, QObject *context, std::function<void(qint64)> callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->connection()->send({"GET", RedisBytes::toBytes(LockNames::tokenKey(name))}, context,
                                 [callback](const RedisReply &r) {
                                     if (!callback)
                                         return;
                                     if (r.isError())
                                         callback(-1);
                                     else
                                         callback(r.isNil() ? 0 : r.toInteger(-1));
                                 });
}

LockKindDescriptor FencedLock::descriptor()
{
    LockKindDescriptor d = kindDescriptor(
        AcquireKind::Fenced, QStringLiteral("fenced"), QT_TRANSLATE_NOOP("LockKinds", "F&enced"),
        QT_TRANSLATE_NOOP("LockKinds", "Fenced lock (getFencedLock): each acquire takes the next fencing token"),
        &makeKind<FencedLock>);
    d.foundAs = LockKind::FencedLock;
    d.protocolSection = "§5.2";
    return d;
}

} // namespace lockscope
