#include "lockvariant.h"

#include "lockcalls.h"
#include "lockwatchdog.h"

#include "protocol/locknames.h"
#include "redis/redisbytes.h"
#include "redis/redisreply.h"
#include "redis/redisscript.h"

#include <QDateTime>

namespace lockscope
{

LockVariant::LockVariant(LockClient *client, QObject *parent) : QObject(parent), m_client(client) {}

LockVariant::~LockVariant() = default;

QString LockVariant::holderField(qint64 threadId) const
{
    return m_client ? m_client->holderField(threadId) : QString();
}

void LockVariant::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                             LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->tryAcquire(name, threadId, leaseMs, context, std::move(callback));
}

void LockVariant::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->unlock(name, threadId, context, std::move(callback));
}

LockAcquisition::Steps LockVariant::waitSteps(const QString &name, qint64 threadId, qint64 leaseMs)
{
    LockAcquisition::Steps steps;
    steps.attempt = [this, name, threadId, leaseMs](QObject *attemptContext, LockClient::AcquireCallback done) {
        tryAcquire(name, threadId, leaseMs, attemptContext, std::move(done));
    };
    steps.channel = waitChannel(name, threadId);
    if (!steps.channel.isEmpty())
        steps.wakeMessages = {"0", "1"};
    steps.releaseOrphan = [this, name, threadId] { unlock(name, threadId, nullptr, nullptr); };
    return steps;
}

void LockVariant::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                          LockClient::AcquireCallback callback)
{
    LockAcquisition::start(this, m_client, waitMs, context, std::move(callback), waitSteps(name, threadId, leaseMs));
}

void LockVariant::renew(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                        LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->renew(name, threadId, leaseMs, context, std::move(callback));
}

void LockVariant::forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->forceUnlock(name, context, std::move(callback));
}

QByteArray LockVariant::waitChannel(const QString &name, qint64) const
{
    return RedisBytes::toBytes(LockNames::unlockChannel(name));
}

LockKindDescriptor LockVariant::kindDescriptor(AcquireKind kind, const QString &word, const char *label,
                                               const char *toolTip, LockKindDescriptor::MakeVariant make)
{
    LockKindDescriptor d;
    d.kind = kind;
    d.word = word;
    d.label = label;
    d.toolTip = toolTip;
    d.make = make;
    return d;
}

void LockVariant::forceUnlockByData(const QString &name, QObject *context, LockClient::BoolCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    static const RedisScript script = RedisScript::fromResource(QStringLiteral("force_unlock"));
    m_client->watchdog()->remove(name);
    const QList<QByteArray> keys{RedisBytes::toBytes(name), RedisBytes::toBytes(LockNames::unlockChannel(name)),
                                 RedisBytes::toBytes(LockNames::fairQueueKey(name)),
                                 RedisBytes::toBytes(LockNames::fairTimeoutKey(name)),
                                 RedisBytes::toBytes(LockNames::readWriteChannel(name))};
    // "now" for pruning expired fair waiters is this client's clock, as in Redisson.
    const QList<QByteArray> args{QByteArray::number(QDateTime::currentMSecsSinceEpoch()), m_client->publishCommand(),
                                 "0", QByteArray()};
    script.eval(m_client->connection(), keys, args, context, [callback](const RedisReply &r) {
        if (!callback)
            return;
        if (r.isError())
            callback(false, r.errorMessage());
        else if (!r.isArray() || r.size() < 1)
            callback(false, QStringLiteral("unexpected force unlock reply: %1").arg(r.debugString()));
        else
            callback(r.at(0).toInteger() == 1, QString());
    });
}

} // namespace lockscope
