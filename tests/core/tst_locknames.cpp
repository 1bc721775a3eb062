// Pure value-level checks (no Redis): Redisson's key/channel naming and its reverse mapping,
// holder-field parsing, the glob matcher used to filter names, snapshot classification from a
// hand-made script reply, and the event rules of LockEvent::diff.

#include "protocol/lockevent.h"
#include "protocol/locknames.h"
#include "protocol/locksnapshot.h"
#include "redis/redisreply.h"
#include "watch/lockdiscovery.h"
#include "watch/snapshotreader.h"

#include <QJsonArray>
#include <QTest>

using namespace lockscope;

namespace
{

RedisReply str(const QByteArray &s)
{
    return RedisReply::makeString(s);
}
RedisReply arr(QVector<RedisReply> v)
{
    return RedisReply::makeArray(std::move(v));
}
RedisReply num(qint64 v)
{
    return RedisReply::makeInteger(v);
}

/** One entry of snapshot.lua's reply (see the script's header). */
RedisReply entry(const QByteArray &type, QVector<RedisReply> fields, qint64 pttl, qint64 queueLength = 0,
                 QVector<RedisReply> queue = {}, qint64 timeoutSize = 0, QVector<RedisReply> timeouts = {},
                 const QByteArray &token = "", qint64 subscribers = 0)
{
    return arr({str(type), arr(std::move(fields)), num(pttl), num(queueLength), arr(std::move(queue)), num(timeoutSize),
                arr(std::move(timeouts)), str(token), num(subscribers)});
}

const QByteArray kUuid = "b983c153-7421-469a-addb-44fb92259a1b";
const QByteArray kUuid2 = "0f8e1c2d-3b4a-4c5d-8e9f-a0b1c2d3e4f5";

LockSnapshot held(const QString &name, const QString &field, qint64 count, qint64 pttl, qint64 readAt)
{
    LockSnapshot s;
    s.name = name;
    s.isLock = true;
    s.exists = true;
    s.pttlMs = pttl;
    s.readAtSteadyMs = readAt;
    LockHolder h;
    h.field = field;
    h.holdCount = count;
    s.holders << h;
    return s;
}

QStringList types(const QVector<LockEvent> &events)
{
    QStringList out;
    for (const auto &e : events)
        out << e.type;
    return out;
}

} // namespace

class TestLockNames : public QObject
{
    Q_OBJECT

private slots:
    void prefixAndSuffix_data();
    void prefixAndSuffix();
    void companionKeysMapBack();
    void unlockChannelsMapBack();
    void transientHelperKeys();
    void holderFields_data();
    void holderFields();
    void globToRegex_data();
    void globToRegex();
    void parseClassifiesSnapshots();
    void snapshotJsonFields();
    void remainingTtl();
    void diffRules();
    void renewalIsJudgedOnTheServerClock();
};

void TestLockNames::prefixAndSuffix_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("channel");
    QTest::addColumn<QString>("queue");
    QTest::addColumn<QString>("suffix");
    QTest::newRow("plain") << "orders:42"
                           << "redisson_lock__channel:{orders:42}"
                           << "redisson_lock_queue:{orders:42}"
                           << "{orders:42}:rwlock_timeout";
    QTest::newRow("braces inside") << "order:{42}"
                                   << "redisson_lock__channel:order:{42}"
                                   << "redisson_lock_queue:order:{42}"
                                   << "order:{42}:rwlock_timeout";
    QTest::newRow("braces first") << "{cart}:7"
                                  << "redisson_lock__channel:{cart}:7"
                                  << "redisson_lock_queue:{cart}:7"
                                  << "{cart}:7:rwlock_timeout";
    QTest::newRow("unicode") << QString::fromUtf8("caf\xc3\xa9")
                             << QString::fromUtf8("redisson_lock__channel:{caf\xc3\xa9}")
                             << QString::fromUtf8("redisson_lock_queue:{caf\xc3\xa9}")
                             << QString::fromUtf8("{caf\xc3\xa9}:rwlock_timeout");
}

