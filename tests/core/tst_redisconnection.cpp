// Transport layer against a real redis-server: pipelining, errors as values, binary safety,
// timeouts, server-side disconnects with automatic reconnect, URL parsing, pub/sub restore,
// and EVALSHA with its NOSCRIPT fallback.

#include "demo/redisserverprocess.h"
#include "endpoint/redisendpoint.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/redisscript.h"
#include "redis/redissubscriber.h"

#include "testsupport.h"

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

struct Collected {
    bool done = false;
    RedisReply reply;
};

/** Sends `argv` on `conn` and returns a handle filled in by the callback. */
std::shared_ptr<Collected> sendCollect(RedisConnection *conn, const QList<QByteArray> &argv)
{
    auto c = std::make_shared<Collected>();
    conn->send(argv, nullptr, [c](const RedisReply &r) {
        c->reply = r;
        c->done = true;
    });
    return c;
}

/** CLIENT ID of a connection, asked on that connection itself. */
qint64 clientIdOf(RedisConnection *conn)
{
    auto c = sendCollect(conn, {"CLIENT", "ID"});
    if (!waitUntil([c] { return c->done; }, 10000))
        return -1;
    return c->reply.toInteger(-1);
}

} // namespace

class TestRedisConnection : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void pipelinedRepliesArriveInOrder();
    void pipelineCallbackGetsAllReplies();
    void pipelineIsOneEntryThatEndsWhole();
    void serverErrorsAreValues();
    void binarySafeArgumentsAndValues();
    void commandTimeoutIsTransportError();
    void serverSideKillFailsPendingAndReconnects();
    void connectRefusedIsTransportError();
    void sendWhileConnectingIsQueued();
    void closeFailsPendingAndStaysClosed();
    void clientNameIsSet();
    void databaseIsSelected();
    void unixSocketTransport();
    void unixSocketErrorsAreSentences();
    void sendsFromCallbacksLeaveTogether_data();
    void sendsFromCallbacksLeaveTogether();
    void reconnectInCallbackDropsUnsentBatch();

    void endpointParsing_data();
    void endpointParsing();
    void endpointPasswordNeverShown();
    void endpointPasswordFromEnvironment();

    void subscriberReceivesMessages();
    void subscriberRestoresAfterKill();
    void subscriberUnsubscribe();

    void scriptFallsBackToEvalOnNoScript();
    void scriptErrorIsServerError();
    void poolReturnsOneConnectionPerAddress();

private:
    RedisServerProcess m_server;
    QTemporaryDir m_socketDir;
    std::unique_ptr<SyncClient> m_admin;
};

void TestRedisConnection::initTestCase()
{
    // Credentials from the environment would change what the URLs below parse to.
    qunsetenv("LOCKSCOPE_PASSWORD");
    qunsetenv("LOCKSCOPE_USER");
    // DEBUG SLEEP is refused by default on Redis 7; "local" allows it from loopback connections.
    // The server also listens on a unix socket, for the QLocalSocket transport.
    QVERIFY(m_socketDir.isValid());
    m_server.setExtraArguments({QStringLiteral("--enable-debug-command"), QStringLiteral("local"),
                                QStringLiteral("--unixsocket"), m_socketDir.filePath(QStringLiteral("redis.sock")),
                                QStringLiteral("--unixsocketperm"), QStringLiteral("700")});
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestRedisConnection::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestRedisConnection::init()
{
    m_admin->flushall();
}

void TestRedisConnection::pipelinedRepliesArriveInOrder()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    // Sent while still connecting: queued, then written back to back after the handshake.
    const int n = 2000;
    QVector<qint64> seen;
    seen.reserve(n);
    int errors = 0;
    for (int i = 0; i < n; ++i) {
        conn.send({"INCR", "counter"}, nullptr, [&seen, &errors](const RedisReply &r) {
            if (!r.isInteger())
                ++errors;
            seen.append(r.toInteger());
        });
    }
    QVERIFY(waitUntil([&] { return seen.size() == n; }));
    QCOMPARE(errors, 0);
    for (int i = 0; i < n; ++i)
        QCOMPARE(seen[i], qint64(i + 1));

    // And once ready: a mix of command types, each reply to its own callback.
    seen.clear();
    QVector<QByteArray> values;
    for (int i = 0; i < 500; ++i) {
        const QByteArray key = "k" + QByteArray::number(i);
        conn.send({"SET", key, "v" + QByteArray::number(i)});
        conn.send({"GET", key}, nullptr, [&values](const RedisReply &r) { values.append(r.toByteArray()); });
    }
    QVERIFY(waitUntil([&] { return values.size() == 500; }));
    for (int i = 0; i < 500; ++i)
        QCOMPARE(values[i], "v" + QByteArray::number(i));
    QCOMPARE(conn.pendingCount(), 0);
}

void TestRedisConnection::pipelineCallbackGetsAllReplies()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    bool done = false;
    QVector<RedisReply> replies;
    conn.pipeline({{"SET", "a", "1"}, {"INCR", "a"}, {"GET", "a"}, {"LPUSH", "a", "x"}, {"GET", "nope"}}, nullptr,
                  [&](const QVector<RedisReply> &r) {
                      replies = r;
                      done = true;
                  });
    QVERIFY(waitUntil([&] { return done; }));
    QCOMPARE(replies.size(), 5);
    QCOMPARE(replies[0].toByteArray(), QByteArray("OK"));
    QCOMPARE(replies[1].toInteger(), qint64(2));
    QCOMPARE(replies[2].toByteArray(), QByteArray("2"));
    QVERIFY(replies[3].isError());
    QVERIFY(!replies[3].isTransportError());
    QVERIFY(replies[4].isNil());

    // An empty pipeline still calls back (asynchronously) with no replies.
    bool emptyDone = false;
    conn.pipeline({}, nullptr, [&](const QVector<RedisReply> &r) { emptyDone = r.isEmpty(); });
    QVERIFY(!emptyDone);
    QVERIFY(waitUntil([&] { return emptyDone; }));
}

