#pragma once

#include "protocol/lockkinddescriptor.h"

#include <QList>
#include <QString>

namespace lockscope
{

/**
 * The registry of lock kinds LockScope can take a hold with: one LockKindDescriptor each.
 * Adding a kind is its class pair in core/lock (with its `descriptor()`, and a kind() that
 * answers idOf(its word) when the descriptor leaves the id to the registry) plus one line in
 * shippedLockKinds() (lock/lockvariantfactory.cpp); every reader below then knows it.
 *
 * The shipped kinds (lock, fair, read, write, fenced, spin, in AcquireKind order) are there on
 * first use of any function here. add() and remove() change the registry: call them before any
 * other thread uses it (start-up, a test's own function): reads are not synchronised against
 * them, as AdviceWords. Reads from several threads at once are safe.
 */
class LockKinds
{
public:
    LockKinds() = delete;

    /** Every registered kind, in registration order (the shipped ones first). */
    static QList<LockKindDescriptor> all();
    /** The kinds the front ends offer (`offered`), in registration order. */
    static QList<LockKindDescriptor> offered();
    /** The kind with id `kind`; nullptr for Auto or an id nobody registered. The pointer stays
     *  valid until the next add() or remove(). */
    static const LockKindDescriptor *find(AcquireKind kind);
    /** The kind whose word is `word` (case-insensitive), offered or not; nullptr when none. */
    static const LockKindDescriptor *findWord(const QString &word);

    /**
     * Registers `d`. Its id is `d.kind`, or when that is Auto the first free one past
     * AcquireKind::Spin and past every registered id (the shipped list goes through the same). Returns the id;
     * AcquireKind::Auto (nothing registered, a qWarning says why) when the id or the word is already taken, the word is
     * empty or "auto", or `d.make` is null.
     */
    static AcquireKind add(LockKindDescriptor d);
    /** The id of the kind whose word is `word` (findWord()); Auto when none. A kind whose
     *  descriptor let the registry choose its id answers its LockVariant::kind() with this. */
    static AcquireKind idOf(const QString &word);
    /** Unregisters the kind `kind` (a test's own kind, at its end); false when it was unknown. */
    static bool remove(AcquireKind kind);

    /** The offered kinds' words as a choice for a synopsis: "lock|fair|read|write|fenced". */
    static QString kindSynopsis();
    /**
     * lockscope-cli's help of `--kind`: "acquire: the lock kind to take: lock, fair, read, write
     * or fenced. Default: the kind the lock's data says (...). A kind that contradicts the data
     * is refused (exit 3).", the words those of the offered kinds in registration order (what
     * the dialog's tooltips say of each is their `toolTip`).
     */
    static QString kindHelp();
};

/**
 * The shipped kinds' descriptors, in AcquireKind order. Declared here, defined in
 * lock/lockvariantfactory.cpp (it names their classes): LockKinds calls it once, on first use.
 * This is the one reference from protocol/ to lock/, at link time, not an include.
 */
QList<LockKindDescriptor> shippedLockKinds();

} // namespace lockscope
