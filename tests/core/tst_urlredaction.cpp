// A URL's password must never reach stderr, a dialog or a log, whatever the
// typo in it (port, db, scheme, sentinel list), in lockscope-cli, `redlock --servers` and the
// parser every front end shares. And `--help` says why a URL password is the weakest choice.

#include "demo/redisserverprocess.h"
#include "endpoint/redisendpoint.h"

#include "testsupport.h"

#include <QTest>

using namespace lockscope;
using lockscope::test::ProcessResult;

namespace
{
const QString kSecret = QStringLiteral("Hunter2-Secret");
QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}
} // namespace

class TestUrlRedaction : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void redactUrl_data();
    void redactUrl();
    void parseErrorsNeverShowThePassword_data();
    void parseErrorsNeverShowThePassword();
    void cliNeverPrintsThePassword_data();
    void cliNeverPrintsThePassword();
    void helpRanksTheUrlPasswordLast();
    void queryDbAndMissingScheme();

private:
    RedisServerProcess m_server;
};

void TestUrlRedaction::initTestCase()
{
    qunsetenv("LOCKSCOPE_PASSWORD");
    qunsetenv("LOCKSCOPE_USER");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestUrlRedaction::cleanupTestCase()
{
    m_server.stop();
}

void TestUrlRedaction::redactUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("shown");
    QTest::newRow("plain") << "redis://u:pw@h:6379/0"
                           << "redis://u:***@h:6379/0";
    QTest::newRow("no user") << "redis://:pw@h"
                             << "redis://:***@h";
    QTest::newRow("user only") << "redis://u@h:6379"
                               << "redis://u@h:6379";
    QTest::newRow("no credentials") << "redis://h:6379/2"
                                    << "redis://h:6379/2";
    QTest::newRow("@ in password") << "redis://u:p@ss@h"
                                   << "redis://u:***@h";
    QTest::newRow("/ in password") << "redis://u:pa/ss@h:1"
                                   << "redis://u:***@h:1";
    QTest::newRow("// in path") << "redis://u:pw@h/x//y@z"
                                << "redis://u:***@z";
    QTest::newRow("scheme typo") << "redis:/u:pw@h"
                                 << "redis:***@h";
    QTest::newRow("no scheme") << "u:pw@h:6379"
                               << "u:***@h:6379";
    QTest::newRow("sentinel") << "redis-sentinel://u:pw@a:1,b:2#m"
                              << "redis-sentinel://u:***@a:1,b:2#m";
}

void TestUrlRedaction::redactUrl()
{
    QFETCH(QString, url);
    QFETCH(QString, shown);
    QCOMPARE(RedisEndpoint::redactUrl(url), shown);
}

void TestUrlRedaction::parseErrorsNeverShowThePassword_data()
{
    QTest::addColumn<QString>("url");
    const QString s = kSecret;
    QTest::newRow("port out of range") << QStringLiteral("redis://ops:%1@127.0.0.1:99999/0").arg(s);
    QTest::newRow("db not a number") << QStringLiteral("redis://ops:%1@127.0.0.1:6379/abc").arg(s);
    QTest::newRow("unknown scheme") << QStringLiteral("rediz://ops:%1@127.0.0.1:6379").arg(s);
    QTest::newRow("not a URL") << QStringLiteral("redis://ops:%1@127.0.0.1:6379 /0 x").arg(s);
    QTest::newRow("scheme typo") << QStringLiteral("redis:/ops:%1@127.0.0.1").arg(s);
    QTest::newRow("no host") << QStringLiteral("redis://ops:%1@").arg(s);
    QTest::newRow("sentinel port") << QStringLiteral("redis-sentinel://ops:%1@10.0.0.5:99999#m").arg(s);
    QTest::newRow("sentinel no master") << QStringLiteral("redis-sentinel://ops:%1@10.0.0.5").arg(s);
    QTest::newRow("sentinel db") << QStringLiteral("redis-sentinel://ops:%1@10.0.0.5/x#m").arg(s);
    QTest::newRow("sentinel bad host") << QStringLiteral("redis-sentinel://ops:%1@a b#m").arg(s);
    // The messages that explain a URL (no scheme: "did you mean redis://...", ?db=) keep it hidden too.
    QTest::newRow("no scheme") << QStringLiteral("ops:%1@127.0.0.1:6379").arg(s);
    QTest::newRow("two databases") << QStringLiteral("redis://ops:%1@127.0.0.1:6379/2?db=1").arg(s);
    QTest::newRow("query db not a number") << QStringLiteral("redis://ops:%1@127.0.0.1:6379?db=x").arg(s);
    QTest::newRow("unknown parameter") << QStringLiteral("redis://ops:%1@127.0.0.1:6379?timeout=1").arg(s);
}

