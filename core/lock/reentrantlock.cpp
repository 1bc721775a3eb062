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
    LockKindDescriptor d;
    d.kind = AcquireKind::Lock;
    d.word = QStringLiteral("lock");
    d.label = QT_TRANSLATE_NOOP("LockKinds", "&Lock");
    d.toolTip =
        QT_TRANSLATE_NOOP("LockKinds", "Reentrant lock (Redisson getLock): one holder, re-entered by the same thread");
    d.offered = true;
    d.foundAs = LockKind::Lock;
    d.holderField = LockKindDescriptor::HolderField::ClientThread;
    d.waitChannel = LockKindDescriptor::WaitChannel::LockChannel;
    d.protocolSection = "§2";
    d.make = [](LockClient *client, QObject *parent) -> LockVariant * { return new ReentrantLock(client, parent); };
    return d;
}

} // namespace lockscope
