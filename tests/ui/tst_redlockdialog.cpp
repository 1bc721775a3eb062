// The RedLock view on five real redis-servers: component locks written by redis-cli (Redisson's
// acquire script), one server stopped; the dialog shows each server and the quorum verdict.
#include "locks/redlockdialog.h"

#include "demo/redisserverprocess.h"
#include "testsupport.h"

#include <QDir>
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include <memory>
#include <vector>

using namespace lockscope;

class TestRedLockDialog : public QObject
{
    Q_OBJECT
private slots:
    void showsEachServerAndTheQuorum();
    void rejectsBadUrls();
};

void TestRedLockDialog::showsEachServerAndTheQuorum()
{
    if (RedisServerProcess::findExecutable().isEmpty() || lockscope::test::redisCliPath().isEmpty())
        QSKIP("redis-server and redis-cli are needed");
    std::vector<std::unique_ptr<RedisServerProcess>> servers;
    QStringList urls;
    for (int i = 0; i < 5; ++i) {
        servers.push_back(std::make_unique<RedisServerProcess>());
        QString error;
        QVERIFY2(servers.back()->start(10000, &error), qPrintable(error));
        urls << servers.back()->url();
    }
    // Holder A on servers 0, 1, 2; holder B on server 3; server 4 stopped.
    const QString a = lockscope::test::newClientId() + QStringLiteral(":1");
    const QString b = lockscope::test::newClientId() + QStringLiteral(":7");
    for (int i = 0; i < 4; ++i) {
        const auto r = lockscope::test::redisCliEval(servers[i]->port(), lockscope::test::kRedissonAcquireScript,
                                                     {QStringLiteral("payments:settle")},
                                                     {QStringLiteral("60000"), i < 3 ? a : b});
        QVERIFY2(r.exitCode == 0, r.out.constData());
    }
    servers[4]->stop();

    RedLockDialog dialog;
    dialog.show();
    QSignalSpy shown(&dialog, &RedLockDialog::statusShown);
    QVERIFY(dialog.watch(urls.join(QLatin1Char(',')), QStringLiteral("payments:settle")));
    QVERIFY(shown.wait(10000));
    const RedLockStatus &st = dialog.status();
    QCOMPARE(st.serverCount(), 5);
    QCOMPARE(st.quorum, 3);
    QVERIFY(st.hasQuorum);
    QCOMPARE(st.holder, a);
    QCOMPARE(st.agreeing, 3);
    QCOMPARE(st.unreachableCount(), 1);
    auto *table = dialog.findChild<QTableWidget *>();
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 5);
    QVERIFY(table->item(4, 2)->text().startsWith(QLatin1String("unreachable")));
    QCOMPARE(table->item(3, 3)->text(), b);
    // It keeps reading: server 3's lock goes away, the next read shows it free.
    QVERIFY(lockscope::test::redisCli(servers[3]->port(), {QStringLiteral("DEL"), QStringLiteral("payments:settle")})
                .exitCode == 0);
    QTRY_VERIFY_WITH_TIMEOUT(table->item(3, 2)->text() == QLatin1String("free"), 5000);
    QTest::qWait(200);
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(dialog.grab().save(QDir(dir).filePath(QStringLiteral("redlock-dialog.png"))));
}

void TestRedLockDialog::rejectsBadUrls()
{
    RedLockDialog dialog;
    QVERIFY(!dialog.watch(QStringLiteral("redis://127.0.0.1:1,notaurl://x"), QStringLiteral("a")));
    QVERIFY(!dialog.watch(QStringLiteral("redis://127.0.0.1:7000,redis://127.0.0.1:7000"), QStringLiteral("a")));
    bool twice = false;
    for (QLabel *l : dialog.findChildren<QLabel *>())
        twice = twice || l->text().contains(QLatin1String("named twice"));
    QVERIFY(twice);
    QVERIFY(!dialog.watch(QStringLiteral("redis://127.0.0.1:7000"), QString()));
}

QTEST_MAIN(TestRedLockDialog)
#include "tst_redlockdialog.moc"