void TestUrlRedaction::parseErrorsNeverShowThePassword()
{
    QFETCH(QString, url);
    QString error;
    QVERIFY(!RedisEndpoint::parse(url, &error).isValid());
    QVERIFY(!error.isEmpty());
    QVERIFY2(!error.contains(kSecret), qPrintable(error));
}

void TestUrlRedaction::cliNeverPrintsThePassword_data()
{
    QTest::addColumn<QStringList>("args");
    const QString s = kSecret;
    const quint16 port = m_server.endpoint().port();
    QTest::newRow("list, bad port") << QStringList{
        "--url", QStringLiteral("redis://ops:%1@127.0.0.1:%2x/0").arg(s).arg(port), "list"};
    QTest::newRow("list, bad db") << QStringList{
        "--url", QStringLiteral("redis://ops:%1@127.0.0.1:%2/zero").arg(s).arg(port), "list"};
    QTest::newRow("list, bad scheme") << QStringList{
        "--url", QStringLiteral("redsi://ops:%1@127.0.0.1:%2").arg(s).arg(port), "list"};
    QTest::newRow("list, wrong password")
        << QStringList{"--url", QStringLiteral("redis://ops:%1@127.0.0.1:%2").arg(s).arg(port), "list"};
    QTest::newRow("redlock, bad port") << QStringList{
        "redlock", "show", "x", "--servers",
        QStringLiteral("redis://127.0.0.1:%1,redis://ops:%2@127.0.0.1:70000").arg(port).arg(s)};
    QTest::newRow("redlock, bad db") << QStringList{"redlock", "show", "x", "--servers",
                                                    QStringLiteral("redis://:%1@127.0.0.1:%2/db").arg(s).arg(port)};
}

void TestUrlRedaction::cliNeverPrintsThePassword()
{
    QFETCH(QStringList, args);
    const ProcessResult r = lockscope::test::runProcess(cliPath(), args);
    QVERIFY2(r.finished && r.exitCode != 0, qPrintable(r.describe()));
    QVERIFY2(!r.err.isEmpty(), qPrintable(r.describe()));
    QVERIFY2(!r.err.contains(kSecret.toUtf8()) && !r.out.contains(kSecret.toUtf8()), qPrintable(r.describe()));
}

void TestUrlRedaction::helpRanksTheUrlPasswordLast()
{
    const ProcessResult help = lockscope::test::runProcess(cliPath(), {"--help"});
    QCOMPARE(help.exitCode, 0);
    const QByteArray text = help.out.simplified();
    QVERIFY2(text.contains("A password in the URL is visible to other local users in 'ps': prefer --ask-password"),
             text.constData());
}

// ?db=N is honoured (ignored, it would silently watch db 0), and a host without a scheme is answered
// with the URL it probably meant.
void TestUrlRedaction::queryDbAndMissingScheme()
{
    QString error;
    RedisEndpoint e = RedisEndpoint::parse(QStringLiteral("redis://127.0.0.1:6379?db=3"), &error);
    QVERIFY2(e.isValid(), qPrintable(error));
    QCOMPARE(e.db(), 3);
    e = RedisEndpoint::parse(QStringLiteral("rediss://127.0.0.1:6379/3?db=3"), &error);
    QVERIFY2(e.isValid() && e.db() == 3, qPrintable(error));
    QVERIFY(!RedisEndpoint::parse(QStringLiteral("redis://127.0.0.1:6379/2?db=3"), &error).isValid());
    QVERIFY2(error.contains(QLatin1String("two databases")), qPrintable(error));
    QVERIFY(!RedisEndpoint::parse(QStringLiteral("redis://127.0.0.1:6379?ssl=true"), &error).isValid());
    QVERIFY2(error.contains(QLatin1String("unknown parameter 'ssl'")), qPrintable(error));
    for (const QString &hostPort : {QStringLiteral("127.0.0.1:6379"), QStringLiteral("localhost:6379"),
                                    QStringLiteral("cache-1.internal"), QStringLiteral("[::1]:6380")}) {
        QVERIFY(!RedisEndpoint::parse(hostPort, &error).isValid());
        QVERIFY2(error.contains(QStringLiteral("did you mean redis://%1").arg(hostPort)), qPrintable(error));
    }
    // Not a host: no guess.
    QVERIFY(!RedisEndpoint::parse(QStringLiteral("not a url"), &error).isValid());
    QVERIFY2(!error.contains(QLatin1String("did you mean")), qPrintable(error));
}

QTEST_MAIN(TestUrlRedaction)
#include "tst_urlredaction.moc"
