// Connection profiles offscreen: the QSettings store (a temporary INI file, never the user's
// settings) keeps everything but the password, recent connections stay short and unique, the
// Connect dialog adds, edits, deletes and returns what to connect to, the keychain fails
// gracefully where no secret service runs, and the main window shows a profile's colour band.

#include "connect/connectdialog.h"
#include "connect/connectionbanner.h"
#include "connect/connectionprofile.h"
#include "connect/connectionprofilestore.h"
#include "connect/passworddialog.h"
#include "connect/passwordkeychain.h"
#include "connectionlauncher.h"
#include "mainwindow.h"

#include "demo/redisserverprocess.h"
#include "testsupport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolBar>
#include <QUuid>
#include <QtTest>

#include <memory>

using namespace lockscope;

namespace
{

const QString kSecret = QStringLiteral("n0t-in-settings-Pw");

ConnectionProfile sample(const QString &name, const QString &url)
{
    ConnectionProfile p;
    p.name = name;
    p.url = url;
    p.readOnly = true;
    p.color = QColor(0xc0, 0x39, 0x2b);
    p.passwordStorage = ConnectionProfile::PasswordStorage::Ask;
    return p;
}

} // namespace

class TestConnectionProfiles : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void profileEndpointAndErrors();
    void storeRoundTripWithoutPasswords();
    void storeRenamesAndRefusesDuplicates();
    void recentConnectionsAreShortAndUnique();
    void keychainFailsGracefully();
    void dialogAddsEditsAndDeletes();
    void dialogSavesPasswordOnlyInKeychainOrAsks();
    void dialogConnectReturnsTheFormAndRecent();
    void launcherResolvesTypedPassword();
    void mainWindowShowsColourBand();
    void refusedLoginAsksForThePassword();

private:
    QString settingsText() const;

    QTemporaryDir m_dir;
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<ConnectionProfileStore> m_store;
    std::unique_ptr<PasswordKeychain> m_keychain;
};

void TestConnectionProfiles::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    qunsetenv("LOCKSCOPE_PASSWORD");
    qunsetenv("LOCKSCOPE_USER");
}

void TestConnectionProfiles::init()
{
    const QString path =
        m_dir.filePath(QStringLiteral("settings-%1.ini").arg(QUuid::createUuid().toString(QUuid::Id128)));
    m_settings = std::make_unique<QSettings>(path, QSettings::IniFormat);
    m_store = std::make_unique<ConnectionProfileStore>(m_settings.get());
    // A service name of its own: the test never reads or writes the user's LockScope entries.
    m_keychain = std::make_unique<PasswordKeychain>(
        QStringLiteral("lockscope-test-%1").arg(QUuid::createUuid().toString(QUuid::Id128)));
    m_keychain->setTimeoutMs(5000);
}

void TestConnectionProfiles::cleanup()
{
    m_keychain.reset();
    m_store.reset();
    m_settings.reset();
}

QString TestConnectionProfiles::settingsText() const
{
    m_settings->sync();
    QFile f(m_settings->fileName());
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    return QString::fromUtf8(f.readAll());
}

void TestConnectionProfiles::profileEndpointAndErrors()
{
    QString error;
    ConnectionProfile p = sample(QStringLiteral("prod"), QStringLiteral("redis://ops@10.0.0.5:6380/2"));
    RedisEndpoint ep = p.endpoint(&error);
    QVERIFY2(ep.isValid(), qPrintable(error));
    QCOMPARE(ep.username(), QStringLiteral("ops"));
    QCOMPARE(ep.port(), quint16(6380));
    QCOMPARE(ep.db(), 2);
    QCOMPARE(p.keychainKey(), QStringLiteral("ops@10.0.0.5:6380"));
    QCOMPARE(sample(QString(), QStringLiteral("redis://h")).keychainKey(), QStringLiteral("default@h:6379"));

    p.url = QStringLiteral("redis://ops:%1@10.0.0.5:6380").arg(kSecret);
    QVERIFY(!p.endpoint(&error).isValid());
    QVERIFY2(error.contains(QLatin1String("Password field")), qPrintable(error));
    QVERIFY(!error.contains(kSecret));

    p.url = QStringLiteral("redis://10.0.0.5");
    p.tlsCaFile = m_dir.filePath(QStringLiteral("ca.pem"));
    QVERIFY(!p.endpoint(&error).isValid());
    QVERIFY2(error.contains(QLatin1String("rediss://")), qPrintable(error));

    p.url = QStringLiteral("rediss://10.0.0.5");
    QVERIFY(!p.endpoint(&error).isValid());
    QVERIFY2(error.contains(QLatin1String("does not exist")), qPrintable(error));

    p.tlsCaFile.clear();
    p.tlsInsecure = true;
    ep = p.endpoint(&error);
    QVERIFY2(ep.isValid(), qPrintable(error));
    QVERIFY(ep.tlsOptions().isInsecure());

    QString pw;
    QCOMPARE(ConnectionProfile::stripPassword(QStringLiteral("redis://u:%1@h:1/0").arg(kSecret), &pw),
             QStringLiteral("redis://u@h:1/0"));
    QCOMPARE(pw, kSecret);
}

