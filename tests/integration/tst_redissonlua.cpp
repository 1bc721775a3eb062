// Interop with Redisson's own lock scripts: node-redisson/redisson-driver.js is a "Java client" that
// runs Redisson 4.7.0's Lua texts (read from the Redisson source, see redisson-lua.js) with the
// KEYS/ARGV, watchdog and waiting loop Redisson uses (protocol doc §1.5, §2-§5, §14). For every kind
// (reentrant with watchdog, fair with queued lock() waiters, read-write with two readers and a
// queued writer, fenced, a `{x}` name) lockscope-cli must show what is there and act on it as
// Redisson would; then the cross-products of those kinds with LockScope's own actions: acquire by
// kind on a read-write lock, wake per kind, and forced deletes that are not releases.
#include "demo/redisserverprocess.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace lockscope;

namespace
{

/** One redisson-driver.js process: a set of Redisson client objects in one "JVM". */
class JavaClients
{
public:
    bool start(const QString &node, const QString &dir, const QString &redissonSrc, quint16 port,
               const QStringList &extra, QString *error)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LOCKSCOPE_REDISSON_SRC"), redissonSrc);
        m_proc.setProcessEnvironment(env);
        m_proc.setWorkingDirectory(dir);
        m_proc.setProcessChannelMode(QProcess::SeparateChannels);
        m_proc.start(node, QStringList{QStringLiteral("redisson-driver.js"), QString::number(port)} + extra);
        const QString ready = waitForLine(QStringLiteral("READY"), 15000);
        if (!ready.isEmpty()) {
            qInfo("redisson-driver.js: %s", qPrintable(ready)); // says which script texts run
            return true;
        }
        *error = QStringLiteral("redisson-driver.js did not start: %1 %2")
                     .arg(QString::fromUtf8(m_proc.readAllStandardError()), m_lines.join(QLatin1Char('|')));
        return false;
    }
    void stop()
    {
        if (m_proc.state() != QProcess::Running)
            return;
        send("quit");
        if (!m_proc.waitForFinished(3000))
            m_proc.kill();
    }
    void send(const QString &line) { m_proc.write(line.toUtf8() + '\n'); }
    /** Waits for (and consumes) the first line starting with `prefix`; empty after the timeout. */
    QString waitForLine(const QString &prefix, int timeoutMs)
    {
        QString found;
        (void)QTest::qWaitFor([&] { return take(prefix, &found); }, timeoutMs);
        return found;
    }
    /** True when a line starting with `prefix` has arrived by now (not consumed). */
    bool hasLine(const QString &prefix)
    {
        drain();
        for (const auto &l : std::as_const(m_lines))
            if (l.startsWith(prefix))
                return true;
        return false;
    }
    QString clientId(const QString &client)
    {
        send(QStringLiteral("id ") + client);
        return waitForLine(QStringLiteral("ID ") + client + QLatin1Char(' '), 5000).section(QLatin1Char(' '), 2);
    }
    /** Sends `cmd` and waits for its answer line starting with `answer`. */
    QString ask(const QString &cmd, const QString &answer, int timeoutMs = 10000)
    {
        send(cmd);
        return waitForLine(answer, timeoutMs);
    }
    QStringList errors()
    {
        drain();
        QStringList e;
        for (const auto &l : std::as_const(m_lines))
            if (l.startsWith(QLatin1String("ERR")))
                e << l;
        return e;
    }

private:
    void drain()
    {
        while (m_proc.canReadLine())
            m_lines << QString::fromUtf8(m_proc.readLine()).trimmed();
    }
    bool take(const QString &prefix, QString *found)
    {
        drain();
        for (int i = 0; i < m_lines.size(); ++i) {
            if (m_lines[i].startsWith(prefix)) {
                *found = m_lines.takeAt(i);
                return true;
            }
        }
        return false;
    }
    QProcess m_proc;
    QStringList m_lines;
};

QList<QJsonObject> jsonLines(const QByteArray &out)
{
    QList<QJsonObject> objects;
    for (const auto &line : out.split('\n')) {
        const QJsonDocument d = QJsonDocument::fromJson(line);
        if (d.isObject())
            objects << d.object();
    }
    return objects;
}

QStringList fieldsOf(const QJsonArray &a)
{
    QStringList f;
    for (const auto &v : a)
        f << v.toObject().value(QStringLiteral("field")).toString();
    return f;
}

} // namespace

class TestRedissonLua : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();

    // What LockScope sees of each kind, driven by Redisson's own scripts
    void reentrantWatchdogLockShowsHoldCountAndRenewedTtl();
    void watchReportsRedissonAcquireAndRelease();
    void fairLockShowsQueueOrderAndDeadlines();
    void forceUnlockOfFairLockWakesExactlyTheHeadWaiter();
    void readWriteLockShowsTwoReadersAndQueuedWriter();
    void forceUnlockOfReadLockWakesTheQueuedWriter();
    void fencedLockShowsIncrementingToken();
    void braceNameIsListedShownWatchedAndDiagnosedOnlyAsItself();

    // Cross-products with LockScope's actions (acquire by kind, wake per kind, forced deletes that
    // are not releases)
    void acquireOnJavaReadLockWithoutKindIsRefused();
    void acquireKindReadJoinsJavaReaderAndLeavesItHolding();
    void acquireKindWriteIsRefusedWhileJavaReaderReads();
    void javaWriterNeverOverlapsLockScopeReadHold();
    void wakeWakesReadWriteWaiterBlockedOnNoTtl();
    void redissonForceUnlockIsForceUnlockedAndUnlockIsReleased();

