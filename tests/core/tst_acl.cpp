// LockScope as a Redis ACL user with read permissions only (no writes, no CONFIG): listing,
// showing and watching work (the monitor falls back to polling and says why), every write is
// refused by the server with "the ACL user 'viewer' may not ..." and lockscope-cli exit code 3,
// and nothing in Redis changes. Also: a failed login never shows the password, a missing one
// says how to give it, and --ask-password reads from the terminal with echo off.

#include "act/writepermissions.h"
#include "demo/redisserverprocess.h"
#include "endpoint/redisendpoint.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "session/locksession.h"

#include "locksessiontestpeer.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace lockscope;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

const QByteArray kViewerPassword = "v13wer-Pa55";
const QByteArray kWrongPassword = "Wr0ng-S3cret-xyz";
const QByteArray kHolder = "b983c153-7421-469a-addb-44fb92259a1b:1";

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QString describe() const
    {
        return QStringLiteral("exit %1\nstdout: %2\nstderr: %3")
            .arg(exitCode)
            .arg(QString::fromUtf8(out), QString::fromUtf8(err));
    }
};

/** A lockscope-cli process in its own session (no controlling terminal) with `env` added. */
class Cli
{
public:
    Cli(const QStringList &args, const QHash<QString, QString> &env)
    {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.remove(QStringLiteral("LOCKSCOPE_PASSWORD"));
        e.remove(QStringLiteral("LOCKSCOPE_USER"));
        for (auto it = env.cbegin(); it != env.cend(); ++it)
            e.insert(it.key(), it.value());
        m_process.setProcessEnvironment(e);
        // No controlling terminal: --ask-password must not reach the terminal of whoever runs the tests.
        m_process.setChildProcessModifier([] { ::setsid(); });
        m_process.start(cliPath(), args);
        m_process.waitForStarted(10000);
        m_process.closeWriteChannel();
    }
    CliRun finish(int timeoutMs = 30000)
    {
        // Spin the event loop while waiting, so in-test Redis clients keep working.
        waitUntil([this] { return m_process.state() == QProcess::NotRunning; }, timeoutMs);
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(3000);
        }
        CliRun r;
        r.exitCode = m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
        r.out = m_process.readAllStandardOutput();
        r.err = m_process.readAllStandardError();
        return r;
    }

private:
    QProcess m_process;
};

CliRun runCli(const QStringList &args, const QHash<QString, QString> &env = {}, int timeoutMs = 30000)
{
    Cli cli(args, env);
    return cli.finish(timeoutMs);
}

} // namespace

class TestAcl : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void viewerListsAndShows();
    void monitorFallsBackToPollingAndSaysWhy();
    void viewerWatchSeesChanges();
    void writesAreRefusedWithExit3AndChangeNothing();
    void sessionActionsReportTheAclRefusal();
    void releaseFailingPartWayIsUnknownAndReread();
    void permissionsNameEveryCommandTheScriptsCall();
    void authFailureNeverShowsThePassword();
    void missingPasswordSaysHowToGiveIt();
    void userOptionAndEnvironment();
    void askPasswordNeedsATerminal();
    void askPasswordReadsTheTerminalWithEchoOff();

private:
    QString viewerUrl() const { return QStringLiteral("redis://viewer@127.0.0.1:%1").arg(m_server.port()); }
    QHash<QString, QString> viewerEnv() const
    {
        return {{QStringLiteral("LOCKSCOPE_PASSWORD"), QString::fromUtf8(kViewerPassword)}};
    }
    RedisEndpoint viewerEndpoint() const
    {
        RedisEndpoint ep = RedisEndpoint::parse(viewerUrl());
        ep.setPassword(QString::fromUtf8(kViewerPassword), RedisEndpoint::PasswordSource::Environment);
        return ep;
    }
    /** Everything in the database as sorted "key=value" lines, to prove that nothing changed. */
    QStringList dump();

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
};