void TestConnectionProfiles::storeRoundTripWithoutPasswords()
{
    ConnectionProfile prod =
        sample(QStringLiteral("production"), QStringLiteral("rediss://ops:%1@redis.prod:6380/0").arg(kSecret));
    prod.tlsCaFile = QStringLiteral("/etc/lockscope/ca.pem");
    prod.tlsCertFile = QStringLiteral("/etc/lockscope/client.pem");
    prod.tlsKeyFile = QStringLiteral("/etc/lockscope/client.key");
    prod.tlsServerName = QStringLiteral("redis.prod.internal");
    prod.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
    ConnectionProfile sandbox = sample(QStringLiteral("Sandbox"), QStringLiteral("redis://127.0.0.1:6379"));
    sandbox.readOnly = false;
    sandbox.color = QColor();
    sandbox.passwordStorage = ConnectionProfile::PasswordStorage::None;
    QString error;
    QVERIFY2(m_store->save(prod, QString(), &error), qPrintable(error));
    QVERIFY2(m_store->save(sandbox, QString(), &error), qPrintable(error));

    // A second store on the same file sees the same, sorted by name, password stripped.
    QSettings again(m_settings->fileName(), QSettings::IniFormat);
    ConnectionProfileStore reread(&again);
    const QList<ConnectionProfile> list = reread.profiles();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list.at(0).name, QStringLiteral("production"));
    QCOMPARE(list.at(1).name, QStringLiteral("Sandbox"));
    ConnectionProfile expected = prod;
    expected.url = QStringLiteral("rediss://ops@redis.prod:6380/0");
    QCOMPARE(list.at(0), expected);
    QCOMPARE(list.at(1), sandbox);
    QVERIFY(!list.at(1).color.isValid());

    const QString text = settingsText();
    QVERIFY(!text.isEmpty());
    QVERIFY2(!text.contains(kSecret), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("keychain")), qPrintable(text));
}

void TestConnectionProfiles::storeRenamesAndRefusesDuplicates()
{
    QString error;
    QVERIFY(m_store->save(sample(QStringLiteral("a"), QStringLiteral("redis://a")), QString(), &error));
    QVERIFY(m_store->save(sample(QStringLiteral("b"), QStringLiteral("redis://b")), QString(), &error));
    QVERIFY(!m_store->save(sample(QStringLiteral("b"), QStringLiteral("redis://other")), QStringLiteral("a"), &error));
    QVERIFY2(error.contains(QLatin1String("exists already")), qPrintable(error));
    QVERIFY(!m_store->save(sample(QStringLiteral("  "), QStringLiteral("redis://x")), QString(), &error));
    QVERIFY2(error.contains(QLatin1String("name")), qPrintable(error));

    QVERIFY(m_store->save(sample(QStringLiteral("c"), QStringLiteral("redis://a2")), QStringLiteral("a"), &error));
    ConnectionProfile found;
    QVERIFY(!m_store->find(QStringLiteral("a"), &found));
    QVERIFY(m_store->find(QStringLiteral("c"), &found));
    QCOMPARE(found.url, QStringLiteral("redis://a2"));
    QCOMPARE(m_store->profiles().size(), 2);

    QVERIFY(m_store->remove(QStringLiteral("b")));
    QVERIFY(!m_store->remove(QStringLiteral("b")));
    QCOMPARE(m_store->profiles().size(), 1);
}

