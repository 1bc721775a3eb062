#pragma once

#include "redis/redisscript.h"

#include <QByteArray>
#include <QObject>
#include <QVector>

#include <functional>

class QTimer;

namespace lockscope
{

class RedisConnection;
class RedisReply;

/**
 * The workshop's stage clock: while the teacher talks between two steps, time on the
 * private redis-server(s) stands still. Time lives in two places there: the keys' TTLs (lock
 * hashes, rwlock_timeout keys, unlock latches) and the fair waiters' deadlines, the scores of the
 * timeout sets `redisson_lock_timeout:{name}`, absolute epoch-ms (protocol §3.1, §3.7). hold()
 * remembers each as the time left (ms) and puts it back every kReapplyMs, so no key expires and
 * no waiter's deadline comes nearer while the clock is held; release() puts it back one last
 * time and lets time run again. The keys stay the real keys of the server, with their real TTLs
 * (never more than kReapplyMs below the held value), so every view reading the server shows what
 * is there.
 *
 * It also takes and restores whole pictures of the servers (every key's DUMP payload with its
 * TTL and deadlines) for stepping back: restore() empties each server and RESTOREs the keys.
 *
 * All of it runs workshop_clock.lua (which uses KEYS and deletes every key on restore: private
 * workshop servers only). Asynchronous: callbacks run on this object's thread; the GUI thread
 * never waits.
 */
class StageClock : public QObject
{
    Q_OBJECT
public:
    /** How often a held clock puts the TTLs and deadlines back (ms). Below LockSnapshot's 250 ms
     *  renewal threshold, so the lock views never take it for a watchdog renewal. */
    static constexpr int kReapplyMs = 100;

    /** One key of one server as read: its name, its PTTL (ms, -1 = no expiry) and, for
     *  checkpoints, its DUMP payload. */
    struct Key {
        QByteArray name;
        qint64 pttlMs = -1;
        QByteArray payload;
    };
    /** One fair waiter's deadline: timeout set, member, time left (ms; < 0 = passed). */
    struct Deadline {
        QByteArray zset;
        QByteArray member;
        qint64 leftMs = 0;
    };
    /** One server's time (and, with dumps, its keys). `down`: the server did not answer. */
    struct Server {
        QVector<Key> keys;
        QVector<Deadline> deadlines;
        bool down = false;
    };
    /** Every server's, in the order of the servers() provider. */
    using Reading = QVector<Server>;

    explicit StageClock(QObject *parent = nullptr);
    ~StageClock() override;

    /** The servers the clock holds: a provider called at each use, so servers that stop (RedLock
     *  scenarios) drop out; a null entry is a stopped server, skipped. */
    void setServers(std::function<QVector<RedisConnection *>()> servers);

    /** Reads every server: TTLs and deadlines left, with `withDumps` each key's DUMP payload too.
     *  A server that answers with an error (or is stopped) is `down` in the reading. */
    void read(bool withDumps, std::function<void(const Reading &)> then);
    /** Holds time at `reading`: puts it back now and every kReapplyMs until release(). */
    void hold(const Reading &reading);
    /** Puts the held time back one last time and stops holding; `then` once the servers have
     *  applied it (at once when not holding). */
    void release(std::function<void()> then);
    /** Empties every server that is not down in `reading` and restores its keys (DUMP payloads,
     *  TTLs, deadlines), then holds time there. `then(error)`: empty on success. */
    void restore(const Reading &reading, std::function<void(const QString &error)> then);
    bool isHolding() const { return m_holding; }
    const Reading &held() const { return m_held; }

signals:
    /** A held clock was put back on the servers (steady time of the reply is "now" for views). */
    void applied();
    void holdingChanged(bool holding);

private:
    void apply(std::function<void()> then);
    /** Runs workshop_clock.lua with `argsOf(server index)` on every live server; `then` once all
     *  answered, with each server's reply (an error reply for a stopped one). */
    void onEvery(std::function<QList<QByteArray>(int)> argsOf, std::function<void(const QVector<RedisReply> &)> then);

    std::function<QVector<RedisConnection *>()> m_servers;
    RedisScript m_script;
    QTimer *m_timer = nullptr;
    Reading m_held;
    bool m_holding = false;
    bool m_applying = false;
};

} // namespace lockscope
