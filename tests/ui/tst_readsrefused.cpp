// A read-only ACL user that lacks one command LockScope's reads need (a plausible "viewer":
// +@read +@connection +info +slowlog +client|list +pubsub +eval +evalsha +script, no +time):
// the dashboard's band names the refused command and the grant, the status bar never says
// "0 locks", and a screenshot of it is saved for a person to look at.

#include "connect/connectionbanner.h"
#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include "testsupport.h"

#include "demo/redisserverprocess.h"

#include <QDir>
#include <QLabel>
#include <QStatusBar>
#include <QtTest>

using namespace lockscope;

class TestReadsRefused : public QObject
{
    Q_OBJECT
private slots:
    void viewerWithoutTimeSeesTheRefusedCommand();
    void grantIsDerivedFromTheSentence();
};

void TestReadsRefused::viewerWithoutTimeSeesTheRefusedCommand()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    QCOMPARE(lockscope::test::redisCli(server.port(),
                                       {QStringLiteral("ACL"), QStringLiteral("SETUSER"), QStringLiteral("viewer"),
                                        QStringLiteral("on"), QStringLiteral(">viewer-pw"), QStringLiteral("~*"),
                                        QStringLiteral("&*"), QStringLiteral("+@read"), QStringLiteral("+@connection"),
                                        QStringLiteral("+info"), QStringLiteral("+slowlog"),
                                        QStringLiteral("+client|list"), QStringLiteral("+pubsub"),
                                        QStringLiteral("+eval"), QStringLiteral("+evalsha"), QStringLiteral("+script")})
                 .exitCode,
             0);
    QCOMPARE(lockscope::test::redisCli(server.port(),
                                       {QStringLiteral("HSET"), QStringLiteral("orders:42"),
                                        QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b:1"), QStringLiteral("1")})
                 .exitCode,
             0);
    LockSession::Options options;
    options.endpoint = RedisEndpoint::parse(QStringLiteral("redis://viewer:viewer-pw@127.0.0.1:%1").arg(server.port()));
    options.readOnly = true;
    MainWindow window(options);
    window.resize(1280, 720);
    window.show();
    window.start();
    ConnectionBanner *banner = window.connectionBanner();
    QVERIFY(banner);
    QTRY_VERIFY_WITH_TIMEOUT(banner->readsRefused(), 15000);
    QTest::qWait(2500); // a mode change (polling) must not replace the band
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("<b>TIME</b>")), qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QStringLiteral("ACL SETUSER viewer +time")), qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QStringLiteral("does <b>not</b> mean there are no locks")),
             qPrintable(banner->text()));
    QCOMPARE(window.lockModel()->rowCount(), 0);
    bool zeroLocks = false;
    bool unknown = false;
    for (QLabel *l : window.statusBar()->findChildren<QLabel *>()) {
        zeroLocks = zeroLocks || l->text().contains(QStringLiteral("0 lock"));
        unknown = unknown || l->text().contains(QStringLiteral("locks unknown"));
    }
    QVERIFY(!zeroLocks);
    QVERIFY(unknown);
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("reads-refused.png"))));
}

void TestReadsRefused::grantIsDerivedFromTheSentence()
{
    QCOMPARE(ConnectionBanner::grantFor(QStringLiteral(
                 "the ACL user 'viewer' may not run 'time' (called by LockScope's Lua script, sent with EVALSHA): "
                 "NOPERM User viewer has no permissions to run the 'time' command")),
             QStringLiteral("ACL SETUSER viewer +time"));
    QCOMPARE(ConnectionBanner::grantFor(QStringLiteral("NOPERM something else")), QString());
}

QTEST_MAIN(TestReadsRefused)
#include "tst_readsrefused.moc"
