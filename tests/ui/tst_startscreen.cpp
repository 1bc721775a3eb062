// The start screen: `lockscope` without a connection (the desktop entry) must neither start the
// demo unasked nor show nothing at all when redis-server is missing. Offscreen, with a temporary settings file.
#include "connect/connectionprofile.h"
#include "connect/connectionprofilestore.h"
#include "connect/startscreen.h"

#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace lockscope;

class TestStartScreen : public QObject
{
    Q_OBJECT
private slots:
    void listsSavedAndRecentConnectionsAndOffersEveryWayIn();
    void emptyStoreSaysHowToSave();
};

static QPushButton *buttonNamed(QWidget &w, const QString &accessibleName)
{
    for (QPushButton *b : w.findChildren<QPushButton *>())
        if (b->accessibleName() == accessibleName)
            return b;
    return nullptr;
}

void TestStartScreen::listsSavedAndRecentConnectionsAndOffersEveryWayIn()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
    ConnectionProfileStore store(&settings);
    ConnectionProfile prod;
    prod.name = QStringLiteral("orders production");
    prod.url = QStringLiteral("rediss://ops@redis.prod:6380/0");
    prod.readOnly = true;
    prod.color = ConnectionProfile::colorTags().at(1).second;
    QVERIFY(store.save(prod));
    ConnectionProfile sandbox;
    sandbox.name = QStringLiteral("workshop sandbox");
    sandbox.url = QStringLiteral("redis://127.0.0.1:6379");
    sandbox.color = ConnectionProfile::colorTags().at(4).second;
    QVERIFY(store.save(sandbox));
    ConnectionProfile recent;
    recent.url = QStringLiteral("redis://10.0.0.5:6379/0");
    store.addRecent(recent);

    StartScreen screen(&store);
    screen.resize(820, 480);
    screen.show();
    QVERIFY(QTest::qWaitForWindowExposed(&screen));
    const QList<ConnectionProfile> listed = screen.listedConnections();
    QCOMPARE(listed.size(), 3);
    QCOMPARE(listed.at(0).name, prod.name);
    QCOMPARE(listed.at(1).name, sandbox.name);
    QCOMPARE(listed.at(2).url, recent.url);

    // Enter on the first connection opens it.
    QSignalSpy chosen(&screen, &StartScreen::connectionChosen);
    auto *list = screen.findChild<QListWidget *>();
    QVERIFY(list);
    list->setFocus();
    list->setCurrentRow(2);
    QTest::keyClick(list, Qt::Key_Return);
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.at(0).at(0).value<ConnectionProfile>().url, recent.url);

    // Every other way in is a button with an accessible name, and each says what it wants.
    QSignalSpy connectAsked(&screen, &StartScreen::connectDialogRequested);
    QSignalSpy demo(&screen, &StartScreen::demoRequested);
    QSignalSpy workshop(&screen, &StartScreen::workshopRequested);
    for (const QString &name : {QStringLiteral("Connect…"), QStringLiteral("Try the demo"),
                                QStringLiteral("Open a recording…"), QStringLiteral("Workshop")})
        QVERIFY2(buttonNamed(screen, name), qPrintable(name));
    buttonNamed(screen, QStringLiteral("Connect…"))->click();
    buttonNamed(screen, QStringLiteral("Try the demo"))->click();
    buttonNamed(screen, QStringLiteral("Workshop"))->click();
    QCOMPARE(connectAsked.size(), 1);
    QCOMPARE(demo.size(), 1);
    QCOMPARE(workshop.size(), 1);

    // A start-up error is said on the screen.
    QVERIFY(screen.errorText().isEmpty());
    screen.showError(QStringLiteral("orders production: no password was entered (the prompt was cancelled)"));
    QVERIFY(screen.findChild<QLabel *>(QStringLiteral("startError"))->isVisible());
    screen.showError(QString());

    list->setCurrentRow(0);
    const QString shots = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(shots);
    QVERIFY(screen.grab().save(QDir(shots).filePath(QStringLiteral("start-screen.png"))));
}

void TestStartScreen::emptyStoreSaysHowToSave()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
    ConnectionProfileStore store(&settings);
    StartScreen screen(&store);
    QVERIFY(screen.listedConnections().isEmpty());
    auto *list = screen.findChild<QListWidget *>();
    QCOMPARE(list->count(), 1);
    QVERIFY(list->item(0)->text().contains(QStringLiteral("Connect…")));
    QVERIFY(!buttonNamed(screen, QStringLiteral("Open the selected connection"))->isEnabled());
}

QTEST_MAIN(TestStartScreen)
#include "tst_startscreen.moc"