private:
    struct Cli {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    QProcess *startCli(const QStringList &args);
    Cli runCli(const QStringList &args, int timeoutMs = 20000);
    QJsonObject lockJson(const QString &name);
    QStringList listedNames();
    QString javaField(const QString &client, const QString &thread)
    {
        return m_java.clientId(client) + QLatin1Char(':') + thread;
    }

    RedisServerProcess m_server;
    JavaClients m_java;   // watchdog 30 s (Redisson's default)
    JavaClients m_java3s; // watchdog 3 s: renewals every 1 s
    QString m_node;
    QString m_dir;
    QString m_redissonSrc;
    QTemporaryDir m_tmp;
};

QProcess *TestRedissonLua::startCli(const QStringList &args)
{
    auto *p = new QProcess(this);
    p->start(QStringLiteral(LOCKSCOPE_CLI_PATH), QStringList{QStringLiteral("--url"), m_server.url()} + args);
    p->waitForStarted(5000); // else state() is still Starting, which callers would read as "ended"
    return p;
}

TestRedissonLua::Cli TestRedissonLua::runCli(const QStringList &args, int timeoutMs)
{
    QProcess *p = startCli(args);
    Cli r;
    if (!p->waitForFinished(timeoutMs)) {
        p->kill();
        p->waitForFinished(1000);
    }
    r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1;
    r.out = p->readAllStandardOutput();
    r.err = p->readAllStandardError();
    p->deleteLater();
    return r;
}

QJsonObject TestRedissonLua::lockJson(const QString &name)
{
    for (const auto &o : jsonLines(runCli({QStringLiteral("list"), QStringLiteral("--json")}).out))
        if (o.value(QStringLiteral("name")).toString() == name)
            return o;
    return {};
}

QStringList TestRedissonLua::listedNames()
{
    QStringList names;
    for (const auto &o : jsonLines(runCli({QStringLiteral("list"), QStringLiteral("--json")}).out))
        names << o.value(QStringLiteral("name")).toString();
    return names;
}

void TestRedissonLua::initTestCase()
{
    m_dir = QStringLiteral(LOCKSCOPE_NODE_DRIVER_DIR);
    m_node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (m_node.isEmpty())
        QSKIP("node is not installed: the Redisson-script interop test needs Node.js >= 16");
    if (!QFileInfo::exists(m_dir + QStringLiteral("/node_modules/ioredis/package.json")))
        QSKIP("ioredis is not installed: run 'npm ci' in tests/integration/node-redisson (run.sh test does)");
    m_redissonSrc = qEnvironmentVariable("LOCKSCOPE_REDISSON_SRC", QStringLiteral(LOCKSCOPE_REDISSON_SRC));
    if (m_redissonSrc.isEmpty() || !QFileInfo::exists(m_redissonSrc))
        qInfo("No Redisson source (LOCKSCOPE_REDISSON_SRC): the driver runs LockScope's transcriptions of "
              "Redisson's scripts (resources/scripts, same KEYS/ARGV) instead of Redisson 4.7.0's own texts");
    QVERIFY(m_tmp.isValid());
    m_server.setNotifyKeyspaceEvents(QString()); // off: watch polls, or --enable-notifications turns them on
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    QVERIFY2(m_java.start(m_node, m_dir, m_redissonSrc, m_server.port(), {}, &error), qPrintable(error));
    QVERIFY2(m_java3s.start(m_node, m_dir, m_redissonSrc, m_server.port(),
                            {QStringLiteral("--watchdog-ms"), QStringLiteral("3000")}, &error),
             qPrintable(error));
}

void TestRedissonLua::cleanupTestCase()
{
    m_java.stop();
    m_java3s.stop();
    m_server.stop();
}

// --- each kind -----------------------------------------------------------------------------------

