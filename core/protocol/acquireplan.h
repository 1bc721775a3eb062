#pragma once

#include "protocol/acquirekind.h"
#include "protocol/locksnapshot.h"

#include <QString>

#include <optional>

namespace lockscope
{

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
 * Which kind fits which data follows from each kind's LockKindDescriptor::foundAs (what a
 * snapshot of its hold finds), so a registered kind is judged like the shipped kind whose data
 * it leaves; a kind id nobody registered is refused.
 */
class AcquirePlan
{
public:
    /** The CLI / audit names: "auto", or the kind's LockKindDescriptor::word from LockKinds
     *  ("lock", "fair", "read", "write", "fenced", "spin", and any registered kind's); empty for
     *  an id nobody registered. */
    static QString kindName(AcquireKind kind);
    /** Inverse of kindName() (case-insensitive) for "auto" and the kinds the front ends offer
     *  (LockKindDescriptor::offered: not "spin"); nullopt for anything else. */
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
