// lockscope-cli as a user runs it: a separate process against the test's redis-server,
// checking its JSON lines, its exit codes (0 ok, 1 usage, 2 connection, 3 refused) and that
// refusals really change nothing.

#include "demo/redisserverprocess.h"

#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include <memory>

using namespace lockscope;
using lockscope::test::ProcessResult;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

const QString kClient = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b");
const QString kOther = QStringLiteral("5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60");

// Redisson's RLock acquire and unlock scripts (protocol §2.2, §2.3), as an independent client sends them.
const char *const kUnlock =
    "local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val); end; "
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); "
    "return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end;";

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

/** runProcess with extra environment variables (LOCKSCOPE_URL, COLUMNS). */
ProcessResult runWithEnv(const QStringList &args, const QHash<QString, QString> &env, int timeoutMs = 30000)
{
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.remove(QStringLiteral("LOCKSCOPE_URL"));
    e.remove(QStringLiteral("COLUMNS"));
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        e.insert(it.key(), it.value());
    return lockscope::test::runProcess(cliPath(), args, timeoutMs, e);
}

/** A `lockscope-cli watch` child for one test: killed when it goes out of scope, its stderr kept. */
struct WatchChild {
    QProcess process;
    QByteArray err;

    ~WatchChild()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(3000);
        }
    }
    bool start(const QStringList &args)
    {
        process.start(cliPath(), args);
        return process.waitForStarted(10000);
    }
    /** Until it is live and has read its baseline ("watching N lock(s)" on stderr). */
    bool waitUntilWatching(int timeoutMs)
    {
        return waitUntil(
            [this] {
                err += process.readAllStandardError();
                return err.contains("watching");
            },
            timeoutMs);
    }
};

/** Parses JSON lines; fails the test (via the returned flag) on any line that is not an object. */
QVector<QJsonObject> jsonLines(const QByteArray &out, bool *ok)
{
    QVector<QJsonObject> objects;
    *ok = true;
    for (const QByteArray &line : out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject()) {
            qWarning("not a JSON object line: %s", line.constData());
            *ok = false;
            continue;
        }
        objects << doc.object();
    }
    return objects;
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void listJsonLines();
    void listTable();
    void showJson();
    void showMissingExits3();
    void usageErrorsExit1();
    void unreachableServerExits2();
    void readOnlyForceUnlockIsRefused();
    void forceUnlockWithoutConfirmationIsRefused();
    void forceUnlockWithYesDeletes();
    void writesWithAnUnwritableAuditLogAreRefused();
    void textOutputEscapesControlCharacters();
    void bigHashesAreSampledNotReadWhole();
    void acquireAndRelease();
    void acquireHeldLockExits3();
    void watchPrintsEvents();
    void listIsOnePassAmongManyLocks();
    void signalsEndEveryCommand_data();
    void signalsEndEveryCommand();
    void acquireReleasesOnSignal();
    void acquireAndReleaseAreAudited();
    void numericOptionsAreValidated();
    void commandLineConventions();
    void watchOnAnUnreachableServerExits2();
    void watchDurationEndingDisconnectedExits2();
    void locksAreFoundByHolder();
    void watchFiltersByHolder();
    void doctorCommandsCarryTheConnection();
    void lockscopeUrlIsHonoured();
    void urlMistakesAreExplained();
    void tableFitsTheTerminal();
    void namesAndFieldsThatAreNotUtf8();
    void watchSaysWhatWasTooShortToSee();
    void bigLockIsForceUnlockedWithoutReadingItWhole();

private:
    ProcessResult cli(const QStringList &args, int timeoutMs = 30000);
    void seed();

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
};