void TestRedissonLua::reentrantWatchdogLockShowsHoldCountAndRenewedTtl()
{
    // lock() twice on one thread: hold count 2, watchdog lease 3000 ms renewed every 1000 ms.
    QVERIFY(!m_java3s.ask(QStringLiteral("lock a orders:1 1"), QStringLiteral("ACQUIRED lock orders:1 a 1")).isEmpty());
    QVERIFY(!m_java3s.ask(QStringLiteral("lock a orders:1 1"), QStringLiteral("ACQUIRED lock orders:1 a 1")).isEmpty());
    const QString field = m_java3s.clientId(QStringLiteral("a")) + QStringLiteral(":1");

    QJsonObject o = lockJson(QStringLiteral("orders:1"));
    QCOMPARE(o.value(QStringLiteral("kind")).toString(), QStringLiteral("lock"));
    const QJsonArray holders = o.value(QStringLiteral("holders")).toArray();
    QCOMPARE(holders.size(), 1);
    QCOMPARE(holders.first().toObject().value(QStringLiteral("field")).toString(), field);
    QCOMPARE(holders.first().toObject().value(QStringLiteral("thread_id")).toString(), QStringLiteral("1"));
    QCOMPARE(holders.first().toObject().value(QStringLiteral("hold_count")).toInt(), 2);

    // Renewal: over 4 watchdog periods the PTTL LockScope reads goes up again at least once and
    // the lock never lapses (a lease of 3000 ms without renewal would be gone by then).
    qint64 previous = o.value(QStringLiteral("pttl_ms")).toInteger();
    QVERIFY2(previous > 0 && previous <= 3000, qPrintable(QString::number(previous)));
    bool rose = false;
    for (int i = 0; i < 16; ++i) {
        QTest::qWait(250);
        o = lockJson(QStringLiteral("orders:1"));
        QVERIFY2(!o.isEmpty(), "the watchdog-held lock lapsed");
        const qint64 ttl = o.value(QStringLiteral("pttl_ms")).toInteger();
        rose = rose || ttl > previous;
        previous = ttl;
    }
    QVERIFY2(rose, "the PTTL never went back up: no watchdog renewal seen");
    const QString renewals = m_java3s.ask(QStringLiteral("renewals a"), QStringLiteral("RENEWALS a"));
    QVERIFY2(renewals.section(QLatin1Char(' '), 2, 2).toInt() >= 2, qPrintable(renewals));

    QVERIFY(!m_java3s.ask(QStringLiteral("unlock a orders:1 1"), QStringLiteral("UNLOCKED lock orders:1 a 1 result=0"))
                 .isEmpty());
    QCOMPARE(lockJson(QStringLiteral("orders:1"))
                 .value(QStringLiteral("holders"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("hold_count"))
                 .toInt(),
             1);
    QVERIFY(!m_java3s.ask(QStringLiteral("unlock a orders:1 1"), QStringLiteral("UNLOCKED lock orders:1 a 1 result=1"))
                 .isEmpty());
    QVERIFY(lockJson(QStringLiteral("orders:1")).isEmpty());
}

void TestRedissonLua::watchReportsRedissonAcquireAndRelease()
{
    // Keyspace notifications on (the server starts with them off): acquire/release live, not by polling.
    QProcess *watch =
        startCli({QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--enable-notifications"),
                  QStringLiteral("--duration-ms"), QStringLiteral("7000")});
    QVERIFY(watch->waitForStarted(5000));
    QTest::qWait(1500); // the first scan: what exists then is not an event
    QVERIFY(
        !m_java.ask(QStringLiteral("lock w payments:9 9"), QStringLiteral("ACQUIRED lock payments:9 w 9")).isEmpty());
    QVERIFY(
        !m_java.ask(QStringLiteral("lock w payments:9 9"), QStringLiteral("ACQUIRED lock payments:9 w 9")).isEmpty());
    QTest::qWait(1200);
    QVERIFY(
        !m_java.ask(QStringLiteral("unlock w payments:9 9"), QStringLiteral("UNLOCKED lock payments:9 w 9 result=0"))
             .isEmpty());
    QVERIFY(
        !m_java.ask(QStringLiteral("unlock w payments:9 9"), QStringLiteral("UNLOCKED lock payments:9 w 9 result=1"))
             .isEmpty());
    QVERIFY(watch->waitForFinished(20000));
    const QString field = javaField(QStringLiteral("w"), QStringLiteral("9"));
    QStringList types;
    for (const auto &e : jsonLines(watch->readAllStandardOutput())) {
        if (e.value(QStringLiteral("lock")).toString() != QLatin1String("payments:9"))
            continue;
        const QString type = e.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("acquired") || type == QLatin1String("released"))
            QCOMPARE(e.value(QStringLiteral("holder")).toString(), field);
        types << type;
    }
    QVERIFY2(types.contains(QStringLiteral("acquired")), qPrintable(types.join(QLatin1Char(','))));
    QVERIFY2(types.contains(QStringLiteral("released")), qPrintable(types.join(QLatin1Char(','))));
}

