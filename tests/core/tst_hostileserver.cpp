// A hostile or broken server must not exhaust LockScope's memory or loop it, at the transport
// level: a "Redis" that announces replies too big to
// hold, or answers with the wrong shape. FakeRedisServer (tests/support) plays the hostile server;
// a real redis-server checks that the limits also hold (and stay out of the way) on real data.

#include "demo/redisserverprocess.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"

#include "fakeredisserver.h"
#include "faultproxy.h"
#include "testsupport.h"

#include <QProcess>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::FakeRedisServer;
using lockscope::test::FaultProxy;
using lockscope::test::waitUntil;

namespace
{

struct Collected {
    bool done = false;
    RedisReply reply;
};

std::shared_ptr<Collected> sendCollect(RedisConnection *conn, const QList<QByteArray> &argv)
{
    auto c = std::make_shared<Collected>();
    conn->send(argv, nullptr, [c](const RedisReply &r) {
        c->reply = r;
        c->done = true;
    });
    return c;
}

RedisEndpoint endpointOf(const QString &url)
{
    QString error;
    RedisEndpoint e = RedisEndpoint::parse(url, &error);
    if (!e.isValid())
        qWarning("%s", qPrintable(error));
    return e;
}

/** A connection to `url` with no command timeout: only the reply limits can end a wait. */
std::unique_ptr<RedisConnection> openNoTimeout(const QString &url)
{
    auto conn = std::make_unique<RedisConnection>(endpointOf(url));
    conn->setCommandTimeoutMs(0);
    conn->setAutoReconnect(false);
    conn->open();
    return conn;
}

} // namespace

class TestHostileServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void hugeBulkAnnouncedFailsAtItsHeader();
    void hugeArrayHeaderFailsBeforeAllocating();
    void nestedElementsCountTogether();
    void unterminatedLineIsBounded();
    void limitsHoldOnRealRedis();
    void integerToEverythingIsAShapeError();
    void scanPageShapes_data();
    void scanPageShapes();
    void proxyPassesDelaysTricklesAndBlackHoles();
    void cliScanEndsOnIntegerReplies();
    void nonRedisServersAreNamed_data();
    void nonRedisServersAreNamed();

private:
    RedisServerProcess m_redis;
};

void TestHostileServer::initTestCase()
{
    qunsetenv("LOCKSCOPE_PASSWORD");
    qunsetenv("LOCKSCOPE_USER");
    QString error;
    QVERIFY2(m_redis.start(10000, &error), qPrintable(error));
}

void TestHostileServer::cleanupTestCase()
{
    m_redis.stop();
}

void TestHostileServer::hugeBulkAnnouncedFailsAtItsHeader()
{
    // 1.5 GiB announced, then 64 KB of it: today's reader buffers until all of it is there.
    FakeRedisServer fake;
    fake.setResponder([](const QList<QByteArray> &) { return "$1610612736\r\n" + QByteArray(64 * 1024, 'x'); });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    QString lost;
    connect(conn.get(), &RedisConnection::connectionLost, this, [&lost](const QString &r) { lost = r; });
    auto c = sendCollect(conn.get(), {"GET", "k"});
    QVERIFY(waitUntil([c] { return c->done; }, 20000));
    QVERIFY(c->reply.isTransportError());
    const QString msg = c->reply.errorMessage();
    QVERIFY2(msg.contains(QLatin1String("a bulk string of 1.5 GiB")) &&
                 msg.contains(QLatin1String("over LockScope's limit of 64 MiB")) &&
                 msg.contains(QLatin1String("not a Redis server")),
             qPrintable(msg));
    QCOMPARE(lost, msg);
    QVERIFY(!conn->isReady());
    QVERIFY(waitUntil([&fake] { return fake.openConnections() == 0; }));
}

void TestHostileServer::hugeArrayHeaderFailsBeforeAllocating()
{
    // 2,000,000,000 elements: hiredis would calloc 16 GB for the element pointers at once.
    FakeRedisServer fake;
    fake.setResponder([](const QList<QByteArray> &) { return QByteArray("*2000000000\r\n"); });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    auto c = sendCollect(conn.get(), {"SCAN", "0"});
    QVERIFY(waitUntil([c] { return c->done; }, 20000));
    QVERIFY(c->reply.isTransportError());
    QVERIFY2(c->reply.errorMessage().contains(QLatin1String("array of 2000000000 elements")),
             qPrintable(c->reply.errorMessage()));
    QVERIFY2(c->reply.errorMessage().contains(QLatin1String("limit of 2097152")), qPrintable(c->reply.errorMessage()));
}