void TestRedisConnection::pipelineIsOneEntryThatEndsWhole()
{
    // A pipeline is one pending entry however many commands it holds, and its callback runs once
    // with one reply per command in every case: queued while connecting, a single command, a
    // context gone meanwhile, a connection cut in the middle.
    RedisConnection conn(m_server.endpoint());
    conn.setCommandTimeoutMs(300);
    conn.setReconnectDelaysMs(50, 200);
    conn.open();
    QList<QList<QByteArray>> incrs;
    for (int i = 0; i < 1000; ++i)
        incrs << QList<QByteArray>{"INCR", "p"};
    int calls = 0;
    QVector<RedisReply> replies;
    conn.pipeline(incrs, nullptr, [&](const QVector<RedisReply> &r) {
        ++calls;
        replies = r;
    });
    QCOMPARE(conn.pendingCount(), 0); // still connecting: queued, not pending
    QVERIFY(waitUntil([&] { return calls == 1; }));
    QCOMPARE(replies.size(), 1000);
    QCOMPARE(replies.first().toInteger(), qint64(1));
    QCOMPARE(replies.last().toInteger(), qint64(1000));
    QCOMPARE(conn.pendingCount(), 0);

    calls = 0;
    conn.pipeline({{"GET", "p"}}, nullptr, [&](const QVector<RedisReply> &r) {
        ++calls;
        replies = r;
    });
    QCOMPARE(conn.pendingCount(), 1);
    QVERIFY(waitUntil([&] { return calls == 1; }));
    QCOMPARE(replies.size(), 1);
    QCOMPARE(replies.first().toByteArray(), QByteArray("1000"));

    // The context is gone before the replies come: no callback, and the connection goes on.
    auto context = std::make_unique<QObject>();
    bool called = false;
    conn.pipeline({{"PING"}, {"PING"}}, context.get(), [&](const QVector<RedisReply> &) { called = true; });
    context.reset();
    auto after = sendCollect(&conn, {"PING"});
    QVERIFY(waitUntil([&] { return after->done; }));
    QCOMPARE(after->reply.toByteArray(), QByteArray("PONG"));
    QVERIFY(!called);

    // Cut in the middle (the server closes the connection after the second command, as a
    // CLIENT KILL of itself asks): every command gets a reply, those that never came a transport
    // error, and there is one callback.
    auto id = sendCollect(&conn, {"CLIENT", "ID"});
    QVERIFY(waitUntil([&] { return id->done; }));
    calls = 0;
    conn.pipeline(
        {{"PING"}, {"CLIENT", "KILL", "ID", QByteArray::number(id->reply.toInteger()), "SKIPME", "no"}, {"PING"}},
        nullptr, [&](const QVector<RedisReply> &r) {
            ++calls;
            replies = r;
        });
    QVERIFY(waitUntil([&] { return calls == 1; }, 10000));
    QCOMPARE(replies.size(), 3);
    QCOMPARE(replies.at(0).toByteArray(), QByteArray("PONG"));
    QVERIFY2(replies.at(2).isTransportError(), qPrintable(replies.at(2).debugString()));
    QTest::qWait(300);
    QCOMPARE(calls, 1);
    QVERIFY(waitUntil([&] { return conn.isReady(); }, 15000));
}

void TestRedisConnection::serverErrorsAreValues()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    int lost = 0;
    connect(&conn, &RedisConnection::connectionLost, this, [&] { ++lost; });

    auto set = sendCollect(&conn, {"SET", "str", "value"});
    auto wrongType = sendCollect(&conn, {"HGET", "str", "f"});
    auto unknown = sendCollect(&conn, {"NOSUCHCOMMAND", "x"});
    auto after = sendCollect(&conn, {"GET", "str"});
    QVERIFY(waitUntil([&] { return after->done; }));
    QVERIFY(set->done && wrongType->done && unknown->done);

    QVERIFY(wrongType->reply.isError());
    QVERIFY(!wrongType->reply.isTransportError());
    QVERIFY2(wrongType->reply.errorMessage().startsWith(QLatin1String("WRONGTYPE")),
             qPrintable(wrongType->reply.errorMessage()));
    QVERIFY(unknown->reply.isError());
    QVERIFY(!unknown->reply.isTransportError());
    QVERIFY(unknown->reply.errorMessage().contains(QLatin1String("unknown command")));
    // The connection is not disturbed by server errors.
    QCOMPARE(after->reply.toByteArray(), QByteArray("value"));
    QVERIFY(conn.isReady());
    QCOMPARE(lost, 0);

    // Integer and nil accessors.
    QCOMPARE(RedisReply::makeString("42").toInteger(), qint64(42));
    bool ok = true;
    QCOMPARE(RedisReply::makeString("x").toInteger(7, &ok), qint64(7));
    QVERIFY(!ok);
    QVERIFY(RedisReply().isNil());
    QVERIFY(RedisReply().at(3).isNil());
}

void TestRedisConnection::binarySafeArgumentsAndValues()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));

    QByteArray value("a\0b\r\nc\xff\xfe\x00\x01$3\r\n*1\r\n", 19);
    value.append(QByteArray(1, '\0'));
    for (int i = 0; i < 256; ++i)
        value.append(char(i));
    const QByteArray key("bin\0key\r\n\xff", 10);
    const QByteArray field("f\0\xff\r\n", 5);

    auto set = sendCollect(&conn, {"SET", key, value});
    auto get = sendCollect(&conn, {"GET", key});
    auto hset = sendCollect(&conn, {"HSET", "h", field, value});
    auto hget = sendCollect(&conn, {"HGET", "h", field});
    auto strlen = sendCollect(&conn, {"STRLEN", key});
    QVERIFY(waitUntil([&] { return strlen->done; }));
    QCOMPARE(set->reply.toByteArray(), QByteArray("OK"));
    QCOMPARE(get->reply.type(), RedisReply::Type::String);
    QCOMPARE(get->reply.toByteArray().size(), value.size());
    QCOMPARE(get->reply.toByteArray(), value);
    QCOMPARE(hset->reply.toInteger(), qint64(1));
    QCOMPARE(hget->reply.toByteArray(), value);
    QCOMPARE(strlen->reply.toInteger(), qint64(value.size()));

    // An empty argument and an empty value are preserved too.
    auto setEmpty = sendCollect(&conn, {"SET", "empty", ""});
    auto getEmpty = sendCollect(&conn, {"GET", "empty"});
    QVERIFY(waitUntil([&] { return getEmpty->done; }));
    QCOMPARE(setEmpty->reply.toByteArray(), QByteArray("OK"));
    QCOMPARE(getEmpty->reply.type(), RedisReply::Type::String);
    QVERIFY(getEmpty->reply.toByteArray().isEmpty());

    // The encoder is hiredis' RESP: length-prefixed bulk strings, nothing escaped.
    const QByteArray encoded = RedisConnection::encode({"SET", QByteArray("a\0b", 3)});
    QCOMPARE(encoded, QByteArray("*2\r\n$3\r\nSET\r\n$3\r\na\0b\r\n", 22));
}

