// Workshop mode's window on a private redis-server: stepping a shipped scenario shows the call,
// the script branch, the keys before/after and the narration, next to the lock views; the
// scheduler picks who acts next; projector mode scales and recolours live.
#include "workshopwindow.h"

#include "locktablemodel.h"
#include "mainwindow.h"

#include "demo/redisserverprocess.h"
#include "workshop/scenariorunner.h"

#include <QDir>
#include <QListWidget>
#include <QTextBrowser>
#include <QtTest>

using namespace lockscope;

class TestWorkshopWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase() { m_server.stop(); }
    void stepsThroughFairHandOff();
    void schedulerPicksWhoActsNext();
    void everyShippedScenarioPlaysToTheEnd();

private:
    bool stepAndWait(WorkshopWindow &w);
    void shot(QWidget &w, const QString &name);
    RedisServerProcess m_server;
};

void TestWorkshopWindow::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty())
        QSKIP("redis-server is needed");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

bool TestWorkshopWindow::stepAndWait(WorkshopWindow &w)
{
    QSignalSpy shown(&w, &WorkshopWindow::stepShown);
    return w.step() && shown.wait(15000);
}

void TestWorkshopWindow::shot(QWidget &w, const QString &name)
{
    const QString dir = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(QDir(dir).filePath(name)));
}

void TestWorkshopWindow::stepsThroughFairHandOff()
{
    WorkshopWindow w(m_server.endpoint());
    QString error;
    QVERIFY2(w.loadScenario(QStringLiteral("fair-handoff"), &error), qPrintable(error));
    w.show();
    for (int i = 0; i < 4; ++i)
        QVERIFY(stepAndWait(w));
    QCOMPARE(w.reports().size(), 4);
    const StepReport &last = w.reports().last();
    QCOMPARE(last.actor, QStringLiteral("A"));
    QCOMPARE(last.action, QStringLiteral("fairUnlock"));
    auto *detail = w.findChild<QTextBrowser *>(QStringLiteral("workshopStepDetail"));
    QVERIFY(detail);
    const QString text = detail->toPlainText();
    QVERIFY2(text.contains(QLatin1String("Script branch")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("Redis keys")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("redisson_lock_queue")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("PUBLISH")), qPrintable(text)); // the hand-over message to B
    auto *steps = w.findChild<QListWidget *>(QStringLiteral("workshopSteps"));
    QVERIFY(steps->item(0)->text().startsWith(QStringLiteral("✓")));
    QVERIFY(steps->item(4)->text().startsWith(QStringLiteral("▶")));
    // The lock views alongside watch the same private server.
    QTRY_VERIFY_WITH_TIMEOUT(w.lockViews()->lockModel()->rowCount() >= 1, 10000);
    QTest::qWait(600);
    shot(w, QStringLiteral("workshop-fair-handoff.png"));

    // Projector mode: larger fonts, dark theme, switched live.
    const qreal before = w.font().pointSizeF();
    w.setProjectorMode(true);
    QVERIFY(w.font().pointSizeF() >= before * 1.4);
    QVERIFY(w.palette().color(QPalette::Window).lightness() < 60);
    QTest::qWait(300);
    shot(w, QStringLiteral("workshop-projector.png"));
    w.setProjectorMode(false);
    QCOMPARE(w.font().pointSizeF(), before);
}

void TestWorkshopWindow::schedulerPicksWhoActsNext()
{
    WorkshopWindow w(m_server.endpoint());
    QVERIFY(w.loadScenario(QStringLiteral("fair-handoff")));
    w.setSchedulerMode(true);
    // C jumps ahead of A and B: it asks first, so it gets the free lock (the scenario's own
    // expectation for that step, "queued", no longer holds: the order made the difference).
    QSignalSpy shown(&w, &WorkshopWindow::stepShown);
    QVERIFY(w.stepAs(QStringLiteral("C")));
    QVERIFY(shown.wait(15000));
    QCOMPARE(w.reports().first().actor, QStringLiteral("C"));
    QCOMPARE(w.reports().first().index, 2);
    QCOMPARE(w.reports().first().result, QStringLiteral("acquired"));
    QVERIFY(!w.reports().first().ok);
    // Atomicity: while a step runs, no other can start.
    QVERIFY(w.stepAs(QStringLiteral("A")));
    QVERIFY(!w.stepAs(QStringLiteral("B")));
    QVERIFY(shown.wait(15000));
    QCOMPARE(w.reports().size(), 2);
    QCOMPARE(w.reports().last().result, QStringLiteral("queued"));
}

void TestWorkshopWindow::everyShippedScenarioPlaysToTheEnd()
{
    WorkshopWindow w(m_server.endpoint());
    // Play (at 4x: a step every 625 ms) through one scenario...
    QVERIFY(w.loadScenario(QStringLiteral("reentrancy")));
    QSignalSpy played(&w, &WorkshopWindow::scenarioFinished);
    w.setSpeed(4.0);
    w.setPlaying(true);
    QVERIFY(played.wait(60000));
    QVERIFY(played.first().first().toBool());
    // ...and step through every shipped one, with its expectations met.
    for (const QString &name : Scenario::builtInNames()) {
        QString error;
        QVERIFY2(w.loadScenario(name, &error), qPrintable(error));
        QSignalSpy finished(&w, &WorkshopWindow::scenarioFinished);
        for (int i = 0; i < w.scenario().steps.size(); ++i)
            QVERIFY2(stepAndWait(w), qPrintable(QStringLiteral("%1 step %2").arg(name).arg(i + 1)));
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.first().first().toBool(), qPrintable(name));
    }
}

QTEST_MAIN(TestWorkshopWindow)
#include "tst_workshopwindow.moc"