void TestAcl::initTestCase()
{
    qunsetenv("LOCKSCOPE_PASSWORD");
    qunsetenv("LOCKSCOPE_USER");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
    // The read-only user the README recommends: reads, LockScope's read-only snapshot script (which
    // calls TIME and PUBSUB NUMSUB), unlock-channel subscriptions; no writes, no CONFIG, no PUBLISH.
    const RedisReply r = m_admin->cmd({"ACL",
                                       "SETUSER",
                                       "viewer",
                                       "reset",
                                       "on",
                                       ">" + kViewerPassword,
                                       "~*",
                                       "&*",
                                       "-@all",
                                       "+@read",
                                       "+eval",
                                       "+evalsha",
                                       "+time",
                                       "+pubsub|numsub",
                                       "+pubsub|channels",
                                       "+psubscribe",
                                       "+punsubscribe",
                                       "+ping",
                                       "+client|setname",
                                       "+select"});
    QVERIFY2(!r.isError(), qPrintable(r.errorMessage()));
}

void TestAcl::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestAcl::init()
{
    m_admin->cmd({"FLUSHALL"});
    m_admin->cmd({"CONFIG", "SET", "notify-keyspace-events", "KA"});
    // A held reentrant lock (hold count 2) with a TTL, as Redisson writes it.
    m_admin->cmd({"HSET", "orders:42", kHolder, "2"});
    m_admin->cmd({"PEXPIRE", "orders:42", "120000"});
}

QStringList TestAcl::dump()
{
    QStringList lines;
    const RedisReply keys = m_admin->cmd({"KEYS", "*"});
    for (const RedisReply &k : keys.elements()) {
        const QByteArray key = k.toByteArray();
        const QByteArray type = m_admin->cmd({"TYPE", key}).toByteArray();
        if (type == "hash")
            lines << QString::fromUtf8(key) + QLatin1Char('=') + m_admin->hgetall(key).join(QLatin1Char(','));
        else
            lines << QString::fromUtf8(key + '=' + type);
    }
    lines << QStringLiteral("notify=") +
                 QString::fromUtf8(m_admin->cmd({"CONFIG", "GET", "notify-keyspace-events"}).at(1).toByteArray());
    lines.sort();
    return lines;
}

void TestAcl::viewerListsAndShows()
{
    const CliRun list =
        runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("list"), QStringLiteral("--json")}, viewerEnv());
    QVERIFY2(list.exitCode == 0, qPrintable(list.describe()));
    QVERIFY2(list.out.contains("\"name\":\"orders:42\""), qPrintable(list.describe()));
    QVERIFY2(list.out.contains("\"hold_count\":2"), qPrintable(list.describe()));

    const CliRun show = runCli(
        {QStringLiteral("--url"), viewerUrl(), QStringLiteral("show"), QStringLiteral("orders:42")}, viewerEnv());
    QVERIFY2(show.exitCode == 0, qPrintable(show.describe()));
    QVERIFY2(show.out.contains("hold count 2"), qPrintable(show.describe()));

    // The user really has no write permission (the test would prove nothing otherwise).
    SyncClient viewer(viewerEndpoint());
    QVERIFY(viewer.open());
    const RedisReply set = viewer.cmd({"SET", "probe", "1"});
    QVERIFY(set.isPermissionError());
    QVERIFY2(set.errorMessage().startsWith(QLatin1String("the ACL user 'viewer' may not run 'set'")),
             qPrintable(set.errorMessage()));
}

void TestAcl::monitorFallsBackToPollingAndSaysWhy()
{
    LockSession::Options options;
    options.endpoint = viewerEndpoint();
    LockSession session(options);
    QString detail;
    connect(&session, &LockSession::modeChanged, this, [&](LockMonitor::Mode mode, const QString &d) {
        if (mode == LockMonitor::Mode::Polling)
            detail = d;
    });
    session.start();
    QVERIFY(waitUntil([&] { return !detail.isEmpty(); }));
    QVERIFY2(detail.contains(QLatin1String("the ACL user 'viewer' may not run 'config|get'")), qPrintable(detail));
    QVERIFY2(detail.contains(QLatin1String("polling")), qPrintable(detail));
    QVERIFY(waitUntil([&] { return peer(session).monitor()->locks().contains(QStringLiteral("orders:42")); }));
    QCOMPARE(peer(session).monitor()->locks().value(QStringLiteral("orders:42")).holders.value(0).holdCount, 2);
}