void TestRedissonLua::fairLockShowsQueueOrderAndDeadlines()
{
    QVERIFY(!m_java.ask(QStringLiteral("fairlock a fair:1 1"), QStringLiteral("ACQUIRED fair fair:1 a 1")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairlock b fair:1 2"), QStringLiteral("WAITING fair fair:1 b 2")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairlock c fair:1 3"), QStringLiteral("WAITING fair fair:1 c 3")).isEmpty());
    const QString holder = javaField(QStringLiteral("a"), QStringLiteral("1"));
    const QString first = javaField(QStringLiteral("b"), QStringLiteral("2"));
    const QString second = javaField(QStringLiteral("c"), QStringLiteral("3"));

    const QJsonObject o = lockJson(QStringLiteral("fair:1"));
    QCOMPARE(o.value(QStringLiteral("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("holders")).toArray()), QStringList{holder});
    const QJsonArray waiters = o.value(QStringLiteral("waiters")).toArray();
    QCOMPARE(fieldsOf(waiters), (QStringList{first, second}));
    QCOMPARE(o.value(QStringLiteral("queue_length")).toInt(), 2);
    // Deadlines: the first waiter's is lock TTL + fairLockWaitTimeout (300000 ms) away, the second
    // one 300000 ms after the first (RedissonFairLock EVAL_LONG enqueue branch).
    const qint64 d1 = waiters.at(0).toObject().value(QStringLiteral("deadline_epoch_ms")).toInteger();
    const qint64 d2 = waiters.at(1).toObject().value(QStringLiteral("deadline_epoch_ms")).toInteger();
    const qint64 in1 = waiters.at(0).toObject().value(QStringLiteral("deadline_in_ms")).toInteger();
    QVERIFY2(in1 > 300000 && in1 <= 330000, qPrintable(QString::number(in1)));
    QCOMPARE(d2 - d1, qint64(300000));
    // Each release wakes the next waiter in queue order.
    QVERIFY(!m_java.ask(QStringLiteral("fairunlock a fair:1 1"), QStringLiteral("UNLOCKED fair fair:1 a 1 result=1"))
                 .isEmpty());
    QVERIFY(!m_java.waitForLine(QStringLiteral("ACQUIRED fair fair:1 b 2"), 10000).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairunlock b fair:1 2"), QStringLiteral("UNLOCKED fair fair:1 b 2 result=1"))
                 .isEmpty());
    QVERIFY(!m_java.waitForLine(QStringLiteral("ACQUIRED fair fair:1 c 3"), 10000).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairunlock c fair:1 3"), QStringLiteral("UNLOCKED fair fair:1 c 3 result=1"))
                 .isEmpty());
}

void TestRedissonLua::forceUnlockOfFairLockWakesExactlyTheHeadWaiter()
{
    QVERIFY(!m_java.ask(QStringLiteral("fairlock a fair:2 1"), QStringLiteral("ACQUIRED fair fair:2 a 1")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairlock b fair:2 2"), QStringLiteral("WAITING fair fair:2 b 2")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairlock c fair:2 3"), QStringLiteral("WAITING fair fair:2 c 3")).isEmpty());
    const QString first = javaField(QStringLiteral("b"), QStringLiteral("2"));
    const QString second = javaField(QStringLiteral("c"), QStringLiteral("3"));
    const Cli force = runCli({QStringLiteral("force-unlock"), QStringLiteral("fair:2"), QStringLiteral("--yes")});
    QVERIFY2(force.exitCode == 0, force.err.constData());
    // Without the message on b's own channel b would sleep its TTL (~30 s); allow 10 s.
    QVERIFY2(!m_java.waitForLine(QStringLiteral("ACQUIRED fair fair:2 b 2"), 10000).isEmpty(),
             "the head waiter was not woken by LockScope's force unlock");
    const QJsonObject o = lockJson(QStringLiteral("fair:2"));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("holders")).toArray()), QStringList{first});
    QCOMPARE(fieldsOf(o.value(QStringLiteral("waiters")).toArray()), QStringList{second});
    QVERIFY(!m_java.hasLine(QStringLiteral("ACQUIRED fair fair:2 c 3")));
    // Clean up: b releases, which wakes c (Redisson's unlock publishes to c's channel).
    QVERIFY(!m_java.ask(QStringLiteral("fairunlock b fair:2 2"), QStringLiteral("UNLOCKED fair fair:2 b 2 result=1"))
                 .isEmpty());
    QVERIFY(!m_java.waitForLine(QStringLiteral("ACQUIRED fair fair:2 c 3"), 10000).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairunlock c fair:2 3"), QStringLiteral("UNLOCKED fair fair:2 c 3 result=1"))
                 .isEmpty());
}