void TestLockNames::prefixAndSuffix()
{
    QFETCH(QString, name);
    QFETCH(QString, channel);
    QFETCH(QString, queue);
    QFETCH(QString, suffix);
    QCOMPARE(LockNames::unlockChannel(name), channel);
    QCOMPARE(LockNames::fairQueueKey(name), queue);
    QCOMPARE(LockNames::suffixName(name, QStringLiteral("rwlock_timeout")), suffix);
    QCOMPARE(LockNames::fairTimeoutKey(name), QString(queue).replace(QLatin1String("queue"), QLatin1String("timeout")));
    QCOMPARE(LockNames::tokenKey(name), QString(queue).replace(QLatin1String("queue"), QLatin1String("token")));
    QCOMPARE(LockNames::unlockLatchKey(name, QStringLiteral("abc")),
             QString(channel).replace(QLatin1String("lock__channel"), QLatin1String("unlock_latch")) +
                 QStringLiteral(":abc"));
    // And back again.
    QCOMPARE(LockNames::lockNameFromUnlockChannel(channel), name);
    QCOMPARE(LockNames::lockNameFromCompanionKey(queue), name);
    QCOMPARE(LockNames::lockNameFromCompanionKey(LockNames::fairTimeoutKey(name)), name);
    QCOMPARE(LockNames::lockNameFromCompanionKey(LockNames::tokenKey(name)), name);
}

void TestLockNames::companionKeysMapBack()
{
    QCOMPARE(LockNames::lockNameFromCompanionKey(QStringLiteral("redisson_lock_queue:{orders:42}")),
             QStringLiteral("orders:42"));
    QCOMPARE(LockNames::lockNameFromCompanionKey(QStringLiteral("orders:42")), QString());
    QCOMPARE(LockNames::lockNameFromCompanionKey(QStringLiteral("redisson_lock_queue:")), QString());
    QCOMPARE(LockNames::lockNameFromCompanionKey(QStringLiteral("redisson_unlock_latch:{a}:x")), QString());
}

void TestLockNames::unlockChannelsMapBack()
{
    QString waiter = QStringLiteral("stale");
    QCOMPARE(LockNames::lockNameFromUnlockChannel(QStringLiteral("redisson_lock__channel:{orders:42}"), &waiter),
             QStringLiteral("orders:42"));
    QVERIFY(waiter.isEmpty());
    // Fair-lock per-waiter channel (§3.1).
    const QString fair =
        QStringLiteral("redisson_lock__channel:{fair:1}:") + QString::fromLatin1(kUuid) + QStringLiteral(":57");
    QCOMPARE(LockNames::lockNameFromUnlockChannel(fair, &waiter), QStringLiteral("fair:1"));
    QCOMPARE(waiter, QString::fromLatin1(kUuid) + QStringLiteral(":57"));
    const QString fairBraced =
        QStringLiteral("redisson_lock__channel:order:{42}:") + QString::fromLatin1(kUuid) + QStringLiteral(":3");
    QCOMPARE(LockNames::lockNameFromUnlockChannel(fairBraced, &waiter), QStringLiteral("order:{42}"));
    QCOMPARE(waiter, QString::fromLatin1(kUuid) + QStringLiteral(":3"));
    QCOMPARE(LockNames::lockNameFromUnlockChannel(QStringLiteral("redisson_rwlock:{x}"), &waiter), QString());
    QCOMPARE(LockNames::lockNameFromUnlockChannel(QStringLiteral("redisson_lock__channel:"), &waiter), QString());
}

void TestLockNames::transientHelperKeys()
{
    QVERIFY(LockNames::isTransientHelperKey(
        QStringLiteral("redisson_unlock_latch:{orders:42}:0123456789abcdef0123456789abcdef")));
    QVERIFY(LockNames::isTransientHelperKey(QStringLiteral("{rw}:") + QString::fromLatin1(kUuid) +
                                            QStringLiteral(":1:rwlock_timeout:1")));
    QVERIFY(!LockNames::isTransientHelperKey(QStringLiteral("orders:42")));
    QVERIFY(!LockNames::isTransientHelperKey(QStringLiteral("redisson_lock_queue:{a}")));
}

void TestLockNames::holderFields_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("clientId");
    QTest::addColumn<QString>("threadId");
    QTest::addColumn<bool>("write");
    const QString u = QString::fromLatin1(kUuid);
    QTest::newRow("java thread") << u + ":1" << true << u << "1" << false;
    QTest::newRow("virtual thread") << u + ":9223372036854775807" << true << u << "9223372036854775807" << false;
    QTest::newRow("write lock") << u + ":57:write" << true << u << "57" << true;
    QTest::newRow("node-redisson") << u + ":" + QString::fromLatin1(kUuid2) << true << u << QString::fromLatin1(kUuid2)
                                   << false;
    QTest::newRow("upper-case uuid") << u.toUpper() + ":3" << true << u.toUpper() << "3" << false;
    QTest::newRow("no thread") << u + ":" << false << ""
                               << "" << false;
    QTest::newRow("only write") << u + ":write" << true << u << "write" << false;
    QTest::newRow("not a uuid") << "foo:1" << false << ""
                                << "" << false;
    QTest::newRow("plain") << "foo" << false << ""
                           << "" << false;
    QTest::newRow("mode") << "mode" << false << ""
                          << "" << false;
    QTest::newRow("short uuid") << "b983c153-7421-469a-addb-44fb92259a1:1" << false << ""
                                << "" << false;
}

