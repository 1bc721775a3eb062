#pragma once

// Helpers shared by the core test suites: a blocking command client for checking what is in
// Redis, a runner for external programs (redis-cli, lockscope-cli) and small wait utilities.
// Everything here spins the Qt event loop while it waits (QTest::qWaitFor), so the objects under
// test keep working during a wait.

#include "redis/redisconnection.h"
#include "redis/redisendpoint.h"
#include "redis/redisreply.h"

#include <QByteArray>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace lockscope::test {

/** Spins the event loop until `predicate` holds or `timeoutMs` passed; returns the predicate. */
bool waitUntil(const std::function<bool()> &predicate, int timeoutMs = 10000);

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

/** Result of running an external program. */
struct ProcessResult
{
    bool started = false;
    bool finished = false; ///< false: it was killed after the timeout
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    QString describe() const;
};

/** Runs `program` with `args` to completion (stdin closed at once), up to `timeoutMs`. */
ProcessResult runProcess(const QString &program, const QStringList &args, int timeoutMs = 30000);

/** Path of redis-cli from PATH (empty when not installed). */
QString redisCliPath();
/** `redis-cli -h 127.0.0.1 -p <port> args...` (raw output, as redis-cli prints to a pipe). */
ProcessResult redisCli(quint16 port, const QStringList &args, int timeoutMs = 30000);

/** A fresh lowercase UUID string, as Redisson's client id looks (§1.1). */
QString newClientId();

} // namespace lockscope::test
