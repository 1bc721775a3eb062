#pragma once

#include "protocol/locksnapshot.h"

#include <QString>

#include <optional>

namespace lockscope
{

/** Which Redisson client (and which half of a read-write lock) LockScope takes a hold with: the
 *  kind of a LockVariant (core/lock), made by LockVariantFactory. */
enum class AcquireKind {
    Auto,   ///< the kind the data says; `lock` for a free name (not allowed on a read-write lock)
    Lock,   ///< RLock (LockClient, protocol §2)
    Fair,   ///< RedissonFairLock (FairLock, §3): respects the waiter queue, waits on its own channel
    Read,   ///< RedissonReadLock (ReadWriteLock read half, §4.2)
    Write,  ///< RedissonWriteLock (ReadWriteLock write half, §4.4)
    Fenced, ///< RedissonFencedLock (FencedLock, §5.2): INCRs the token counter
    /** RedissonSpinLock (SpinLock): the RLock's data, waiters poll instead of subscribing. The
     *  front ends do not offer it (parseKind() does not know "spin"): LockScope's own acquire
     *  has no reason to take one; the workshop and the lock tests do. */
    Spin
};

/**
 * Decides, from the lock's data as re-read just before a write, which client an acquire by
 * LockScope must use (protocol §14.1), and refuses a kind that contradicts the data with a
 * sentence saying what is there. Pure: no I/O, usable by the session, the CLI and the dialog.
 *
 * What the data says (LockSnapshot from SnapshotReader):
 * - hash with `mode` read/write: a read-write lock; only `read` or `write` (no `auto`: the
 *   operator must choose, since an RLock-style acquire treats it as its own and its release
 *   deletes the readers' holds);
 * - a waiter queue or timeout set (also when the hash is absent): a fair lock; `auto`/`fair`
 *   (anything else would jump the queue);
 * - RLock-shaped hash with the token counter `redisson_lock_token:{name}`, or only that counter:
 *   a fenced lock; `auto`/`fenced`;
 * - RLock-shaped hash without token: a reentrant lock, or a fair lock whose queue is empty (the
 *   data cannot tell): `auto`/`lock`/`fair`;
 * - a hash that is not lock-shaped, or a key of another type: refused whatever the kind;
 * - nothing at all: a free name, any kind (`auto` = `lock`).
 */
class AcquirePlan
{
public:
    /** The CLI / audit names: "auto", "lock", "fair", "read", "write", "fenced" (and "spin"). */
    static QString kindName(AcquireKind kind);
    /** Inverse of kindName() (case-insensitive) for the kinds the front ends offer (not "spin");
     *  nullopt for anything else. */
    static std::optional<AcquireKind> parseKind(const QString &name);

    /** The plan for acquiring `s.name` as `requested`. `s` must be a snapshot of that name. */
    static AcquirePlan decide(const LockSnapshot &s, AcquireKind requested);
    /** What the data says, as a phrase: "a read-write lock, held for reading by 2 readers",
     *  "a fair lock with 3 queued waiters", "a free name", ... */
    static QString describe(const LockSnapshot &s);
    /** The kind an acquire of `s` takes without a choice (Auto resolved); Auto when the operator
     *  must choose (read-write lock) or nothing may be acquired. */
    static AcquireKind dataKind(const LockSnapshot &s);

    /** The resolved kind (never Auto unless refused). */
    AcquireKind kind = AcquireKind::Auto;
    /** Non-empty when refused: a sentence that says what is there and what to do, the kinds
     *  named in the front end's words (AdviceWords: "--kind fair" on the CLI). */
    QString refusal;
    bool isRefused() const { return !refusal.isEmpty(); }
};

} // namespace lockscope