void TestRedissonLua::readWriteLockShowsTwoReadersAndQueuedWriter()
{
    QVERIFY(!m_java.ask(QStringLiteral("readlock a rw:1 1"), QStringLiteral("ACQUIRED read rw:1 a 1")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("readlock b rw:1 2"), QStringLiteral("ACQUIRED read rw:1 b 2")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("writelock c rw:1 3"), QStringLiteral("WAITING write rw:1 c 3")).isEmpty());
    const QJsonObject o = lockJson(QStringLiteral("rw:1"));
    QCOMPARE(o.value(QStringLiteral("kind")).toString(), QStringLiteral("read_write_lock"));
    QCOMPARE(o.value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
    const QJsonArray holders = o.value(QStringLiteral("holders")).toArray();
    QStringList fields = fieldsOf(holders);
    fields.sort();
    QStringList expected{javaField(QStringLiteral("a"), QStringLiteral("1")),
                         javaField(QStringLiteral("b"), QStringLiteral("2"))};
    expected.sort();
    QCOMPARE(fields, expected);
    for (const auto &h : holders) {
        QCOMPARE(h.toObject().value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
        const QJsonArray ttls = h.toObject().value(QStringLiteral("hold_ttls_ms")).toArray();
        QCOMPARE(ttls.size(), 1);
        QVERIFY2(ttls.first().toInteger() > 0 && ttls.first().toInteger() <= 30000,
                 qPrintable(QString::number(ttls.first().toInteger())));
    }
    // The writer waits on redisson_rwlock:{rw:1}: one Redisson client subscribed.
    QCOMPARE(o.value(QStringLiteral("subscribers")).toInt(), 1);
    // The last reader's unlock publishes "0" on the rwlock channel: the writer acquires.
    QVERIFY(!m_java.ask(QStringLiteral("readunlock a rw:1 1"), QStringLiteral("UNLOCKED read rw:1 a 1 result=0"))
                 .isEmpty());
    QVERIFY(!m_java.hasLine(QStringLiteral("ACQUIRED write rw:1 c 3")));
    QVERIFY(!m_java.ask(QStringLiteral("readunlock b rw:1 2"), QStringLiteral("UNLOCKED read rw:1 b 2 result=1"))
                 .isEmpty());
    QVERIFY(!m_java.waitForLine(QStringLiteral("ACQUIRED write rw:1 c 3"), 10000).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("writeunlock c rw:1 3"), QStringLiteral("UNLOCKED write rw:1 c 3 result=1"))
                 .isEmpty());
}

void TestRedissonLua::forceUnlockOfReadLockWakesTheQueuedWriter()
{
    QVERIFY(!m_java.ask(QStringLiteral("readlock a rw:2 1"), QStringLiteral("ACQUIRED read rw:2 a 1")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("readlock b rw:2 2"), QStringLiteral("ACQUIRED read rw:2 b 2")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("writelock c rw:2 3"), QStringLiteral("WAITING write rw:2 c 3")).isEmpty());
    const Cli force = runCli({QStringLiteral("force-unlock"), QStringLiteral("rw:2"), QStringLiteral("--yes")});
    QVERIFY2(force.exitCode == 0, force.err.constData());
    QVERIFY2(!m_java.waitForLine(QStringLiteral("ACQUIRED write rw:2 c 3"), 10000).isEmpty(),
             "the queued writer was not woken by LockScope's force unlock");
    const QJsonObject o = lockJson(QStringLiteral("rw:2"));
    QCOMPARE(o.value(QStringLiteral("mode")).toString(), QStringLiteral("write"));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("holders")).toArray()),
             QStringList{javaField(QStringLiteral("c"), QStringLiteral("3")) + QStringLiteral(":write")});
    QVERIFY(!m_java.ask(QStringLiteral("writeunlock c rw:2 3"), QStringLiteral("UNLOCKED write rw:2 c 3 result=1"))
                 .isEmpty());
}

void TestRedissonLua::fencedLockShowsIncrementingToken()
{
    const QString first =
        m_java.ask(QStringLiteral("fencedlock a fenced:1 1"), QStringLiteral("ACQUIRED fenced fenced:1 a 1"));
    QCOMPARE(first.section(QLatin1Char(' '), 5), QStringLiteral("token=1"));
    QJsonObject o = lockJson(QStringLiteral("fenced:1"));
    QCOMPARE(o.value(QStringLiteral("kind")).toString(), QStringLiteral("fenced_lock"));
    QCOMPARE(o.value(QStringLiteral("token")).toInteger(), qint64(1));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("holders")).toArray()),
             QStringList{javaField(QStringLiteral("a"), QStringLiteral("1"))});
    QVERIFY(
        !m_java
             .ask(QStringLiteral("fencedunlock a fenced:1 1"), QStringLiteral("UNLOCKED fenced fenced:1 a 1 result=1"))
             .isEmpty());
    const QString second =
        m_java.ask(QStringLiteral("fencedlock b fenced:1 5"), QStringLiteral("ACQUIRED fenced fenced:1 b 5"));
    QCOMPARE(second.section(QLatin1Char(' '), 5), QStringLiteral("token=2"));
    o = lockJson(QStringLiteral("fenced:1"));
    QCOMPARE(o.value(QStringLiteral("token")).toInteger(), qint64(2));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("holders")).toArray()),
             QStringList{javaField(QStringLiteral("b"), QStringLiteral("5"))});
    QVERIFY(
        !m_java
             .ask(QStringLiteral("fencedunlock b fenced:1 5"), QStringLiteral("UNLOCKED fenced fenced:1 b 5 result=1"))
             .isEmpty());
}