void TestConnectionProfiles::recentConnectionsAreShortAndUnique()
{
    for (int i = 0; i < 12; ++i)
        m_store->addRecent(sample(QStringLiteral("n"), QStringLiteral("redis://host%1:6379").arg(i)));
    m_store->addRecent(sample(QString(), QStringLiteral("redis://u:%1@host5:6379").arg(kSecret)));
    const QList<ConnectionProfile> recent = m_store->recent();
    QCOMPARE(recent.size(), ConnectionProfileStore::maxRecent());
    QCOMPARE(recent.first().url, QStringLiteral("redis://u@host5:6379"));
    QVERIFY(recent.first().name.isEmpty());
    QCOMPARE(recent.at(1).url, QStringLiteral("redis://host11:6379"));
    // Connecting again moves an entry to the front instead of adding a second one.
    m_store->addRecent(sample(QString(), QStringLiteral("redis://host10:6379")));
    QCOMPARE(m_store->recent().first().url, QStringLiteral("redis://host10:6379"));
    int host10 = 0;
    for (const auto &p : m_store->recent())
        host10 += p.url == QLatin1String("redis://host10:6379");
    QCOMPARE(host10, 1);
    QVERIFY(!settingsText().contains(kSecret));
}

void TestConnectionProfiles::keychainFailsGracefully()
{
    // Reading an entry that does not exist must end, with a sentence, within the timeout, whether or
    // not a secret service runs here (on CI and headless machines there is none).
    bool done = false;
    QString password;
    QString error;
    QElapsedTimer t;
    t.start();
    m_keychain->read(QStringLiteral("nobody@nowhere:1"), this, [&](const QString &p, const QString &e) {
        password = p;
        error = e;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 8000);
    QVERIFY(password.isEmpty());
    QVERIFY(!error.isEmpty());
    qInfo("keychain here: %s (%lld ms, compiled in: %d)", qPrintable(error), t.elapsed(),
          PasswordKeychain::isCompiledIn());

    QString now;
    m_keychain->readNow(QStringLiteral("nobody@nowhere:1"), &now);
    QVERIFY(!now.isEmpty());
}

void TestConnectionProfiles::dialogAddsEditsAndDeletes()
{
    ConnectDialog dialog(m_store.get(), m_keychain.get());
    dialog.show();
    auto *name = dialog.findChild<QLineEdit *>(QStringLiteral("nameEdit"));
    auto *url = dialog.findChild<QLineEdit *>(QStringLiteral("urlEdit"));
    auto *readOnly = dialog.findChild<QCheckBox *>(QStringLiteral("readOnlyCheck"));
    auto *color = dialog.findChild<QComboBox *>(QStringLiteral("colorCombo"));
    auto *storage = dialog.findChild<QComboBox *>(QStringLiteral("passwordStorage"));
    auto *save = dialog.findChild<QPushButton *>(QStringLiteral("saveButton"));
    auto *remove = dialog.findChild<QPushButton *>(QStringLiteral("deleteButton"));
    auto *list = dialog.findChild<QListWidget *>(QStringLiteral("connectionList"));
    QVERIFY(name && url && readOnly && color && storage && save && remove && list);

    QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("newButton")), Qt::LeftButton);
    name->setText(QStringLiteral("orders prod"));
    url->setText(QStringLiteral("redis://ops@10.1.2.3:6379/1"));
    readOnly->setChecked(true);
    color->setCurrentIndex(1); // Production (red)
    storage->setCurrentIndex(storage->findData(int(ConnectionProfile::PasswordStorage::Ask)));
    QSignalSpy saved(&dialog, &ConnectDialog::profileSaved);
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(saved.size(), 1);
    QCOMPARE(saved.first().at(1).toBool(), true);

    ConnectionProfile stored;
    QVERIFY(m_store->find(QStringLiteral("orders prod"), &stored));
    QCOMPARE(stored.url, QStringLiteral("redis://ops@10.1.2.3:6379/1"));
    QVERIFY(stored.readOnly);
    QCOMPARE(stored.color, ConnectionProfile::colorTags().at(1).second);
    QCOMPARE(stored.passwordStorage, ConnectionProfile::PasswordStorage::Ask);
    QVERIFY(remove->isEnabled());

    // Edit: rename and untag; the list follows.
    name->setText(QStringLiteral("orders sandbox"));
    color->setCurrentIndex(4);
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(saved.size(), 2);
    QVERIFY(!m_store->find(QStringLiteral("orders prod"), nullptr));
    QVERIFY(m_store->find(QStringLiteral("orders sandbox"), &stored));
    QCOMPARE(stored.color, ConnectionProfile::colorTags().at(4).second);
    QVERIFY(!list->findItems(QStringLiteral("orders sandbox"), Qt::MatchExactly).isEmpty());

    // A wrong URL is explained and not saved.
    url->setText(QStringLiteral("http://nope"));
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(saved.size(), 3);
    QCOMPARE(saved.last().at(1).toBool(), false);
    QVERIFY2(dialog.message().contains(QLatin1String("unknown scheme")), qPrintable(dialog.message()));

    // Selecting a saved profile fills the form; Delete removes it.
    QVERIFY(dialog.selectProfile(QStringLiteral("orders sandbox")));
    QCOMPARE(url->text(), QStringLiteral("redis://ops@10.1.2.3:6379/1"));
    QTest::mouseClick(remove, Qt::LeftButton);
    QVERIFY(m_store->profiles().isEmpty());
    QVERIFY(list->findItems(QStringLiteral("orders sandbox"), Qt::MatchExactly).isEmpty());
}

