#include "reentrantlock.h"

#include "lockcalls.h"

namespace lockscope
{

ReentrantLock::ReentrantLock(LockClient *client, QObject *parent) : LockVariant(client, parent) {}

ReentrantLock::~ReentrantLock() = default;

void ReentrantLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                            LockClient::AcquireCallback callback)
{
    if (LockCalls::failIfDisconnected(m_client, context, callback))
        return;
    m_client->acquire(name, threadId, leaseMs, waitMs, context, std::move(callback));
}

LockKindDescriptor ReentrantLock::descriptor()
{
    LockKindDescriptor d = kindDescriptor(
        AcquireKind::Lock, QStringLiteral("lock"), QT_TRANSLATE_NOOP("LockKinds", "&Lock"),
        QT_TRANSLATE_NOOP("LockKinds", "Reentrant lock (Redisson getLock): one holder, re-entered by the same thread"),
        &makeKind<ReentrantLock>);
    d.protocolSection = "§2";
    return d;
}

} // namespace lockscope
