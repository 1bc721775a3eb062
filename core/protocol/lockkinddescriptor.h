#pragma once

#include "protocol/acquirekind.h"
#include "protocol/locksnapshot.h"

#include <QString>

class QObject;

namespace lockscope
{

class LockClient;
class LockVariant;

/**
 * Everything LockScope knows about one lock kind it can take a hold with, in one record: its
 * words, how the front ends show it, the Redis data a hold of it leaves, and how to make its
 * client. LockKinds keeps the registered ones; each kind's class in core/lock gives its own
 * (`FairLock::descriptor()`, ...), and lock/lockvariantfactory.cpp registers the shipped ones.
 *
 * Who reads what: AcquirePlan (`word` for kindName/parseKind and the refusal sentences,
 * `foundAs` for which data the kind may join), LockVariantFactory (`make`), LockHolds
 * (`foundAs`: whether the kind it remembers for a hold is the one to release with), the acquire
 * dialog (`offered`, `label`, `toolTip`), lockscope-cli's `--kind` help (LockKinds::kindHelp()),
 * and the audit records and `acquired` events (`word`, as the `kind` argument).
 *
 * The three kind enums: `LockKind` is what a snapshot *found* in Redis (the JSON `kind` of a
 * lock: lock, fair_lock, read_write_lock, fenced_lock, faster_multi_lock); `AcquireKind` is the
 * client a hold is *taken* with; `foundAs` maps the second to the first (several acquire kinds
 * leave the same data: read and write both make a read_write_lock, a spin lock's data is an
 * RLock's, and a fair lock with an empty queue reads as `lock` with kind_certain false).
 * faster_multi_lock has no acquire kind: LockScope never joins such a group. `MultiLock::Mode`
 * (core/lock) is neither: it is how one hold spans several servers (RedLock: a quorum;
 * MultiLock: all of them), and each component is an RLock (AcquireKind::Lock).
 *
 * Why `make` is a pointer to a function of classes this floor does not include: protocol/ sits
 * below lock/ (docs/architecture.md), yet AcquirePlan here must read the words. So the record
 * lives here with `make` named only by forward declaration; nothing in protocol/ calls it (only
 * LockVariantFactory in lock/ does), and the shipped records are filled in lock/, where the
 * classes are known.
 */
struct LockKindDescriptor {
    /** Makes a variant of the kind on `client` (which must outlive it), owned by `parent`;
     *  never null. See LockVariantFactory::create for the read and write halves' sharing. */
    using MakeVariant = LockVariant *(*)(LockClient *client, QObject *parent);

    /** The hash field a hold of the kind writes (§1.1). */
    enum class HolderField {
        ClientThread,      ///< `<clientId>:<threadId>` (RLock, fair, read, fenced, spin)
        ClientThreadWrite, ///< `<clientId>:<threadId>:write` (the write half, §4.1)
    };
    /** Where the kind's waiters listen for the wake-up its unlock publishes. */
    enum class WaitChannel {
        LockChannel,      ///< `redisson_lock__channel:{name}`, message 0 (§2.3)
        PerWaiterChannel, ///< `redisson_lock__channel:{name}:<clientId>:<threadId>`, the head waiter only (§3.1)
        ReadWriteChannel, ///< `redisson_rwlock:{name}`, 0 after a read unlock, 1 after a write unlock (§4.1)
        None,             ///< none: waiters poll (RedissonSpinLock)
    };

    /** Its id. AcquireKind::Auto asks LockKinds::add() for a free id past the named ones. */
    AcquireKind kind = AcquireKind::Auto;
    /** The `--kind` word, the dialog's choice in sentences ("\"fair\""), and the `kind` of the
     *  audit records and `acquired` events: lower case, unique, never "auto". */
    QString word;
    /** The dialog's radio button text, with its mnemonic ("&Fair"); translated in context
     *  "LockKinds" (QT_TRANSLATE_NOOP), so a static string. */
    const char *label = "";
    /** One sentence for the dialog's tooltip and the `--kind` help: the Redisson getter and what
     *  the kind does ("Fair lock (getFairLock): waits in the queue ..."). Context "LockKinds". */
    const char *toolTip = "";
    /** Whether the front ends offer it (`--kind`, the dialog). The spin lock is not offered: an
     *  operator's acquire has no reason to take one; the workshop and the tests do. */
    bool offered = true;
    /** What a snapshot of a lock held with this kind finds (LockSnapshot::kind). */
    LockKind foundAs = LockKind::Lock;
    HolderField holderField = HolderField::ClientThread;
    WaitChannel waitChannel = WaitChannel::LockChannel;
    /** The section of docs/redisson-protocol.md that describes the kind ("§3"). */
    const char *protocolSection = "";
    /** Its client; see MakeVariant. */
    MakeVariant make = nullptr;

    /** The hash field a hold of `clientId`'s `threadId` writes, by `holderField`:
     *  "<clientId>:<threadId>" or "<clientId>:<threadId>:write" (§1.1, §4.1). */
    QString holderFieldOf(const QString &clientId, qint64 threadId) const;
    /** The channel a waiter whose holder field is `field` listens on for lock `name`, by
     *  `waitChannel`, with Redisson's brace rule (§1.2): `redisson_lock__channel:{name}`,
     *  `redisson_lock__channel:{name}:<field>`, `redisson_rwlock:{name}`; empty for None. */
    QString waitChannelOf(const QString &name, const QString &field) const;
};

} // namespace lockscope