void TestAcl::viewerWatchSeesChanges()
{
    Cli watch({QStringLiteral("--url"), viewerUrl(), QStringLiteral("watch"), QStringLiteral("--json"),
               QStringLiteral("--duration-ms"), QStringLiteral("4000")},
              viewerEnv());
    QTest::qWait(1500);
    m_admin->cmd({"HINCRBY", "orders:42", kHolder, "1"});
    const CliRun r = watch.finish();
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("\"type\":\"reentered\""), qPrintable(r.describe()));
    QVERIFY2(r.err.contains("may not run 'config|get'") && r.err.contains("polling"), qPrintable(r.describe()));
}

void TestAcl::writesAreRefusedWithExit3AndChangeNothing()
{
    const QStringList before = dump();

    const CliRun acquire = runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("acquire"),
                                   QStringLiteral("jobs:new"), QStringLiteral("--hold-ms"), QStringLiteral("100")},
                                  viewerEnv());
    QVERIFY2(acquire.exitCode == 3, qPrintable(acquire.describe()));
    QVERIFY2(acquire.err.contains("the ACL user 'viewer' may not"), qPrintable(acquire.describe()));

    const CliRun unlock = runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("force-unlock"),
                                  QStringLiteral("orders:42"), QStringLiteral("--yes")},
                                 viewerEnv());
    QVERIFY2(unlock.exitCode == 3, qPrintable(unlock.describe()));
    QVERIFY2(unlock.err.contains("the ACL user 'viewer' may not"), qPrintable(unlock.describe()));

    const CliRun notify = runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("--enable-notifications"),
                                  QStringLiteral("watch"), QStringLiteral("--duration-ms"), QStringLiteral("3000")},
                                 viewerEnv());
    QVERIFY2(notify.exitCode == 3, qPrintable(notify.describe()));
    QVERIFY2(notify.err.contains("the ACL user 'viewer' may not run 'config|get'"), qPrintable(notify.describe()));

    QCOMPARE(dump(), before);
    QCOMPARE(m_admin->hget("orders:42", kHolder), QByteArray("2"));
}

void TestAcl::sessionActionsReportTheAclRefusal()
{
    LockSession::Options options;
    options.endpoint = viewerEndpoint();
    LockSession session(options);
    session.open();
    QVERIFY(waitUntil([&] { return peer(session).connection()->isReady(); }));
    QStringList messages;
    connect(&session, &LockSession::actionFinished, this,
            [&](const QString &, const QString &, bool ok, const QString &message) {
                QVERIFY(!ok);
                messages << message;
            });
    const QStringList before = dump();
    session.acquire(QStringLiteral("jobs:gui"), 1, 30000, 0);
    session.forceUnlock(QStringLiteral("orders:42"));
    QVERIFY(waitUntil([&] { return messages.size() == 2; }));
    for (const QString &m : messages) {
        QVERIFY2(m.contains(QLatin1String("the ACL user 'viewer' may not")), qPrintable(m));
        QVERIFY2(RedisReply::isPermissionError(m), qPrintable(m));
    }
    QCOMPARE(dump(), before);
}

