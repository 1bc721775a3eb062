// Offscreen GUI smoke test: the dashboard against a real redis-server with locks written by
// redis-cli (an independent client) and by the demo workload.
#include "forceunlockdialog.h"
#include "lockdetailpanel.h"
#include "locktablemodel.h"
#include "mainwindow.h"

#include "demo/demoworkload.h"
#include "demo/redisserverprocess.h"

#include <QAction>
#include <QDir>
#include <QProcess>
#include <QTableView>
#include <QtTest>

using namespace lockscope;

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void showsLocksWrittenByAnotherClient();
    void demoWorkloadRendersAndScreenshot();
    void readOnlyHidesWrites();
    void forceUnlockDialogNamesWhatHappens();

private:
    bool redisCli(const QStringList &args);
    RedisServerProcess m_server;
};

static const QString kField = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");

void TestMainWindow::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestMainWindow::cleanupTestCase() { m_server.stop(); }

bool TestMainWindow::redisCli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral("redis-cli"), QStringList{QStringLiteral("-p"), QString::number(m_server.port())} + args);
    return p.waitForFinished(5000) && p.exitCode() == 0;
}

void TestMainWindow::showsLocksWrittenByAnotherClient()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    QVERIFY(redisCli({QStringLiteral("HSET"), QStringLiteral("orders:42"), kField, QStringLiteral("2")}));
    QVERIFY(redisCli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("30000")}));

    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.show();
    QSignalSpy ready(&window, &MainWindow::initialDataArrived);
    window.start();
    QVERIFY(ready.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 1, 5000);
    QCOMPARE(window.mode(), LockMonitor::Mode::Live);
    window.selectLock(QStringLiteral("orders:42"));
    QCOMPARE(window.selectedLockName(), QStringLiteral("orders:42"));
    QCOMPARE(window.detailPanel()->snapshot().name, QStringLiteral("orders:42"));
    QCOMPARE(window.detailPanel()->snapshot().holders.first().holdCount, 2);

    // A release by the other client reaches the table live.
    QVERIFY(redisCli({QStringLiteral("DEL"), QStringLiteral("orders:42")}));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 0, 5000);
}

void TestMainWindow::demoWorkloadRendersAndScreenshot()
{
    QVERIFY(redisCli({QStringLiteral("FLUSHALL")}));
    DemoWorkload workload(m_server.endpoint());
    workload.start();
    QTest::qWait(1500);
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    MainWindow window(options);
    window.show();
    QSignalSpy ready(&window, &MainWindow::initialDataArrived);
    window.start();
    QVERIFY(ready.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->rowCount() >= 4, 5000);
    QVERIFY(window.lockModel()->rowOf(QStringLiteral("orders:42")) >= 0);
    QVERIFY(window.lockModel()->rowOf(QStringLiteral("legacy:cron")) >= 0);
    const QImage shot = window.grab().toImage();
    QVERIFY(!shot.isNull());
    QVERIFY(shot.width() > 600 && shot.height() > 400);
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(shot.save(QDir(dir).filePath(QStringLiteral("mainwindow-demo.png"))));
    workload.stop();
}

void TestMainWindow::readOnlyHidesWrites()
{
    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    options.readOnly = true;
    MainWindow window(options);
    const auto actions = window.findChildren<QAction *>();
    bool sawForce = false;
    for (QAction *a : actions) {
        const QString text = a->text();
        if (text.contains(QStringLiteral("Force unlock")) || text.contains(QStringLiteral("Acquire"))
            || text.contains(QStringLiteral("Release")) || text.contains(QStringLiteral("Renew"))) {
            sawForce = true;
            QVERIFY2(!a->isVisible(), qPrintable(text));
        }
    }
    QVERIFY(sawForce);
}

void TestMainWindow::forceUnlockDialogNamesWhatHappens()
{
    LockSnapshot s;
    s.name = QStringLiteral("orders:42");
    s.isLock = s.exists = true;
    s.pttlMs = 25000;
    s.readAtSteadyMs = LockSnapshot::steadyNowMs();
    s.subscribers = 3;
    s.holders << LockHolder{kField, kField.section(QLatin1Char(':'), 0, 0), QStringLiteral("1"), 2, QString(), {}};
    ForceUnlockDialog dialog(s);
    QVERIFY(dialog.summary().contains(QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b")));
    QVERIFY(dialog.summary().contains(QStringLiteral("hold count <b>2</b>")));
    QVERIFY(dialog.summary().contains(QStringLiteral("3 Redisson client(s)")));
    QVERIFY(dialog.summary().contains(QStringLiteral("redisson_lock__channel:{orders:42}")));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
