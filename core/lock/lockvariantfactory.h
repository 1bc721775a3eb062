#pragma once

#include "protocol/acquireplan.h"

#include <QList>

class QObject;

namespace lockscope
{

class LockClient;
class LockVariant;

/**
 * Makes the LockVariant of a lock kind, with the `make` of the kind's LockKindDescriptor as
 * registered with LockKinds (Lock and Auto: ReentrantLock; Fair: FairLock; Read / Write:
 * ReadWriteLock::readLock() / writeLock(); Fenced: FencedLock; Spin: SpinLock; a kind registered
 * later: its own class). The shipped kinds register in shippedLockKinds() (lockvariantfactory.cpp):
 * adding a kind is its class pair, with its `static LockKindDescriptor descriptor()`, and one
 * line there. Code that holds variants (LockHolds, the workshop) never names a kind's class.
 */
class LockVariantFactory
{
public:
    LockVariantFactory() = delete;

    /**
     * A new variant of `kind` on `client` (which must outlive it), owned by `parent`. The read
     * and write halves share one ReadWriteLock per client and parent (a direct child of `parent`,
     * made on first use), as the halves of one Redisson RReadWriteLock do; asking for Read or
     * Write again returns that same half. An id nobody registered gives a ReentrantLock. Never
     * null.
     */
    static LockVariant *create(AcquireKind kind, LockClient *client, QObject *parent);
    /** Every registered kind (LockKinds::all()), Auto excepted: the shipped ones in AcquireKind
     *  order, then any registered later. */
    static QList<AcquireKind> kinds();
};

} // namespace lockscope
