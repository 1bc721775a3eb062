// The one write path of LockSession: every write re-reads the lock, acts only on the state the
// operator confirmed (checked atomically inside Redis), and leaves one complete, fsync'd audit
// record, also when it was refused.
#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "session/locksession.h"

#include <QDateTime>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace lockscope;
using namespace lockscope::test;

namespace
{
using Outcome = lockscope::test::ActionOutcome;
} // namespace

class TestSafeActions : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void forceUnlockOfTheConfirmedStateIsAudited();
    void forceUnlockRefusesWhenTheLockChanged();
    void repairsCheckTheConfirmedState();
    void readOnlyRefusesEveryWriteAndAuditsIt();
    void unwritableAuditLogIsReported();
    void wakeOfAFairLockReachesOnlyTheHeadWaiter();
    void wakeOfAReadWriteLockWakesItsWaiters();
    void removeWaiterDerivesTheWaitFromTheTimeoutSet();

private:
    std::unique_ptr<LockSession> session(bool readOnly = false, const QString &auditPath = QString());
    Outcome run(LockSession *s, const std::function<void()> &action);
    QList<QJsonObject> auditRecords() const;
    void cli(const QStringList &args) { QCOMPARE(redisCli(m_server.port(), args).exitCode, 0); }

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;
    QTemporaryDir m_dir;
    QString m_a = newClientId();
};

void TestSafeActions::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint());
    QVERIFY(m_admin->open());
}

void TestSafeActions::init()
{
    m_admin->flushall();
    QFile::remove(m_dir.filePath(QStringLiteral("audit.jsonl")));
}

void TestSafeActions::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

std::unique_ptr<LockSession> TestSafeActions::session(bool readOnly, const QString &auditPath)
{
    LockSession::Options o;
    o.endpoint = m_server.endpoint();
    o.readOnly = readOnly;
    o.auditLogPath = auditPath.isEmpty() ? m_dir.filePath(QStringLiteral("audit.jsonl")) : auditPath;
    auto s = std::make_unique<LockSession>(o);
    s->open();
    return s;
}

Outcome TestSafeActions::run(LockSession *s, const std::function<void()> &action)
{
    return lockscope::test::runSessionAction(s, action);
}

QList<QJsonObject> TestSafeActions::auditRecords() const
{
    QFile f(m_dir.filePath(QStringLiteral("audit.jsonl")));
    QList<QJsonObject> out;
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            out << QJsonDocument::fromJson(line).object();
    return out;
}

void TestSafeActions::forceUnlockOfTheConfirmedStateIsAudited()
{
    cli({QStringLiteral("HSET"), QStringLiteral("orders:42"), m_a + QStringLiteral(":1"), QStringLiteral("2")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("30000")});
    auto s = session();
    const QString confirmed = m_a + QStringLiteral(":1=2");
    const Outcome r = run(s.get(), [&] { s->forceUnlock(QStringLiteral("orders:42"), confirmed); });
    QVERIFY2(r.ok, qPrintable(r.message));
    QCOMPARE(r.outcome, QStringLiteral("done"));
    QVERIFY(!m_admin->exists("orders:42"));
    const auto records = auditRecords();
    QCOMPARE(records.size(), 1);
    const QJsonObject rec = records.first();
    for (const char *key : {"time_ms", "operator", "host", "server", "client_id", "action", "lock", "args", "before",
                            "result", "message"})
        QVERIFY2(rec.contains(QString::fromLatin1(key)), key);
    QCOMPARE(rec.value(QStringLiteral("action")).toString(), QStringLiteral("force_unlock"));
    QCOMPARE(rec.value(QStringLiteral("result")).toString(), QStringLiteral("done"));
    QCOMPARE(rec.value(QStringLiteral("before")).toObject().value(QStringLiteral("holders")).toArray().size(), 1);
    QVERIFY(!rec.value(QStringLiteral("server")).toString().contains(QLatin1Char('@'))); // no credentials
}