// Issue 38: a user granted what the release tooltip used to name (EVALSHA, DEL, HINCRBY, PUBLISH)
// but not SET: the unlock script deletes the hash and publishes, then fails at the unlock latch's
// SET. Redis does not roll a script back, so the record says "unknown" with the state re-read
// (free), never "error". And the write probe, asked about every command the scripts call, names
// SET for release before anyone tries.
void TestAcl::releaseFailingPartWayIsUnknownAndReread()
{
    const QByteArray password = "r3leaser-Pa55";
    QVERIFY(!m_admin
                 ->cmd({"ACL",        "SETUSER",        "releaser",    "reset",
                        "on",         ">" + password,   "~*",          "&*",
                        "-@all",      "+@read",         "+evalsha",    "+eval",
                        "+del",       "+hincrby",       "+publish",    "+pexpire",
                        "+time",      "+pubsub|numsub", "+psubscribe", "+punsubscribe",
                        "+subscribe", "+unsubscribe",   "+ping",       "+client|setname",
                        "+client|id", "+select",        "+info",       "+config|get"})
                 .isError());
    QTemporaryDir dir;
    LockSession::Options options;
    options.endpoint = RedisEndpoint::parse(QStringLiteral("redis://releaser@127.0.0.1:%1").arg(m_server.port()));
    options.endpoint.setPassword(QString::fromUtf8(password), RedisEndpoint::PasswordSource::Environment);
    options.auditLogPath = dir.filePath(QStringLiteral("audit.jsonl"));
    LockSession session(options);
    QStringList refused;
    bool probed = false;
    connect(&session, &LockSession::writesChecked, this, [&](const QString &user, const QStringList &r) {
        refused = WritePermissions(user, r).refusedFor(QStringLiteral("release"));
        probed = true;
    });
    session.start();
    QVERIFY(waitUntil([&] { return probed; }, 10000));
    QVERIFY2(refused.contains(QStringLiteral("set")), qPrintable(refused.join(QLatin1Char(','))));

    // LockScope's own hold, as its lock client writes it; then the release.
    const QByteArray name = "jobs:partial";
    m_admin->cmd({"HSET", name, (session.clientId() + QStringLiteral(":1")).toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", name, "60000"});
    QString outcome, message;
    connect(&session, &LockSession::actionFinished, this,
            [&](const QString &, const QString &, bool, const QString &m, const QString &o) {
                outcome = o;
                message = m;
            });
    session.release(QString::fromUtf8(name), 1);
    QVERIFY(waitUntil([&] { return !outcome.isEmpty(); }, 10000));
    QCOMPARE(outcome, QStringLiteral("unknown"));
    QVERIFY2(message.contains(QLatin1String("failed part-way")) && message.contains(QLatin1String("is free")),
             qPrintable(message));
    QCOMPARE(m_admin->cmd({"EXISTS", name}).toInteger(), 0); // the DEL did run
    QFile log(options.auditLogPath);
    QVERIFY(log.open(QIODevice::ReadOnly));
    QJsonObject last;
    for (const QByteArray &line : log.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            last = QJsonDocument::fromJson(line).object();
    QCOMPARE(last.value(QLatin1String("action")).toString(), QStringLiteral("release"));
    QCOMPARE(last.value(QLatin1String("result")).toString(), QStringLiteral("unknown"));
    QCOMPARE(last.value(QLatin1String("after")).toObject().value(QLatin1String("exists")).toBool(true), false);
    m_admin->cmd({"ACL", "DELUSER", "releaser"});
}

// Each action's permission list comes from its scripts: every command a script calls by name
// (and, for calls by a variable, its "-- Calls too:" line) is in it, and the write probe knows how
// to ask about each.
void TestAcl::permissionsNameEveryCommandTheScriptsCall()
{
    QCOMPARE(WritePermissions::commandsCalledBy("redis.call('set', KEYS[1], 1)\nredis.pcall('pubsub', 'numsub', c)\n"
                                                "-- Calls too: del publish (by a variable)\nredis.call(ARGV[2], c)"),
             (QStringList{"del", "publish", "pubsub|numsub", "set"}));
    const QStringList release = WritePermissions::commandsOf(QStringLiteral("release"));
    for (const char *c : {"evalsha", "set", "get", "del", "hincrby", "publish", "pexpire", "hexists"})
        QVERIFY2(release.contains(QLatin1String(c)), c);
    QVERIFY(WritePermissions::commandsOf(QStringLiteral("force_unlock")).contains(QStringLiteral("unlink")));
    // Every script a write runs either calls by literal names only, or says what else it calls.
    for (const char *action :
         {"acquire", "renew", "release", "force_unlock", "set_ttl", "remove_waiter", "remove_reader", "wake"}) {
        QVERIFY(!WritePermissions::scriptsOf(QString::fromLatin1(action)).isEmpty());
        for (const QString &script : WritePermissions::scriptsOf(QString::fromLatin1(action))) {
            QFile f(QStringLiteral(":/lockscope/scripts/%1.lua").arg(script));
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(script));
            const QByteArray text = f.readAll();
            const bool byVariable =
                QRegularExpression(QStringLiteral("redis\\.p?call\\(\\s*([^'\\s]|'(pubsub|config)',\\s*[^'\\s])"))
                    .match(QString::fromUtf8(text))
                    .hasMatch();
            QVERIFY2(!byVariable || text.contains("-- Calls too:"), qPrintable(script));
        }
    }
    // The probe has a shape for every command (a name it does not know would go unchecked).
    QFile probe(QStringLiteral(":/lockscope/scripts/acl_write_probe.lua"));
    QVERIFY(probe.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(probe.readAll());
    for (const QString &c : WritePermissions::allCommands()) {
        const QString key = c.contains(QLatin1Char('|')) ? QStringLiteral("['%1'] =").arg(c) : c + QStringLiteral(" =");
        QVERIFY2(text.contains(key), qPrintable(c));
    }
}

void TestAcl::authFailureNeverShowsThePassword()
{
    // In the library: the error sentence names the user and the password's source, not the password.
    RedisEndpoint ep = RedisEndpoint::parse(viewerUrl());
    ep.setPassword(QString::fromUtf8(kWrongPassword), RedisEndpoint::PasswordSource::Environment);
    RedisConnection conn(ep);
    QString lost;
    connect(&conn, &RedisConnection::connectionLost, this, [&](const QString &reason) { lost = reason; });
    conn.open();
    QVERIFY(waitUntil([&] { return !lost.isEmpty(); }));
    conn.close();
    QVERIFY2(lost.contains(QLatin1String("refused the login of ACL user 'viewer'")), qPrintable(lost));
    QVERIFY2(lost.contains(QLatin1String("LOCKSCOPE_PASSWORD")), qPrintable(lost));
    QVERIFY2(!lost.contains(QString::fromUtf8(kWrongPassword)), qPrintable(lost));
    QVERIFY(!conn.lastError().contains(QString::fromUtf8(kWrongPassword)));

    // From the environment and from the URL: exit 2, the password nowhere in the output.
    const CliRun env = runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("list")},
                              {{QStringLiteral("LOCKSCOPE_PASSWORD"), QString::fromUtf8(kWrongPassword)}});
    QCOMPARE(env.exitCode, 2);
    QVERIFY2(env.err.contains("refused the login of ACL user 'viewer'"), qPrintable(env.describe()));
    QVERIFY2(!env.out.contains(kWrongPassword) && !env.err.contains(kWrongPassword), qPrintable(env.describe()));

    const CliRun url = runCli(
        {QStringLiteral("--url"),
         QStringLiteral("redis://viewer:%1@127.0.0.1:%2").arg(QString::fromUtf8(kWrongPassword)).arg(m_server.port()),
         QStringLiteral("list")});
    QCOMPARE(url.exitCode, 2);
    QVERIFY2(url.err.contains("from the URL"), qPrintable(url.describe()));
    QVERIFY2(!url.out.contains(kWrongPassword) && !url.err.contains(kWrongPassword), qPrintable(url.describe()));

    // The right password is not shown either when things work.
    const CliRun ok = runCli(
        {QStringLiteral("--url"),
         QStringLiteral("redis://viewer:%1@127.0.0.1:%2").arg(QString::fromUtf8(kViewerPassword)).arg(m_server.port()),
         QStringLiteral("list")});
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.describe()));
    QVERIFY2(!ok.out.contains(kViewerPassword) && !ok.err.contains(kViewerPassword), qPrintable(ok.describe()));
}