void TestRedisConnection::commandTimeoutIsTransportError()
{
    RedisConnection conn(m_server.endpoint());
    conn.setCommandTimeoutMs(200);
    conn.setReconnectDelaysMs(50, 200);
    int readyCount = 0;
    int lost = 0;
    connect(&conn, &RedisConnection::ready, this, [&] { ++readyCount; });
    connect(&conn, &RedisConnection::connectionLost, this, [&] { ++lost; });
    conn.open();
    QVERIFY(waitUntil([&] { return readyCount == 1; }));

    auto sleep = sendCollect(&conn, {"DEBUG", "SLEEP", "1"});
    auto behind = sendCollect(&conn, {"PING"}); // pipelined behind the slow one
    QVERIFY(waitUntil([&] { return sleep->done && behind->done; }, 10000));
    QVERIFY2(sleep->reply.isTransportError(), qPrintable(sleep->reply.debugString()));
    QVERIFY2(sleep->reply.errorMessage().contains(QLatin1String("did not answer within 200 ms")),
             qPrintable(sleep->reply.errorMessage()));
    QVERIFY(behind->reply.isTransportError());
    QVERIFY(lost >= 1);

    // The connection comes back by itself once the server answers again.
    QVERIFY(waitUntil([&] { return readyCount >= 2; }, 15000));
    auto ping = sendCollect(&conn, {"PING"});
    QVERIFY(waitUntil([&] { return ping->done; }));
    QCOMPARE(ping->reply.toByteArray(), QByteArray("PONG"));
}

void TestRedisConnection::serverSideKillFailsPendingAndReconnects()
{
    RedisConnection conn(m_server.endpoint());
    conn.setReconnectDelaysMs(50, 200);
    int readyCount = 0;
    QStringList lostReasons;
    QList<RedisConnection::State> states;
    connect(&conn, &RedisConnection::ready, this, [&] { ++readyCount; });
    connect(&conn, &RedisConnection::connectionLost, this, [&](const QString &r) { lostReasons << r; });
    connect(&conn, &RedisConnection::stateChanged, this, [&](RedisConnection::State s) { states << s; });
    conn.open();
    QVERIFY(waitUntil([&] { return readyCount == 1; }));

    // 1) CLIENT KILL ID from another connection, while a blocking command is pending.
    const qint64 id = clientIdOf(&conn);
    QVERIFY(id > 0);
    auto blocked = sendCollect(&conn, {"BLPOP", "never-filled", "0"});
    QVERIFY(waitUntil([&] {
        return m_admin->cmd({"CLIENT", "LIST", "ID", QByteArray::number(id)}).toByteArray().contains("cmd=blpop");
    }));
    QCOMPARE(m_admin->cmd({"CLIENT", "KILL", "ID", QByteArray::number(id)}).toInteger(), qint64(1));
    QVERIFY(waitUntil([&] { return blocked->done; }));
    QVERIFY2(blocked->reply.isTransportError(), qPrintable(blocked->reply.debugString()));
    QVERIFY(!lostReasons.isEmpty());
    QVERIFY(states.contains(RedisConnection::State::Disconnected));

    QVERIFY(waitUntil([&] { return readyCount == 2; }, 15000));
    QVERIFY(conn.isReady());
    const qint64 newId = clientIdOf(&conn);
    QVERIFY(newId > 0);
    QVERIFY(newId != id);
    auto ping = sendCollect(&conn, {"PING"});
    QVERIFY(waitUntil([&] { return ping->done; }));
    QCOMPARE(ping->reply.toByteArray(), QByteArray("PONG"));

    // 2) CLIENT KILL ... SKIPME no sent on the connection itself: Redis answers it and then
    //    closes the connection, so a command pipelined behind it gets a transport error, and
    //    the connection comes back again.
    auto suicide = sendCollect(&conn, {"CLIENT", "KILL", "ID", QByteArray::number(newId), "SKIPME", "no"});
    auto behind = sendCollect(&conn, {"PING"});
    QVERIFY(waitUntil([&] { return suicide->done && behind->done; }));
    QVERIFY2(suicide->reply.toInteger() == 1 || suicide->reply.isTransportError(),
             qPrintable(suicide->reply.debugString()));
    QVERIFY2(behind->reply.isTransportError(), qPrintable(behind->reply.debugString()));
    QVERIFY(waitUntil([&] { return readyCount == 3; }, 15000));
    auto set = sendCollect(&conn, {"SET", "after-kill", "1"});
    QVERIFY(waitUntil([&] { return set->done; }));
    QCOMPARE(set->reply.toByteArray(), QByteArray("OK"));
    QCOMPARE(m_admin->get("after-kill"), QByteArray("1"));
}