void TestHostileServer::nestedElementsCountTogether()
{
    FakeRedisServer fake;
    // Two arrays of 6: 14 elements in all (2 + 6 + 6).
    const QByteArray six = FakeRedisServer::array(QList<QByteArray>(6, ":1\r\n"));
    fake.setResponder([six](const QList<QByteArray> &argv) {
        return argv.value(0) == "BIG" ? FakeRedisServer::array({six, six}) : six;
    });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    RedisConnection::ReplyLimits limits;
    limits.maxElements = 10;
    conn->setReplyLimits(limits);
    auto small = sendCollect(conn.get(), {"SMALL"});
    auto small2 = sendCollect(conn.get(), {"SMALL"}); // budgets are per reply, not per connection
    QVERIFY(waitUntil([small2] { return small2->done; }));
    QCOMPARE(small->reply.size(), 6);
    QCOMPARE(small2->reply.size(), 6);
    auto big = sendCollect(conn.get(), {"BIG"});
    QVERIFY(waitUntil([big] { return big->done; }));
    QVERIFY2(big->reply.isTransportError() && big->reply.errorMessage().contains(QLatin1String("(14 in this reply)")),
             qPrintable(big->reply.debugString()));
}

void TestHostileServer::unterminatedLineIsBounded()
{
    FakeRedisServer fake;
    fake.setResponder([](const QList<QByteArray> &) { return '+' + QByteArray(5000, 'a'); });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    RedisConnection::ReplyLimits limits;
    limits.maxBulkBytes = 1000;
    conn->setReplyLimits(limits);
    auto c = sendCollect(conn.get(), {"PING"});
    QVERIFY(waitUntil([c] { return c->done; }));
    QVERIFY2(c->reply.isTransportError() && c->reply.errorMessage().contains(QLatin1String("unterminated line")),
             qPrintable(c->reply.debugString()));
}

void TestHostileServer::limitsHoldOnRealRedis()
{
    test::SyncClient admin(m_redis.endpoint());
    QVERIFY(admin.open());
    const QByteArray big(300 * 1024, 'v');
    QCOMPARE(admin.cmd({"SET", "big", big}).toByteArray(), QByteArray("OK"));
    QCOMPARE(admin.cmd({"RPUSH", "list", "a", "b", "c", "d", "e"}).toInteger(), qint64(5));

    // Defaults: real data well under them passes untouched.
    QCOMPARE(admin.cmd({"GET", "big"}).toByteArray(), big);

    RedisConnection::ReplyLimits limits;
    limits.maxBulkBytes = 100 * 1024;
    limits.maxElements = 4;
    auto conn = openNoTimeout(m_redis.endpoint().toString());
    conn->setReplyLimits(limits);
    conn->setAutoReconnect(true);
    conn->setReconnectDelaysMs(10, 50);
    auto get = sendCollect(conn.get(), {"GET", "big"});
    QVERIFY(waitUntil([get] { return get->done; }));
    QVERIFY2(get->reply.isTransportError() &&
                 get->reply.errorMessage().contains(QLatin1String("a bulk string of 300 KiB")),
             qPrintable(get->reply.debugString()));
    // The connection comes back, and what fits still works.
    QVERIFY(waitUntil([&conn] { return conn->isReady(); }));
    auto lrange = sendCollect(conn.get(), {"LRANGE", "list", "0", "-1"});
    QVERIFY(waitUntil([lrange] { return lrange->done; }));
    QVERIFY(lrange->reply.isTransportError());
    QVERIFY(waitUntil([&conn] { return conn->isReady(); }));
    auto four = sendCollect(conn.get(), {"LRANGE", "list", "0", "3"});
    QVERIFY(waitUntil([four] { return four->done; }));
    QCOMPARE(four->reply.size(), 4);
    admin.flushall();
}

