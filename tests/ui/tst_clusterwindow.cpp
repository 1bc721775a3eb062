// The dashboard pointed at one node of a real Redis Cluster (3 masters, 1 replica each, on
// loopback): it finds the cluster by itself, lists locks held on every master with their node,
// shows the topology in the Cluster tab and the masters in the status bar, and keeps watching
// when a master is killed and its replica takes over (the failover is in the event log).
#include "cluster/clustertopologypanel.h"
#include "locks/eventlogmodel.h"
#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include "demo/redisserverprocess.h"
#include "localcluster.h"
#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>

using namespace lockscope;
using lockscope::test::LocalCluster;

namespace
{
QString address(const LocalCluster &c, int i)
{
    return QStringLiteral("127.0.0.1:%1").arg(c.port(i));
}
} // namespace

class TestClusterWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase() { m_cluster.stop(); }
    void showsEveryMasterAndFollowsFailover();

private:
    QString nameOn(int node, const QString &prefix) const;
    LocalCluster m_cluster;
};

void TestClusterWindow::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty() || lockscope::test::redisCliPath().isEmpty())
        QSKIP("redis-server and redis-cli are needed");
    m_cluster.setNodeTimeoutMs(1000);
    QString error;
    QVERIFY2(m_cluster.start(3, 1, &error), qPrintable(error));
}

QString TestClusterWindow::nameOn(int node, const QString &prefix) const
{
    for (int i = 0; i < 1000; ++i) {
        const QString n = QStringLiteral("%1:%2").arg(prefix).arg(i);
        if (m_cluster.nodeOf(n.toUtf8()) == node)
            return n;
    }
    return QString();
}

void TestClusterWindow::showsEveryMasterAndFollowsFailover()
{
    // One lock per master, written by redis-cli (an independent client).
    QList<int> masters;
    for (int i = 0; i < m_cluster.size(); ++i)
        if (m_cluster.isMaster(i))
            masters << i;
    QCOMPARE(masters.size(), 3);
    QStringList names;
    for (int m : masters) {
        const QString name = nameOn(m, QStringLiteral("orders"));
        const auto r = lockscope::test::redisCliEval(
            m_cluster.port(m), lockscope::test::kRedissonAcquireScript, {name},
            {QStringLiteral("120000"), lockscope::test::newClientId() + QStringLiteral(":1")});
        QVERIFY2(r.exitCode == 0 && !r.out.contains("MOVED"), r.out.constData());
        QVERIFY(lockscope::test::redisCli(m_cluster.port(m),
                                          {QStringLiteral("WAIT"), QStringLiteral("1"), QStringLiteral("5000")})
                    .out.trimmed() == "1");
        names << name;
    }

    LockSession::Options options;
    options.endpoint = m_cluster.endpoint(masters[0]);
    options.readOnly = true;
    MainWindow window(options);
    window.resize(1360, 820);
    window.show();
    QSignalSpy ready(&window, &MainWindow::initialDataArrived);
    window.start();
    QVERIFY(ready.wait(15000));
    QTRY_VERIFY_WITH_TIMEOUT(window.clusterPanel() != nullptr, 10000);
    for (const QString &name : names)
        QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->rowOf(name) >= 0, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(window.clusterPanel()->liveMasters(), 3, 10000);
    auto *view = window.findChild<QTableView *>();
    QVERIFY(view && !view->isColumnHidden(LockTableModel::NodeColumn));
    for (int i = 0; i < masters.size(); ++i) {
        const int row = window.lockModel()->rowOf(names[i]);
        const QString node = window.lockModel()->index(row, LockTableModel::NodeColumn).data().toString();
        QVERIFY2(node.startsWith(address(m_cluster, masters[i])), qPrintable(node));
    }
    auto *tree = window.clusterPanel()->findChild<QTreeWidget *>(QStringLiteral("clusterTopologyTree"));
    QVERIFY(tree);
    QCOMPARE(tree->topLevelItemCount(), 3);
    QCOMPARE(tree->topLevelItem(0)->childCount(), 1); // its replica
    window.showBottomTab(QStringLiteral("Cluster"));
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QTest::qWait(300);
    QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("cluster-window.png"))));

    // Kill the master holding names[1]; its replica takes over. The dashboard keeps watching:
    // the failover is in the event log, the lock is still listed (now on the new master), and
    // all three masters are live again.
    const int victim = masters[1];
    const QList<int> replicas = m_cluster.replicasOf(victim);
    QElapsedTimer clock;
    clock.start();
    m_cluster.kill(victim);
    const int promoted = m_cluster.waitForPromotion(replicas, 30000);
    QVERIFY2(promoted >= 0, "no replica was promoted");
    const qint64 promotedMs = clock.elapsed();
    auto failoverLogged = [&] {
        for (int r = 0; r < window.eventModel()->rowCount(); ++r)
            if (window.eventModel()->event(r).type == QLatin1String("failover"))
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(failoverLogged(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()
                                 ->index(window.lockModel()->rowOf(names[1]), LockTableModel::NodeColumn)
                                 .data()
                                 .toString()
                                 .startsWith(address(m_cluster, promoted)),
                             10000);
    QTRY_COMPARE_WITH_TIMEOUT(window.clusterPanel()->liveMasters(), 3, 15000);
    qInfo("replica promoted after %lld ms; the dashboard showed the failover and 3 of 3 masters live after %lld ms",
          promotedMs, clock.elapsed());
    for (const QString &name : names)
        QVERIFY(window.lockModel()->rowOf(name) >= 0);

    // A lock taken on the new master afterwards shows up live.
    const QString later = nameOn(promoted, QStringLiteral("after-failover"));
    const auto r =
        lockscope::test::redisCliEval(m_cluster.port(promoted), lockscope::test::kRedissonAcquireScript, {later},
                                      {QStringLiteral("60000"), lockscope::test::newClientId() + QStringLiteral(":1")});
    QVERIFY2(r.exitCode == 0, r.out.constData());
    QTRY_VERIFY_WITH_TIMEOUT(window.lockModel()->rowOf(later) >= 0, 10000);
    window.showBottomTab(QStringLiteral("Event"));
    QTest::qWait(300);
    QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("cluster-window-failover.png"))));
}

QTEST_MAIN(TestClusterWindow)
#include "tst_clusterwindow.moc"