void TestCli::initTestCase()
{
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QVERIFY2(!lockscope::test::redisCliPath().isEmpty(), "redis-cli is not installed (Debian: redis-tools)");
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void TestCli::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void TestCli::init()
{
    m_admin->flushall();
}

ProcessResult TestCli::cli(const QStringList &args, int timeoutMs)
{
    QStringList all{QStringLiteral("--url"), m_server.url()};
    all << args;
    return lockscope::test::runProcess(cliPath(), all, timeoutMs);
}

void TestCli::seed()
{
    m_admin->cmd({"HSET", "orders:42", (kClient + ":1").toUtf8(), "2"});
    m_admin->cmd({"PEXPIRE", "orders:42", "30000"});
    m_admin->cmd({"HSET", "inventory:7", (kOther + ":57").toUtf8(), "1"}); // no TTL: a problem
    // A fair lock with one waiter and a fenced lock with a token.
    m_admin->cmd({"HSET", "fair:1", (kClient + ":3").toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", "fair:1", "30000"});
    m_admin->cmd({"RPUSH", "redisson_lock_queue:{fair:1}", (kOther + ":4").toUtf8()});
    m_admin->cmd({"ZADD", "redisson_lock_timeout:{fair:1}", "9999999999999", (kOther + ":4").toUtf8()});
    m_admin->cmd({"HSET", "fenced:1", (kOther + ":8").toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", "fenced:1", "30000"});
    m_admin->cmd({"SET", "redisson_lock_token:{fenced:1}", "41"});
    // Not locks.
    m_admin->cmd({"HSET", "plainhash", "foo", "bar"});
    m_admin->cmd({"SET", "somestring", "x"});
}

void TestCli::listJsonLines()
{
    seed();
    const ProcessResult r = cli({"list", "--json"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    bool ok = false;
    const QVector<QJsonObject> locks = jsonLines(r.out, &ok);
    QVERIFY2(ok, r.out.constData());
    QCOMPARE(locks.size(), 4);

    // Every documented field, on every line.
    for (const auto &o : locks) {
        for (const char *key :
             {"name", "kind", "pttl_ms", "holders", "waiters", "subscribers", "token", "server_time_ms", "problems"})
            QVERIFY2(o.contains(QLatin1String(key)),
                     qPrintable(QStringLiteral("%1 missing in %2")
                                    .arg(QLatin1String(key),
                                         QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)))));
        QVERIFY(o.value(QLatin1String("holders")).isArray());
        QVERIFY(o.value(QLatin1String("waiters")).isArray());
        QVERIFY(o.value(QLatin1String("problems")).isArray());
        QVERIFY(o.value(QLatin1String("server_time_ms")).toInteger() > 1'600'000'000'000);
        for (const auto &h : o.value(QLatin1String("holders")).toArray()) {
            const QJsonObject ho = h.toObject();
            for (const char *key : {"field", "client_id", "thread_id", "hold_count", "mode"})
                QVERIFY2(ho.contains(QLatin1String(key)), key);
        }
    }
    // Sorted by name.
    QStringList names;
    for (const auto &o : locks)
        names << o.value(QLatin1String("name")).toString();
    QCOMPARE(names, (QStringList{"fair:1", "fenced:1", "inventory:7", "orders:42"}));

    const QJsonObject orders = locks[3];
    QCOMPARE(orders.value(QLatin1String("kind")).toString(), QStringLiteral("lock"));
    const qint64 pttl = orders.value(QLatin1String("pttl_ms")).toInteger();
    QVERIFY2(pttl > 20000 && pttl <= 30000, qPrintable(QString::number(pttl)));
    const QJsonObject holder = orders.value(QLatin1String("holders")).toArray().at(0).toObject();
    QCOMPARE(holder.value(QLatin1String("field")).toString(), kClient + ":1");
    QCOMPARE(holder.value(QLatin1String("client_id")).toString(), kClient);
    QCOMPARE(holder.value(QLatin1String("thread_id")).toString(), QStringLiteral("1"));
    QCOMPARE(holder.value(QLatin1String("hold_count")).toInteger(), qint64(2));
    QVERIFY(holder.value(QLatin1String("mode")).isNull());
    QCOMPARE(orders.value(QLatin1String("subscribers")).toInteger(), qint64(0));
    QVERIFY(orders.value(QLatin1String("token")).isNull());
    QVERIFY(orders.value(QLatin1String("problems")).toArray().isEmpty());

    const QJsonObject inventory = locks[2];
    QCOMPARE(inventory.value(QLatin1String("pttl_ms")).toInteger(), qint64(-1));
    QCOMPARE(inventory.value(QLatin1String("problems")).toArray().size(), 1);

    const QJsonObject fair = locks[0];
    QCOMPARE(fair.value(QLatin1String("kind")).toString(), QStringLiteral("fair_lock"));
    const QJsonObject waiter = fair.value(QLatin1String("waiters")).toArray().at(0).toObject();
    QCOMPARE(waiter.value(QLatin1String("field")).toString(), kOther + ":4");
    QCOMPARE(waiter.value(QLatin1String("position")).toInt(), 1);
    QCOMPARE(waiter.value(QLatin1String("deadline_epoch_ms")).toInteger(), qint64(9999999999999));
    QVERIFY(waiter.value(QLatin1String("deadline_in_ms")).toInteger() > 0);

    const QJsonObject fenced = locks[1];
    QCOMPARE(fenced.value(QLatin1String("kind")).toString(), QStringLiteral("fenced_lock"));
    QCOMPARE(fenced.value(QLatin1String("token")).toInteger(), qint64(41));

    // --pattern narrows the list; an empty server lists nothing and still succeeds.
    const ProcessResult narrowed = cli({"list", "--json", "--pattern", "orders:*"});
    QVERIFY2(narrowed.exitCode == 0, qPrintable(narrowed.describe()));
    QCOMPARE(jsonLines(narrowed.out, &ok).size(), 1);
    m_admin->flushall();
    const ProcessResult empty = cli({"list", "--json"});
    QVERIFY2(empty.exitCode == 0, qPrintable(empty.describe()));
    QVERIFY(empty.out.trimmed().isEmpty());
}

void TestCli::listTable()
{
    seed();
    const ProcessResult r = cli({"list"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.startsWith(QLatin1String("NAME")), qPrintable(out));
    QVERIFY(out.contains(kClient + QStringLiteral(":1")));
    QVERIFY(out.contains(QLatin1String("orders:42")));
    QVERIFY(!out.contains(QLatin1String("plainhash")));
    QVERIFY2(out.contains(QLatin1String("4 lock(s) on 127.0.0.1:")), qPrintable(out));
}

void TestCli::showJson()
{
    seed();
    const ProcessResult r = cli({"show", "orders:42", "--json"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    bool ok = false;
    const QVector<QJsonObject> lines = jsonLines(r.out, &ok);
    QVERIFY(ok);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(lines[0].value(QLatin1String("name")).toString(), QStringLiteral("orders:42"));
    QCOMPARE(lines[0]
                 .value(QLatin1String("holders"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QLatin1String("hold_count"))
                 .toInteger(),
             qint64(2));

    const ProcessResult human = cli({"show", "orders:42"});
    QVERIFY2(human.exitCode == 0, qPrintable(human.describe()));
    QVERIFY(human.out.contains("hold count 2"));
    QVERIFY(human.out.contains("redisson_lock__channel:{orders:42}"));
}

void TestCli::showMissingExits3()
{
    seed();
    ProcessResult r = cli({"show", "missing"});
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.out.trimmed().isEmpty());
    QVERIFY(!r.err.isEmpty());
    // A hash that is not a lock is refused the same way.
    r = cli({"show", "plainhash", "--json"});
    QCOMPARE(r.exitCode, 3);
}

void TestCli::usageErrorsExit1()
{
    const QList<QStringList> cases{
        {"--url", "http://127.0.0.1:6379", "list"},
        {"--url", "not a url", "list"},
        {"--url", "redis://127.0.0.1:99999", "list"},
        {"--url", "redis://127.0.0.1:6379/x", "list"},
        {"--url", m_server.url(), "frobnicate"},
        {"--url", m_server.url()},
        {"--url", m_server.url(), "show"},
        {"--url", m_server.url(), "acquire", "x", "--lease-ms", "soon"},
        {"--url", m_server.url(), "list", "extra"},
        {"--url", m_server.url(), "--no-such-option", "list"},
    };
    for (const auto &args : cases) {
        const ProcessResult r = lockscope::test::runProcess(cliPath(), args);
        QVERIFY2(r.finished && r.exitCode == 1, qPrintable(args.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY2(!r.err.isEmpty(), qPrintable(args.join(' ')));
    }
    const ProcessResult help = lockscope::test::runProcess(cliPath(), {"--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("force-unlock"));
}

void TestCli::unreachableServerExits2()
{
    const quint16 closed = RedisServerProcess::freePort();
    for (const QStringList &cmd :
         {QStringList{"list", "--json"}, QStringList{"show", "x"}, QStringList{"force-unlock", "x", "--yes"}}) {
        QStringList args{QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(closed)};
        args << cmd;
        const ProcessResult r = lockscope::test::runProcess(cliPath(), args);
        QVERIFY2(r.finished && r.exitCode == 2, qPrintable(cmd.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY(r.out.trimmed().isEmpty());
    }
}

void TestCli::readOnlyForceUnlockIsRefused()
{
    seed();
    const QStringList before = m_admin->hgetall("orders:42");
    ProcessResult r = cli({"--read-only", "force-unlock", "orders:42", "--yes"});
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.err.contains("read-only"));
    QVERIFY(m_admin->exists("orders:42"));
    QCOMPARE(m_admin->hgetall("orders:42"), before);
    r = cli({"--read-only", "acquire", "free:1", "--lease-ms", "5000", "--hold-ms", "100"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(!m_admin->exists("free:1"));
    // Reading is allowed in read-only mode.
    r = cli({"--read-only", "show", "orders:42", "--json"});
    QCOMPARE(r.exitCode, 0);
}

void TestCli::forceUnlockWithoutConfirmationIsRefused()
{
    seed();
    const QStringList before = m_admin->hgetall("orders:42");
    const qint64 keys = m_admin->dbsize();
    // runProcess gives the CLI a pipe (closed) as stdin, not a terminal.
    const ProcessResult r = cli({"force-unlock", "orders:42"});
    QVERIFY(r.finished);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("--yes"), r.err.constData());
    // It showed what it would have deleted.
    QVERIFY(r.err.contains((kClient + ":1").toUtf8()));
    QVERIFY(m_admin->exists("orders:42"));
    QCOMPARE(m_admin->hgetall("orders:42"), before);
    QVERIFY(m_admin->pttl("orders:42") > 0);
    QCOMPARE(m_admin->dbsize(), keys);
}

void TestCli::forceUnlockWithYesDeletes()
{
    seed();
    ProcessResult r = cli({"force-unlock", "orders:42", "--yes"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY(!m_admin->exists("orders:42"));
    QVERIFY(m_admin->exists("inventory:7"));
    // Nothing left to unlock: refused.
    r = cli({"force-unlock", "orders:42", "--yes"});
    QCOMPARE(r.exitCode, 3);
    // A braced name.
    m_admin->cmd({"HSET", "order:{7}", (kClient + ":1").toUtf8(), "1"});
    r = cli({"force-unlock", "order:{7}", "--yes"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY(!m_admin->exists("order:{7}"));
}

void TestCli::writesWithAnUnwritableAuditLogAreRefused()
{
    // No write without its audit record: force-unlock, set-ttl and wake check the audit log first
    // and refuse (exit 3) with nothing sent, rather than change Redis and report the failure after.
    seed();
    QTemporaryDir dir;
    QFile notADirectory(dir.filePath(QStringLiteral("file")));
    QVERIFY(notADirectory.open(QIODevice::WriteOnly));
    notADirectory.close();
    const QString bad = dir.filePath(QStringLiteral("file/audit.jsonl")); // its "directory" is a file
    for (const QStringList &args :
         {QStringList{"force-unlock", "orders:42", "--yes"},
          QStringList{"set-ttl", "inventory:7", "--ttl-ms", "5000", "--yes"}, QStringList{"wake", "free:1", "--yes"},
          QStringList{"acquire", "cli:audit", "--hold-ms", "100"}}) {
        const ProcessResult r = cli(args + QStringList{"--audit-log", bad});
        QVERIFY2(r.finished && r.exitCode == 3, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("audit log") && r.err.contains("Nothing was sent"), r.err.constData());
    }
    QVERIFY(m_admin->exists("orders:42"));
    QCOMPARE(m_admin->cmd({"PTTL", "inventory:7"}).toInteger(), qint64(-1));
    QVERIFY(!m_admin->exists("cli:audit"));
}

void TestCli::textOutputEscapesControlCharacters()
{
    // A key name with an escape sequence must not reach the terminal raw.
    const QByteArray evil = QByteArray("evil\x1b[2J\x1b]0;pwned\x07:lock");
    m_admin->cmd({"HSET", evil, (kClient + ":1").toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", evil, "30000"});
    for (const QStringList &args : {QStringList{"list"}, QStringList{"show", QString::fromUtf8(evil)}}) {
        const ProcessResult r = cli(args);
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
        QVERIFY2(!r.out.contains('\x1b') && !r.out.contains('\x07'), r.out.constData());
        QVERIFY2(r.out.contains("evil\\e[2J\\e]0;pwned\\x07:lock"), r.out.constData());
    }
    // JSON keeps the exact name (escaped by JSON itself).
    const ProcessResult json = cli({"list", "--json"});
    QVERIFY(json.out.contains("evil\\u001b[2J"));
}

void TestCli::bigHashesAreSampledNotReadWhole()
{
    // An HGETALL of a hash with a million fields blocks Redis for seconds, so a hash over 1024
    // fields is only sampled (HRANDFIELD), whatever it is.
    for (int chunk = 0; chunk < 20; ++chunk) {
        QList<QByteArray> lockArgs{"HSET", "huge:lock"};
        QList<QByteArray> dataArgs{"HSET", "huge:data"};
        for (int i = 0; i < 1000; ++i) {
            const int n = chunk * 1000 + i;
            lockArgs << (kClient + QStringLiteral(":%1").arg(n)).toUtf8() << "1";
            dataArgs << "user:" + QByteArray::number(n) << "x";
        }
        m_admin->cmd(lockArgs);
        m_admin->cmd(dataArgs);
    }
    m_admin->cmd({"PEXPIRE", "huge:lock", "60000"});
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    const ProcessResult r = cli({"list", "--json"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    QJsonObject lock;
    int listed = 0;
    for (const QByteArray &line : r.out.split('\n'))
        if (!line.trimmed().isEmpty()) {
            lock = QJsonDocument::fromJson(line).object();
            ++listed;
        }
    QCOMPARE(listed, 1); // huge:data is no lock
    QCOMPARE(lock.value(QStringLiteral("name")).toString(), QStringLiteral("huge:lock"));
    QCOMPARE(lock.value(QStringLiteral("holders_sampled")).toBool(), true);
    QCOMPARE(lock.value(QStringLiteral("field_count")).toInteger(), qint64(20000));
    QVERIFY(lock.value(QStringLiteral("holders")).toArray().size() <= 16);
    const QByteArray stats = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
    QVERIFY2(!stats.contains("cmdstat_hgetall:"), stats.constData()); // never read whole
    const ProcessResult table = cli({"list"});
    QVERIFY2(table.out.contains("20000 holder fields (too many to list)"), table.out.constData());
}

void TestCli::acquireAndRelease()
{
    const ProcessResult r = cli({"acquire", "cli:1", "--lease-ms", "5000", "--hold-ms", "300"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("acquired cli:1 as "), r.out.constData());
    QVERIFY(r.out.contains("released cli:1"));
    QVERIFY(!m_admin->exists("cli:1"));

    // While it holds the lock, the hash is exactly Redisson's: "<uuid>:<thread id>" -> 1.
    QProcess holder;
    holder.start(cliPath(), {"--url", m_server.url(), "acquire", "cli:2", "--lease-ms", "20000", "--hold-ms", "3000",
                             "--thread-id", "42"});
    QVERIFY(holder.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (holder.state() != QProcess::NotRunning) {
            holder.kill();
            holder.waitForFinished(3000);
        }
    });
    QVERIFY(waitUntil([&] { return m_admin->exists("cli:2"); }, 15000));
    const QStringList fields = m_admin->hgetall("cli:2");
    QCOMPARE(fields.size(), 1);
    QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f-]{36}:42=1$")).match(fields.value(0)).hasMatch(),
             qPrintable(fields.value(0)));
    QVERIFY(m_admin->pttl("cli:2") > 10000);
    QVERIFY(holder.waitForFinished(15000));
    QCOMPARE(holder.exitCode(), 0);
    QVERIFY(!m_admin->exists("cli:2"));
}

void TestCli::acquireHeldLockExits3()
{
    seed();
    ProcessResult r = cli({"acquire", "orders:42", "--lease-ms", "5000", "--hold-ms", "100"});
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(m_admin->hget("orders:42", (kClient + ":1").toUtf8()), QByteArray("2"));
    // With a wait, it gets the lock once the holder lets go (released by an independent client).
    QProcess waiter;
    waiter.start(cliPath(), {"--url", m_server.url(), "acquire", "orders:42", "--lease-ms", "5000", "--hold-ms", "100",
                             "--wait-ms", "20000"});
    QVERIFY(waiter.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (waiter.state() != QProcess::NotRunning) {
            waiter.kill();
            waiter.waitForFinished(3000);
        }
    });
    QVERIFY(waitUntil([&] { return m_admin->numsub("redisson_lock__channel:{orders:42}") == 1; }, 15000));
    m_admin->cmd({"HSET", "orders:42", (kClient + ":1").toUtf8(), "1"});
    const ProcessResult unlocked = lockscope::test::redisCli(
        m_server.port(), {"EVAL", kUnlock, "3", "orders:42", "redisson_lock__channel:{orders:42}",
                          "redisson_unlock_latch:{orders:42}:66666666666666666666666666666666", "0", "30000",
                          kClient + ":1", "publish", "18000"});
    QCOMPARE(unlocked.out.trimmed(), QByteArray("1"));
    QVERIFY(waiter.waitForFinished(15000));
    QCOMPARE(waiter.exitCode(), 0);
    QVERIFY(waiter.readAllStandardOutput().contains("acquired orders:42"));
}

void TestCli::watchPrintsEvents()
{
    WatchChild child;
    QVERIFY(child.start({"--url", m_server.url(), "watch", "--json", "--duration-ms", "3000"}));
    QProcess &watch = child.process;
    QByteArray &err = child.err;
    // Wait until it is live and has read its baseline ("watching N lock(s)" on stderr).
    QVERIFY2(child.waitUntilWatching(10000), err.constData());
    QVERIFY2(err.contains("live"), err.constData());

    // An independent Redisson client takes and releases a lock during the watch.
    const QString field = kOther + QStringLiteral(":7");
    const auto acquired = lockscope::test::redisCli(
        m_server.port(), {"EVAL", lockscope::test::kRedissonAcquireScript, "1", "watched:1", "30000", field});
    QVERIFY2(acquired.exitCode == 0 && acquired.out.trimmed().isEmpty(), qPrintable(acquired.describe()));
    QVERIFY(waitUntil([&] { return m_admin->exists("watched:1"); }));
    QTest::qWait(100); // let the watcher read the holder before it goes away
    const auto released = lockscope::test::redisCli(
        m_server.port(), {"EVAL", kUnlock, "3", "watched:1", "redisson_lock__channel:{watched:1}",
                          "redisson_unlock_latch:{watched:1}:77777777777777777777777777777777", "0", "30000", field,
                          "publish", "18000"});
    QCOMPARE(released.out.trimmed(), QByteArray("1"));

    QVERIFY(watch.waitForFinished(15000));
    QCOMPARE(watch.exitStatus(), QProcess::NormalExit);
    QCOMPARE(watch.exitCode(), 0);
    const QByteArray out = watch.readAllStandardOutput();
    bool ok = false;
    const QVector<QJsonObject> events = jsonLines(out, &ok);
    QVERIFY2(ok, out.constData());
    bool sawAcquired = false, sawReleased = false;
    for (const auto &e : events) {
        for (const char *key : {"time_ms", "lock", "type", "holder", "detail"})
            QVERIFY2(e.contains(QLatin1String(key)), key);
        if (e.value(QLatin1String("lock")).toString() != QLatin1String("watched:1"))
            continue;
        const QString type = e.value(QLatin1String("type")).toString();
        if (type == QLatin1String("acquired")) {
            sawAcquired = true;
            QCOMPARE(e.value(QLatin1String("holder")).toString(), field);
        } else if (type == QLatin1String("released")) {
            QVERIFY2(sawAcquired, "released before acquired");
            sawReleased = true;
            QCOMPARE(e.value(QLatin1String("holder")).toString(), field);
        }
    }
    QVERIFY2(sawAcquired && sawReleased, out.constData());
}

// `list` is one discovery pass and one read per lock, even when polling would never be
// done (every poll re-marks all locks; with many locks a read never catches up). Here: 20k locks
// among 30k keys, --poll, and the answer has every lock once; no subscription was made.
void TestCli::listIsOnePassAmongManyLocks()
{
    const int n = 20000;
    QByteArray script = "for i = 1, " + QByteArray::number(n) + " do redis.call('hset', 'many:' .. i, '" +
                        kClient.toUtf8() + ":1', 1); redis.call('set', 'other:' .. i, 'x'); end; return 1";
    m_admin->cmd({"EVAL", script, "0"});
    const ProcessResult r = cli({"list", "--json", "--poll", "--progress"}, 120000);
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    bool ok = false;
    const QVector<QJsonObject> locks = jsonLines(r.out, &ok);
    QVERIFY(ok);
    QCOMPARE(int(locks.size()), n);
    // The lines come sorted by name, one per lock, each of its own lock.
    QSet<QString> names;
    for (int i = 0; i < locks.size(); ++i) {
        const QString name = locks[i].value(QStringLiteral("name")).toString();
        if (i > 0)
            QVERIFY2(locks[i - 1].value(QStringLiteral("name")).toString() < name, qPrintable(name));
        names.insert(name);
        const QJsonArray holders = locks[i].value(QStringLiteral("holders")).toArray();
        QCOMPARE(holders.size(), 1);
        QCOMPARE(holders.first().toObject().value(QStringLiteral("field")).toString(), kClient + QStringLiteral(":1"));
    }
    QCOMPARE(int(names.size()), n);
    QVERIFY(names.contains(QStringLiteral("many:1")) && names.contains(QStringLiteral("many:%1").arg(n)));
    // Progress on stderr with the keyspace size from DBSIZE.
    QVERIFY2(r.err.contains("keys, ") && r.err.contains(" of ~40k keys"), r.err.constData());
}

// SIGINT / SIGTERM end every command within a second (only SIGKILL used to stop some), 130 / 143 (here while the
// server never answers, so nothing is done yet; and while watching / observing).
void TestCli::signalsEndEveryCommand_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("silentServer");
    QTest::addColumn<int>("signal");
    QTest::newRow("list SIGINT, silent server") << QStringList{"list", "--json"} << true << SIGINT;
    QTest::newRow("list SIGTERM, silent server") << QStringList{"list"} << true << SIGTERM;
    QTest::newRow("show SIGINT, silent server") << QStringList{"show", "x"} << true << SIGINT;
    QTest::newRow("doctor SIGTERM, silent server") << QStringList{"doctor"} << true << SIGTERM;
    QTest::newRow("force-unlock SIGINT, silent server") << QStringList{"force-unlock", "x", "--yes"} << true << SIGINT;
    QTest::newRow("doctor --observe-ms SIGINT") << QStringList{"doctor", "--observe-ms", "600000"} << false << SIGINT;
    QTest::newRow("watch SIGINT") << QStringList{"watch"} << false << SIGINT;
    QTest::newRow("watch SIGTERM") << QStringList{"watch", "--json"} << false << SIGTERM;
}

void TestCli::signalsEndEveryCommand()
{
    QFETCH(QStringList, args);
    QFETCH(bool, silentServer);
    QFETCH(int, signal);
    QTcpServer silent; // accepts connections and never answers
    QVector<QTcpSocket *> accepted;
    QString url = m_server.url();
    if (silentServer) {
        QVERIFY(silent.listen(QHostAddress::LocalHost));
        connect(&silent, &QTcpServer::newConnection, this, [&] {
            while (QTcpSocket *s = silent.nextPendingConnection())
                accepted << s;
        });
        url = QStringLiteral("redis://127.0.0.1:%1").arg(silent.serverPort());
    }
    QProcess p;
    p.start(cliPath(), QStringList{"--url", url} + args);
    QVERIFY(p.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (p.state() != QProcess::NotRunning) {
            p.kill();
            p.waitForFinished(3000);
        }
    });
    if (silentServer) {
        QVERIFY(waitUntil([&] { return !accepted.isEmpty(); }, 10000)); // it is waiting for the server
    } else {
        QByteArray err;
        QVERIFY2(waitUntil(
                     [&] {
                         err += p.readAllStandardError();
                         return err.contains("watching") || err.contains("observing");
                     },
                     15000),
                 err.constData());
    }
    ::kill(pid_t(p.processId()), signal);
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 128 + signal);
    qDeleteAll(accepted);
}

// A signal while acquire holds the lock releases it first (audited), so no hold is left to expire,
// then exits 143.
void TestCli::acquireReleasesOnSignal()
{
    const QString audit =
        QDir::temp().filePath(QStringLiteral("tst_cli_sig_audit_%1.jsonl").arg(QCoreApplication::applicationPid()));
    QFile::remove(audit);
    QProcess holder;
    holder.start(cliPath(), {"--url", m_server.url(), "--audit-log", audit, "acquire", "sig:1", "--lease-ms", "60000"});
    QVERIFY(holder.waitForStarted(10000));
    auto stop = qScopeGuard([&] {
        if (holder.state() != QProcess::NotRunning) {
            holder.kill();
            holder.waitForFinished(3000);
        }
        QFile::remove(audit);
    });
    QByteArray err;
    QVERIFY2(waitUntil(
                 [&] {
                     err += holder.readAllStandardError();
                     return err.contains("Ctrl-C to release");
                 },
                 15000),
             err.constData());
    QVERIFY(m_admin->exists("sig:1"));
    ::kill(pid_t(holder.processId()), SIGTERM);
    QVERIFY(holder.waitForFinished(10000));
    QCOMPARE(holder.exitCode(), 143);
    QVERIFY(!m_admin->exists("sig:1"));
    QVERIFY(holder.readAllStandardOutput().contains("released sig:1"));
    QFile f(audit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray log = f.readAll();
    QVERIFY2(log.contains("\"release\""), log.constData());
}

// `acquire` takes the session's audited write path, as the dashboard does (one write path, one
// audit rule): one record
// for the acquire and one for the release, each with its outcome and the state before.
void TestCli::acquireAndReleaseAreAudited()
{
    const QString audit =
        QDir::temp().filePath(QStringLiteral("tst_cli_acq_audit_%1.jsonl").arg(QCoreApplication::applicationPid()));
    QFile::remove(audit);
    auto cleanup = qScopeGuard([&] { QFile::remove(audit); });
    const ProcessResult r =
        cli({"--audit-log", audit, "acquire", "cli:audited", "--lease-ms", "30000", "--hold-ms", "100"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!m_admin->exists("cli:audited"));
    QFile f(audit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QStringList actions;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        QCOMPARE(record.value(QStringLiteral("lock")).toString(), QStringLiteral("cli:audited"));
        actions << record.value(QStringLiteral("action")).toString() + QLatin1Char('=') +
                       record.value(QStringLiteral("outcome")).toString();
    }
    QVERIFY2(actions.size() == 2 && actions.at(0).startsWith(QLatin1String("acquire=")) &&
                 actions.at(1).startsWith(QLatin1String("release=")),
             qPrintable(actions.join(QLatin1Char(' '))));
}

// Every number is range-checked before anything is sent: unchecked, `set-ttl --ttl-ms 0` (or
// negative) would DELETE the lock (PEXPIRE 0) with exit 0, without the unlock message;
// `watch --duration-ms -1` would print a Qt warning and run forever.
void TestCli::numericOptionsAreValidated()
{
    seed();
    const QStringList before = m_admin->hgetall("inventory:7");
    for (const QString &ttl : {QStringLiteral("0"), QStringLiteral("-5")}) {
        const ProcessResult r = cli({"set-ttl", "inventory:7", "--ttl-ms", ttl, "--yes"});
        QVERIFY2(r.finished && r.exitCode == 1, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("--ttl-ms must be at least 1"), r.err.constData());
    }
    QVERIFY(m_admin->exists("inventory:7"));
    QCOMPARE(m_admin->hgetall("inventory:7"), before);
    QCOMPARE(m_admin->cmd({"PTTL", "inventory:7"}).toInteger(), qint64(-1));
    for (const QStringList &args :
         {QStringList{"watch", "--duration-ms", "-1"},
          QStringList{"record", "--out", "/tmp/x.jsonl", "--duration-ms", "-3"},
          QStringList{"acquire", "x", "--hold-ms", "-1"}, QStringList{"acquire", "x", "--lease-ms", "-2"},
          QStringList{"acquire", "x", "--wait-ms", "-2"}, QStringList{"doctor", "--observe-ms", "-1"},
          QStringList{"watch", "--duration-ms", "9999999999"}, QStringList{"list", "--poll-budget", "0"}}) {
        const ProcessResult r = cli(args, 10000);
        QVERIFY2(r.finished && r.exitCode == 1, qPrintable(args.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY2(r.err.startsWith("lockscope-cli: --") && r.err.contains("must be"),
                 qPrintable(args.join(' ') + QLatin1Char('\n') + r.describe()));
    }
    QVERIFY(!m_admin->exists("x"));
}

// Command-line conventions that explain a mistake: per-command help, "did you mean", options that do not apply refused,
// messages prefixed with the program name, Usage without the build path.
void TestCli::commandLineConventions()
{
    const ProcessResult help = lockscope::test::runProcess(cliPath(), {"list", "--help"});
    QVERIFY2(help.exitCode == 0, qPrintable(help.describe()));
    QVERIFY2(help.out.startsWith("Usage: lockscope-cli [options] list"), help.out.constData());
    QVERIFY(help.out.contains("--holder") && help.out.contains("--wide") && help.out.contains("--pattern"));
    QVERIFY2(!help.out.contains("--ttl-ms") && !help.out.contains("--lease-ms"), help.out.constData());
    const ProcessResult all = lockscope::test::runProcess(cliPath(), {"--help"});
    QVERIFY2(all.out.startsWith("Usage: lockscope-cli [options]"), all.out.left(200).constData());

    ProcessResult r = cli({"lst"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("lockscope-cli: unknown command 'lst' (did you mean 'list'?)"), r.err.constData());
    r = cli({"list", "--patern", "x"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("lockscope-cli: unknown option '--patern' (did you mean '--pattern'?)"),
             r.err.constData());
    r = cli({"force-unlok", "x"});
    QVERIFY2(r.err.contains("did you mean 'force-unlock'?"), r.err.constData());
    for (const QStringList &args :
         {QStringList{"list", "--ttl-ms", "5"}, QStringList{"show", "x", "--yes"},
          QStringList{"watch", "--lease-ms", "100"}, QStringList{"acquire", "x", "--duration-ms", "5"}}) {
        r = cli(args);
        QVERIFY2(r.exitCode == 1, qPrintable(args.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY2(r.err.startsWith("lockscope-cli: --") && r.err.contains("does not apply to"), r.err.constData());
    }
}

// `watch` on a server that was never reached exits 2 at once, like every other command: a wrong
// address must not be retried forever (nor end with exit 0 under --duration-ms).
void TestCli::watchOnAnUnreachableServerExits2()
{
    const quint16 closed = RedisServerProcess::freePort();
    const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(closed);
    for (const QStringList &cmd : {QStringList{"watch"}, QStringList{"watch", "--json", "--duration-ms", "1000"},
                                   QStringList{"acquire", "x", "--wait-ms", "-1", "--audit-log",
                                               QDir::temp().filePath(QStringLiteral("tst_cli_unreachable.jsonl"))}}) {
        const ProcessResult r = lockscope::test::runProcess(cliPath(), QStringList{"--url", url} + cmd, 15000);
        QVERIFY2(r.finished && r.exitCode == 2, qPrintable(cmd.join(' ') + QLatin1Char('\n') + r.describe()));
        QVERIFY2(r.err.contains("cannot reach Redis"), r.err.constData());
        QVERIFY2(!r.err.contains("reconnecting"), r.err.constData());
    }
}

// `watch --duration-ms` that ends while the server is gone exits 2, not 0.
void TestCli::watchDurationEndingDisconnectedExits2()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    WatchChild child;
    QVERIFY(child.start({"--url", server.url(), "watch", "--duration-ms", "6000"}));
    QProcess &watch = child.process;
    QByteArray &err = child.err;
    QVERIFY2(child.waitUntilWatching(15000), err.constData());
    server.stop();
    QVERIFY(watch.waitForFinished(20000));
    err += watch.readAllStandardError();
    QCOMPARE(watch.exitStatus(), QProcess::NormalExit);
    QVERIFY2(watch.exitCode() == 2, err.constData());
    QVERIFY2(err.contains("--duration-ms ended while not connected"), err.constData());
}

// An operator arrives with a client id (or its first 8 characters, or a thread id)
// and finds what it holds or waits for; "N of M locks match" says the filter is on.
void TestCli::locksAreFoundByHolder()
{
    seed(); // kOther holds inventory:7 (thread 57) and fenced:1, and waits in the queue of fair:1
    bool ok = false;
    ProcessResult r = cli({"list", "--json", "--holder", kOther.left(8)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QStringList names;
    for (const auto &o : jsonLines(r.out, &ok))
        names << o.value(QLatin1String("name")).toString();
    QCOMPARE(names, (QStringList{"fair:1", "fenced:1", "inventory:7"}));
    r = cli({"list", "--holder", kOther + QStringLiteral(":57")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("inventory:7") && !r.out.contains("fenced:1"), r.out.constData());
    QVERIFY2(r.err.contains("1 of 4 locks match --holder"), r.err.constData());
    r = cli({"list", "--holder", "57"}); // a thread id alone
    QVERIFY2(r.err.contains("1 of 4 locks match --holder 57"), r.err.constData());
    r = cli({"list", "--holder", "8743c9c0"});
    QVERIFY2(r.exitCode == 0 && r.err.contains("0 of 4 locks match"), qPrintable(r.describe()));
    r = cli({"show", "orders:42", "--holder", kOther});
    QVERIFY2(r.exitCode == 3, qPrintable(r.describe()));
    r = cli({"show", "fair:1", "--holder", kOther, "--json"}); // a waiter
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    r = cli({"doctor", "--json", "--holder", kClient});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe())); // inventory:7 (no TTL) is kOther's
    QVERIFY2(!r.out.contains("no_ttl"), r.out.constData());
    r = cli({"doctor", "--json", "--holder", kOther.left(8)});
    QVERIFY2(r.exitCode == 4 && r.out.contains("no_ttl"), qPrintable(r.describe()));
}

// `watch --holder` prints the events of that client only, for an operator following one service.
void TestCli::watchFiltersByHolder()
{
    WatchChild child;
    QVERIFY(
        child.start({"--url", m_server.url(), "watch", "--json", "--holder", kOther.left(8), "--duration-ms", "4000"}));
    QProcess &watch = child.process;
    QByteArray &err = child.err;
    QVERIFY2(child.waitUntilWatching(10000), err.constData());
    for (const QString &field : {kOther + QStringLiteral(":7"), kClient + QStringLiteral(":7")}) {
        const QString name = field.startsWith(kOther) ? QStringLiteral("w:theirs") : QStringLiteral("w:mine");
        const auto acquired = lockscope::test::redisCli(
            m_server.port(), {"EVAL", lockscope::test::kRedissonAcquireScript, "1", name, "30000", field});
        QVERIFY2(acquired.exitCode == 0 && acquired.out.trimmed().isEmpty(), qPrintable(acquired.describe()));
    }
    QVERIFY(watch.waitForFinished(15000));
    QCOMPARE(watch.exitCode(), 0);
    const QByteArray out = watch.readAllStandardOutput();
    bool ok = false;
    QStringList locks;
    for (const auto &e : jsonLines(out, &ok))
        locks << e.value(QLatin1String("lock")).toString();
    QVERIFY2(locks.contains(QStringLiteral("w:theirs")), out.constData());
    QVERIFY2(!locks.contains(QStringLiteral("w:mine")), out.constData());
}

// The doctor's "do:" commands carry the connection (pasted, they reach this server), never the
// password; its text names each lock once, not on every line, so it stays readable.
void TestCli::doctorCommandsCarryTheConnection()
{
    seed();
    bool ok = false;
    ProcessResult r = cli({"doctor", "--json"});
    QCOMPARE(r.exitCode, 4);
    QString action;
    for (const auto &o : jsonLines(r.out, &ok))
        if (o.value(QLatin1String("code")).toString() == QLatin1String("no_ttl"))
            action = o.value(QLatin1String("action")).toString();
    const QString url = m_server.endpoint().toString();
    QVERIFY2(action.contains(QStringLiteral("lockscope-cli set-ttl inventory:7 --ttl-ms 30000 --url %1").arg(url)),
             qPrintable(action));
    QVERIFY2(action.contains(QStringLiteral("lockscope-cli wake inventory:7 --url %1").arg(url)), qPrintable(action));

    // A password given in the URL is not repeated: the command asks for it instead.
    m_admin->cmd({"CONFIG", "SET", "requirepass", "s3cret-pw"});
    auto restore = qScopeGuard([&] { m_admin->cmd({"CONFIG", "SET", "requirepass", ""}); }); // still logged in
    const QString withPassword = QStringLiteral("redis://:s3cret-pw@127.0.0.1:%1").arg(m_server.endpoint().port());
    r = lockscope::test::runProcess(cliPath(), {"--url", withPassword, "doctor"});
    QVERIFY2(r.exitCode == 4, qPrintable(r.describe()));
    QVERIFY2(!r.out.contains("s3cret-pw") && !r.err.contains("s3cret-pw"), r.out.constData());
    QVERIFY2(r.out.contains(QStringLiteral("--url %1 --ask-password").arg(url).toUtf8()), r.out.constData());
    // Text: the lock is the heading, the finding under it does not repeat it.
    QVERIFY2(r.out.contains("inventory:7\n  [CRITICAL] has no TTL"), r.out.constData());
    QVERIFY2(!r.out.contains("[CRITICAL] inventory:7"), r.out.constData());
}

// LOCKSCOPE_URL is --url's default for every command; --url still wins.
void TestCli::lockscopeUrlIsHonoured()
{
    seed();
    ProcessResult r = runWithEnv({"list", "--json"}, {{QStringLiteral("LOCKSCOPE_URL"), m_server.url()}});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    bool ok = false;
    QCOMPARE(jsonLines(r.out, &ok).size(), 4);
    r = runWithEnv({"show", "orders:42"}, {{QStringLiteral("LOCKSCOPE_URL"), m_server.url()}});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QString closed = QStringLiteral("redis://127.0.0.1:%1").arg(RedisServerProcess::freePort());
    r = runWithEnv({"--url", m_server.url(), "list", "--json"}, {{QStringLiteral("LOCKSCOPE_URL"), closed}});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    r = runWithEnv({"list"}, {{QStringLiteral("LOCKSCOPE_URL"), closed}});
    QVERIFY2(r.exitCode == 2, qPrintable(r.describe()));
    r = runWithEnv({"list"}, {{QStringLiteral("LOCKSCOPE_URL"), QStringLiteral("127.0.0.1:6379")}});
    QVERIFY2(r.exitCode == 1 && r.err.contains("LOCKSCOPE_URL: "), qPrintable(r.describe()));
}

// Errors that point at the cause, not at the parser.
void TestCli::urlMistakesAreExplained()
{
    const quint16 port = m_server.endpoint().port();
    for (const QString &host : {QStringLiteral("127.0.0.1:%1").arg(port), QStringLiteral("localhost:%1").arg(port)}) {
        const ProcessResult r = lockscope::test::runProcess(cliPath(), {"--url", host, "list"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not a valid Redis URL") &&
                     r.err.contains(QStringLiteral("did you mean redis://%1").arg(host).toUtf8()),
                 r.err.constData());
    }
    // ?db=1 is honoured (it was ignored: db 0 was listed); a /db that disagrees is refused.
    seed();
    m_admin->cmd({"SELECT", "1"});
    m_admin->cmd({"HSET", "db1:lock", (kClient + ":1").toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", "db1:lock", "30000"});
    m_admin->cmd({"SELECT", "0"});
    ProcessResult r = lockscope::test::runProcess(
        cliPath(), {"--url", QStringLiteral("redis://127.0.0.1:%1?db=1").arg(port), "list", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    bool ok = false;
    const QVector<QJsonObject> locks = jsonLines(r.out, &ok);
    QCOMPARE(locks.size(), 1);
    QCOMPARE(locks.first().value(QLatin1String("name")).toString(), QStringLiteral("db1:lock"));
    r = lockscope::test::runProcess(cliPath(),
                                    {"--url", QStringLiteral("redis://127.0.0.1:%1/2?db=1").arg(port), "list"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("two databases"), qPrintable(r.describe()));
    r = lockscope::test::runProcess(cliPath(),
                                    {"--url", QStringLiteral("redis://127.0.0.1:%1?timeout=5").arg(port), "list"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("unknown parameter 'timeout'"), qPrintable(r.describe()));
    m_admin->cmd({"SELECT", "1"});
    m_admin->cmd({"FLUSHDB"});
    m_admin->cmd({"SELECT", "0"});
    // rediss:// against a plain port: the TLS handshake, not "timed out".
    r = lockscope::test::runProcess(cliPath(), {"--url", QStringLiteral("rediss://127.0.0.1:%1").arg(port), "list"});
    QVERIFY2(r.exitCode == 2, qPrintable(r.describe()));
    // (A plain Redis usually waits for the rest of the "command line" the ClientHello starts; if
    // it answers or closes instead, the TLS error says the same.)
    QVERIFY2((r.err.contains("not speaking TLS") || r.err.contains("does not speak TLS")) &&
                 !r.err.contains("timed out"),
             r.err.constData());
}

// The table fits a 120-column terminal, one line per lock; --wide shows everything.
void TestCli::tableFitsTheTerminal()
{
    seed();
    // A read-write lock with four readers: the holder column was 95+ characters.
    m_admin->cmd({"HSET", "rw:1", "mode", "read", (kClient + ":10").toUtf8(), "1", (kOther + ":11").toUtf8(), "1",
                  (kClient + ":12").toUtf8(), "1", (kOther + ":13").toUtf8(), "2"});
    m_admin->cmd({"PEXPIRE", "rw:1", "30000"});
    ProcessResult r =
        runWithEnv({"--url", m_server.url(), "list"}, {{QStringLiteral("COLUMNS"), QStringLiteral("120")}});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5 + 1); // header, one per lock, footer
    for (const QString &line : lines)
        QVERIFY2(line.size() <= 120, qPrintable(QStringLiteral("%1 columns: %2").arg(line.size()).arg(line)));
    QVERIFY2(r.out.contains(QStringLiteral("%1…%2:1").arg(kClient.left(8), kClient.right(4)).toUtf8()),
             r.out.constData());
    QVERIFY2(r.out.contains("+3 more"), r.out.constData());
    r = runWithEnv({"--url", m_server.url(), "list", "--wide"}, {{QStringLiteral("COLUMNS"), QStringLiteral("120")}});
    QVERIFY2(r.out.contains((kOther + QStringLiteral(":13")).toUtf8()), r.out.constData());
}

// Decoded as text, a lock whose name is not valid UTF-8 would be silently absent, and one whose
// holder field is not valid UTF-8 could never be force-unlocked ("changed since you confirmed
// it"). Names and fields are bytes end to end (RedisBytes), shown as \xNN and accepted back in that form.
void TestCli::namesAndFieldsThatAreNotUtf8()
{
    const QByteArray name("bytes:\xff\xfe");
    m_admin->cmd({"HSET", name, (kClient + ":1").toUtf8(), "1"});
    m_admin->cmd({"PEXPIRE", name, "60000"});
    const QByteArray oddField = (kOther + ":").toUtf8() + "\xff\x80";
    m_admin->cmd({"HSET", "bytes:field", oddField, "2"});
    m_admin->cmd({"PEXPIRE", "bytes:field", "60000"});

    const ProcessResult list = cli({"list"});
    QVERIFY2(list.finished && list.exitCode == 0, qPrintable(list.describe()));
    QVERIFY2(list.out.contains("bytes:\\xff\\xfe"), list.out.constData());
    QVERIFY2(list.out.contains(":\\xff\\x80"), list.out.constData());
    QVERIFY2(list.out.contains("2 lock(s)"), list.out.constData());

    const ProcessResult json = cli({"list", "--json"});
    bool ok = false;
    const QVector<QJsonObject> locks = jsonLines(json.out, &ok);
    QVERIFY2(ok && locks.size() == 2, json.out.constData());
    bool sawName = false, sawField = false;
    for (const QJsonObject &l : locks) {
        if (l.value(QLatin1String("name_hex")).toString() == QLatin1String(name.toHex())) {
            sawName = true;
            QCOMPARE(l.value(QLatin1String("name")).toString(), QStringLiteral("bytes:\\xff\\xfe"));
        }
        const QJsonObject holder = l.value(QLatin1String("holders")).toArray().first().toObject();
        if (holder.value(QLatin1String("field_hex")).toString() == QLatin1String(oddField.toHex()))
            sawField = true;
    }
    QVERIFY2(sawName && sawField, json.out.constData());

    // Shown and force-unlocked by the displayed name; the exact key goes.
    const ProcessResult show = cli({"show", "bytes:\\xff\\xfe"});
    QVERIFY2(show.finished && show.exitCode == 0, qPrintable(show.describe()));
    const ProcessResult unlock = cli({"force-unlock", "bytes:\\xff\\xfe", "--yes"});
    QVERIFY2(unlock.finished && unlock.exitCode == 0, qPrintable(unlock.describe()));
    QVERIFY(!m_admin->exists(name));
    QVERIFY2(!unlock.out.contains("\xef\xbf\xbd"), unlock.out.constData()); // no U+FFFD: \xNN

    // The holder field that is not UTF-8: the confirmed state matches, the lock goes.
    const ProcessResult unlockField = cli({"force-unlock", "bytes:field", "--yes"});
    QVERIFY2(unlockField.finished && unlockField.exitCode == 0, qPrintable(unlockField.describe()));
    QVERIFY(!m_admin->exists("bytes:field"));

    // A literal backslash name is still reachable as typed.
    m_admin->cmd({"HSET", "lit:\\xff", (kClient + ":1").toUtf8(), "1"});
    const ProcessResult literal = cli({"show", "lit:\\xff"});
    QVERIFY2(literal.finished && literal.exitCode == 0, qPrintable(literal.describe()));

    // Issue 37: a name with a newline is shown `nl\nX` and found by that text pasted back; a name
    // with a backslash is shown doubled (`bs\\nX`), so the two never look alike, and both forms
    // of it are found.
    m_admin->cmd({"HSET", "nl\nX", (kClient + ":1").toUtf8(), "1"});
    m_admin->cmd({"HSET", "bs\\nX", (kClient + ":1").toUtf8(), "1"});
    const ProcessResult listed = cli({"list", "--pattern", "*X"});
    QVERIFY2(listed.out.contains("nl\\nX") && listed.out.contains("bs\\\\nX"), qPrintable(listed.describe()));
    for (const char *typed : {"nl\\nX", "bs\\\\nX"}) {
        const ProcessResult shown = cli({"show", typed, "--json"});
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.describe()));
        const QByteArray expected = QByteArray(typed) == "nl\\nX" ? QByteArray("nl\nX") : QByteArray("bs\\nX");
        QCOMPARE(QJsonDocument::fromJson(shown.out.trimmed()).object().value(QLatin1String("name")).toString(),
                 QString::fromUtf8(expected));
    }
    // Typed as it is stored (a single backslash): not the escape of a lock, so the text as typed.
    m_admin->cmd({"HSET", "C:\\temp", (kClient + ":1").toUtf8(), "1"});
    const ProcessResult typedAsStored = cli({"show", "C:\\temp"});
    QVERIFY2(typedAsStored.exitCode == 0, qPrintable(typedAsStored.describe()));
}

// `watch` ends with a line that says how many releases were too short to see, rather than
// lose them silently.
void TestCli::watchSaysWhatWasTooShortToSee()
{
    WatchChild child;
    QVERIFY(child.start({"--url", m_server.url(), "watch", "--poll", "--duration-ms", "4000"}));
    QProcess &watch = child.process;
    QByteArray &err = child.err;
    QVERIFY2(child.waitUntilWatching(10000), err.constData());
    // Three holds of a few ms, between two polls (one a second).
    const QString field = kOther + QStringLiteral(":9");
    for (int i = 0; i < 3; ++i) {
        const auto acquired = lockscope::test::redisCli(
            m_server.port(), {"EVAL", lockscope::test::kRedissonAcquireScript, "1", "blink:1", "30000", field});
        QVERIFY2(acquired.exitCode == 0, qPrintable(acquired.describe()));
        const auto released = lockscope::test::redisCli(
            m_server.port(), {"EVAL", kUnlock, "3", "blink:1", "redisson_lock__channel:{blink:1}",
                              "redisson_unlock_latch:{blink:1}:77777777777777777777777777777777", "0", "30000", field,
                              "publish", "18000"});
        QCOMPARE(released.out.trimmed(), QByteArray("1"));
    }
    QVERIFY(watch.waitForFinished(15000));
    err += watch.readAllStandardError();
    const QByteArray out = watch.readAllStandardOutput();
    QVERIFY2(err.contains("watch ended:"), err.constData());
    // Each release is either printed or counted as too short to see (a poll may catch one).
    int printed = 0;
    for (const QByteArray &line : out.split('\n'))
        if (line.contains(" released ") && line.contains("blink:1"))
            ++printed;
    if (printed < 3) {
        QVERIFY2(out.contains("coalesced") && out.contains("blink:1"), out.constData());
        QVERIFY2(err.contains("too short to see"), err.constData());
    }
}

// Comparing the confirmed state by HGETALL inside the script would block Redis for seconds on a
// 1M-field hash, and a sampled snapshot's state would never match, so such a lock could not be
// force-unlocked at all: its state is its field count, and it is UNLINKed.
void TestCli::bigLockIsForceUnlockedWithoutReadingItWhole()
{
    for (const QByteArray &key : {QByteArray("huge:a"), QByteArray("huge:b")}) {
        for (int chunk = 0; chunk < 5; ++chunk) {
            QList<QByteArray> args{"HSET", key};
            for (int i = 0; i < 1000; ++i)
                args << (kClient + QStringLiteral(":%1").arg(chunk * 1000 + i)).toUtf8() << "1";
            m_admin->cmd(args);
        }
    }
    m_admin->cmd({"PEXPIRE", "huge:a", "60000"});
    m_admin->cmd({"CONFIG", "RESETSTAT"});
    const ProcessResult setTtl = cli({"set-ttl", "huge:b", "--ttl-ms", "60000", "--yes"});
    QVERIFY2(setTtl.finished && setTtl.exitCode == 0, qPrintable(setTtl.describe()));
    QVERIFY(m_admin->cmd({"PTTL", "huge:b"}).toInteger() > 0);
    const ProcessResult unlock = cli({"force-unlock", "huge:a", "--yes"});
    QVERIFY2(unlock.finished && unlock.exitCode == 0, qPrintable(unlock.describe()));
    QVERIFY(!m_admin->exists("huge:a"));
    const QByteArray stats = m_admin->cmd({"INFO", "commandstats"}).toByteArray();
    for (const char *whole : {"cmdstat_hgetall", "cmdstat_hkeys", "cmdstat_hvals"})
        QVERIFY2(!stats.contains(whole), stats.constData());
    QVERIFY2(stats.contains("cmdstat_unlink"), stats.constData());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
