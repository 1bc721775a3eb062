// Several servers side by side: two real redis-servers with different locks, one tab each.
#include "servertabswindow.h"

#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include "demo/redisserverprocess.h"
#include "testsupport.h"

#include <QDir>
#include <QTabWidget>
#include <QtTest>

using namespace lockscope;

class TestServerTabs : public QObject
{
    Q_OBJECT
private slots:
    void oneTabPerServer();
};

void TestServerTabs::oneTabPerServer()
{
    if (RedisServerProcess::findExecutable().isEmpty() || lockscope::test::redisCliPath().isEmpty())
        QSKIP("redis-server and redis-cli are needed");
    RedisServerProcess staging;
    RedisServerProcess production;
    QString error;
    QVERIFY2(staging.start(10000, &error), qPrintable(error));
    QVERIFY2(production.start(10000, &error), qPrintable(error));
    const QString field = lockscope::test::newClientId() + QStringLiteral(":1");
    QVERIFY(lockscope::test::redisCli(
                staging.port(), {QStringLiteral("HSET"), QStringLiteral("staging:job"), field, QStringLiteral("1")})
                .exitCode == 0);
    QVERIFY(lockscope::test::redisCli(production.port(),
                                      {QStringLiteral("HSET"), QStringLiteral("orders:42"), field, QStringLiteral("2")})
                .exitCode == 0);
    QVERIFY(lockscope::test::redisCli(production.port(),
                                      {QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("60000")})
                .exitCode == 0);

    ServerTabsWindow window;
    LockSession::Options a;
    a.endpoint = staging.endpoint();
    a.readOnly = true;
    LockSession::Options b;
    b.endpoint = production.endpoint();
    b.readOnly = true;
    ServerView *first = window.addServer(a, QStringLiteral("staging"));
    ServerView *second = window.addServer(b);
    window.show();
    QCOMPARE(window.count(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(first->lockModel()->rowCount(), 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(second->lockModel()->rowCount(), 1, 10000);
    QVERIFY(first->lockModel()->rowOf(QStringLiteral("staging:job")) >= 0);
    QVERIFY(second->lockModel()->rowOf(QStringLiteral("orders:42")) >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(second->mode(), WatchMode::Live, 10000);
    auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("serverTabs"));
    QCOMPARE(tabs->tabText(0), QStringLiteral("staging"));
    QCOMPARE(tabs->tabText(1), production.endpoint().address());
    tabs->setCurrentIndex(1);
    second->selectLock(QStringLiteral("orders:42"));
    QTest::qWait(300);
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("server-tabs.png"))));

    // Closing a tab stops that dashboard; the other goes on.
    emit tabs->tabCloseRequested(0);
    QCOMPARE(window.count(), 1);
    QCOMPARE(window.server(0), second);
    QVERIFY(
        lockscope::test::redisCli(production.port(), {QStringLiteral("DEL"), QStringLiteral("orders:42")}).exitCode ==
        0);
    QTRY_COMPARE_WITH_TIMEOUT(second->lockModel()->rowCount(), 0, 10000);
}

QTEST_MAIN(TestServerTabs)
#include "tst_servertabs.moc"
