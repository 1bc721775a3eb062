// lockscope: the dashboard. Thin main(): options, optional demo server + workload, window.
#include "common/uitheme.h"
#include "connect/connectdialog.h"
#include "connect/connectionprofilestore.h"
#include "connect/passwordkeychain.h"
#include "connect/startscreen.h"
#include "connectionlauncher.h"
#include "connectionoptions.h"
#include "locks/eventlogmodel.h"
#include "mainwindow.h"
#include "servertabswindow.h"
#include "sessionoptions.h"
#include "workshop/workshopwindow.h"

#include "demo/demoworkload.h"
#include "demo/redisserverprocess.h"
#include "recording/recording.h"
#include "recording/replayplayer.h"
#include "scenario/scenario.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
#include <QProcess>
#include <QThread>
#include <QTimer>

#include <csignal>
#include <cstdio>

using namespace lockscope;

namespace
{
/**
 * A start-up error (started from the desktop entry, stderr is seen by nobody): on stderr, and
 * in a dialog when there is a screen to show it on (not offscreen, where no one could close it).
 * Returns `code`, the exit code.
 */
int startupError(const QString &message, int code = 1)
{
    std::fprintf(stderr, "lockscope: %s\n", qPrintable(message));
    const QString platform = QGuiApplication::platformName();
    if (qobject_cast<QApplication *>(QCoreApplication::instance()) && platform != QLatin1String("offscreen") &&
        platform != QLatin1String("minimal")) {
        QString text = message;
        if (!text.isEmpty())
            text[0] = text.at(0).toUpper();
        QMessageBox::critical(nullptr, QObject::tr("LockScope cannot start"), text);
    }
    return code;
}

/** --screenshot: `delayMs` from now, saves a PNG of `window` to the path given and, unless
 *  --quit-after is set too, quits. */
void screenshotAfter(QWidget *window, const QCommandLineParser &parser, int delayMs)
{
    const QString path = QFileInfo(parser.value(QStringLiteral("screenshot"))).absoluteFilePath();
    const bool quit = !parser.isSet(QStringLiteral("quit-after"));
    QTimer::singleShot(delayMs, window, [window, path, quit] {
        QDir().mkpath(QFileInfo(path).absolutePath());
        if (window->grab().save(path))
            std::fprintf(stdout, "screenshot: %s\n", qPrintable(path));
        else
            std::fprintf(stderr, "lockscope: cannot write %s\n", qPrintable(path));
        std::fflush(stdout);
        if (quit)
            QApplication::quit();
    });
}

/** `lockscope --workshop [SCENARIO]`: a WorkshopWindow on its own private redis-server. */
int runWorkshop(const QCommandLineParser &parser)
{
    using namespace lockscope;
    RedisServerProcess server;
    QString error;
    if (!server.start(10000, &error)) {
        return startupError(QStringLiteral("cannot start the workshop's redis-server: %1").arg(error), 2);
    }
    WorkshopWindow window(server.endpoint());
    const QString scenario = parser.isSet(QStringLiteral("scenario-file"))
                                 ? parser.value(QStringLiteral("scenario-file"))
                                 : parser.positionalArguments().value(0, QStringLiteral("reentrancy"));
    if (!window.loadScenario(scenario, &error)) {
        return startupError(
            QStringLiteral("%1 (shipped: %2)").arg(error, Scenario::builtInNames().join(QStringLiteral(", "))));
    }
    if (parser.isSet(QStringLiteral("projector")))
        window.setProjectorMode(true);
    if (parser.isSet(QStringLiteral("record"))) {
        // The lock views record what they see of the private server: replay with --replay.
        if (!window.lockViews()->startRecording(parser.value(QStringLiteral("record")), &error))
            return startupError(error);
    }
    int steps = parser.value(QStringLiteral("workshop-steps")).toInt();
    auto *autoStep = new QTimer(&window);
    autoStep->setInterval(300);
    QObject::connect(autoStep, &QTimer::timeout, &window, [&window, &steps, autoStep] {
        if (steps <= 0) {
            autoStep->stop();
            return;
        }
        if (window.step())
            --steps;
    });
    if (steps > 0)
        autoStep->start();
    if (parser.isSet(QStringLiteral("screenshot")))
        screenshotAfter(&window, parser, parser.value(QStringLiteral("screenshot-delay-ms")).toInt() + steps * 400);
    if (parser.isSet(QStringLiteral("quit-after")))
        QTimer::singleShot(parser.value(QStringLiteral("quit-after")).toInt(), qApp, &QApplication::quit);
    window.show();
    return QApplication::exec();
}
/** `lockscope --url A --url B ...`: one tab per server (ServerTabsWindow). */
int runServerTabs(const QCommandLineParser &parser, const lockscope::ConnectionOptions &connection)
{
    using namespace lockscope;
    ServerTabsWindow window;
    for (const QString &url : parser.values(QStringLiteral("url"))) {
        QString error;
        RedisEndpoint endpoint = RedisEndpoint::parse(url, &error);
        if (!endpoint.isValid() || !connection.applyTo(&endpoint, parser, &error)) {
            return startupError(QStringLiteral("--url '%1': %2").arg(RedisEndpoint::redactUrl(url), error));
        }
        LockSession::Options options = SessionOptions::fromCommandLine(parser, SessionOptions::Front::Dashboard);
        options.endpoint = endpoint;
        window.addServer(options);
    }
    if (parser.isSet(QStringLiteral("screenshot")))
        screenshotAfter(&window, parser, parser.value(QStringLiteral("screenshot-delay-ms")).toInt());
    if (parser.isSet(QStringLiteral("quit-after")))
        QTimer::singleShot(parser.value(QStringLiteral("quit-after")).toInt(), qApp, &QApplication::quit);
    window.show();
    return QApplication::exec();
}

/** The options worth passing on to a window started from the start screen. */
QStringList passedOn(const QCommandLineParser &parser)
{
    QStringList args;
    for (const char *flag : {"read-only", "poll"})
        if (parser.isSet(QString::fromLatin1(flag)))
            args << QStringLiteral("--") + QString::fromLatin1(flag);
    return args;
}

/**
 * `lockscope` without a connection (the desktop entry): the start screen, so a menu
 * user always sees a window and a choice. A saved or
 * recent connection and Connect… open a dashboard in this process; the demo, a recording and the
 * workshop start `lockscope --demo|--replay FILE|--workshop` (each has its own server or file and
 * its own start-up errors, shown in a dialog by that process), and the start screen closes.
 */
int runStartScreen(const QCommandLineParser &parser)
{
    ConnectionProfileStore profiles;
    PasswordKeychain keychain;
    ConnectionLauncher launcher(&profiles, &keychain);
    StartScreen screen(&profiles);
    auto relaunch = [&screen, &parser](const QStringList &args) {
        if (QProcess::startDetached(QCoreApplication::applicationFilePath(), args + passedOn(parser)))
            screen.close();
        else
            screen.showError(QObject::tr("Could not start %1.").arg(QCoreApplication::applicationFilePath()));
    };
    QObject::connect(&screen, &StartScreen::connectionChosen, &screen, [&](const ConnectionProfile &profile) {
        LockSession::Options options = SessionOptions::fromCommandLine(parser, SessionOptions::Front::Dashboard);
        QString error;
        if (!launcher.resolve(profile, QString(), &screen, &options, &error)) {
            screen.showError(QObject::tr("%1: %2").arg(profile.displayName(), error));
            return;
        }
        profiles.addRecent(profile);
        launcher.openWindow(options, profile);
        screen.close();
    });
    QObject::connect(&screen, &StartScreen::connectDialogRequested, &screen, [&] {
        if (launcher.showConnectDialog(&screen))
            screen.close();
    });
    QObject::connect(&screen, &StartScreen::demoRequested, &screen,
                     [relaunch] { relaunch({QStringLiteral("--demo")}); });
    QObject::connect(&screen, &StartScreen::recordingChosen, &screen, [relaunch](const QString &path) {
        relaunch({QStringLiteral("--replay"), path});
    });
    QObject::connect(&screen, &StartScreen::workshopRequested, &screen,
                     [relaunch] { relaunch({QStringLiteral("--workshop")}); });
    if (parser.isSet(QStringLiteral("screenshot")))
        screenshotAfter(&screen, parser, 500);
    if (parser.isSet(QStringLiteral("quit-after")))
        QTimer::singleShot(parser.value(QStringLiteral("quit-after")).toInt(), qApp, &QApplication::quit);
    screen.show();
    return QApplication::exec();
}

/** Every option of the dashboard, for the GUI and for --help/--version without a display. */
void describeOptions(QCommandLineParser &parser, ConnectionOptions &connection)
{
    parser.setApplicationDescription(QStringLiteral(
        "LockScope: live holders, hold counts, TTLs and waiters of Redisson locks in Redis.\n"
        "Without --url, --profile, --demo or --replay it shows the start screen: saved and recent connections, "
        "Connect…, the demo, a recording, the workshop."));
    parser.addHelpOption();
    parser.addVersionOption();
    connection.addTo(parser); // --url (no default: the demo), --tls-*, --user, --ask-password
    parser.addOption(
        {QStringLiteral("profile"),
         QStringLiteral("Connect with the saved connection NAME (File > Connect… saves them); TLS, user and "
                        "password options override it."),
         QStringLiteral("NAME")});
    parser.addOptions({
        {QStringLiteral("pattern"), QStringLiteral("Only locks whose name matches this Redis glob."),
         QStringLiteral("GLOB"), QStringLiteral("*")},
        {QStringLiteral("read-only"), QStringLiteral("Hide and refuse every write action.")},
        {QStringLiteral("poll"), QStringLiteral("Poll instead of using keyspace notifications.")},
        {QStringLiteral("poll-budget"),
         QStringLiteral("Polling load on Redis, in commands/s as INFO counts them: visible and selected locks "
                        "every second, the rest in turn within the budget (default 2000)."),
         QStringLiteral("N"), QStringLiteral("2000")},
        {QStringLiteral("demo"),
         QStringLiteral("Start the embedded demo (a private redis-server with simulated clients).")},
        {QStringLiteral("screenshot"), QStringLiteral("Save a PNG of the window once the first data has arrived."),
         QStringLiteral("FILE")},
        {QStringLiteral("screenshot-delay-ms"),
         QStringLiteral("Wait this long after the first data before the screenshot."), QStringLiteral("MS"),
         QStringLiteral("2500")},
        {QStringLiteral("quit-after"), QStringLiteral("Quit after MS milliseconds."), QStringLiteral("MS")},
        {QStringLiteral("select"), QStringLiteral("Select this lock once the first data has arrived."),
         QStringLiteral("NAME")},
        {QStringLiteral("problems"), QStringLiteral("Open on the problems pane (the stuck-lock doctor's findings).")},
        {QStringLiteral("tab"),
         QStringLiteral("Open on this bottom tab: event, problems, ttl, timeline or contention."),
         QStringLiteral("NAME")},
        {QStringLiteral("record"), QStringLiteral("Record everything seen to FILE (JSON lines; .gz compresses)."),
         QStringLiteral("FILE")},
        {QStringLiteral("replay"), QStringLiteral("Replay a recording instead of connecting (writes disabled)."),
         QStringLiteral("FILE")},
        {QStringLiteral("memory-log"),
         QStringLiteral("Every 10 s append 'elapsed_s rss_kb history_bytes samples events rows' to FILE (soak tests)."),
         QStringLiteral("FILE")},
        {QStringLiteral("history-minutes"),
         QStringLiteral("Keep this many minutes of history for the charts (default 120)."), QStringLiteral("N"),
         QStringLiteral("120")},
        {QStringLiteral("replay-speed"), QStringLiteral("Start the replay playing at this speed (0.25 to 16)."),
         QStringLiteral("X")},
        {QStringLiteral("workshop"),
         QStringLiteral("Workshop mode: stage a scenario (the positional SCENARIO, a shipped name, default "
                        "reentrancy) on a private redis-server and step through it.")},
        {QStringLiteral("scenario-file"), QStringLiteral("Workshop mode: load this scenario file instead."),
         QStringLiteral("FILE")},
        {QStringLiteral("projector"),
         QStringLiteral("Workshop mode: start in projector mode (large fonts, high contrast).")},
        {QStringLiteral("workshop-steps"), QStringLiteral("Workshop mode: run N steps at start (for screenshots)."),
         QStringLiteral("N")},
        {QStringLiteral("theme"),
         QStringLiteral("Colours for this run: system, light or dark (View > Theme keeps a choice)."),
         QStringLiteral("NAME")},
    });
    parser.addPositionalArgument(QStringLiteral("SCENARIO"), QStringLiteral("With --workshop: the scenario to stage."),
                                 QStringLiteral("[SCENARIO]"));
}

void setApplicationNames()
{
    QCoreApplication::setApplicationName(QStringLiteral("lockscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOCKSCOPE_VERSION));
    QCoreApplication::setOrganizationName(QStringLiteral("LockScope"));
}

/** --help, --help-all or --version: answered without a display (over SSH, in a package test). */
bool asksHelpOrVersion(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--")
            return false;
        if (arg == "-h" || arg == "-?" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version")
            return true;
    }
    return false;
}
} // namespace

int main(int argc, char **argv)
{
    if (asksHelpOrVersion(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationNames();
        QCommandLineParser parser;
        ConnectionOptions connection;
        describeOptions(parser, connection);
        parser.process(app); // prints and exits
        return 0;
    }
    // A file size limit (ulimit -f) makes a write fail (EFBIG) instead of killing the dashboard:
    // the audit log then refuses the write it would have recorded.
    std::signal(SIGXFSZ, SIG_IGN);
    QApplication app(argc, argv);
    setApplicationNames();
    // Core's TLS sentences name the connection dialog's fields (core names no CLI flags).
    TlsAdviceWords::setNamer(&ConnectDialog::tlsAdviceWord);
    QApplication::setApplicationDisplayName(QStringLiteral("LockScope"));
    UiTheme::applySaved(); // View › Theme: system, light or dark (QSettings)
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.lockscope.LockScope"));
    QIcon icon; // PNGs: Qt's SVG plugin is not a dependency
    for (int size : {32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/lockscope-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);

    QCommandLineParser parser;
    ConnectionOptions connection;
    describeOptions(parser, connection);
    connection.setPasswordPrompt([](const QString &question, QString *password, QString *error) {
        return ConnectDialog::askPassword(nullptr, question, password, error);
    });
    parser.process(app);
    if (parser.isSet(QStringLiteral("theme")))
        UiTheme::use(UiTheme::fromName(parser.value(QStringLiteral("theme"))));

    if (parser.isSet(QStringLiteral("workshop")))
        return runWorkshop(parser);
    if (parser.values(QStringLiteral("url")).size() > 1)
        return runServerTabs(parser, connection);

    const bool replay = parser.isSet(QStringLiteral("replay"));
    Recording recording;
    if (replay) {
        QString error;
        if (!Recording::load(parser.value(QStringLiteral("replay")), &recording, &error)) {
            return startupError(QStringLiteral("cannot replay: %1").arg(error));
        }
        if (!recording.warning.isEmpty())
            std::fprintf(stderr, "lockscope: %s\n", qPrintable(recording.warning));
    }
    const bool demo = !replay && parser.isSet(QStringLiteral("demo"));
    if (!replay && !demo && !ConnectionOptions::isUrlSet(parser) && ConnectionOptions::urlFromEnvironment().isEmpty() &&
        !parser.isSet(QStringLiteral("profile")))
        return runStartScreen(parser);
    ConnectionProfileStore profiles; // saved connections and recent ones (QSettings; never a password)
    PasswordKeychain keychain;
    ConnectionLauncher launcher(&profiles, &keychain);
    ConnectionProfile profile;
    RedisServerProcess server;
    LockSession::Options options = SessionOptions::fromCommandLine(parser, SessionOptions::Front::Dashboard);
    if (replay) {
        options.readOnly = true; // a replay never writes anywhere
        options.endpoint = RedisEndpoint::parse(recording.header.value(QStringLiteral("server")).toString());
        if (!options.endpoint.isValid())
            options.endpoint = RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), 6379);
    } else if (demo) {
        QString error;
        if (!server.start(10000, &error)) {
            return startupError(QStringLiteral("cannot start the demo: %1").arg(error), 2);
        }
        std::fprintf(stderr, "lockscope: demo redis-server on %s (pid %lld)\n", qPrintable(server.url()),
                     static_cast<long long>(server.pid()));
        options.endpoint = server.endpoint();
    } else {
        QString error;
        if (!parser.isSet(QStringLiteral("profile"))) {
            options.endpoint = connection.endpoint(parser, &error);
        } else if (ConnectionOptions::isUrlSet(parser)) {
            error = QStringLiteral("--profile brings its own URL: do not combine it with --url");
        } else if (!profiles.find(parser.value(QStringLiteral("profile")), &profile)) {
            error = QStringLiteral("there is no saved connection called '%1': File > Connect… lists and saves them")
                        .arg(parser.value(QStringLiteral("profile")));
        } else {
            if (parser.isSet(QStringLiteral("ask-password")))
                profile.passwordStorage = ConnectionProfile::PasswordStorage::None; // asked below instead
            if (!launcher.resolve(profile, QString(), nullptr, &options, &error) ||
                !connection.applyTo(&options.endpoint, parser, &error))
                options.endpoint = RedisEndpoint();
        }
        if (!options.endpoint.isValid())
            return startupError(error);
    }

    MainWindow window(options);
    launcher.adopt(&window, profile); // File > Connect… opens other connections in new windows; a password is asked
    if (!parser.isSet(QStringLiteral("screenshot")))
        window.rememberLayout(); // geometry, splitters, columns (screenshots keep the default layout)
    window.setConnectionTag(ConnectionLauncher::tagLabel(profile), profile.color);

    // The demo workload runs on the same redis-io thread as the session, with its own connections.
    QObject *demoHost = nullptr;
    if (demo) {
        demoHost = new QObject;
        demoHost->moveToThread(window.ioThread());
        const RedisEndpoint ep = options.endpoint;
        QMetaObject::invokeMethod(demoHost, [demoHost, ep] { (new DemoWorkload(ep, demoHost))->start(); });
        QObject::connect(window.ioThread(), &QThread::finished, demoHost, &QObject::deleteLater);
    }

    ReplayPlayer player;
    if (replay) {
        player.setRecording(recording);
        if (parser.isSet(QStringLiteral("replay-speed"))) {
            player.setSpeed(parser.value(QStringLiteral("replay-speed")).toDouble());
            QObject::connect(&window, &MainWindow::initialDataArrived, &player, &ReplayPlayer::play);
        }
        window.attachReplay(&player);
    }
    if (parser.isSet(QStringLiteral("record"))) {
        QString error;
        if (!window.startRecording(parser.value(QStringLiteral("record")), &error))
            return startupError(error);
    }
    {
        HistoryStore::Retention retention;
        retention.maxAgeMs = qMax(1LL, parser.value(QStringLiteral("history-minutes")).toLongLong()) * 60 * 1000;
        window.setHistoryRetention(retention);
    }
    if (parser.isSet(QStringLiteral("memory-log"))) {
        auto *file = new QFile(parser.value(QStringLiteral("memory-log")), &window);
        if (!file->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text)) {
            std::fprintf(stderr, "lockscope: cannot write %s\n", qPrintable(file->fileName()));
            return 1;
        }
        auto *clock = new QElapsedTimer;
        clock->start();
        auto *timer = new QTimer(&window);
        QObject::connect(timer, &QTimer::timeout, &window, [&window, file, clock] {
            QFile status(QStringLiteral("/proc/self/status"));
            qint64 rssKb = -1;
            if (status.open(QIODevice::ReadOnly))
                for (const QByteArray &line : status.readAll().split('\n'))
                    if (line.startsWith("VmRSS:"))
                        rssKb = line.mid(6).trimmed().split(' ').first().toLongLong();
            const HistoryStore &h = window.history();
            file->write(QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                            .arg(clock->elapsed() / 1000)
                            .arg(rssKb)
                            .arg(h.approximateBytes())
                            .arg(h.sampleCount())
                            .arg(h.eventCount())
                            .arg(window.eventModel()->rowCount())
                            .toUtf8());
            file->flush();
        });
        timer->start(10000);
    }
    if (parser.isSet(QStringLiteral("problems")))
        window.showProblems();
    if (parser.isSet(QStringLiteral("tab")) && !window.showBottomTab(parser.value(QStringLiteral("tab"))))
        std::fprintf(stderr, "lockscope: there is no tab '%s' (event, problems, ttl, timeline, contention)\n",
                     qPrintable(parser.value(QStringLiteral("tab"))));
    if (parser.isSet(QStringLiteral("select"))) {
        const QString name = parser.value(QStringLiteral("select"));
        QObject::connect(&window, &MainWindow::initialDataArrived, &window,
                         [&window, name] { window.selectLock(name); });
    }
    if (parser.isSet(QStringLiteral("screenshot"))) {
        const int delay = parser.value(QStringLiteral("screenshot-delay-ms")).toInt();
        QObject::connect(&window, &MainWindow::initialDataArrived, &window,
                         [&window, &parser, delay] { screenshotAfter(&window, parser, delay); });
    }
    if (parser.isSet(QStringLiteral("quit-after")))
        QTimer::singleShot(parser.value(QStringLiteral("quit-after")).toInt(), &app, &QApplication::quit);

    window.show();
    window.start();
    return QApplication::exec();
}
