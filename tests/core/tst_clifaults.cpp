// lockscope-cli against faults of its surroundings rather than of Redis: an audit log that cannot
// grow (a full disk, reproduced with `ulimit -f`), a closed terminal (SIGHUP), a closed output
// (`watch | head -1`), a user without scripting, FIFOs given as files, and a lock name of 1 MiB.
// Every case runs the built lockscope-cli as a separate process against a real redis-server,
// with real signals, real files and a MONITOR connection proving what was (not) sent.

#include "demo/redisserverprocess.h"
#include "recording/recording.h"

#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

using namespace lockscope;
using lockscope::test::ProcessResult;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

const QByteArray kHolder = "b983c153-7421-469a-addb-44fb92259a1b:1";

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

/** `redis-cli monitor` for the duration of one check: every command the server runs. */
class Monitor
{
public:
    explicit Monitor(quint16 port)
    {
        m_process.start(lockscope::test::redisCliPath(),
                        {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(port),
                         QStringLiteral("monitor")});
    }
    ~Monitor()
    {
        m_process.kill();
        m_process.waitForFinished(3000);
    }
    bool waitStarted()
    {
        return m_process.waitForStarted(5000) && waitUntil(
                                                     [this] {
                                                         m_seen += m_process.readAllStandardOutput();
                                                         return m_seen.contains("OK");
                                                     },
                                                     5000);
    }
    /** What the server ran so far (after a short wait for the last lines). */
    QByteArray seen()
    {
        QTest::qWait(300);
        m_seen += m_process.readAllStandardOutput();
        return m_seen;
    }

private:
    QProcess m_process;
    QByteArray m_seen;
};

/** `bash -c 'ulimit -f BLOCKS; exec lockscope-cli ARGS'`: a file size limit of BLOCKS KiB. */
ProcessResult cliWithFileLimit(int blocks, const QStringList &args)
{
    return lockscope::test::runProcess(
        QStringLiteral("/bin/bash"),
        QStringList{QStringLiteral("-c"), QStringLiteral("ulimit -f %1; exec \"$0\" \"$@\"").arg(blocks), cliPath()} +
            args,
        30000);
}

} // namespace

class TestCliFaults : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void auditLogThatCannotGrowRefusesAndSendsNothing();
    void auditRecordIsWrittenBeforeTheWrite();
    void hangupReleasesTheHold();
    void watchEndsWhenItsOutputCloses();
    void watchWithoutScriptingExits3();
    void fifoPathsAreRefused();
    void longNameDoesNotWidenEveryRow();
    void passwordLeavesTheCommandLine();
    void maxClientsIsSaidInTheServersWords();

private:
    ProcessResult cli(const QStringList &args, int timeoutMs = 30000);

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    QTemporaryDir m_tmp;
};