void TestRedisConnection::connectRefusedIsTransportError()
{
    const quint16 closedPort = RedisServerProcess::freePort();
    QVERIFY(closedPort != 0);
    RedisConnection conn(RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), closedPort));
    conn.setAutoReconnect(false);
    QStringList lost;
    connect(&conn, &RedisConnection::connectionLost, this, [&](const QString &r) { lost << r; });
    conn.open();
    auto ping = sendCollect(&conn, {"PING"}); // queued while connecting, failed on refusal
    QVERIFY(waitUntil([&] { return ping->done; }));
    QVERIFY(ping->reply.isTransportError());
    QVERIFY(!lost.isEmpty());
    QCOMPARE(conn.state(), RedisConnection::State::Disconnected);
    QVERIFY(!conn.lastError().isEmpty());
    QVERIFY2(conn.lastError().contains(QString::number(closedPort)), qPrintable(conn.lastError()));

    // Sending while disconnected fails at once, but asynchronously (never re-entrantly).
    auto later = sendCollect(&conn, {"PING"});
    QVERIFY(!later->done);
    QVERIFY(waitUntil([&] { return later->done; }));
    QVERIFY(later->reply.isTransportError());

    // An invalid endpoint fails without trying.
    RedisConnection invalid{RedisEndpoint()};
    invalid.setAutoReconnect(false);
    invalid.open();
    auto bad = sendCollect(&invalid, {"PING"});
    QVERIFY(waitUntil([&] { return bad->done; }));
    QVERIFY(bad->reply.isTransportError());
}

void TestRedisConnection::sendWhileConnectingIsQueued()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    QCOMPARE(conn.state(), RedisConnection::State::Connecting);
    auto set = sendCollect(&conn, {"SET", "queued", "yes"});
    auto get = sendCollect(&conn, {"GET", "queued"});
    QVERIFY(waitUntil([&] { return get->done; }));
    QCOMPARE(set->reply.toByteArray(), QByteArray("OK"));
    QCOMPARE(get->reply.toByteArray(), QByteArray("yes"));
}

void TestRedisConnection::closeFailsPendingAndStaysClosed()
{
    RedisConnection conn(m_server.endpoint());
    conn.setReconnectDelaysMs(20, 50);
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    auto blocked = sendCollect(&conn, {"BLPOP", "never-filled", "0"});
    QTest::qWait(50);
    conn.close();
    QVERIFY(waitUntil([&] { return blocked->done; }));
    QVERIFY(blocked->reply.isTransportError());
    QCOMPARE(conn.state(), RedisConnection::State::Disconnected);
    QTest::qWait(300); // longer than the reconnect delay: it must not come back by itself
    QCOMPARE(conn.state(), RedisConnection::State::Disconnected);

    // A context object that died first means the callback is skipped.
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    bool called = false;
    auto *context = new QObject;
    conn.send({"PING"}, context, [&](const RedisReply &) { called = true; });
    delete context;
    auto marker = sendCollect(&conn, {"PING"});
    QVERIFY(waitUntil([&] { return marker->done; }));
    QVERIFY(!called);
}

void TestRedisConnection::clientNameIsSet()
{
    RedisConnection conn(m_server.endpoint());
    conn.setClientName("lockscope-name-test");
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    auto name = sendCollect(&conn, {"CLIENT", "GETNAME"});
    QVERIFY(waitUntil([&] { return name->done; }));
    QCOMPARE(name->reply.toByteArray(), QByteArray("lockscope-name-test"));
}

void TestRedisConnection::databaseIsSelected()
{
    QString error;
    const RedisEndpoint ep = RedisEndpoint::parse(m_server.url() + QStringLiteral("/3"), &error);
    QVERIFY2(ep.isValid(), qPrintable(error));
    QCOMPARE(ep.db(), 3);
    RedisConnection conn(ep);
    conn.open();
    auto set = sendCollect(&conn, {"SET", "in-db-3", "x"});
    QVERIFY(waitUntil([&] { return set->done; }));
    QCOMPARE(set->reply.toByteArray(), QByteArray("OK"));
    QVERIFY(!m_admin->exists("in-db-3"));
    QCOMPARE(m_admin->cmd({"SELECT", "3"}).toByteArray(), QByteArray("OK"));
    QVERIFY(m_admin->exists("in-db-3"));
    QCOMPARE(m_admin->cmd({"SELECT", "0"}).toByteArray(), QByteArray("OK"));
    m_admin->cmd({"FLUSHALL"});
}

// Issue 37: a bad unix:// path is explained by what the path is, never by Qt's own text
// ("QLocalSocket::connectToServer: Invalid name", "Unknown error 20").
void TestRedisConnection::unixSocketErrorsAreSentences()
{
    QTemporaryDir dir;
    QFile plain(dir.filePath(QStringLiteral("plain")));
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    const QList<QPair<QString, QString>> cases{
        {dir.filePath(QStringLiteral("missing.sock")), QStringLiteral("there is no unix socket")},
        {dir.filePath(QStringLiteral("plain")), QStringLiteral("is not a unix socket")},
        {dir.filePath(QStringLiteral("plain/redis.sock")), QStringLiteral("is a file, not a directory")},
    };
    for (const auto &c : cases) {
        QString error;
        const RedisEndpoint ep = RedisEndpoint::parse(QStringLiteral("unix://%1").arg(c.first), &error);
        QVERIFY2(ep.isValid(), qPrintable(error));
        RedisConnection conn(ep);
        conn.setAutoReconnect(false);
        QString reason;
        connect(&conn, &RedisConnection::connectionLost, this, [&](const QString &r) { reason = r; });
        conn.open();
        QVERIFY(waitUntil([&] { return !reason.isEmpty(); }));
        QVERIFY2(reason.contains(c.second), qPrintable(reason));
        QVERIFY2(!reason.contains(QLatin1String("QLocalSocket")) && !reason.contains(QLatin1String("Unknown error")),
                 qPrintable(reason));
    }
}