void TestSafeActions::forceUnlockRefusesWhenTheLockChanged()
{
    // The operator confirmed holder a:1 with hold count 1; meanwhile it re-entered (count 2).
    cli({QStringLiteral("HSET"), QStringLiteral("orders:42"), m_a + QStringLiteral(":1"), QStringLiteral("2")});
    cli({QStringLiteral("PEXPIRE"), QStringLiteral("orders:42"), QStringLiteral("30000")});
    auto s = session();
    const Outcome r = run(s.get(), [&] { s->forceUnlock(QStringLiteral("orders:42"), m_a + QStringLiteral(":1=1")); });
    QVERIFY(!r.ok);
    QCOMPARE(r.outcome, QStringLiteral("changed"));
    QVERIFY2(r.message.contains(m_a + QStringLiteral(":1=2")), qPrintable(r.message)); // shows the new state
    QCOMPARE(m_admin->hgetall("orders:42"), QStringList{m_a + QStringLiteral(":1=2")});
    const auto records = auditRecords();
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().value(QStringLiteral("result")).toString(), QStringLiteral("changed"));

    // A lock that was released and taken by someone else in between is not deleted either.
    const Outcome gone =
        run(s.get(), [&] { s->forceUnlock(QStringLiteral("orders:42"), QStringLiteral("someone-else:9=1")); });
    QCOMPARE(gone.outcome, QStringLiteral("changed"));
    QVERIFY(m_admin->exists("orders:42"));
    QCOMPARE(auditRecords().size(), 2);
}

void TestSafeActions::repairsCheckTheConfirmedState()
{
    cli({QStringLiteral("HSET"), QStringLiteral("legacy"), m_a + QStringLiteral(":1"), QStringLiteral("1")});
    auto s = session();
    const Outcome stale =
        run(s.get(), [&] { s->setTtl(QStringLiteral("legacy"), 5000, m_a + QStringLiteral(":2=1")); });
    QCOMPARE(stale.outcome, QStringLiteral("changed"));
    QCOMPARE(m_admin->pttl("legacy"), -1);
    const Outcome ok = run(s.get(), [&] { s->setTtl(QStringLiteral("legacy"), 5000, m_a + QStringLiteral(":1=1")); });
    QVERIFY2(ok.ok, qPrintable(ok.message));
    QVERIFY(m_admin->pttl("legacy") > 0);
    const Outcome again =
        run(s.get(), [&] { s->setTtl(QStringLiteral("legacy"), 5000, m_a + QStringLiteral(":1=1")); });
    QCOMPARE(again.outcome, QStringLiteral("refused")); // already has a TTL
    const auto records = auditRecords();
    QCOMPARE(records.size(), 3);
    QCOMPARE(records[0].value(QStringLiteral("result")).toString(), QStringLiteral("changed"));
    QCOMPARE(records[1].value(QStringLiteral("result")).toString(), QStringLiteral("done"));
    QCOMPARE(records[1].value(QStringLiteral("args")).toObject().value(QStringLiteral("ttl_ms")).toInt(), 5000);
}

void TestSafeActions::readOnlyRefusesEveryWriteAndAuditsIt()
{
    cli({QStringLiteral("HSET"), QStringLiteral("held"), m_a + QStringLiteral(":1"), QStringLiteral("1")});
    const QStringList before = m_admin->hgetall("held");
    auto s = session(true);
    const QList<std::function<void()>> writes{
        [&] { s->acquire(QStringLiteral("new"), 1, 1000, 0); },
        [&] { s->forceUnlock(QStringLiteral("held"), m_a + QStringLiteral(":1=1")); },
        [&] { s->setTtl(QStringLiteral("held"), 1000, m_a + QStringLiteral(":1=1")); },
        [&] { s->removeWaiter(QStringLiteral("held"), m_a + QStringLiteral(":2"), 0); },
        [&] { s->removeReader(QStringLiteral("held"), m_a + QStringLiteral(":2")); },
        [&] { s->wake(QStringLiteral("held")); },
        [&] { s->release(QStringLiteral("held"), 1); },
        [&] { s->renew(QStringLiteral("held"), 1); },
    };
    for (const auto &w : writes) {
        const Outcome r = run(s.get(), w);
        QVERIFY(!r.ok);
        QCOMPARE(r.outcome, QStringLiteral("refused"));
        QVERIFY(r.message.contains(QLatin1String("read-only")));
    }
    QCOMPARE(m_admin->dbsize(), 1);
    QCOMPARE(m_admin->hgetall("held"), before);
    QCOMPARE(m_admin->pttl("held"), -1);
    QCOMPARE(auditRecords().size(), writes.size());
}