void TestLockNames::holderFields()
{
    QFETCH(QString, field);
    QFETCH(bool, ok);
    QFETCH(QString, clientId);
    QFETCH(QString, threadId);
    QFETCH(bool, write);
    QString c, t;
    bool w = false;
    QCOMPARE(LockNames::parseHolderField(field, &c, &t, &w), ok);
    if (!ok)
        return;
    QCOMPARE(c, clientId);
    QCOMPARE(t, threadId);
    QCOMPARE(w, write);
    // Null out-pointers are allowed.
    QVERIFY(LockNames::parseHolderField(field, nullptr, nullptr, nullptr));
}

void TestLockNames::globToRegex_data()
{
    QTest::addColumn<QString>("glob");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("matches");
    QTest::newRow("star all") << "*"
                              << "anything:at{all}" << true;
    QTest::newRow("star empty") << "*"
                                << "" << true;
    QTest::newRow("prefix") << "orders:*"
                            << "orders:42" << true;
    QTest::newRow("prefix no") << "orders:*"
                               << "order:42" << false;
    QTest::newRow("anchored") << "orders"
                              << "orders:42" << false;
    QTest::newRow("question") << "lock:?"
                              << "lock:7" << true;
    QTest::newRow("question two") << "lock:?"
                                  << "lock:77" << false;
    QTest::newRow("class") << "lock:[ab]"
                           << "lock:b" << true;
    QTest::newRow("class no") << "lock:[ab]"
                              << "lock:c" << false;
    QTest::newRow("class range") << "lock:[0-9]"
                                 << "lock:5" << true;
    QTest::newRow("negated class") << "lock:[^ab]"
                                   << "lock:c" << true;
    QTest::newRow("negated class no") << "lock:[^ab]"
                                      << "lock:a" << false;
    QTest::newRow("escaped star") << "a\\*b"
                                  << "a*b" << true;
    QTest::newRow("escaped star literal") << "a\\*b"
                                          << "axb" << false;
    QTest::newRow("regex chars literal") << "a.b+(c)"
                                         << "a.b+(c)" << true;
    QTest::newRow("dot is literal") << "a.b"
                                    << "axb" << false;
    QTest::newRow("braces") << "order:{*}"
                            << "order:{42}" << true;
    QTest::newRow("newline in name") << "a*"
                                     << "a\nb" << true;
    QTest::newRow("unclosed bracket") << "a[b"
                                      << "a[b" << true;
}

void TestLockNames::globToRegex()
{
    QFETCH(QString, glob);
    QFETCH(QString, name);
    QFETCH(bool, matches);
    const QRegularExpression re = LockDiscovery::globToRegex(glob);
    QVERIFY2(re.isValid(), qPrintable(re.errorString()));
    QCOMPARE(re.match(name).hasMatch(), matches);
}