void TestRedisConnection::unixSocketTransport()
{
    QString error;
    const RedisEndpoint ep = RedisEndpoint::parse(
        QStringLiteral("unix://%1?db=2").arg(m_socketDir.filePath(QStringLiteral("redis.sock"))), &error);
    QVERIFY2(ep.isValid(), qPrintable(error));
    RedisConnection conn(ep);
    conn.setReconnectDelaysMs(50, 200);
    int readyCount = 0;
    connect(&conn, &RedisConnection::ready, this, [&] { ++readyCount; });
    conn.open();
    QVERIFY(waitUntil([&] { return readyCount == 1; }));
    const QByteArray value("unix\0\xff", 6);
    auto set = sendCollect(&conn, {"SET", "over-unix", value});
    auto get = sendCollect(&conn, {"GET", "over-unix"});
    QVERIFY(waitUntil([&] { return get->done; }));
    QCOMPARE(set->reply.toByteArray(), QByteArray("OK"));
    QCOMPARE(get->reply.toByteArray(), value);
    QCOMPARE(m_admin->cmd({"SELECT", "2"}).toByteArray(), QByteArray("OK"));
    QCOMPARE(m_admin->get("over-unix"), value);
    QCOMPARE(m_admin->cmd({"SELECT", "0"}).toByteArray(), QByteArray("OK"));

    // Server-side kill over the unix socket: pending command fails, connection comes back.
    const qint64 id = clientIdOf(&conn);
    auto blocked = sendCollect(&conn, {"BLPOP", "never-filled", "0"});
    QVERIFY(waitUntil([&] {
        return m_admin->cmd({"CLIENT", "LIST", "ID", QByteArray::number(id)}).toByteArray().contains("cmd=blpop");
    }));
    QCOMPARE(m_admin->cmd({"CLIENT", "KILL", "ID", QByteArray::number(id)}).toInteger(), qint64(1));
    QVERIFY(waitUntil([&] { return blocked->done; }));
    QVERIFY(blocked->reply.isTransportError());
    QVERIFY(waitUntil([&] { return readyCount == 2; }, 15000));
    auto ping = sendCollect(&conn, {"PING"});
    QVERIFY(waitUntil([&] { return ping->done; }));
    QCOMPARE(ping->reply.toByteArray(), QByteArray("PONG"));
    m_admin->cmd({"FLUSHALL"});

    // A socket path nobody listens on is a transport error, not a hang.
    RedisConnection missing(
        RedisEndpoint::parse(QStringLiteral("unix://%1").arg(m_socketDir.filePath(QStringLiteral("nope.sock")))));
    missing.setAutoReconnect(false);
    missing.open();
    auto failed = sendCollect(&missing, {"PING"});
    QVERIFY(waitUntil([&] { return failed->done; }));
    QVERIFY(failed->reply.isTransportError());
}

void TestRedisConnection::sendsFromCallbacksLeaveTogether_data()
{
    QTest::addColumn<bool>("unixSocket");
    QTest::newRow("tcp") << false;
    QTest::newRow("unix") << true;
}

void TestRedisConnection::sendsFromCallbacksLeaveTogether()
{
    // Commands sent from reply callbacks are collected and written at the end of the read
    // handler: every one still gets its own reply, once and in order, also when a batch is too
    // big for the kernel's socket buffer (the rest goes through Qt's write buffer).
    QFETCH(bool, unixSocket);
    const RedisEndpoint ep =
        unixSocket
            ? RedisEndpoint::parse(QStringLiteral("unix://%1").arg(m_socketDir.filePath(QStringLiteral("redis.sock"))))
            : m_server.endpoint();
    RedisConnection conn(ep);
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));

    const int links = 300;
    const QByteArray big(8 * 1024 * 1024, 'x');
    QVector<qint64> counts;
    QVector<int> order;
    int bigGets = 0;
    int errors = 0;
    std::function<void(int)> link = [&](int i) {
        conn.send({"INCR", "chain"}, nullptr, [&, i](const RedisReply &r) {
            if (!r.isInteger())
                ++errors;
            counts.append(r.toInteger());
            order.append(i);
            if (i + 1 == links)
                return;
            // From inside a callback: several commands, one of them 8 MB every 50 links.
            if (i % 50 == 0) {
                conn.send({"SET", "big", big});
                conn.send({"STRLEN", "big"}, nullptr, [&](const RedisReply &len) {
                    if (len.toInteger() == big.size())
                        ++bigGets;
                    else
                        ++errors;
                });
            }
            conn.send({"INCR", "side"});
            link(i + 1);
        });
    };
    link(0);
    QVERIFY(waitUntil([&] { return order.size() == links; }, 30000));
    QVERIFY(waitUntil([&] { return conn.pendingCount() == 0; }, 30000));
    QCOMPARE(errors, 0);
    for (int i = 0; i < links; ++i) {
        QCOMPARE(order[i], i);
        QCOMPARE(counts[i], qint64(i + 1));
    }
    QCOMPARE(bigGets, (links + 49) / 50);
    QCOMPARE(m_admin->get("side"), QByteArray::number(links - 1));
}

void TestRedisConnection::reconnectInCallbackDropsUnsentBatch()
{
    // A command sent from a callback that then drops the connection was never written: its
    // callback fails once, and the new connection does not get the old batch's bytes.
    RedisConnection conn(m_server.endpoint());
    conn.setReconnectDelaysMs(50, 200);
    int readyCount = 0;
    connect(&conn, &RedisConnection::ready, this, [&] { ++readyCount; });
    conn.open();
    QVERIFY(waitUntil([&] { return readyCount == 1; }));
    int staleCalls = 0;
    RedisReply stale;
    conn.send({"PING"}, nullptr, [&](const RedisReply &) {
        conn.send({"SET", "stale", "1"}, nullptr, [&](const RedisReply &r) {
            ++staleCalls;
            stale = r;
        });
        conn.reconnectNow(QStringLiteral("dropped by the test"));
    });
    QVERIFY(waitUntil([&] { return readyCount == 2; }, 15000));
    QCOMPARE(staleCalls, 1);
    QVERIFY(stale.isTransportError());
    auto get = sendCollect(&conn, {"GET", "stale"});
    QVERIFY(waitUntil([&] { return get->done; }));
    QVERIFY(get->reply.isNil());
    QVERIFY(!m_admin->exists("stale"));
    QTest::qWait(50);
    QCOMPARE(staleCalls, 1);
}