void TestSafeActions::unwritableAuditLogIsReported()
{
    cli({QStringLiteral("HSET"), QStringLiteral("held"), m_a + QStringLiteral(":1"), QStringLiteral("1")});
    // A directory where the log file should be: no record can be written, so nothing may be done
    // (no write without its audit record: never write first and report the failure after).
    const QString badPath = m_dir.filePath(QStringLiteral("is-a-directory"));
    QVERIFY(QDir().mkpath(badPath));
    auto s = session(false, badPath);
    QVERIFY2(s->auditProblem().contains(badPath), qPrintable(s->auditProblem()));
    for (const auto &action : QList<std::function<void()>>{
             [&] { s->forceUnlock(QStringLiteral("held")); },
             [&] { s->setTtl(QStringLiteral("held"), 5000, m_a + QStringLiteral(":1=1")); },
             [&] { s->wake(QStringLiteral("nothing")); }, [&] { s->acquire(QStringLiteral("new:1"), 1, 5000, 0); }}) {
        const Outcome r = run(s.get(), action);
        QVERIFY(!r.ok);
        QCOMPARE(r.outcome, QStringLiteral("refused"));
        QVERIFY2(r.message.contains(QLatin1String("audit")) && r.message.contains(QLatin1String("Nothing was sent")),
                 qPrintable(r.message));
    }
    QVERIFY(m_admin->exists("held"));
    QCOMPARE(m_admin->cmd({"PTTL", "held"}).toInteger(), qint64(-1)); // set-ttl did not happen either
    QVERIFY(!m_admin->exists("new:1"));
}

void TestSafeActions::wakeOfAFairLockReachesOnlyTheHeadWaiter()
{
    // A free fair lock; the head waiter (first pruned: one past its deadline) sleeps on its own
    // channel, as Redisson's fair waiters do (§3.1): only it gets the "0".
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString gone = m_a + QStringLiteral(":1");
    const QString head = m_a + QStringLiteral(":2");
    const QString behind = m_a + QStringLiteral(":3");
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{fair:w}"), gone, head, behind});
    cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{fair:w}"), QString::number(now - 1000), gone,
         QString::number(now + 300000), head, QString::number(now + 600000), behind});
    MessageListener all(m_server.endpoint(), "redisson_lock__channel:{fair:w}*", MessageListener::Pattern);
    MessageListener rw(m_server.endpoint(), "redisson_rwlock:{fair:w}");
    MessageListener headChannel(m_server.endpoint(), "redisson_lock__channel:{fair:w}:" + head.toUtf8());
    QVERIFY(all.waitSubscribed() && rw.waitSubscribed() && headChannel.waitSubscribed());
    auto s = session();
    const Outcome woke = run(s.get(), [&] { s->wake(QStringLiteral("fair:w")); });
    QVERIFY2(woke.ok, qPrintable(woke.message));
    // Receivers: the head's own subscription only; the pattern subscription of `all` (as a
    // LockScope monitor's) gets the message but is no waiter.
    QVERIFY2(woke.message.contains(
                 QStringLiteral("PUBLISH \"0\" on redisson_lock__channel:{fair:w}:%1: 1 receiver(s)").arg(head)),
             qPrintable(woke.message));
    QVERIFY2(woke.message.contains(QStringLiteral("pruned 1 waiter(s)")), qPrintable(woke.message));
    QVERIFY(headChannel.waitFor("0"));
    // The marker goes out after the wake: once it arrived, anything the wake sent has arrived too.
    cli({QStringLiteral("PUBLISH"), QStringLiteral("redisson_lock__channel:{fair:w}:marker"), QStringLiteral("m")});
    QVERIFY(all.waitFor("m"));
    QCOMPARE(all.messages().size(), 2);
    QCOMPARE(all.messages().first(), qMakePair("redisson_lock__channel:{fair:w}:" + head.toUtf8(), QByteArray("0")));
    QVERIFY(rw.messages().isEmpty());
    const RedisReply queue = m_admin->cmd({"LRANGE", "redisson_lock_queue:{fair:w}", "0", "-1"});
    QCOMPARE(queue.size(), 2);
    QCOMPARE(QString::fromUtf8(queue.at(0).toByteArray()), head);
}

