#pragma once

#include "protocol/acquireplan.h"

#include <QList>

class QObject;

namespace lockscope
{

class LockClient;
class LockVariant;

/**
 * Makes the LockVariant of a lock kind: the one place that maps an AcquireKind to its class
 * (Lock and Auto: ReentrantLock; Fair: FairLock; Read / Write: ReadWriteLock::readLock() /
 * writeLock(); Fenced: FencedLock; Spin: SpinLock). Adding a kind is its class and one line here.
 */
class LockVariantFactory
{
public:
    LockVariantFactory() = delete;

    /**
     * A new variant of `kind` on `client` (which must outlive it), owned by `parent`. The read
     * and write halves share one ReadWriteLock per client and parent (a direct child of `parent`,
     * made on first use), as the halves of one Redisson RReadWriteLock do; asking for Read or
     * Write again returns that same half. Never null.
     */
    static LockVariant *create(AcquireKind kind, LockClient *client, QObject *parent);
    /** Every kind create() knows, Auto excepted, in AcquireKind order. */
    static QList<AcquireKind> kinds();
};

} // namespace lockscope