void TestRedisConnection::endpointParsing_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("transport");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<int>("db");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("socketPath");

    const int tcp = int(RedisEndpoint::Transport::Tcp);
    const int tls = int(RedisEndpoint::Transport::Tls);
    const int unix_ = int(RedisEndpoint::Transport::Unix);
    QTest::newRow("full") << "redis://ops:s3cret@redis.example.com:6380/2" << true << tcp << "redis.example.com" << 6380
                          << 2 << "ops"
                          << "s3cret"
                          << "";
    QTest::newRow("host only") << "redis://localhost" << true << tcp << "localhost" << 6379 << 0 << ""
                               << ""
                               << "";
    QTest::newRow("host and port") << "redis://127.0.0.1:7000" << true << tcp << "127.0.0.1" << 7000 << 0 << ""
                                   << ""
                                   << "";
    QTest::newRow("password only") << "redis://:pw@h:1/0" << true << tcp << "h" << 1 << 0 << ""
                                   << "pw"
                                   << "";
    QTest::newRow("trailing slash") << "redis://h/" << true << tcp << "h" << 6379 << 0 << ""
                                    << ""
                                    << "";
    QTest::newRow("upper-case scheme") << "REDIS://h:6381" << true << tcp << "h" << 6381 << 0 << ""
                                       << ""
                                       << "";
    QTest::newRow("tls") << "rediss://cache.internal:6390/1" << true << tls << "cache.internal" << 6390 << 1 << ""
                         << ""
                         << "";
    QTest::newRow("ipv6") << "redis://[::1]:6390" << true << tcp << "::1" << 6390 << 0 << ""
                          << ""
                          << "";
    QTest::newRow("unix") << "unix:///var/run/redis/redis.sock" << true << unix_ << "" << 6379 << 0 << ""
                          << ""
                          << "/var/run/redis/redis.sock";
    QTest::newRow("unix with db") << "unix:///tmp/r.sock?db=4" << true << unix_ << "" << 6379 << 4 << ""
                                  << ""
                                  << "/tmp/r.sock";

    QTest::newRow("bad scheme") << "http://h:6379" << false << 0 << "" << 0 << 0 << ""
                                << ""
                                << "";
    QTest::newRow("no scheme") << "localhost:6379" << false << 0 << "" << 0 << 0 << ""
                               << ""
                               << "";
    QTest::newRow("not a url") << "not a url" << false << 0 << "" << 0 << 0 << ""
                               << ""
                               << "";
    QTest::newRow("empty") << "" << false << 0 << "" << 0 << 0 << ""
                           << ""
                           << "";
    QTest::newRow("port too big") << "redis://h:70000" << false << 0 << "" << 0 << 0 << ""
                                  << ""
                                  << "";
    QTest::newRow("port zero") << "redis://h:0" << false << 0 << "" << 0 << 0 << ""
                               << ""
                               << "";
    QTest::newRow("port not a number") << "redis://h:abc" << false << 0 << "" << 0 << 0 << ""
                                       << ""
                                       << "";
    QTest::newRow("db not a number") << "redis://h:6379/abc" << false << 0 << "" << 0 << 0 << ""
                                     << ""
                                     << "";
    QTest::newRow("db negative") << "redis://h:6379/-1" << false << 0 << "" << 0 << 0 << ""
                                 << ""
                                 << "";
    QTest::newRow("no host") << "redis://:6379" << false << 0 << "" << 0 << 0 << ""
                             << ""
                             << "";
    QTest::newRow("unix bad db") << "unix:///tmp/r.sock?db=x" << false << 0 << "" << 0 << 0 << ""
                                 << ""
                                 << "";
    QTest::newRow("unix no path") << "unix://" << false << 0 << "" << 0 << 0 << ""
                                  << ""
                                  << "";
}

void TestRedisConnection::endpointParsing()
{
    QFETCH(QString, url);
    QFETCH(bool, valid);
    QString error;
    const RedisEndpoint ep = RedisEndpoint::parse(url, &error);
    QCOMPARE(ep.isValid(), valid);
    if (!valid) {
        QVERIFY2(!error.isEmpty(), "an invalid URL must come with an explanation");
        QCOMPARE(ep.toString(), QStringLiteral("(invalid)"));
        return;
    }
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QFETCH(int, transport);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(int, db);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(QString, socketPath);
    QCOMPARE(int(ep.transport()), transport);
    QCOMPARE(ep.db(), db);
    QCOMPARE(ep.username(), user);
    QCOMPARE(ep.password(), password);
    if (ep.transport() == RedisEndpoint::Transport::Unix) {
        QCOMPARE(ep.socketPath(), socketPath);
        QCOMPARE(ep.address(), socketPath);
    } else {
        QCOMPARE(ep.host(), host);
        QCOMPARE(int(ep.port()), port);
    }
    // toString() is a URL again that parses to the same endpoint (minus the password).
    const RedisEndpoint again = RedisEndpoint::parse(ep.toString());
    QVERIFY2(again.isValid(), qPrintable(ep.toString()));
    QVERIFY2(again == ep, qPrintable(ep.toString()));
}

void TestRedisConnection::endpointPasswordNeverShown()
{
    const RedisEndpoint ep = RedisEndpoint::parse(QStringLiteral("redis://ops:Top-Secret-42@db.example:6380/5"));
    QVERIFY(ep.isValid());
    QCOMPARE(ep.password(), QStringLiteral("Top-Secret-42"));
    QVERIFY(!ep.toString().contains(QLatin1String("Top-Secret-42")));
    QVERIFY(!ep.address().contains(QLatin1String("Top-Secret-42")));
    QCOMPARE(ep.toString(), QStringLiteral("redis://ops@db.example:6380/5"));
    QCOMPARE(ep.address(), QStringLiteral("db.example:6380"));

    const RedisEndpoint tls = RedisEndpoint::parse(QStringLiteral("rediss://:pw-only@h"));
    QVERIFY(tls.isValid());
    QVERIFY(!tls.toString().contains(QLatin1String("pw-only")));
    QCOMPARE(tls.toString(), QStringLiteral("rediss://h:6379/0"));

    // Nor in the error sentence of a URL that fails later on (bad db).
    QString error;
    RedisEndpoint::parse(QStringLiteral("redis://u:hidden-pw@h:6379/x"), &error);
    QVERIFY(!error.isEmpty());

    const RedisEndpoint unixEp = RedisEndpoint::parse(QStringLiteral("unix:///tmp/x.sock?db=2"));
    QCOMPARE(unixEp.toString(), QStringLiteral("unix:///tmp/x.sock?db=2"));
}