void TestHostileServer::integerToEverythingIsAShapeError()
{
    FakeRedisServer fake;
    fake.setAnswerHandshake(false); // even PING gets ":1"
    fake.setResponder([](const QList<QByteArray> &) { return QByteArray(":1\r\n"); });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    auto c = sendCollect(conn.get(), {"SCAN", "0", "MATCH", "*", "COUNT", "1000"});
    QVERIFY(waitUntil([c] { return c->done; }));
    QVERIFY(c->reply.isInteger());
    RedisReply::ScanPage page;
    QString error;
    QVERIFY(!c->reply.toScanPage(&page, &error));
    QCOMPARE(error, QStringLiteral("the reply to SCAN was integer 1 where an array of 2 (cursor, keys) was expected"));
    QCOMPARE(c->reply.shapeError(RedisReply::Type::Array, QStringLiteral("HGETALL")),
             QStringLiteral("the reply to HGETALL was integer 1 where an array was expected"));
    QCOMPARE(fake.count("SCAN"), 1);
}

void TestHostileServer::scanPageShapes_data()
{
    QTest::addColumn<QByteArray>("resp");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("errorContains");
    const auto b = &FakeRedisServer::bulk;
    const auto a = &FakeRedisServer::array;
    QTest::newRow("good") << a({b("17"), a({b("k1"), b("k2")})}) << true << QString();
    QTest::newRow("last") << a({b("0"), a({})}) << true << QString();
    QTest::newRow("integer") << QByteArray(":1\r\n") << false << QStringLiteral("integer 1");
    QTest::newRow("status") << QByteArray("+OK\r\n") << false << QStringLiteral("status \"OK\"");
    QTest::newRow("error") << QByteArray("-ERR nope\r\n") << false << QStringLiteral("SCAN failed: ERR nope");
    QTest::newRow("array of 3") << a({b("0"), a({}), b("x")}) << false << QStringLiteral("an array of 3 elements");
    QTest::newRow("integer cursor") << a({QByteArray(":5\r\n"), a({})}) << false
                                    << QStringLiteral("integer 5 as its cursor");
    QTest::newRow("text cursor") << a({b("abc"), a({})}) << false << QStringLiteral("not a number");
    QTest::newRow("negative cursor") << a({b("-1"), a({})}) << false << QStringLiteral("not a number");
    QTest::newRow("huge cursor") << a({b("99999999999999999999999"), a({})}) << false << QStringLiteral("not a number");
    QTest::newRow("empty cursor") << a({b(""), a({})}) << false << QStringLiteral("not a number");
    QTest::newRow("keys not array") << a({b("0"), b("k")}) << false << QStringLiteral("where an array of keys");
    QTest::newRow("nil key") << a({b("0"), a({QByteArray("$-1\r\n")})}) << false
                             << QStringLiteral("nil among its keys");
}

void TestHostileServer::scanPageShapes()
{
    QFETCH(QByteArray, resp);
    QFETCH(bool, ok);
    QFETCH(QString, errorContains);
    FakeRedisServer fake;
    fake.setResponder([resp](const QList<QByteArray> &) { return resp; });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    auto c = sendCollect(conn.get(), {"SCAN", "0"});
    QVERIFY(waitUntil([c] { return c->done; }));
    RedisReply::ScanPage page;
    QString error;
    QCOMPARE(c->reply.toScanPage(&page, &error), ok);
    QVERIFY2(error.contains(errorContains), qPrintable(error));
    if (ok && !page.isLast())
        QCOMPARE(page.items, QVector<QByteArray>({"k1", "k2"}));
}

void TestHostileServer::proxyPassesDelaysTricklesAndBlackHoles()
{
    // The harness itself, against a real redis-server (so others can rely on it).
    FaultProxy proxy(QHostAddress::LocalHost, m_redis.endpoint().port());
    QVERIFY(proxy.start());
    RedisConnection conn(endpointOf(proxy.url()));
    conn.setCommandTimeoutMs(0);
    conn.open();
    QVERIFY(waitUntil([&conn] { return conn.isReady(); }));
    auto ping = sendCollect(&conn, {"ECHO", "hello"});
    QVERIFY(waitUntil([ping] { return ping->done; }));
    QCOMPARE(ping->reply.toByteArray(), QByteArray("hello"));

    proxy.setTrickle(1, 2);
    proxy.setMode(FaultProxy::Mode::Trickle);
    auto trickled = sendCollect(&conn, {"ECHO", "trickled"});
    QVERIFY(waitUntil([trickled] { return trickled->done; }));
    QCOMPARE(trickled->reply.toByteArray(), QByteArray("trickled"));

    proxy.setDelayMs(50);
    proxy.setMode(FaultProxy::Mode::Delay);
    auto delayed = sendCollect(&conn, {"ECHO", "delayed"});
    QVERIFY(waitUntil([delayed] { return delayed->done; }));
    QCOMPARE(delayed->reply.toByteArray(), QByteArray("delayed"));

    proxy.setMode(FaultProxy::Mode::BlackHole);
    auto lost = sendCollect(&conn, {"ECHO", "lost"});
    QTest::qWait(300);
    QVERIFY(!lost->done); // no answer, and no FIN or RST either
    QVERIFY(conn.isReady());
    QCOMPARE(proxy.openConnections(), 1);

    proxy.setMode(FaultProxy::Mode::Pass);
    proxy.cutAll();
    QVERIFY(waitUntil([lost] { return lost->done; }));
    QVERIFY(lost->reply.isTransportError());
}