void TestLockNames::parseClassifiesSnapshots()
{
    const qint64 now = 1'800'000'000'000;
    const QByteArray f1 = kUuid + ":1";
    const QByteArray f2 = kUuid2 + ":2";

    // Plain RLock.
    LockSnapshot s =
        SnapshotReader::parse(QStringLiteral("orders:42"), entry("hash", {str(f1), str("2")}, 25000), now, 5);
    QVERIFY(s.isLock);
    QVERIFY(s.exists);
    QCOMPARE(s.kind, LockKind::Lock);
    QCOMPARE(s.holders.size(), 1);
    QCOMPARE(s.holders[0].clientId, QString::fromLatin1(kUuid));
    QCOMPARE(s.holders[0].threadId, QStringLiteral("1"));
    QCOMPARE(s.holders[0].holdCount, qint64(2));
    QCOMPARE(s.pttlMs, qint64(25000));
    QCOMPARE(s.serverTimeMs, now);
    QCOMPARE(s.readAtSteadyMs, qint64(5));
    QVERIFY(s.problems.isEmpty());

    // No TTL: flagged.
    s = SnapshotReader::parse(QStringLiteral("forever"), entry("hash", {str(f1), str("1")}, -1), now, 0);
    QVERIFY(s.isLock);
    QCOMPARE(s.problems.size(), 1);
    QVERIFY(s.problems[0].contains(QLatin1String("no TTL")));

    // Two holders: flagged.
    s = SnapshotReader::parse(QStringLiteral("two"), entry("hash", {str(f1), str("1"), str(f2), str("1")}, 1000), now,
                              0);
    QVERIFY(s.isLock);
    QCOMPARE(s.holders.size(), 2);
    QVERIFY(s.problems.join(' ').contains(QLatin1String("2 holder fields")));

    // Not a lock: other fields, non-numeric count, other types, absent.
    s = SnapshotReader::parse(QStringLiteral("h"), entry("hash", {str("foo"), str("bar")}, -1), now, 0);
    QVERIFY(!s.isLock);
    QVERIFY(s.exists);
    QVERIFY(s.holders.isEmpty());
    s = SnapshotReader::parse(QStringLiteral("h"), entry("hash", {str(f1), str("x")}, -1), now, 0);
    QVERIFY(!s.isLock);
    s = SnapshotReader::parse(QStringLiteral("h"), entry("hash", {str(f1), str("1"), str("foo"), str("1")}, -1), now,
                              0);
    QVERIFY(!s.isLock);
    s = SnapshotReader::parse(QStringLiteral("s"), entry("string", {}, -1), now, 0);
    QVERIFY(!s.isLock);
    QVERIFY(!s.exists);
    s = SnapshotReader::parse(QStringLiteral("gone"), entry("none", {}, -2), now, 0);
    QVERIFY(!s.isLock);
    QVERIFY(!s.exists);
    QCOMPARE(s.pttlMs, qint64(-2));

    // Fair lock with two waiters; the head is past its deadline.
    s = SnapshotReader::parse(
        QStringLiteral("fair"),
        entry("hash", {str(f1), str("1")}, 20000, 2, {str(f2), str(kUuid + ":9")}, 2,
              {str(f2), str(QByteArray::number(now - 10)), str(kUuid + ":9"), str(QByteArray::number(now + 300000))}),
        now, 0);
    QVERIFY(s.isLock);
    QCOMPARE(s.kind, LockKind::FairLock);
    QCOMPARE(s.waiters.size(), 2);
    QCOMPARE(s.waiters[0].field, QString::fromLatin1(f2));
    QCOMPARE(s.waiters[0].position, 1);
    QCOMPARE(s.waiters[0].deadlineEpochMs, now - 10);
    QCOMPARE(s.waiters[1].position, 2);
    QCOMPARE(s.waiters[1].deadlineEpochMs, now + 300000);
    QCOMPARE(s.queueLength, qint64(2));
    QVERIFY(s.problems.join(' ').contains(QLatin1String("past its deadline")));

    // A fair lock whose hash is gone but whose queue remains is still listed.
    s = SnapshotReader::parse(QStringLiteral("fair"),
                              entry("none", {}, -2, 1, {str(f2)}, 1, {str(f2), str(QByteArray::number(now + 1000))}),
                              now, 0);
    QVERIFY(s.isLock);
    QCOMPARE(s.kind, LockKind::FairLock);
    QVERIFY(!s.isHeld());
    QVERIFY(s.problems.join(' ').contains(QLatin1String("free lock with 1 queued")));

    // Fenced lock.
    s = SnapshotReader::parse(QStringLiteral("fenced"), entry("hash", {str(f1), str("1")}, 9000, 0, {}, 0, {}, "17"),
                              now, 0);
    QVERIFY(s.isLock);
    QCOMPARE(s.kind, LockKind::FencedLock);
    QCOMPARE(s.token, qint64(17));

    // Read-write lock.
    s = SnapshotReader::parse(QStringLiteral("rw"),
                              entry("hash", {str("mode"), str("write"), str(f1 + ":write"), str("1")}, 9000), now, 0);
    QVERIFY(s.isLock);
    QCOMPARE(s.kind, LockKind::ReadWriteLock);
    QCOMPARE(s.rwMode, QStringLiteral("write"));
    QCOMPARE(s.holders.size(), 1);
    QCOMPARE(s.holders[0].mode, QStringLiteral("write"));
    s = SnapshotReader::parse(QStringLiteral("rw"),
                              entry("hash", {str("mode"), str("read"), str(f1), str("2"), str(f2), str("1")}, 9000),
                              now, 0);
    QCOMPARE(s.kind, LockKind::ReadWriteLock);
    QCOMPARE(s.holders.size(), 2);
    QCOMPARE(s.holders[0].mode, QStringLiteral("read"));
    QVERIFY(!s.problems.join(' ').contains(QLatin1String("holder fields")));
}