void TestRedisConnection::endpointPasswordFromEnvironment()
{
    qputenv("LOCKSCOPE_PASSWORD", "from-env");
    const RedisEndpoint fromEnv = RedisEndpoint::parse(QStringLiteral("redis://h:6379"));
    const RedisEndpoint explicitPw = RedisEndpoint::parse(QStringLiteral("redis://:in-url@h:6379"));
    qunsetenv("LOCKSCOPE_PASSWORD");
    QCOMPARE(fromEnv.password(), QStringLiteral("from-env"));
    QVERIFY(!fromEnv.toString().contains(QLatin1String("from-env")));
    QCOMPARE(explicitPw.password(), QStringLiteral("in-url"));

    // AUTH is sent in the handshake: a server with requirepass accepts us, a wrong one refuses.
    QCOMPARE(m_admin->cmd({"CONFIG", "SET", "requirepass", "letmein"}).toByteArray(), QByteArray("OK"));
    auto restore = qScopeGuard([this] {
        // The admin connection authenticated before requirepass was set: it can still reset it.
        m_admin->cmd({"CONFIG", "SET", "requirepass", ""});
    });
    {
        RedisEndpoint ep = m_server.endpoint();
        ep.setPassword(QStringLiteral("letmein"));
        RedisConnection conn(ep);
        conn.open();
        auto ping = sendCollect(&conn, {"PING"});
        QVERIFY(waitUntil([&] { return ping->done; }));
        QCOMPARE(ping->reply.toByteArray(), QByteArray("PONG"));
    }
    {
        RedisEndpoint ep = m_server.endpoint();
        ep.setPassword(QStringLiteral("s3cr3t-Wr0ng"));
        RedisConnection conn(ep);
        conn.setAutoReconnect(false);
        conn.open();
        auto ping = sendCollect(&conn, {"PING"});
        QVERIFY(waitUntil([&] { return ping->done; }));
        QVERIFY(ping->reply.isError());
        // The refusal is explained (the server's WRONGPASS), without showing the password.
        QVERIFY2(conn.lastError().contains(QLatin1String("WRONGPASS")), qPrintable(conn.lastError()));
        QVERIFY2(!conn.lastError().contains(QLatin1String("s3cr3t-Wr0ng")), qPrintable(conn.lastError()));
    }
}

void TestRedisConnection::subscriberReceivesMessages()
{
    RedisSubscriber sub(m_server.endpoint());
    struct Msg {
        QByteArray channel, payload, pattern;
    };
    QVector<Msg> messages;
    QList<QByteArray> confirmed;
    connect(&sub, &RedisSubscriber::message, this,
            [&](const QByteArray &c, const QByteArray &p, const QByteArray &pat) {
                messages.append({c, p, pat});
            });
    connect(&sub, &RedisSubscriber::subscribed, this, [&](const QByteArray &n) { confirmed << n; });
    // Subscriptions asked for before the connection is up are sent once it is ready.
    sub.subscribe("chan:a");
    sub.psubscribe("pat:*");
    sub.open();
    QVERIFY(waitUntil([&] { return confirmed.contains("chan:a") && confirmed.contains("pat:*"); }));
    QVERIFY(sub.isReady());

    const QByteArray binary("zero\0cr\r\nff\xff", 13);
    QCOMPARE(m_admin->cmd({"PUBLISH", "chan:a", "hello"}).toInteger(), qint64(1));
    QCOMPARE(m_admin->cmd({"PUBLISH", "pat:x", binary}).toInteger(), qint64(1));
    QCOMPARE(m_admin->cmd({"PUBLISH", "other", "ignored"}).toInteger(), qint64(0));
    QVERIFY(waitUntil([&] { return messages.size() >= 2; }));
    QCOMPARE(messages[0].channel, QByteArray("chan:a"));
    QCOMPARE(messages[0].payload, QByteArray("hello"));
    QVERIFY(messages[0].pattern.isEmpty());
    QCOMPARE(messages[1].channel, QByteArray("pat:x"));
    QCOMPARE(messages[1].payload, binary);
    QCOMPARE(messages[1].pattern, QByteArray("pat:*"));

    // Subscribing twice is a no-op (no second confirmation needed to keep working).
    sub.subscribe("chan:a");
    QCOMPARE(sub.channels().size(), 1);
}

void TestRedisConnection::subscriberRestoresAfterKill()
{
    RedisSubscriber sub(m_server.endpoint());
    sub.connection()->setReconnectDelaysMs(50, 200);
    QVector<QByteArray> payloads;
    int readyCount = 0;
    int lost = 0;
    connect(&sub, &RedisSubscriber::message, this,
            [&](const QByteArray &, const QByteArray &p, const QByteArray &) { payloads << p; });
    connect(&sub, &RedisSubscriber::ready, this, [&] { ++readyCount; });
    connect(&sub, &RedisSubscriber::connectionLost, this, [&] { ++lost; });
    sub.open();
    QVERIFY(waitUntil([&] { return readyCount == 1; }));
    sub.subscribe("restore:chan");
    sub.psubscribe("restore:pat:*");
    QVERIFY(waitUntil([&] {
        return m_admin->numsub("restore:chan") == 1 && m_admin->cmd({"PUBSUB", "NUMPAT"}).toInteger() == 1;
    }));
    m_admin->cmd({"PUBLISH", "restore:chan", "before"});
    QVERIFY(waitUntil([&] { return payloads.contains("before"); }));

    // Kill every pub/sub connection on the server (ours is the only one).
    QVERIFY(m_admin->cmd({"CLIENT", "KILL", "TYPE", "pubsub"}).toInteger() >= 1);
    QVERIFY(waitUntil([&] { return lost >= 1; }));
    QVERIFY(waitUntil([&] { return readyCount >= 2; }, 15000));
    QVERIFY(waitUntil([&] {
        return m_admin->numsub("restore:chan") == 1 && m_admin->cmd({"PUBSUB", "NUMPAT"}).toInteger() == 1;
    }));
    m_admin->cmd({"PUBLISH", "restore:chan", "after"});
    m_admin->cmd({"PUBLISH", "restore:pat:1", "after-pattern"});
    QVERIFY(waitUntil([&] { return payloads.contains("after") && payloads.contains("after-pattern"); }));
    QCOMPARE(sub.channels(), QSet<QByteArray>{"restore:chan"});
    QCOMPARE(sub.patterns(), QSet<QByteArray>{"restore:pat:*"});
}