void TestConnectionProfiles::dialogSavesPasswordOnlyInKeychainOrAsks()
{
    ConnectDialog dialog(m_store.get(), m_keychain.get());
    dialog.show();
    auto *name = dialog.findChild<QLineEdit *>(QStringLiteral("nameEdit"));
    auto *url = dialog.findChild<QLineEdit *>(QStringLiteral("urlEdit"));
    auto *password = dialog.findChild<QLineEdit *>(QStringLiteral("passwordEdit"));
    auto *storage = dialog.findChild<QComboBox *>(QStringLiteral("passwordStorage"));
    QCOMPARE(password->echoMode(), QLineEdit::Password);
    name->setText(QStringLiteral("with password"));
    // A password typed into the URL moves out of it.
    url->setText(QStringLiteral("redis://ops:%1@10.9.9.9:6379").arg(kSecret));
    QSignalSpy saved(&dialog, &ConnectDialog::profileSaved);
    QVERIFY(dialog.saveProfile());
    QTRY_VERIFY_WITH_TIMEOUT(saved.size() == 1, 10000);
    QVERIFY(saved.first().at(1).toBool());
    QCOMPARE(url->text(), QStringLiteral("redis://ops@10.9.9.9:6379"));

    ConnectionProfile stored;
    QVERIFY(m_store->find(QStringLiteral("with password"), &stored));
    QVERIFY(!settingsText().contains(kSecret));
    if (stored.passwordStorage == ConnectionProfile::PasswordStorage::Keychain) {
        // A keychain runs here: the password is there, under this test's own service name.
        QString error;
        QCOMPARE(m_keychain->readNow(stored.keychainKey(), &error), kSecret);
        bool removed = false;
        m_keychain->remove(stored.keychainKey(), this, [&](const QString &) { removed = true; });
        QTRY_VERIFY_WITH_TIMEOUT(removed, 8000);
    } else {
        // No keychain (headless, CI): the profile asks on connect, and the dialog said why.
        QCOMPARE(stored.passwordStorage, ConnectionProfile::PasswordStorage::Ask);
        QVERIFY2(dialog.message().contains(QLatin1String("ask for it")), qPrintable(dialog.message()));
        QCOMPARE(storage->currentData().toInt(), int(ConnectionProfile::PasswordStorage::Ask));
    }
    QVERIFY2(!dialog.message().contains(kSecret), qPrintable(dialog.message()));
}