void TestAcl::missingPasswordSaysHowToGiveIt()
{
    // An ACL user without a password.
    const CliRun user = runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("list")});
    QCOMPARE(user.exitCode, 2);
    QVERIFY2(user.err.contains("without a password") && user.err.contains("--ask-password"),
             qPrintable(user.describe()));

    // The default user needs a password (as with requirepass) and none is given: NOAUTH becomes advice.
    // The admin connection stays logged in while the default user's password changes.
    QVERIFY(!m_admin->cmd({"ACL", "SETUSER", "default", "resetpass", ">" + kWrongPassword}).isError());
    const CliRun noauth = runCli(
        {QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(m_server.port()), QStringLiteral("list")});
    QVERIFY(!m_admin->cmd({"ACL", "SETUSER", "default", "nopass"}).isError());
    QCOMPARE(noauth.exitCode, 2);
    QVERIFY2(noauth.err.contains("needs a password") && noauth.err.contains("LOCKSCOPE_PASSWORD"),
             qPrintable(noauth.describe()));
}

void TestAcl::userOptionAndEnvironment()
{
    // --user names the ACL user for a URL without one; LOCKSCOPE_USER does the same.
    const QString plainUrl = QStringLiteral("redis://127.0.0.1:%1").arg(m_server.port());
    const CliRun byOption = runCli({QStringLiteral("--url"), plainUrl, QStringLiteral("--user"),
                                    QStringLiteral("viewer"), QStringLiteral("list"), QStringLiteral("--json")},
                                   viewerEnv());
    QVERIFY2(byOption.exitCode == 0 && byOption.out.contains("orders:42"), qPrintable(byOption.describe()));
    // Proof that it logged in as viewer: a write is refused by the ACL.
    const CliRun refused = runCli({QStringLiteral("--url"), plainUrl, QStringLiteral("--user"),
                                   QStringLiteral("viewer"), QStringLiteral("acquire"), QStringLiteral("jobs:opt")},
                                  viewerEnv());
    QVERIFY2(refused.exitCode == 3, qPrintable(refused.describe()));

    QHash<QString, QString> env = viewerEnv();
    env.insert(QStringLiteral("LOCKSCOPE_USER"), QStringLiteral("viewer"));
    const CliRun byEnv =
        runCli({QStringLiteral("--url"), plainUrl, QStringLiteral("acquire"), QStringLiteral("jobs:env")}, env);
    QVERIFY2(byEnv.exitCode == 3 && byEnv.err.contains("'viewer'"), qPrintable(byEnv.describe()));
    QVERIFY(!m_admin->exists("jobs:opt"));
    QVERIFY(!m_admin->exists("jobs:env"));
}

