// A read-only ACL user that lacks one command LockScope's reads need (a plausible "viewer":
// +@read +@connection +info +slowlog +client|list +pubsub +eval +evalsha +script, no +time):
// the dashboard's band names the refused command and the grant, the status bar never says
// "0 locks", and a screenshot of it is saved for a person to look at.

#include "connect/connectionbanner.h"
#include "locks/lockactions.h"
#include "locks/locktablemodel.h"
#include "locks/serverview.h"
#include "mainwindow.h"

#include "testsupport.h"

#include "demo/redisserverprocess.h"

#include <QAction>
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
    void viewerCannotStartWhatRedisWouldRefuse();
    void writePermissionsNameTheGrant();
    void pollingBandTellsOffFromUnknown();
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

void TestReadsRefused::viewerCannotStartWhatRedisWouldRefuse()
{
    // A viewer that may read everything (+time too) but write nothing, in a session that is not
    // --read-only: the write actions are off before any confirmation, and say what to grant.
    // The same window as the default user keeps them on.
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    QCOMPARE(lockscope::test::redisCli(
                 server.port(), {QStringLiteral("ACL"), QStringLiteral("SETUSER"), QStringLiteral("viewer"),
                                 QStringLiteral("on"), QStringLiteral(">viewer-pw"), QStringLiteral("~*"),
                                 QStringLiteral("&*"), QStringLiteral("+@read"), QStringLiteral("+@connection"),
                                 QStringLiteral("+info"), QStringLiteral("+slowlog"), QStringLiteral("+time"),
                                 QStringLiteral("+client|list"), QStringLiteral("+pubsub"), QStringLiteral("+eval"),
                                 QStringLiteral("+evalsha"), QStringLiteral("+script"), QStringLiteral("+config|get")})
                 .exitCode,
             0);
    QCOMPARE(lockscope::test::redisCli(server.port(),
                                       {QStringLiteral("HSET"), QStringLiteral("orders:42"),
                                        QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b:1"), QStringLiteral("1")})
                 .exitCode,
             0);
    for (const bool viewer : {true, false}) {
        LockSession::Options options;
        options.endpoint =
            RedisEndpoint::parse(viewer ? QStringLiteral("redis://viewer:viewer-pw@127.0.0.1:%1").arg(server.port())
                                        : QStringLiteral("redis://127.0.0.1:%1").arg(server.port()));
        options.auditLogPath = QDir::temp().filePath(QStringLiteral("lockscope-test-readsrefused-audit.jsonl"));
        MainWindow window(options);
        window.resize(1280, 720);
        window.show();
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->snapshot(QStringLiteral("orders:42")), 15000);
        window.selectLock(QStringLiteral("orders:42"));
        LockActions *actions = window.serverView()->lockActions();
        QAction *force = actions->forceUnlockAction();
        if (viewer) {
            QTRY_VERIFY_WITH_TIMEOUT(force->toolTip().contains(QStringLiteral("ACL SETUSER viewer")), 10000);
            QVERIFY(!force->isEnabled());
            QVERIFY2(force->toolTip().contains(QStringLiteral("+del")), qPrintable(force->toolTip()));
            QVERIFY(!actions->acquireAction()->isEnabled());
            QVERIFY2(actions->acquireAction()->toolTip().contains(QStringLiteral("HINCRBY")),
                     qPrintable(actions->acquireAction()->toolTip()));
            QVERIFY(!actions->enableNotificationsAction()->isEnabled());
            const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
            QDir().mkpath(dir);
            QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("writes-refused.png"))));
        } else {
            QTRY_VERIFY_WITH_TIMEOUT(force->isEnabled(), 10000);
            QTest::qWait(1000); // the probe has answered by now: nothing refused
            QVERIFY(force->isEnabled());
            QVERIFY(actions->acquireAction()->isEnabled());
            QVERIFY(!force->toolTip().contains(QStringLiteral("ACL")));
        }
    }
}

void TestReadsRefused::writePermissionsNameTheGrant()
{
    const WritePermissions unknown;
    QVERIFY(unknown.allows(QStringLiteral("force_unlock")));
    QVERIFY(unknown.whyNot(QStringLiteral("force_unlock")).isEmpty());
    const WritePermissions viewer(QStringLiteral("viewer"), {QStringLiteral("del"), QStringLiteral("pexpire"),
                                                             QStringLiteral("publish"), QStringLiteral("config|set")});
    QCOMPARE(viewer.refusedFor(QStringLiteral("force_unlock")), QStringList({"del", "publish"}));
    QCOMPARE(viewer.refusedFor(QStringLiteral("renew")), QStringList({"pexpire"}));
    QVERIFY(!viewer.allows(QStringLiteral("enable_notifications")));
    QCOMPARE(viewer.whyNot(QStringLiteral("enable_notifications")),
             QStringLiteral("Your ACL user 'viewer' may not run CONFIG SET: grant with ACL SETUSER viewer +config|set, "
                            "or connect as a user that may write"));
    QVERIFY(viewer.allows(QStringLiteral("unknown_action")));
}

// Issue 38: a viewer refused CONFIG GET polls because it cannot tell whether keyspace
// notifications are on; the band must not say they are off.
void TestReadsRefused::pollingBandTellsOffFromUnknown()
{
    ConnectionBanner band;
    band.setState(WatchMode::Polling, QStringLiteral("127.0.0.1:6379"),
                  QStringLiteral("the ACL user 'viewer' may not run 'config|get': polling every 1000 ms"), 0);
    QVERIFY2(band.text().contains(QStringLiteral("may not ask")) && !band.text().contains(QStringLiteral("are off")),
             qPrintable(band.text()));
    band.setState(WatchMode::Polling, QStringLiteral("127.0.0.1:6379"),
                  QStringLiteral("notify-keyspace-events is empty: polling every 1000 ms"), 0);
    QVERIFY2(band.text().contains(QStringLiteral("are off")), qPrintable(band.text()));
}

QTEST_MAIN(TestReadsRefused)
#include "tst_readsrefused.moc"
