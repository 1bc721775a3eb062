#pragma once

#include "lockvariant.h"

namespace lockscope
{

class ReadWriteLock;

/**
 * What the two halves of a read-write lock (ReadLock, WriteLock; Redisson's `RedissonReadLock`
 * and `RedissonWriteLock` of one `RedissonReadWriteLock`, protocol §4) share as LockVariants:
 * the ReadWriteLock whose scripts they run (their parent), the data a hold leaves (one hash
 * `<name>` with "mode", found as `read_write_lock`), and the wait channel
 * `redisson_rwlock:{name}` (read unlock publishes "0", write unlock "1"). The wait is
 * LockVariant's (attempt with the half's tryAcquire, listen on that channel, wake on "0" or "1",
 * give a hold won after the caller's context died back with the half's unlock).
 */
class ReadWriteLockHalf : public LockVariant
{
    Q_OBJECT
public:
    ~ReadWriteLockHalf() override;

    /** The ReadWriteLock this is a half of (its parent). */
    ReadWriteLock *readWriteLock() const { return m_lock; }

    /** RedissonReadLock / RedissonWriteLock forceUnlock, through force_unlock.lua, which finds the
     *  read-write data: DEL + "1" on `redisson_rwlock:{name}`, so that every waiting thread of
     *  either half wakes. `ok` = a lock was deleted; `error` set on a server or transport error. */
    void forceUnlock(const QString &name, QObject *context, LockClient::BoolCallback callback) override;
    /** ReadWriteLock::channel(name), `redisson_rwlock:{name}`, shared by both halves (§4.1). */
    QByteArray waitChannel(const QString &name, qint64 threadId) const override;

protected:
    /** `lock` (its parent) gives the client; it must outlive this object. */
    explicit ReadWriteLockHalf(ReadWriteLock *lock);

    /** kindDescriptor() with the facts both halves share: found as `read_write_lock`, waiters on
     *  `redisson_rwlock:{name}`. */
    static LockKindDescriptor halfDescriptor(AcquireKind kind, const QString &word, const char *label,
                                             const char *toolTip, LockKindDescriptor::MakeVariant make);

    ReadWriteLock *m_lock;
};

} // namespace lockscope