void TestAcl::askPasswordNeedsATerminal()
{
    const CliRun r =
        runCli({QStringLiteral("--url"), viewerUrl(), QStringLiteral("--ask-password"), QStringLiteral("list")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("needs a terminal") && r.err.contains("LOCKSCOPE_PASSWORD"), qPrintable(r.describe()));
}

void TestAcl::askPasswordReadsTheTerminalWithEchoOff()
{
    const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
    if (script.isEmpty())
        QSKIP("script (util-linux) is not installed: no pseudo-terminal to test the prompt with");
    // script(1) gives the CLI a pseudo-terminal; whatever the terminal echoes ends up in its output.
    QProcess p;
    p.setChildProcessModifier([] { ::setsid(); });
    const QString command = QStringLiteral("'%1' --url '%2' --ask-password list").arg(cliPath(), viewerUrl());
    p.start(script, {QStringLiteral("-qec"), command, QStringLiteral("/dev/null")});
    QVERIFY(p.waitForStarted(10000));
    QByteArray out;
    QVERIFY2(waitUntil([&] {
                 out += p.readAllStandardOutput();
                 return out.contains("Password for ACL user 'viewer' at 127.0.0.1:");
             }),
             out.constData());
    p.write(kViewerPassword + "\n");
    QVERIFY(waitUntil(
        [&] {
            out += p.readAllStandardOutput();
            return p.state() == QProcess::NotRunning;
        },
        20000));
    out += p.readAllStandardOutput();
    QVERIFY2(p.exitCode() == 0, out.constData());
    QVERIFY2(out.contains("orders:42"), out.constData());
    QVERIFY2(!out.contains(kViewerPassword), out.constData()); // echo was off
}

QTEST_GUILESS_MAIN(TestAcl)
#include "tst_acl.moc"