void TestConnectionProfiles::dialogConnectReturnsTheFormAndRecent()
{
    QString error;
    QVERIFY(
        m_store->save(sample(QStringLiteral("staging"), QStringLiteral("redis://10.0.0.7:6379")), QString(), &error));
    m_store->addRecent(sample(QString(), QStringLiteral("redis://127.0.0.1:7000")));
    ConnectDialog dialog(m_store.get(), m_keychain.get());
    dialog.show();
    auto *list = dialog.findChild<QListWidget *>(QStringLiteral("connectionList"));
    const auto recent = list->findItems(QStringLiteral("redis://127.0.0.1:7000"), Qt::MatchExactly);
    QCOMPARE(recent.size(), 1);
    list->setCurrentItem(recent.first());
    QCOMPARE(dialog.profile().url, QStringLiteral("redis://127.0.0.1:7000"));
    QVERIFY(dialog.profile().name.isEmpty());

    QVERIFY(dialog.selectProfile(QStringLiteral("staging")));
    dialog.findChild<QLineEdit *>(QStringLiteral("passwordEdit"))->setText(kSecret);
    QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("connectButton")), Qt::LeftButton);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.profile().name, QStringLiteral("staging"));
    QVERIFY(dialog.profile().readOnly);
    QCOMPARE(dialog.password(), kSecret);

    // A wrong URL keeps the dialog open with the reason.
    ConnectDialog second(m_store.get(), m_keychain.get());
    second.show();
    second.findChild<QLineEdit *>(QStringLiteral("urlEdit"))->setText(QStringLiteral("rediss://h:1"));
    second.findChild<QLineEdit *>(QStringLiteral("caFileEdit"))->setText(m_dir.filePath(QStringLiteral("missing.pem")));
    QTest::mouseClick(second.findChild<QPushButton *>(QStringLiteral("connectButton")), Qt::LeftButton);
    QVERIFY(second.isVisible());
    QVERIFY2(second.message().contains(QLatin1String("does not exist")), qPrintable(second.message()));
}

void TestConnectionProfiles::launcherResolvesTypedPassword()
{
    ConnectionLauncher launcher(m_store.get(), m_keychain.get());
    ConnectionProfile p = sample(QStringLiteral("x"), QStringLiteral("redis://viewer@127.0.0.1:6390/3"));
    LockSession::Options options;
    QString error;
    QVERIFY2(launcher.resolve(p, kSecret, nullptr, &options, &error), qPrintable(error));
    QCOMPARE(options.endpoint.password(), kSecret);
    QCOMPARE(options.endpoint.passwordSource(), RedisEndpoint::PasswordSource::Prompt);
    QCOMPARE(options.endpoint.username(), QStringLiteral("viewer"));
    QCOMPARE(options.endpoint.db(), 3);
    QVERIFY(options.readOnly); // the profile's flag
    QVERIFY(!options.endpoint.toString().contains(kSecret));

    p.passwordStorage = ConnectionProfile::PasswordStorage::None;
    LockSession::Options none;
    QVERIFY(launcher.resolve(p, QString(), nullptr, &none, &error));
    QVERIFY(none.endpoint.password().isEmpty());
}

void TestConnectionProfiles::mainWindowShowsColourBand()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    LockSession::Options options;
    options.endpoint = server.endpoint();
    options.readOnly = true;
    MainWindow window(options);
    window.setConnectionTag(QStringLiteral("orders production"), ConnectionProfile::colorTags().at(1).second);
    window.show();
    window.start();
    QTRY_VERIFY_WITH_TIMEOUT(window.hasInitialData(), 15000);
    auto *band = window.findChild<QLabel *>(QStringLiteral("connectionBandLabel"));
    QVERIFY(band);
    QVERIFY(band->isVisible());
    QVERIFY2(band->text().contains(QLatin1String("orders production")), qPrintable(band->text()));
    QVERIFY(band->styleSheet().contains(ConnectionProfile::colorTags().at(1).second.name()));
    QVERIFY(window.windowTitle().startsWith(QLatin1String("orders production")));
    auto *bar = window.findChild<QToolBar *>(QStringLiteral("connectionBand"));
    QVERIFY(bar && bar->isVisible());

    // File > Connect… (Ctrl+O) is there and asks for another connection.
    QSignalSpy asked(&window, &MainWindow::connectRequested);
    QAction *connectAction = nullptr;
    for (QAction *a : window.findChildren<QAction *>()) {
        if (a->shortcut() == QKeySequence(QKeySequence::Open))
            connectAction = a;
    }
    QVERIFY(connectAction);
    connectAction->trigger();
    QCOMPARE(asked.size(), 1);

    // Screenshots for the documentation, when asked for.
    const QString shots = qEnvironmentVariable("LOCKSCOPE_SHOTS_DIR");
    if (!shots.isEmpty()) {
        QDir().mkpath(shots);
        QVERIFY(window.grab().save(QDir(shots).filePath(QStringLiteral("main-window-tagged.png"))));
        QVERIFY(
            m_store->save(sample(QStringLiteral("orders production"), QStringLiteral("rediss://ops@redis.prod:6380/0")),
                          QString(), &error));
        ConnectionProfile sandbox =
            sample(QStringLiteral("workshop sandbox"), QStringLiteral("redis://127.0.0.1:6379"));
        sandbox.color = ConnectionProfile::colorTags().at(4).second;
        sandbox.readOnly = false;
        QVERIFY(m_store->save(sandbox, QString(), &error));
        m_store->addRecent(sample(QString(), QStringLiteral("redis://10.0.0.5:6379/0")));
        ConnectDialog dialog(m_store.get(), m_keychain.get());
        dialog.show();
        dialog.selectProfile(QStringLiteral("orders production"));
        dialog.findChild<QLineEdit *>(QStringLiteral("caFileEdit"))
            ->setText(QStringLiteral("/etc/lockscope/prod-ca.pem"));
        QTest::qWait(200);
        QVERIFY(dialog.grab().save(QDir(shots).filePath(QStringLiteral("connect-dialog.png"))));
    }
}

