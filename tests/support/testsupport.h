#pragma once

// Helpers shared by the core test suites: a blocking command client for checking what is in
// Redis, a pub/sub message collector, a runner for external programs (redis-cli, lockscope-cli)
// and small wait utilities.
// Everything here spins the Qt event loop while it waits (QTest::qWaitFor), so the objects under
// test keep working during a wait.

#include "endpoint/redisendpoint.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "redis/redissubscriber.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace lockscope
{
class LockSession;
class RedisScript;
} // namespace lockscope

namespace lockscope::test
{

/** Spins the event loop until `predicate` holds or `timeoutMs` passed; returns the predicate. */
bool waitUntil(const std::function<bool()> &predicate, int timeoutMs = 10000);

/** Where the callback of an asynchronous call under test puts its answer; `done` once it ran. */
template <typename T> struct Box {
    bool done = false;
    T value{};
};

/** A callback that stores what it gets in `box` and marks it done. */
template <typename T> std::function<void(const T &)> fillBox(const std::shared_ptr<Box<T>> &box)
{
    return [box](const T &value) {
        box->value = value;
        box->done = true;
    };
}

/**
 * Runs `start(deliver)`, where `start` hands `deliver` (a std::function<void(const T &)>) to the
 * asynchronous call under test as its callback, and waits until `deliver` ran. Returns what it
 * delivered, or `noAnswer` when nothing came within `timeoutMs`.
 */
template <typename T, typename Start> T await(Start &&start, const T &noAnswer, int timeoutMs = 10000)
{
    auto box = std::make_shared<Box<T>>();
    start(fillBox(box));
    if (!waitUntil([box] { return box->done; }, timeoutMs))
        return noAnswer;
    return box->value;
}

/**
 * A RedisConnection used synchronously by test code: `cmd()` sends one command and spins the
 * event loop until the reply arrives. For checking and seeding data, not for the code under test.
 */
class SyncClient
{
public:
    explicit SyncClient(const RedisEndpoint &endpoint, const QByteArray &clientName = "lockscope-test");
    ~SyncClient();

    /** Opens the connection and waits until it is ready. */
    bool open(int timeoutMs = 10000);
    RedisConnection *connection() const { return m_connection.get(); }

    /** One command; a transport error reply if no answer came within `timeoutMs`. */
    RedisReply cmd(const QList<QByteArray> &argv, int timeoutMs = 10000);
    /** Many commands pipelined; empty vector on timeout. */
    QVector<RedisReply> pipeline(const QList<QList<QByteArray>> &commands, int timeoutMs = 60000);
    /** Runs `script` (EVALSHA, then EVAL on NOSCRIPT); a transport error reply on timeout. */
    RedisReply eval(const RedisScript &script, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                    int timeoutMs = 10000);
    /** eval() of the script resource `:/lockscope/scripts/<name>.lua`. */
    RedisReply evalResource(const QString &name, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                            int timeoutMs = 10000);

    // Short forms for common checks.
    bool exists(const QByteArray &key);
    qint64 pttl(const QByteArray &key);
    QByteArray get(const QByteArray &key);
    QByteArray hget(const QByteArray &key, const QByteArray &field);
    /** HGETALL as "field=value" strings, sorted (easy to compare before/after). */
    QStringList hgetall(const QByteArray &key);
    qint64 dbsize();
    qint64 numsub(const QByteArray &channel);
    /** PUBSUB NUMPAT: pattern subscriptions on the whole server. */
    qint64 numpat();
    void flushall();

private:
    std::unique_ptr<RedisConnection> m_connection;
};

/**
 * Collects the messages of one channel (SUBSCRIBE) or one pattern (PSUBSCRIBE) on a pub/sub
 * connection of its own, e.g. to prove what a lock client published, and what it did not.
 */
class MessageListener
{
public:
    enum Mode { Channel, Pattern };
    /** (channel, payload) of one message. */
    using Message = QPair<QByteArray, QByteArray>;

    MessageListener(const RedisEndpoint &endpoint, const QByteArray &name, Mode mode = Channel);

    /** Waits until the server confirmed the subscription. */
    bool waitSubscribed(int timeoutMs = 10000);
    /** Every message so far, in order. */
    const QList<Message> &messages() const { return m_messages; }
    /** The payloads of messages(). */
    QList<QByteArray> payloads() const;
    /** How many messages carried `payload` on `channel`. */
    int count(const QByteArray &channel, const QByteArray &payload) const;
    /** Waits until a message with `payload` arrived (on any channel). */
    bool waitFor(const QByteArray &payload, int timeoutMs = 10000);
    /** Waits until `payload` arrived on `channel` at least `times` times. */
    bool waitFor(const QByteArray &channel, const QByteArray &payload, int times = 1, int timeoutMs = 10000);

private:
    QByteArray m_name;
    RedisSubscriber m_sub;
    QList<Message> m_messages;
    bool m_confirmed = false;
};

/** Result of running an external program. */
struct ProcessResult {
    bool started = false;
    bool finished = false; ///< false: it was killed after the timeout
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    QString describe() const;
};

/** Runs `program` with `args` to completion (stdin closed at once), up to `timeoutMs`, in
 *  `environment` (default: this process's). */
ProcessResult runProcess(const QString &program, const QStringList &args, int timeoutMs = 30000,
                         const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

/** Path of redis-cli from PATH (empty when not installed). */
QString redisCliPath();
/** `redis-cli -h 127.0.0.1 -p <port> args...` (raw output, as redis-cli prints to a pipe). */
ProcessResult redisCli(quint16 port, const QStringList &args, int timeoutMs = 30000);
/** `redis-cli ... EVAL <script> <number of keys> keys... args...`: a client independent of
 *  LockScope's script runner, for interoperability tests. */
ProcessResult redisCliEval(quint16 port, const QByteArray &script, const QStringList &keys, const QStringList &args,
                           int timeoutMs = 30000);

/**
 * Redisson's RLock acquire script (§2.2, 3.52.0+/4.7) as text, for a client independent of
 * LockScope (redis-cli EVAL). KEYS[1] lock name; ARGV[1] lease ms, ARGV[2] "<clientId>:<threadId>".
 * Returns nil when acquired, else the lock's PTTL.
 */
extern const char *const kRedissonAcquireScript;

/**
 * Redisson's fair-lock acquire script, the EVAL_LONG variant (RedissonFairLock.tryLockInnerAsync,
 * §3.2, 4.7), as text. KEYS name, queue `redisson_lock_queue:{name}`, timeout set
 * `redisson_lock_timeout:{name}`; ARGV lease ms, "<clientId>:<threadId>", wait ms, now (the
 * client's clock, epoch ms). Returns nil when acquired, else the ms to wait (it enqueues).
 */
extern const char *const kRedissonFairAcquireScript;

/** What LockSession::actionFinished() reported for one write (see LockSession's signal). */
struct ActionOutcome {
    QString action, lock, message, outcome;
    bool ok = false;
};

/** Calls `action` (which starts one write on `session`) and waits up to `timeoutMs` for the
 *  session's actionFinished(); a default ActionOutcome (empty outcome) when none came. */
ActionOutcome runSessionAction(LockSession *session, const std::function<void()> &action, int timeoutMs = 10000);

/** A fresh lowercase UUID string, as Redisson's client id looks (§1.1). */
QString newClientId();

} // namespace lockscope::test
