#include "lockvariantfactory.h"

#include "fairlock.h"
#include "fencedlock.h"
#include "readlock.h"
#include "readwritelock.h"
#include "reentrantlock.h"
#include "spinlock.h"
#include "writelock.h"

#include "protocol/lockkinds.h"

namespace lockscope
{

// The one place the shipped kinds register (declared in protocol/lockkinds.h, called by
// LockKinds on first use). A new kind: its class pair with its descriptor(), and one line here.
QList<LockKindDescriptor> shippedLockKinds()
{
    return {ReentrantLock::descriptor(), FairLock::descriptor(),   ReadLock::descriptor(),
            WriteLock::descriptor(),     FencedLock::descriptor(), SpinLock::descriptor()};
}

LockVariant *LockVariantFactory::create(AcquireKind kind, LockClient *client, QObject *parent)
{
    const LockKindDescriptor *d = LockKinds::find(kind == AcquireKind::Auto ? AcquireKind::Lock : kind);
    return d ? d->make(client, parent) : new ReentrantLock(client, parent);
}

QList<AcquireKind> LockVariantFactory::kinds()
{
    QList<AcquireKind> out;
    for (const LockKindDescriptor &d : LockKinds::all())
        out << d.kind;
    return out;
}

} // namespace lockscope