void TestSafeActions::wakeOfAReadWriteLockWakesItsWaiters()
{
    // A free read-write lock whose waiters sleep on redisson_rwlock:{name} (§4.1): "1" there, and
    // nothing on the RLock channel nobody listens to. Nobody subscribed at all: nothing published.
    auto s = session();
    const Outcome nobody = run(s.get(), [&] { s->wake(QStringLiteral("rw:w")); });
    QCOMPARE(nobody.outcome, QStringLiteral("refused"));
    QVERIFY2(nobody.message.contains(QStringLiteral("nothing published")), qPrintable(nobody.message));

    MessageListener rw(m_server.endpoint(), "redisson_rwlock:{rw:w}");
    QVERIFY(rw.waitSubscribed());
    const Outcome woke = run(s.get(), [&] { s->wake(QStringLiteral("rw:w")); });
    QVERIFY2(woke.ok, qPrintable(woke.message));
    QVERIFY2(woke.message.contains(QStringLiteral("PUBLISH \"1\" on redisson_rwlock:{rw:w}: 1 receiver(s)")),
             qPrintable(woke.message));
    QVERIFY(rw.waitFor("redisson_rwlock:{rw:w}", "1"));
    QVERIFY(!woke.message.contains(QStringLiteral("redisson_lock__channel")));

    // Waiters on both channels: both are told, and the message says so.
    MessageListener plain(m_server.endpoint(), "redisson_lock__channel:{rw:w}");
    QVERIFY(plain.waitSubscribed());
    const Outcome both = run(s.get(), [&] { s->wake(QStringLiteral("rw:w")); });
    QVERIFY2(both.message.contains(QStringLiteral("both")), qPrintable(both.message));
    QVERIFY(plain.waitFor("redisson_lock__channel:{rw:w}", "0"));
    QVERIFY(rw.waitFor("redisson_rwlock:{rw:w}", "1", 2));
}

void TestSafeActions::removeWaiterDerivesTheWaitFromTheTimeoutSet()
{
    // Waiters of a 3.12-era client: deadlines 5000 ms apart (its wait, §1.6, §14.8).
    const qint64 base = QDateTime::currentMSecsSinceEpoch() + 60000;
    QStringList fields;
    for (int i = 1; i <= 4; ++i)
        fields << m_a + QStringLiteral(":%1").arg(i);
    cli({QStringLiteral("RPUSH"), QStringLiteral("redisson_lock_queue:{fair:gap}"), fields[0], fields[1], fields[2],
         fields[3]});
    for (int i = 0; i < 4; ++i)
        cli({QStringLiteral("ZADD"), QStringLiteral("redisson_lock_timeout:{fair:gap}"),
             QString::number(base + 5000 * i), fields[i]});
    auto score = [&](const QString &f) {
        return m_admin->cmd({"ZSCORE", "redisson_lock_timeout:{fair:gap}", f.toUtf8()}).toByteArray().toLongLong();
    };
    auto s = session();
    // A waiter in the middle: its own gap.
    const Outcome middle = run(s.get(), [&] { s->removeWaiter(QStringLiteral("fair:gap"), fields[1], 0); });
    QVERIFY2(middle.ok, qPrintable(middle.message));
    QVERIFY2(middle.message.contains(QStringLiteral("moved up by its wait of 5000 ms")), qPrintable(middle.message));
    QVERIFY2(middle.message.contains(QStringLiteral("gap between its deadline and the previous")),
             qPrintable(middle.message));
    QCOMPARE(score(fields[2]), base + 5000);
    QCOMPARE(score(fields[3]), base + 10000);
    QCOMPARE(score(fields[0]), base);
    // The head: the equal gaps behind it.
    const Outcome head = run(s.get(), [&] { s->removeWaiter(QStringLiteral("fair:gap"), fields[0], 0); });
    QVERIFY2(head.message.contains(QStringLiteral("moved up by its wait of 5000 ms")), qPrintable(head.message));
    QVERIFY2(head.message.contains(QStringLiteral("equal gaps")), qPrintable(head.message));
    QCOMPARE(score(fields[2]), base);
    QCOMPARE(score(fields[3]), base + 5000);
    // Given explicitly: that wait.
    const Outcome given = run(s.get(), [&] { s->removeWaiter(QStringLiteral("fair:gap"), fields[2], 1000); });
    QVERIFY2(given.message.contains(QStringLiteral("wait of 1000 ms (the wait you gave)")), qPrintable(given.message));
    QCOMPARE(score(fields[3]), base + 4000);
    // A lone head: nothing to derive it from, Redisson's default, and the message says so.
    const Outcome lone = run(s.get(), [&] { s->removeWaiter(QStringLiteral("fair:gap"), fields[3], 0); });
    QVERIFY2(lone.message.contains(QStringLiteral("300000 ms (Redisson's default")), qPrintable(lone.message));
    QVERIFY2(lone.message.contains(QStringLiteral("5000 ms")), qPrintable(lone.message));
    const auto records = auditRecords();
    QCOMPARE(records.size(), 4);
    QVERIFY(records[0].value(QStringLiteral("message")).toString().contains(QStringLiteral("5000 ms")));
}

QTEST_GUILESS_MAIN(TestSafeActions)
#include "tst_safeactions.moc"