void TestLockNames::snapshotJsonFields()
{
    LockSnapshot s = SnapshotReader::parse(QStringLiteral("fair"),
                                           entry("hash", {str(kUuid + ":1"), str("3")}, 20000, 1, {str(kUuid2 + ":2")},
                                                 1, {str(kUuid2 + ":2"), str("1800000005000")}, "", 4),
                                           1'800'000'000'000, 0);
    const QJsonObject o = s.toJson();
    for (const char *key :
         {"name", "kind", "pttl_ms", "holders", "waiters", "subscribers", "token", "server_time_ms", "problems"})
        QVERIFY2(o.contains(QLatin1String(key)), key);
    QCOMPARE(o.value(QLatin1String("kind")).toString(), QStringLiteral("fair_lock"));
    QCOMPARE(o.value(QLatin1String("subscribers")).toInteger(), qint64(4));
    QVERIFY(o.value(QLatin1String("token")).isNull());
    const QJsonObject h = o.value(QLatin1String("holders")).toArray().at(0).toObject();
    QCOMPARE(h.value(QLatin1String("field")).toString(), QString::fromLatin1(kUuid + ":1"));
    QCOMPARE(h.value(QLatin1String("client_id")).toString(), QString::fromLatin1(kUuid));
    QCOMPARE(h.value(QLatin1String("thread_id")).toString(), QStringLiteral("1"));
    QCOMPARE(h.value(QLatin1String("hold_count")).toInteger(), qint64(3));
    QVERIFY(h.contains(QLatin1String("mode")));
    const QJsonObject w = o.value(QLatin1String("waiters")).toArray().at(0).toObject();
    QCOMPARE(w.value(QLatin1String("position")).toInt(), 1);
    QCOMPARE(w.value(QLatin1String("deadline_epoch_ms")).toInteger(), qint64(1800000005000));
    QCOMPARE(w.value(QLatin1String("deadline_in_ms")).toInteger(), qint64(5000));

    LockEvent e{123, QStringLiteral("x"), QStringLiteral("acquired"), QString(), QStringLiteral("d")};
    const QJsonObject ej = e.toJson();
    for (const char *key : {"time_ms", "lock", "type", "holder", "detail"})
        QVERIFY2(ej.contains(QLatin1String(key)), key);
    QVERIFY(ej.value(QLatin1String("holder")).isNull());
}

void TestLockNames::remainingTtl()
{
    LockSnapshot s;
    s.pttlMs = 5000;
    s.readAtSteadyMs = 1000;
    QCOMPARE(s.remainingTtlMs(1000), qint64(5000));
    QCOMPARE(s.remainingTtlMs(3500), qint64(2500));
    QCOMPARE(s.remainingTtlMs(9000), qint64(0));
    s.pttlMs = -1;
    QCOMPARE(s.remainingTtlMs(9000), qint64(-1));
    s.pttlMs = -2;
    QCOMPARE(s.remainingTtlMs(9000), qint64(-2));
}