void TestHostileServer::cliScanEndsOnIntegerReplies()
{
    // A server answering `:1` to every command could make `list` send up to 1.8M SCANs a minute and
    // never end: the first SCAN reply of the wrong shape ends it, exit 2, with a sentence.
    FakeRedisServer fake;
    fake.setResponder([](const QList<QByteArray> &) { return QByteArray(":1\r\n"); });
    QVERIFY(fake.start());
    for (const QStringList &cmd : {QStringList{"list"}, QStringList{"doctor"}}) {
        QProcess cli;
        cli.start(QStringLiteral(LOCKSCOPE_CLI_PATH), QStringList{QStringLiteral("--url"), fake.url()} + cmd);
        QVERIFY(cli.waitForStarted(5000));
        QVERIFY2(QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 30000),
                 qPrintable(QStringLiteral("%1 did not end; SCANs sent: %2").arg(cmd.first()).arg(fake.count("SCAN"))));
        const QByteArray err = cli.readAllStandardError();
        QCOMPARE(cli.exitCode(), 2);
        QVERIFY2(err.contains("integer"), err.constData());
        QVERIFY2(fake.count("SCAN") < 20, qPrintable(QString::number(fake.count("SCAN"))));
    }
}

// An HTTP server (or SSH, or anything) on the port is named: "protocol error ... got 'H' as reply
// type byte" would leave the operator guessing. The message says what answered and what to check.
void TestHostileServer::nonRedisServersAreNamed_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<QString>("expected");
    QTest::newRow("HTTP status line")
        << QByteArray("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        << QStringLiteral("is not a Redis server (it answered like HTTP: 'HTTP/1.1 400 Bad Request')");
    QTest::newRow("HTML without status line") << QByteArray("<!DOCTYPE HTML>\n<html><body>Bad request</body></html>\n")
                                              << QStringLiteral("is not a Redis server (it answered like HTTP");
    QTest::newRow("SSH banner") << QByteArray("SSH-2.0-OpenSSH_9.2p1\r\n")
                                << QStringLiteral(
                                       "is not a Redis server: it does not answer in the Redis protocol (its "
                                       "first bytes: 'SSH-2.0-OpenSSH_9.2p1\\x0d\\x0a");
}

void TestHostileServer::nonRedisServersAreNamed()
{
    QFETCH(QByteArray, answer);
    QFETCH(QString, expected);
    FakeRedisServer fake;
    fake.setAnswerHandshake(false); // the first command LockScope sends gets the foreign answer
    fake.setResponder([answer](const QList<QByteArray> &) { return answer; });
    QVERIFY(fake.start());
    auto conn = openNoTimeout(fake.url());
    QString lost;
    connect(conn.get(), &RedisConnection::connectionLost, this, [&lost](const QString &r) { lost = r; });
    QVERIFY(waitUntil([&lost] { return !lost.isEmpty(); }, 10000));
    QVERIFY2(lost.contains(expected) && lost.contains(QLatin1String("check the host and port")), qPrintable(lost));
    // The CLI says the same and exits 2.
    QProcess cli;
    cli.start(QStringLiteral(LOCKSCOPE_CLI_PATH), {QStringLiteral("--url"), fake.url(), QStringLiteral("list")});
    QVERIFY(cli.waitForStarted(5000));
    QVERIFY(QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 30000));
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    QCOMPARE(cli.exitCode(), 2);
    QVERIFY2(err.contains(expected), qPrintable(err));
}

QTEST_MAIN(TestHostileServer)
#include "tst_hostileserver.moc"
