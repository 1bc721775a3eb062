#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace lockscope
{

/**
 * Redisson's key and channel naming (protocol §1.1, §1.2), and the reverse mapping from a key or
 * channel seen on the wire back to the lock it belongs to.
 */
class LockNames
{
public:
    /** `prefixName`: "prefix:name" when name contains '{', else "prefix:{name}". */
    static QString prefixName(const QString &prefix, const QString &name);
    /** `suffixName`: "name:suffix" when name contains '{', else "{name}:suffix". */
    static QString suffixName(const QString &name, const QString &suffix);

    static QString unlockChannel(const QString &name)
    {
        return prefixName(QStringLiteral("redisson_lock__channel"), name);
    }
    static QString fairQueueKey(const QString &name) { return prefixName(QStringLiteral("redisson_lock_queue"), name); }
    static QString fairTimeoutKey(const QString &name)
    {
        return prefixName(QStringLiteral("redisson_lock_timeout"), name);
    }
    static QString tokenKey(const QString &name) { return prefixName(QStringLiteral("redisson_lock_token"), name); }
    static QString unlockLatchKey(const QString &name, const QString &requestId);
    /** Channel shared by readers and writers of a read-write lock (§4.1). */
    static QString readWriteChannel(const QString &name) { return prefixName(QStringLiteral("redisson_rwlock"), name); }
    /** Lock name behind `redisson_rwlock:{name}`; empty when `channel` is not one. */
    static QString lockNameFromReadWriteChannel(const QString &channel);
    /** Lock name behind a read hold's timeout key `{name}:<clientId>:<threadId>:rwlock_timeout:<n>`
     *  (or `name:...` when the name has braces, §4.1); empty when `key` is not one. */
    static QString lockNameFromReadTimeoutKey(const QString &key);

    /** Lock name behind a companion key (fair queue, timeout set, fence token); empty when
     *  `key` is not one. `redisson_lock_queue:{orders:42}` -> `orders:42`. The key may belong to
     *  `{orders:42}` as well: see withTwin() (§14.4); the plain name is returned. */
    static QString lockNameFromCompanionKey(const QString &key);
    /** Lock name behind an unlock channel, plus the per-waiter suffix of fair-lock channels
     *  (`redisson_lock__channel:{name}:<clientId>:<threadId>`, §3.1) in `*waiterField`.
     *  Empty when `channel` is not an unlock channel. */
    static QString lockNameFromUnlockChannel(const QString &channel, QString *waiterField = nullptr);
    /**
     * The other lock name whose derived keys and channels are the same strings as `name`'s
     * (protocol §1.2, §14.4): `prefixName(p, "{x}") == prefixName(p, "x") == "p:{x}"` and
     * `suffixName` likewise, so `x` and `{x}` share the fair queue, timeout set, fence token,
     * unlock channels (shared and per-waiter), `redisson_rwlock`, rwlock_timeout and latch keys.
     * `"x"` -> `"{x}"` for a non-empty name without '{'; `"{x}"` -> `"x"` when the inner part is
     * non-empty and has no '{'; empty for every other name (e.g. `{orders}:42`, which has no twin).
     */
    static QString twinName(const QString &name);
    /** `name` followed by its twinName() when it has one: the lock names a companion key or
     *  channel reversed to `name` may belong to (§14.4). Plain name first. Empty for "". */
    static QStringList withTwin(const QString &name);

    /** True for keys LockScope must never list as locks: unlock latches, rwlock_timeout keys. */
    static bool isTransientHelperKey(const QString &key);

    /** Splits a holder field "<clientId>:<threadId>[:write]" (§1.1, §4.1). Lenient about the
     *  thread part (ports write "<uuid>:<uuid>"); the client id must look like a UUID.
     *  Returns false when `field` is not a holder field. */
    static bool parseHolderField(const QString &field, QString *clientId, QString *threadId, bool *write);
};

} // namespace lockscope