void TestLockNames::diffRules()
{
    const QString a = QString::fromLatin1(kUuid + ":1");
    const QString b = QString::fromLatin1(kUuid2 + ":2");
    const LockSnapshot one = held(QStringLiteral("l"), a, 1, 10000, 0);

    // New holder: acquired.
    QCOMPARE(types(LockEvent::diff(nullptr, one, QString(), false)), QStringList{"acquired"});
    // Count up / down.
    QCOMPARE(types(LockEvent::diff(&one, held(QStringLiteral("l"), a, 2, 10000, 10), QStringLiteral("hincrby"), false)),
             QStringList{"reentered"});
    const LockSnapshot two = held(QStringLiteral("l"), a, 2, 10000, 0);
    QCOMPARE(types(LockEvent::diff(&two, held(QStringLiteral("l"), a, 1, 10000, 10), QStringLiteral("hincrby"), false)),
             QStringList{"released"});

    LockSnapshot gone;
    gone.name = QStringLiteral("l");
    gone.readAtSteadyMs = 100;
    QCOMPARE(types(LockEvent::diff(&one, gone, QStringLiteral("del"), false)), QStringList{"released"});
    QCOMPARE(types(LockEvent::diff(&one, gone, QStringLiteral("expired"), false)), QStringList{"expired"});
    QCOMPARE(types(LockEvent::diff(&one, gone, QStringLiteral("del"), true)), QStringList{"force_unlocked"});
    // No hint, but the countdown had run out: expired.
    gone.readAtSteadyMs = 9800;
    QCOMPARE(types(LockEvent::diff(&one, gone, QString(), false)), QStringList{"expired"});
    gone.readAtSteadyMs = 100;
    QCOMPARE(types(LockEvent::diff(&one, gone, QString(), false)), QStringList{"released"});

    // Handover: one released, the other acquired.
    const QStringList handover =
        types(LockEvent::diff(&one, held(QStringLiteral("l"), b, 1, 30000, 50), QString(), false));
    QVERIFY(handover.contains(QLatin1String("released")));
    QVERIFY(handover.contains(QLatin1String("acquired")));

    // Renewed: TTL clearly above the countdown; not renewed when only slightly above (read jitter).
    QCOMPARE(
        types(LockEvent::diff(&one, held(QStringLiteral("l"), a, 1, 29000, 5000), QStringLiteral("expire"), false)),
        QStringList{"renewed"});
    QVERIFY(LockEvent::diff(&one, held(QStringLiteral("l"), a, 1, 5100, 5000), QString(), false).isEmpty());

    // Fair queue changes.
    LockSnapshot q1 = one;
    LockWaiter w;
    w.field = b;
    w.position = 1;
    q1.waiters << w;
    QCOMPARE(types(LockEvent::diff(&one, q1, QString(), false)), QStringList{"enqueued"});
    QCOMPARE(types(LockEvent::diff(&q1, one, QString(), false)), QStringList{"dequeued"});
    const QVector<LockEvent> takeover =
        LockEvent::diff(&q1, held(QStringLiteral("l"), b, 1, 30000, 50), QString(), false);
    bool dequeuedAcquired = false;
    for (const auto &e : takeover)
        dequeuedAcquired |= e.type == QLatin1String("dequeued") && e.detail.contains(QLatin1String("acquired"));
    QVERIFY(dequeuedAcquired);
    // In causal order, so a hand-over reads as it happened: the old holder's release, the waiter
    // leaving the queue, then its acquire.
    QCOMPARE(types(takeover), (QStringList{"released", "dequeued", "acquired"}));
    // A plain hand-over (no queue) as well.
    QCOMPARE(types(LockEvent::diff(&one, held(QStringLiteral("l"), b, 1, 30000, 50), QStringLiteral("hset"), false)),
             (QStringList{"released", "acquired"}));

    // Every event names the lock and a holder.
    for (const auto &e : takeover) {
        QCOMPARE(e.lock, QStringLiteral("l"));
        QVERIFY(!e.holder.isEmpty());
        QVERIFY(e.timeMs > 0);
    }
}

void TestLockNames::renewalIsJudgedOnTheServerClock()
{
    // When the round trip grows by 500 ms, a PTTL read earlier on the server than the reply's
    // arrival suggests would look "pushed back", a false `renewed`; the server's TIME, read in the
    // same script, decides.
    LockSnapshot before;
    before.name = QStringLiteral("x");
    before.isLock = before.exists = true;
    before.holders << LockHolder{QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1"),
                                 QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b"),
                                 QStringLiteral("1"),
                                 1,
                                 QString(),
                                 {}};
    before.pttlMs = 30000;
    before.serverTimeMs = 1'700'000'000'000;
    before.readAtSteadyMs = 0;
    LockSnapshot slow = before; // 1 s later on the server, but the reply came 600 ms late
    slow.pttlMs = 29000;
    slow.serverTimeMs = before.serverTimeMs + 1000;
    slow.readAtSteadyMs = 1600;
    QVERIFY(!slow.isRenewalOf(before));
    LockSnapshot renewed = before; // the watchdog's lease/3: back near 30 s after 10 s
    renewed.pttlMs = 29990;
    renewed.serverTimeMs = before.serverTimeMs + 10000;
    renewed.readAtSteadyMs = 10600;
    QVERIFY(renewed.isRenewalOf(before));
    // Without a server time (old recordings), the local arrival times stay the fallback.
    LockSnapshot localOnly = slow;
    localOnly.serverTimeMs = 0;
    QVERIFY(localOnly.isRenewalOf(before)); // the old, latency-sensitive judgement
}

QTEST_GUILESS_MAIN(TestLockNames)
#include "tst_locknames.moc"