void TestCliFaults::initTestCase()
{
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QVERIFY2(!lockscope::test::redisCliPath().isEmpty(), "redis-cli is not installed (Debian: redis-tools)");
    QVERIFY(m_tmp.isValid());
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestCliFaults::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestCliFaults::init()
{
    m_admin->flushall();
}

ProcessResult TestCliFaults::cli(const QStringList &args, int timeoutMs)
{
    return lockscope::test::runProcess(cliPath(), QStringList{QStringLiteral("--url"), m_server.url()} + args,
                                       timeoutMs);
}

// A full disk, reproduced without root: an audit log of 1 KiB and a file size limit of 1 KiB.
// Before: the write ran on Redis, then the record failed (exit 2, "BUT the audit record could not
// be written"). Now: refused with exit 3, and MONITOR shows that nothing about the lock was sent.
void TestCliFaults::auditLogThatCannotGrowRefusesAndSendsNothing()
{
    const QString audit = m_tmp.filePath(QStringLiteral("full.jsonl"));
    {
        QFile f(audit);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QByteArray(1023, 'x') + '\n');
    }
    m_admin->cmd({"HSET", "full:1", kHolder, "1"});
    m_admin->cmd({"PEXPIRE", "full:1", "60000"});
    m_admin->cmd({"HSET", "full:3", kHolder, "1"}); // no TTL: set-ttl would repair it
    const QStringList base{QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"), audit};
    const QList<QStringList> writes{
        {"force-unlock", "full:1", "--yes"},
        {"set-ttl", "full:3", "--ttl-ms", "5000", "--yes"},
        {"acquire", "full:2", "--hold-ms", "100"},
    };
    for (const QStringList &write : writes) {
        Monitor monitor(m_server.port());
        QVERIFY(monitor.waitStarted());
        const ProcessResult r = cliWithFileLimit(1, base + write);
        QVERIFY2(r.exitCode == 3, qPrintable(write.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY2(r.err.contains("audit log") && r.err.contains("Nothing was sent"), qPrintable(r.describe()));
        const QByteArray seen = monitor.seen();
        QVERIFY2(!seen.contains("full:"), seen.constData());
    }
    QVERIFY(m_admin->exists("full:1"));
    QVERIFY(m_admin->pttl("full:1") > 50000);
    QVERIFY(!m_admin->exists("full:2"));
    QCOMPARE(m_admin->pttl("full:3"), -1);
    QCOMPARE(QFileInfo(audit).size(), 1024);
}

// The quick check passes (room for a small record) but the record itself does not fit: the
// record is written before the write, so the write is refused (exit 3), the cut line is taken
// back, and the lock is unchanged.
void TestCliFaults::auditRecordIsWrittenBeforeTheWrite()
{
    const QString audit = m_tmp.filePath(QStringLiteral("almost.jsonl"));
    {
        QFile f(audit);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QByteArray(299, 'x') + '\n');
    }
    m_admin->cmd({"HSET", "almost:1", kHolder, "1"});
    m_admin->cmd({"PEXPIRE", "almost:1", "60000"});
    m_admin->cmd({"HSET", "almost:3", kHolder, "1"}); // no TTL: set-ttl would repair it
    const QStringList base{QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"), audit};
    for (const QStringList &write : QList<QStringList>{{"force-unlock", "almost:1", "--yes"},
                                                       {"set-ttl", "almost:3", "--ttl-ms", "5000", "--yes"},
                                                       {"acquire", "almost:2", "--hold-ms", "100"}}) {
        const ProcessResult r = cliWithFileLimit(1, base + write);
        QVERIFY2(r.exitCode == 3, qPrintable(write.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY2(r.err.contains("Nothing was sent"), qPrintable(r.describe()));
        QCOMPARE(QFileInfo(audit).size(), 300); // no cut line left behind
    }
    QVERIFY(m_admin->exists("almost:1"));
    QVERIFY(m_admin->pttl("almost:1") > 50000);
    QVERIFY(!m_admin->exists("almost:2"));
    QCOMPARE(m_admin->pttl("almost:3"), -1);

    // With room, one line per write as before: the outcome completes the reserved record.
    const QString roomy = m_tmp.filePath(QStringLiteral("roomy.jsonl"));
    const ProcessResult ok = cli({"--audit-log", roomy, "set-ttl", "almost:3", "--ttl-ms", "40000", "--yes"});
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.describe()));
    QFile f(roomy);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    const QJsonObject record = QJsonDocument::fromJson(lines.first()).object();
    QCOMPARE(record.value(QStringLiteral("result")).toString(), QStringLiteral("done"));
    QCOMPARE(record.value(QStringLiteral("action")).toString(), QStringLiteral("set_ttl"));
    QVERIFY(m_admin->pttl("almost:3") > 30000);
}

// Closing the terminal (SIGHUP) releases the hold and audits the release, as Ctrl-C does: exit 129.
void TestCliFaults::hangupReleasesTheHold()
{
    const QString audit = m_tmp.filePath(QStringLiteral("hup.jsonl"));
    QProcess holder;
    holder.start(cliPath(),
                 {"--url", m_server.url(), "--audit-log", audit, "acquire", "hup:1", "--lease-ms", "600000"});
    QVERIFY(holder.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (holder.state() != QProcess::NotRunning) {
            holder.kill();
            holder.waitForFinished(3000);
        }
    });
    QByteArray err;
    QVERIFY2(waitUntil(
                 [&] {
                     err += holder.readAllStandardError();
                     return err.contains("Ctrl-C to release");
                 },
                 15000),
             err.constData());
    QVERIFY(m_admin->exists("hup:1"));
    ::kill(pid_t(holder.processId()), SIGHUP);
    QVERIFY(holder.waitForFinished(5000));
    QCOMPARE(holder.exitStatus(), QProcess::NormalExit);
    QCOMPARE(holder.exitCode(), 129);
    QVERIFY(!m_admin->exists("hup:1"));
    QFile f(audit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray log = f.readAll();
    QVERIFY2(log.contains("\"release\"") && log.contains("\"acquire\""), log.constData());
}

// `watch | head -1` ends within a second of the first line (Qt ignores SIGPIPE: the closed
// output is noticed by looking at it).
void TestCliFaults::watchEndsWhenItsOutputCloses()
{
    QProcess pipeline;
    pipeline.start(
        QStringLiteral("/bin/bash"),
        {QStringLiteral("-c"), QStringLiteral("\"$0\" --url \"$1\" watch | head -1"), cliPath(), m_server.url()});
    QVERIFY(pipeline.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (pipeline.state() != QProcess::NotRunning) {
            pipeline.kill();
            pipeline.waitForFinished(3000);
        }
    });
    QByteArray err;
    QVERIFY2(waitUntil(
                 [&] {
                     err += pipeline.readAllStandardError();
                     return err.contains("watching");
                 },
                 15000),
             err.constData());
    m_admin->cmd({"HSET", "pipe:1", kHolder, "1"});
    m_admin->cmd({"PEXPIRE", "pipe:1", "30000"});
    QByteArray out;
    QVERIFY(waitUntil(
        [&] {
            out += pipeline.readAllStandardOutput();
            return out.contains('\n');
        },
        10000));
    QElapsedTimer sinceLine;
    sinceLine.start();
    // More events: a watch that does not notice would go on writing into the closed pipe.
    m_admin->cmd({"DEL", "pipe:1"});
    QVERIFY2(waitUntil([&] { return pipeline.state() == QProcess::NotRunning; }, 3000),
             "watch | head -1 still running 3 s after the first line");
    QVERIFY2(sinceLine.elapsed() < 1000,
             qPrintable(QStringLiteral("ended %1 ms after the first line").arg(sinceLine.elapsed())));
}

// A user whose ACL forbids scripting: watch exits 3 like list, show and doctor (before: exit 0,
// "watching 0 lock(s)", every acquire and release missed).
void TestCliFaults::watchWithoutScriptingExits3()
{
    QVERIFY(
        !m_admin->cmd({"ACL", "SETUSER", "noscript", "reset", "on", ">n0-scr1pt", "~*", "&*", "+@all", "-@scripting"})
             .isError());
    auto dropUser = qScopeGuard([&] { m_admin->cmd({"ACL", "DELUSER", "noscript"}); });
    m_admin->cmd({"HSET", "acl:1", kHolder, "1"});
    const QString url = QStringLiteral("redis://noscript:n0-scr1pt@127.0.0.1:%1").arg(m_server.port());
    const ProcessResult list = lockscope::test::runProcess(cliPath(), {"--url", url, "list"});
    QVERIFY2(list.exitCode == 3, qPrintable(list.describe()));
    QElapsedTimer clock;
    clock.start();
    const ProcessResult watch =
        lockscope::test::runProcess(cliPath(), {"--url", url, "watch", "--duration-ms", "8000"}, 15000);
    QVERIFY2(watch.exitCode == 3, qPrintable(watch.describe()));
    QVERIFY2(clock.elapsed() < 7000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
    QVERIFY2(watch.err.contains("noscript"), qPrintable(watch.describe()));
}

// A FIFO given as a file is refused before it is opened (open() of a FIFO blocks until the other
// side comes, and the handlers restart it): record --out, serve --web-config, export, --replay.
void TestCliFaults::fifoPathsAreRefused()
{
    const QString fifo = m_tmp.filePath(QStringLiteral("fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QList<QStringList> commands{
        {"--url", m_server.url(), "record", "--out", fifo, "--duration-ms", "20000"},
        {"--url", m_server.url(), "serve", "--listen", "127.0.0.1:0", "--web-config", fifo},
        {"export", fifo, "--csv"},
    };
    for (const QStringList &args : commands) {
        QProcess p;
        p.start(cliPath(), args);
        QVERIFY(p.waitForStarted(10000));
        QElapsedTimer clock;
        clock.start();
        if (!p.waitForFinished(5000)) {
            // Not refused: it must at least end on SIGTERM within a second.
            ::kill(pid_t(p.processId()), SIGTERM);
            const bool ended = p.waitForFinished(1000);
            if (!ended) {
                p.kill();
                p.waitForFinished(3000);
            }
            QFAIL(qPrintable(QStringLiteral("%1: still running after 5 s%2")
                                 .arg(args.join(' '), ended ? QString() : QStringLiteral(", deaf to SIGTERM"))));
        }
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() != 0 && err.contains("not a regular file"),
                 qPrintable(args.join(' ') + QStringLiteral(": exit %1: ").arg(p.exitCode()) + err));
    }
    // The dashboard's --replay reads with Recording::load.
    Recording rec;
    QString error;
    QVERIFY(!Recording::load(fifo, &rec, &error));
    QVERIFY2(error.contains(QLatin1String("not a regular file")), qPrintable(error));
}

// 1001 locks, one of them with a 1 MiB name: the table stays small (before: 1.05 GB, every row
// padded to the widest name); JSON keeps the name whole.
void TestCliFaults::longNameDoesNotWidenEveryRow()
{
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < 1000; ++i)
        commands << QList<QByteArray>{"HSET", "short:" + QByteArray::number(i), kHolder, "1"};
    const QByteArray huge = "huge:" + QByteArray(1024 * 1024, 'n');
    commands << QList<QByteArray>{"HSET", huge, kHolder, "1"};
    QCOMPARE(m_admin->pipeline(commands).size(), commands.size());
    const ProcessResult table = cli({"list"}, 60000);
    QVERIFY2(table.exitCode == 0, qPrintable(table.err));
    QVERIFY2(table.out.size() < 1000 * 1000, qPrintable(QStringLiteral("%1 bytes").arg(table.out.size())));
    QVERIFY(table.out.contains("short:999"));
    QVERIFY(table.out.contains("huge:nnnn"));
    QVERIFY(table.out.contains("1001 lock(s)"));
    const ProcessResult wide = cli({"list", "--wide"}, 60000);
    QVERIFY2(wide.exitCode == 0 && wide.out.size() < 1000 * 1000,
             qPrintable(QStringLiteral("%1 bytes").arg(wide.out.size())));
    const ProcessResult json = cli({"list", "--json"}, 60000);
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    QVERIFY(json.out.contains("\"" + huge + "\""));
}

// The URL's password is scrubbed from argv once read: `ps` shows `redis://scrub:*********@...`.
void TestCliFaults::passwordLeavesTheCommandLine()
{
    QVERIFY(!m_admin->cmd({"ACL", "SETUSER", "scrub", "reset", "on", ">s3cret-pw", "~*", "&*", "+@all"}).isError());
    auto dropUser = qScopeGuard([&] { m_admin->cmd({"ACL", "DELUSER", "scrub"}); });
    QProcess watch;
    watch.start(cliPath(), {"--url", QStringLiteral("redis://scrub:s3cret-pw@127.0.0.1:%1").arg(m_server.port()),
                            "watch", "--duration-ms", "5000"});
    QVERIFY(watch.waitForStarted(10000));
    QByteArray err;
    QVERIFY2(waitUntil(
                 [&] {
                     err += watch.readAllStandardError();
                     return err.contains("watching");
                 },
                 15000),
             err.constData());
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(watch.processId()));
    QVERIFY(cmdline.open(QIODevice::ReadOnly));
    const QByteArray seen = cmdline.readAll();
    ::kill(pid_t(watch.processId()), SIGTERM);
    QVERIFY(watch.waitForFinished(5000));
    QVERIFY2(!seen.contains("s3cret-pw") && seen.contains("redis://scrub:*********@127.0.0.1"), seen.constData());
}

// A server at maxclients answers "-ERR max number of clients reached" and closes: that is what
// the CLI says (before: "if it serves TLS on this port, use rediss://").
void TestCliFaults::maxClientsIsSaidInTheServersWords()
{
    const RedisReply info = m_admin->cmd({"INFO", "clients"});
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("connected_clients:(\\d+)")).match(QString::fromUtf8(info.toByteArray()));
    QVERIFY(m.hasMatch());
    QVERIFY(!m_admin->cmd({"CONFIG", "SET", "maxclients", m.captured(1).toUtf8()}).isError());
    auto restore = qScopeGuard([&] { m_admin->cmd({"CONFIG", "SET", "maxclients", "10000"}); });
    const ProcessResult r = cli({"list"});
    QVERIFY2(r.exitCode == 2 && r.err.contains("max number of clients") && !r.err.contains("rediss://"),
             qPrintable(r.describe()));
}

QTEST_GUILESS_MAIN(TestCliFaults)
#include "tst_clifaults.moc"