void TestRedissonLua::braceNameIsListedShownWatchedAndDiagnosedOnlyAsItself()
{
    // A fair lock named exactly {x}: its queue redisson_lock_queue:{x} and its channels are the
    // same strings a lock named x would have (protocol doc §14.4). Nothing named x exists.
    QProcess *watch =
        startCli({QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--enable-notifications"),
                  QStringLiteral("--duration-ms"), QStringLiteral("7000")});
    QVERIFY(watch->waitForStarted(5000));
    QTest::qWait(1500);
    QVERIFY(!m_java.ask(QStringLiteral("fairlock a {x} 1"), QStringLiteral("ACQUIRED fair {x} a 1")).isEmpty());
    QVERIFY(!m_java.ask(QStringLiteral("fairlock b {x} 2"), QStringLiteral("WAITING fair {x} b 2")).isEmpty());

    const QStringList names = listedNames();
    QVERIFY2(names.contains(QStringLiteral("{x}")), qPrintable(names.join(QLatin1Char(','))));
    QVERIFY2(!names.contains(QStringLiteral("x")), qPrintable(names.join(QLatin1Char(','))));
    const QJsonObject o = lockJson(QStringLiteral("{x}"));
    QCOMPARE(o.value(QStringLiteral("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("waiters")).toArray()),
             QStringList{javaField(QStringLiteral("b"), QStringLiteral("2"))});

    const Cli show = runCli({QStringLiteral("show"), QStringLiteral("{x}"), QStringLiteral("--json")});
    QCOMPARE(show.exitCode, 0);
    const QList<QJsonObject> shown = jsonLines(show.out);
    QVERIFY(!shown.isEmpty());
    QCOMPARE(shown.first().value(QStringLiteral("name")).toString(), QStringLiteral("{x}"));

    const Cli doctor = runCli({QStringLiteral("doctor"), QStringLiteral("--json")});
    for (const auto &f : jsonLines(doctor.out)) {
        QVERIFY2(f.value(QStringLiteral("lock")).toString() != QLatin1String("x"),
                 QJsonDocument(f).toJson().constData());
        QVERIFY2(!f.value(QStringLiteral("locks")).toArray().contains(QJsonValue(QStringLiteral("x"))),
                 QJsonDocument(f).toJson().constData());
    }

    // The release publishes on {x}'s waiter channel; b acquires; watch files it all under {x}.
    QVERIFY(
        !m_java.ask(QStringLiteral("fairunlock a {x} 1"), QStringLiteral("UNLOCKED fair {x} a 1 result=1")).isEmpty());
    QVERIFY(!m_java.waitForLine(QStringLiteral("ACQUIRED fair {x} b 2"), 10000).isEmpty());
    QTest::qWait(500);
    QVERIFY(
        !m_java.ask(QStringLiteral("fairunlock b {x} 2"), QStringLiteral("UNLOCKED fair {x} b 2 result=1")).isEmpty());
    QVERIFY(watch->waitForFinished(20000));
    QStringList types;
    for (const auto &e : jsonLines(watch->readAllStandardOutput())) {
        QVERIFY2(e.value(QStringLiteral("lock")).toString() != QLatin1String("x"),
                 QJsonDocument(e).toJson().constData());
        if (e.value(QStringLiteral("lock")).toString() == QLatin1String("{x}"))
            types << e.value(QStringLiteral("type")).toString();
    }
    QVERIFY2(types.contains(QStringLiteral("released")), qPrintable(types.join(QLatin1Char(','))));
}

// --- cross-products with LockScope's actions -------------------------------------------------------

void TestRedissonLua::acquireOnJavaReadLockWithoutKindIsRefused()
{
    QVERIFY(
        !m_java.ask(QStringLiteral("readlock a stock:rw1 1"), QStringLiteral("ACQUIRED read stock:rw1 a 1")).isEmpty());
    const Cli acquire =
        runCli({QStringLiteral("acquire"), QStringLiteral("stock:rw1"), QStringLiteral("--hold-ms"),
                QStringLiteral("200"), QStringLiteral("--audit-log"), m_tmp.filePath(QStringLiteral("a1.jsonl"))});
    QCOMPARE(acquire.exitCode, 3);
    // The refusal says what is there (a read-write lock held for reading), not just "held".
    QVERIFY2(acquire.err.contains("read"), acquire.err.constData());
    QCOMPARE(m_java.ask(QStringLiteral("holds read a stock:rw1 1"), QStringLiteral("HOLDS read stock:rw1 a 1")),
             QStringLiteral("HOLDS read stock:rw1 a 1 1"));
    QVERIFY(
        !m_java.ask(QStringLiteral("readunlock a stock:rw1 1"), QStringLiteral("UNLOCKED read stock:rw1 a 1 result=1"))
             .isEmpty());
}

void TestRedissonLua::acquireKindReadJoinsJavaReaderAndLeavesItHolding()
{
    QVERIFY(
        !m_java.ask(QStringLiteral("readlock a stock:rw2 1"), QStringLiteral("ACQUIRED read stock:rw2 a 1")).isEmpty());
    const QString audit = m_tmp.filePath(QStringLiteral("a2.jsonl"));
    QProcess *acquire =
        startCli({QStringLiteral("acquire"), QStringLiteral("stock:rw2"), QStringLiteral("--kind"),
                  QStringLiteral("read"), QStringLiteral("--thread-id"), QStringLiteral("77"),
                  QStringLiteral("--hold-ms"), QStringLiteral("3000"), QStringLiteral("--audit-log"), audit});
    QVERIFY(QTest::qWaitFor([&] { return acquire->state() != QProcess::Running || acquire->canReadLine(); }, 10000));
    QVERIFY2(acquire->readLine().startsWith("acquired"), acquire->readAllStandardError().constData());
    const QJsonObject during = lockJson(QStringLiteral("stock:rw2"));
    QCOMPARE(during.value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
    QCOMPARE(during.value(QStringLiteral("holders")).toArray().size(), 2);
    for (const auto &h : during.value(QStringLiteral("holders")).toArray())
        QCOMPARE(h.toObject().value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
    QVERIFY(acquire->waitForFinished(15000));
    QCOMPARE(acquire->exitCode(), 0);
    // LockScope's release took only its own read hold.
    QCOMPARE(m_java.ask(QStringLiteral("holds read a stock:rw2 1"), QStringLiteral("HOLDS read stock:rw2 a 1")),
             QStringLiteral("HOLDS read stock:rw2 a 1 1"));
    const QJsonObject after = lockJson(QStringLiteral("stock:rw2"));
    QCOMPARE(after.value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
    QCOMPARE(fieldsOf(after.value(QStringLiteral("holders")).toArray()),
             QStringList{javaField(QStringLiteral("a"), QStringLiteral("1"))});
    QVERIFY(
        !m_java.ask(QStringLiteral("readunlock a stock:rw2 1"), QStringLiteral("UNLOCKED read stock:rw2 a 1 result=1"))
             .isEmpty());
}

void TestRedissonLua::acquireKindWriteIsRefusedWhileJavaReaderReads()
{
    QVERIFY(
        !m_java.ask(QStringLiteral("readlock a stock:rw3 1"), QStringLiteral("ACQUIRED read stock:rw3 a 1")).isEmpty());
    const Cli acquire = runCli({QStringLiteral("acquire"), QStringLiteral("stock:rw3"), QStringLiteral("--kind"),
                                QStringLiteral("write"), QStringLiteral("--wait-ms"), QStringLiteral("500"),
                                QStringLiteral("--hold-ms"), QStringLiteral("200"), QStringLiteral("--audit-log"),
                                m_tmp.filePath(QStringLiteral("a3.jsonl"))});
    QCOMPARE(acquire.exitCode, 3);
    const QJsonObject o = lockJson(QStringLiteral("stock:rw3"));
    QCOMPARE(o.value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
    QCOMPARE(fieldsOf(o.value(QStringLiteral("holders")).toArray()),
             QStringList{javaField(QStringLiteral("a"), QStringLiteral("1"))});
    QVERIFY(
        !m_java.ask(QStringLiteral("readunlock a stock:rw3 1"), QStringLiteral("UNLOCKED read stock:rw3 a 1 result=1"))
             .isEmpty());
}

void TestRedissonLua::javaWriterNeverOverlapsLockScopeReadHold()
{
    QVERIFY(
        !m_java.ask(QStringLiteral("readlock a stock:rw4 1"), QStringLiteral("ACQUIRED read stock:rw4 a 1")).isEmpty());
    const QString audit = m_tmp.filePath(QStringLiteral("a4.jsonl"));
    QProcess *acquire =
        startCli({QStringLiteral("acquire"), QStringLiteral("stock:rw4"), QStringLiteral("--kind"),
                  QStringLiteral("read"), QStringLiteral("--thread-id"), QStringLiteral("78"),
                  QStringLiteral("--hold-ms"), QStringLiteral("3000"), QStringLiteral("--audit-log"), audit});
    QVERIFY(QTest::qWaitFor([&] { return acquire->state() != QProcess::Running || acquire->canReadLine(); }, 10000));
    QVERIFY2(acquire->readLine().startsWith("acquired"), acquire->readAllStandardError().constData());
    // A Java writer blocks in lock() while LockScope and the Java reader read.
    QVERIFY(!m_java.ask(QStringLiteral("writelock w stock:rw4 9"), QStringLiteral("WAITING write stock:rw4 w 9"))
                 .isEmpty());
    QVERIFY(acquire->waitForFinished(15000));
    QCOMPARE(acquire->exitCode(), 0);
    QVERIFY2(!m_java.hasLine(QStringLiteral("ACQUIRED write stock:rw4 w 9")), "the Java writer overlapped a reader");
    // LockScope released (and published "0" if it were the last); the Java reader still reads.
    QCOMPARE(m_java.ask(QStringLiteral("holds read a stock:rw4 1"), QStringLiteral("HOLDS read stock:rw4 a 1")),
             QStringLiteral("HOLDS read stock:rw4 a 1 1"));
    QVERIFY2(!m_java.hasLine(QStringLiteral("ACQUIRED write stock:rw4 w 9")),
             "the Java writer overlapped the Java reader");
    QVERIFY(
        !m_java.ask(QStringLiteral("readunlock a stock:rw4 1"), QStringLiteral("UNLOCKED read stock:rw4 a 1 result=1"))
             .isEmpty());
    QVERIFY(!m_java.waitForLine(QStringLiteral("ACQUIRED write stock:rw4 w 9"), 10000).isEmpty());
    QVERIFY(
        !m_java
             .ask(QStringLiteral("writeunlock w stock:rw4 9"), QStringLiteral("UNLOCKED write stock:rw4 w 9 result=1"))
             .isEmpty());

    // Every acquire and release of LockScope is in the audit log.
    QFile f(audit);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(audit));
    QStringList actions;
    for (const auto &r : jsonLines(f.readAll()))
        if (r.value(QStringLiteral("lock")).toString() == QLatin1String("stock:rw4"))
            actions << r.value(QStringLiteral("action")).toString();
    QCOMPARE(actions, (QStringList{QStringLiteral("acquire"), QStringLiteral("release")}));
}

void TestRedissonLua::wakeWakesReadWriteWaiterBlockedOnNoTtl()
{
    // A reader hash without TTL (a reader with a lease, then PERSIST, as the doctor's no_ttl case),
    // a Java writer in lock(): it sees PTTL -1 and sleeps until a message (RedissonLock.java:138-143).
    QVERIFY(!m_java.ask(QStringLiteral("readlock a stock:rw5 1 60000"), QStringLiteral("ACQUIRED read stock:rw5 a 1"))
                 .isEmpty());
    QCOMPARE(test::redisCli(m_server.port(), {QStringLiteral("PERSIST"), QStringLiteral("stock:rw5")}).out.trimmed(),
             QByteArray("1"));
    const QString waiting =
        m_java.ask(QStringLiteral("writelock w stock:rw5 9"), QStringLiteral("WAITING write stock:rw5 w 9"));
    QCOMPARE(waiting.section(QLatin1Char(' '), 5), QStringLiteral("ttl=-1"));
    // The hash goes away without a publish (e.g. set-ttl, then silent expiry): the writer sleeps on.
    QCOMPARE(test::redisCli(m_server.port(), {QStringLiteral("DEL"), QStringLiteral("stock:rw5")}).out.trimmed(),
             QByteArray("1"));
    QVERIFY(!m_java.hasLine(QStringLiteral("ACQUIRED write stock:rw5 w 9")));
    const Cli wake = runCli({QStringLiteral("wake"), QStringLiteral("stock:rw5"), QStringLiteral("--yes"),
                             QStringLiteral("--audit-log"), m_tmp.filePath(QStringLiteral("a5.jsonl"))});
    QVERIFY2(wake.exitCode == 0, wake.err.constData());
    QVERIFY2(!m_java.waitForLine(QStringLiteral("ACQUIRED write stock:rw5 w 9"), 10000).isEmpty(),
             "wake did not reach the read-write waiter on redisson_rwlock:{stock:rw5}");
    QVERIFY(
        !m_java
             .ask(QStringLiteral("writeunlock w stock:rw5 9"), QStringLiteral("UNLOCKED write stock:rw5 w 9 result=1"))
             .isEmpty());
}

void TestRedissonLua::redissonForceUnlockIsForceUnlockedAndUnlockIsReleased()
{
    QProcess *watch =
        startCli({QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--enable-notifications"),
                  QStringLiteral("--duration-ms"), QStringLiteral("7000")});
    QVERIFY(watch->waitForStarted(5000));
    QTest::qWait(1500);
    // victim:1 is deleted by another client's forceUnlock(); released:1 is unlocked by its holder.
    QVERIFY(!m_java.ask(QStringLiteral("lock h victim:1 4"), QStringLiteral("ACQUIRED lock victim:1 h 4")).isEmpty());
    QVERIFY(
        !m_java.ask(QStringLiteral("lock h released:1 4"), QStringLiteral("ACQUIRED lock released:1 h 4")).isEmpty());
    QTest::qWait(1000);
    // The release first: LockScope tells a forced delete from a release only once it has seen this
    // server's clients write unlock latches (Redisson 3.24+); before that it says "cannot tell".
    QVERIFY(
        !m_java.ask(QStringLiteral("unlock h released:1 4"), QStringLiteral("UNLOCKED lock released:1 h 4 result=1"))
             .isEmpty());
    QTest::qWait(300);
    QVERIFY(!m_java
                 .ask(QStringLiteral("forceunlock admin victim:1"),
                      QStringLiteral("FORCEUNLOCKED lock victim:1 result=true"))
                 .isEmpty());
    QVERIFY(watch->waitForFinished(20000));
    const QString holder = javaField(QStringLiteral("h"), QStringLiteral("4"));
    QStringList victimTypes, releasedTypes;
    bool namedVictim = false;
    for (const auto &e : jsonLines(watch->readAllStandardOutput())) {
        const QString lock = e.value(QStringLiteral("lock")).toString();
        const QString type = e.value(QStringLiteral("type")).toString();
        if (lock == QLatin1String("victim:1")) {
            victimTypes << type;
            if (type == QLatin1String("force_unlocked"))
                namedVictim = e.value(QStringLiteral("holder")).toString() == holder ||
                              e.value(QStringLiteral("detail")).toString().contains(holder);
        } else if (lock == QLatin1String("released:1")) {
            releasedTypes << type;
        }
    }
    QVERIFY2(victimTypes.contains(QStringLiteral("force_unlocked")), qPrintable(victimTypes.join(QLatin1Char(','))));
    QVERIFY2(!victimTypes.contains(QStringLiteral("released")), qPrintable(victimTypes.join(QLatin1Char(','))));
    QVERIFY2(namedVictim, "the force_unlocked event does not name the previous holder");
    QVERIFY2(releasedTypes.contains(QStringLiteral("released")), qPrintable(releasedTypes.join(QLatin1Char(','))));
    QVERIFY2(!releasedTypes.contains(QStringLiteral("force_unlocked")),
             qPrintable(releasedTypes.join(QLatin1Char(','))));
}

QTEST_GUILESS_MAIN(TestRedissonLua)
#include "tst_redissonlua.moc"