void TestRedisConnection::subscriberUnsubscribe()
{
    RedisSubscriber sub(m_server.endpoint());
    QVector<QByteArray> payloads;
    connect(&sub, &RedisSubscriber::message, this,
            [&](const QByteArray &, const QByteArray &p, const QByteArray &) { payloads << p; });
    sub.open();
    QVERIFY(waitUntil([&] { return sub.isReady(); }));
    sub.subscribe("u:1");
    sub.psubscribe("u:p:*");
    QVERIFY(waitUntil([&] { return m_admin->numsub("u:1") == 1; }));
    sub.unsubscribe("u:1");
    sub.punsubscribe("u:p:*");
    QVERIFY(waitUntil([&] {
        return m_admin->numsub("u:1") == 0 && m_admin->cmd({"PUBSUB", "NUMPAT"}).toInteger() == 0;
    }));
    QVERIFY(sub.channels().isEmpty());
    QVERIFY(sub.patterns().isEmpty());
    // Resubscribe and prove the earlier channel messages did not arrive.
    sub.subscribe("u:2");
    QVERIFY(waitUntil([&] { return m_admin->numsub("u:2") == 1; }));
    m_admin->cmd({"PUBLISH", "u:1", "dropped"});
    m_admin->cmd({"PUBLISH", "u:p:1", "dropped"});
    m_admin->cmd({"PUBLISH", "u:2", "kept"});
    QVERIFY(waitUntil([&] { return payloads.contains("kept"); }));
    QVERIFY(!payloads.contains("dropped"));
}

void TestRedisConnection::scriptFallsBackToEvalOnNoScript()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    const RedisScript script("return {KEYS[1], ARGV[1], redis.call('incr', KEYS[1])}");
    QCOMPARE(script.sha1().size(), 40);
    QCOMPARE(m_admin->cmd({"SCRIPT", "FLUSH"}).toByteArray(), QByteArray("OK"));
    QCOMPARE(m_admin->cmd({"SCRIPT", "EXISTS", script.sha1()}).at(0).toInteger(), qint64(0));

    auto run = [&] {
        auto c = std::make_shared<Collected>();
        script.eval(&conn, {"script:counter"}, {"arg"}, nullptr, [c](const RedisReply &r) {
            c->reply = r;
            c->done = true;
        });
        waitUntil([c] { return c->done; });
        return c->reply;
    };
    const RedisReply first = run(); // NOSCRIPT -> EVAL
    QVERIFY2(first.isArray(), qPrintable(first.debugString()));
    QCOMPARE(first.at(0).toByteArray(), QByteArray("script:counter"));
    QCOMPARE(first.at(1).toByteArray(), QByteArray("arg"));
    QCOMPARE(first.at(2).toInteger(), qint64(1));
    // EVAL cached the script under the same SHA-1 that we compute.
    QCOMPARE(m_admin->cmd({"SCRIPT", "EXISTS", script.sha1()}).at(0).toInteger(), qint64(1));
    const RedisReply second = run(); // EVALSHA
    QCOMPARE(second.at(2).toInteger(), qint64(2));
    QCOMPARE(m_admin->get("script:counter"), QByteArray("2"));

    // The project's scripts are compiled in and load.
    for (const char *name : {"lock_acquire", "lock_unlock", "lock_renew", "lock_force_unlock", "snapshot"}) {
        const RedisScript s = RedisScript::fromResource(QString::fromLatin1(name));
        QVERIFY2(s.source().startsWith("--"), name);
        QCOMPARE(s.sha1().size(), 40);
    }
}

void TestRedisConnection::scriptErrorIsServerError()
{
    RedisConnection conn(m_server.endpoint());
    conn.open();
    QVERIFY(waitUntil([&] { return conn.isReady(); }));
    const RedisScript script("return redis.call('hget', KEYS[1], 'f')");
    m_admin->cmd({"SET", "a-string", "x"});
    auto c = std::make_shared<Collected>();
    script.eval(&conn, {"a-string"}, {}, nullptr, [c](const RedisReply &r) {
        c->reply = r;
        c->done = true;
    });
    QVERIFY(waitUntil([c] { return c->done; }));
    QVERIFY(c->reply.isError());
    QVERIFY(!c->reply.isTransportError());
    QVERIFY2(c->reply.errorMessage().contains(QLatin1String("WRONGTYPE")), qPrintable(c->reply.errorMessage()));
    QVERIFY(conn.isReady());
}

void TestRedisConnection::poolReturnsOneConnectionPerAddress()
{
    RedisConnectionPool pool(m_server.endpoint());
    RedisConnection *a = pool.connection();
    RedisConnection *b = pool.connection(m_server.endpoint());
    QCOMPARE(a, b);
    QCOMPARE(pool.connections().size(), 1);
    RedisSubscriber *s1 = pool.subscriber();
    QCOMPARE(pool.subscriber(), s1);
    QVERIFY(a->endpoint() == m_server.endpoint());
    // The pool creates, the caller opens.
    QCOMPARE(a->state(), RedisConnection::State::Disconnected);
    a->open();
    QVERIFY(waitUntil([&] { return a->isReady(); }));
}

QTEST_GUILESS_MAIN(TestRedisConnection)
#include "tst_redisconnection.moc"
