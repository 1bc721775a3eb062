#pragma once

namespace lockscope
{

/**
 * Which Redisson client (and which half of a read-write lock) LockScope takes a hold with: the
 * kind of a LockVariant (core/lock), made by LockVariantFactory. An id: every fact about a kind
 * (its word, label, the data it leaves, its class) is in its LockKindDescriptor, registered with
 * LockKinds. The named values are the shipped kinds, which AcquirePlan's rules name; a kind
 * registered without a value of its own here gets one past Spin from LockKinds::add().
 * How it relates to LockKind (what a snapshot found) and MultiLock::Mode: see
 * LockKindDescriptor.
 */
enum class AcquireKind {
    Auto,   ///< the kind the data says; `lock` for a free name (not allowed on a read-write lock)
    Lock,   ///< RLock (LockClient, protocol §2)
    Fair,   ///< RedissonFairLock (FairLock, §3): respects the waiter queue, waits on its own channel
    Read,   ///< RedissonReadLock (ReadWriteLock read half, §4.2)
    Write,  ///< RedissonWriteLock (ReadWriteLock write half, §4.4)
    Fenced, ///< RedissonFencedLock (FencedLock, §5.2): INCRs the token counter
    /** RedissonSpinLock (SpinLock): the RLock's data, waiters poll instead of subscribing. The
     *  front ends do not offer it (its descriptor says so): LockScope's own acquire has no reason
     *  to take one; the workshop and the lock tests do. */
    Spin
};

} // namespace lockscope
