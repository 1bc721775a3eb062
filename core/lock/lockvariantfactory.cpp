#include "lockvariantfactory.h"

#include "fairlock.h"
#include "fencedlock.h"
#include "readlock.h"
#include "readwritelock.h"
#include "reentrantlock.h"
#include "spinlock.h"
#include "writelock.h"

namespace lockscope
{

namespace
{

/** The ReadWriteLock on `client` among `parent`'s direct children, made when there is none. */
ReadWriteLock *readWriteLockOf(LockClient *client, QObject *parent)
{
    if (parent) {
        const auto existing = parent->findChildren<ReadWriteLock *>(Qt::FindDirectChildrenOnly);
        for (ReadWriteLock *rw : existing)
            if (rw->client() == client)
                return rw;
    }
    return new ReadWriteLock(client, parent);
}

} // namespace

LockVariant *LockVariantFactory::create(AcquireKind kind, LockClient *client, QObject *parent)
{
    switch (kind) {
    case AcquireKind::Fair:
        return new FairLock(client, parent);
    case AcquireKind::Read:
        return readWriteLockOf(client, parent)->readLock();
    case AcquireKind::Write:
        return readWriteLockOf(client, parent)->writeLock();
    case AcquireKind::Fenced:
        return new FencedLock(client, parent);
    case AcquireKind::Spin:
        return new SpinLock(client, parent);
    case AcquireKind::Auto:
    case AcquireKind::Lock:
        break;
    }
    return new ReentrantLock(client, parent);
}

QList<AcquireKind> LockVariantFactory::kinds()
{
    return {AcquireKind::Lock,  AcquireKind::Fair,   AcquireKind::Read,
            AcquireKind::Write, AcquireKind::Fenced, AcquireKind::Spin};
}

} // namespace lockscope
