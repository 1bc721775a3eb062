#include "testsupport.h"

#include "session/locksession.h"

#include "redis/redisscript.h"

#include <QStandardPaths>
#include <QTest>
#include <QUuid>

#include <algorithm>

namespace lockscope::test
{

bool waitUntil(const std::function<bool()> &predicate, int timeoutMs)
{
    return QTest::qWaitFor(predicate, timeoutMs);
}

SyncClient::SyncClient(const RedisEndpoint &endpoint, const QByteArray &clientName)
    : m_connection(std::make_unique<RedisConnection>(endpoint))
{
    m_connection->setClientName(clientName);
    m_connection->setReconnectDelaysMs(20, 200);
}

SyncClient::~SyncClient() = default;

bool SyncClient::open(int timeoutMs)
{
    m_connection->open();
    return waitUntil([this] { return m_connection->isReady(); }, timeoutMs);
}

RedisReply SyncClient::cmd(const QList<QByteArray> &argv, int timeoutMs)
{
    // Shared state: the callback may still run after a timed-out wait returned.
    struct State {
        bool done = false;
        RedisReply reply;
    };
    auto state = std::make_shared<State>();
    m_connection->send(argv, nullptr, [state](const RedisReply &r) {
        state->reply = r;
        state->done = true;
    });
    if (!waitUntil([state] { return state->done; }, timeoutMs))
        return RedisReply::makeError(QStringLiteral("test helper: no reply within %1 ms").arg(timeoutMs), true);
    return state->reply;
}

QVector<RedisReply> SyncClient::pipeline(const QList<QList<QByteArray>> &commands, int timeoutMs)
{
    struct State {
        bool done = false;
        QVector<RedisReply> replies;
    };
    auto state = std::make_shared<State>();
    m_connection->pipeline(commands, nullptr, [state](const QVector<RedisReply> &r) {
        state->replies = r;
        state->done = true;
    });
    if (!waitUntil([state] { return state->done; }, timeoutMs))
        return {};
    return state->replies;
}

RedisReply SyncClient::eval(const RedisScript &script, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                            int timeoutMs)
{
    return await(
        [&](const std::function<void(const RedisReply &)> &deliver) {
            script.eval(m_connection.get(), keys, args, nullptr, deliver);
        },
        RedisReply::makeError(QStringLiteral("test helper: no reply within %1 ms").arg(timeoutMs), true), timeoutMs);
}

RedisReply SyncClient::evalResource(const QString &name, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                                    int timeoutMs)
{
    return eval(RedisScript::fromResource(name), keys, args, timeoutMs);
}

bool SyncClient::exists(const QByteArray &key)
{
    return cmd({"EXISTS", key}).toInteger() == 1;
}
qint64 SyncClient::pttl(const QByteArray &key)
{
    return cmd({"PTTL", key}).toInteger(-100);
}
QByteArray SyncClient::get(const QByteArray &key)
{
    return cmd({"GET", key}).toByteArray();
}
QByteArray SyncClient::hget(const QByteArray &key, const QByteArray &field)
{
    return cmd({"HGET", key, field}).toByteArray();
}

QStringList SyncClient::hgetall(const QByteArray &key)
{
    const RedisReply r = cmd({"HGETALL", key});
    QStringList out;
    for (int i = 0; i + 1 < r.size(); i += 2)
        out << QString::fromUtf8(r.at(i).toByteArray() + '=' + r.at(i + 1).toByteArray());
    std::sort(out.begin(), out.end());
    return out;
}

qint64 SyncClient::dbsize()
{
    return cmd({"DBSIZE"}).toInteger(-1);
}

qint64 SyncClient::numsub(const QByteArray &channel)
{
    return cmd({"PUBSUB", "NUMSUB", channel}).at(1).toInteger(-1);
}

qint64 SyncClient::numpat()
{
    return cmd({"PUBSUB", "NUMPAT"}).toInteger(-1);
}

void SyncClient::flushall()
{
    cmd({"FLUSHALL"});
}

MessageListener::MessageListener(const RedisEndpoint &endpoint, const QByteArray &name, Mode mode)
    : m_name(name), m_sub(endpoint)
{
    QObject::connect(&m_sub, &RedisSubscriber::message, &m_sub,
                     [this, mode](const QByteArray &channel, const QByteArray &payload, const QByteArray &) {
                         if (mode == Pattern || channel == m_name)
                             m_messages << Message(channel, payload);
                     });
    QObject::connect(&m_sub, &RedisSubscriber::subscribed, &m_sub, [this](const QByteArray &subscribed) {
        if (subscribed == m_name)
            m_confirmed = true;
    });
    if (mode == Pattern)
        m_sub.psubscribe(name);
    else
        m_sub.subscribe(name);
    m_sub.open();
}

bool MessageListener::waitSubscribed(int timeoutMs)
{
    return waitUntil([this] { return m_confirmed; }, timeoutMs);
}

QList<QByteArray> MessageListener::payloads() const
{
    QList<QByteArray> out;
    for (const Message &m : m_messages)
        out << m.second;
    return out;
}

int MessageListener::count(const QByteArray &channel, const QByteArray &payload) const
{
    return static_cast<int>(m_messages.count(Message(channel, payload)));
}

bool MessageListener::waitFor(const QByteArray &payload, int timeoutMs)
{
    return waitUntil([&] { return payloads().contains(payload); }, timeoutMs);
}

bool MessageListener::waitFor(const QByteArray &channel, const QByteArray &payload, int times, int timeoutMs)
{
    return waitUntil([&] { return count(channel, payload) >= times; }, timeoutMs);
}

QString ProcessResult::describe() const
{
    return QStringLiteral("started=%1 finished=%2 exit=%3\n--- stdout ---\n%4\n--- stderr ---\n%5")
        .arg(started)
        .arg(finished)
        .arg(exitCode)
        .arg(QString::fromUtf8(out), QString::fromUtf8(err));
}

ProcessResult runProcess(const QString &program, const QStringList &args, int timeoutMs,
                         const QProcessEnvironment &environment)
{
    ProcessResult result;
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(program, args);
    result.started = p.waitForStarted(10000);
    if (!result.started) {
        result.err = p.errorString().toUtf8();
        return result;
    }
    p.closeWriteChannel();
    result.finished = p.waitForFinished(timeoutMs);
    if (!result.finished) {
        p.kill();
        p.waitForFinished(3000);
    }
    result.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    result.out = p.readAllStandardOutput();
    result.err = p.readAllStandardError();
    return result;
}

QString redisCliPath()
{
    QString path = QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
    if (path.isEmpty())
        path = QStandardPaths::findExecutable(QStringLiteral("redis-cli"),
                                              {QStringLiteral("/usr/bin"), QStringLiteral("/usr/local/bin")});
    return path;
}

ProcessResult redisCli(quint16 port, const QStringList &args, int timeoutMs)
{
    QStringList all{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(port)};
    all << args;
    return runProcess(redisCliPath(), all, timeoutMs);
}

ProcessResult redisCliEval(quint16 port, const QByteArray &script, const QStringList &keys, const QStringList &args,
                           int timeoutMs)
{
    QStringList all{QStringLiteral("EVAL"), QString::fromUtf8(script), QString::number(keys.size())};
    all << keys << args;
    return redisCli(port, all, timeoutMs);
}

ActionOutcome runSessionAction(LockSession *session, const std::function<void()> &action, int timeoutMs)
{
    ActionOutcome out;
    bool done = false;
    const auto c =
        QObject::connect(session, &LockSession::actionFinished,
                         [&](const QString &a, const QString &l, bool ok, const QString &m, const QString &o) {
                             out = {a, l, m, o, ok};
                             done = true;
                         });
    action();
    waitUntil([&] { return done; }, timeoutMs);
    QObject::disconnect(c);
    return out;
}

QString newClientId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

const char *const kRedissonAcquireScript =
    "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; "
    "return redis.call('pttl', KEYS[1]);";

const char *const kRedissonFairAcquireScript =
    "while true do "
    "local firstThreadId2 = redis.call('lindex', KEYS[2], 0); "
    "if firstThreadId2 == false then break; end; "
    "local timeout = redis.call('zscore', KEYS[3], firstThreadId2); "
    "if timeout ~= false and tonumber(timeout) <= tonumber(ARGV[4]) then "
    "redis.call('zrem', KEYS[3], firstThreadId2); redis.call('lpop', KEYS[2]); "
    "else break; end; "
    "end; "
    "if (redis.call('exists', KEYS[1]) == 0) and ((redis.call('exists', KEYS[2]) == 0) "
    "or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then "
    "redis.call('lpop', KEYS[2]); redis.call('zrem', KEYS[3], ARGV[2]); "
    "local keys = redis.call('zrange', KEYS[3], 0, -1); "
    "for i = 1, #keys, 1 do redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), keys[i]); end; "
    "redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "local timeout = redis.call('zscore', KEYS[3], ARGV[2]); "
    "if timeout ~= false then "
    "local ttl = redis.call('pttl', KEYS[1]); "
    "return math.max(0, ttl); "
    "end; "
    "local lastThreadId = redis.call('lindex', KEYS[2], -1); "
    "local ttl; "
    "if lastThreadId ~= false and lastThreadId ~= ARGV[2] and redis.call('zscore', KEYS[3], lastThreadId) ~= false "
    "then "
    "ttl = tonumber(redis.call('zscore', KEYS[3], lastThreadId)) - tonumber(ARGV[4]); "
    "else "
    "ttl = redis.call('pttl', KEYS[1]); "
    "end; "
    "local timeout = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4]); "
    "if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then "
    "redis.call('rpush', KEYS[2], ARGV[2]); "
    "end; "
    "return ttl;";

} // namespace lockscope::test