// A server that wants a password must not be retried forever, and a GUI user cannot act on
// advice about command-line options: the window asks in a dialog and reconnects with the answer.
void TestConnectionProfiles::refusedLoginAsksForThePassword()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    QCOMPARE(lockscope::test::redisCli(server.port(), {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                                       QStringLiteral("requirepass"), kSecret})
                 .exitCode,
             0);
    ConnectionLauncher launcher(m_store.get(), m_keychain.get());
    LockSession::Options options;
    options.endpoint = server.endpoint();
    options.endpoint.setPassword(QString(), RedisEndpoint::PasswordSource::None);
    ConnectionProfile profile = sample(QString(), options.endpoint.toString());
    QPointer<MainWindow> first = launcher.openWindow(options, profile);
    QVERIFY(first);
    QPointer<PasswordDialog> dialog;
    QTRY_VERIFY_WITH_TIMEOUT((dialog = first->findChild<PasswordDialog *>()) != nullptr, 10000);
    QTRY_VERIFY(dialog->isVisible());
    QCOMPARE(first->mode(), WatchMode::Disconnected);
    // Front-end wording from the front-end: the GUI never tells anyone to pass options.
    QVERIFY2(!first->connectionBanner()->text().contains(QLatin1String("--")),
             qPrintable(first->connectionBanner()->text()));
    for (QLabel *label : dialog->findChildren<QLabel *>())
        QVERIFY2(!label->text().contains(QLatin1String("--ask-password")), qPrintable(label->text()));
    auto *field = dialog->findChild<QLineEdit *>();
    QVERIFY(field);
    QCOMPARE(QApplication::focusWidget() == nullptr || QApplication::focusWidget() == field, true);
    const QString shots = QDir::temp().filePath(QStringLiteral("lockscope-test-shots"));
    QDir().mkpath(shots);
    QVERIFY(dialog->grab().save(QDir(shots).filePath(QStringLiteral("password-dialog.png"))));
    field->setText(kSecret);
    dialog->accept();
    // The refused window goes; a new one for the same server, with the password, reads it.
    QTRY_VERIFY_WITH_TIMEOUT(first.isNull(), 5000);
    MainWindow *second = nullptr;
    for (QWidget *w : QApplication::topLevelWidgets())
        if (auto *m = qobject_cast<MainWindow *>(w); m && m->isVisible())
            second = m;
    QVERIFY(second);
    QCOMPARE(second->options().endpoint.password(), kSecret);
    QTRY_VERIFY_WITH_TIMEOUT(second->mode() == WatchMode::Live || second->mode() == WatchMode::Polling, 10000);
    QVERIFY(second->findChild<PasswordDialog *>() == nullptr);
    second->close();
}

QTEST_MAIN(TestConnectionProfiles)
#include "tst_connectionprofiles.moc"
