// One matcher for "find a lock by anything", so the CLI and the dashboard find the same locks (lockscope-cli --holder,
// the dashboard's filter): a Redis glob on the name and the text of a holder, thread or waiter an operator arrives
// with. And the doctor's suggested commands end with the connection the front end gives, so
// pasted they reach the same server.

#include "diagnose/lockdoctor.h"
#include "protocol/lockfilter.h"

#include <QTest>

using namespace lockscope;

namespace
{

const QString kClient = QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b");
const QString kOther = QStringLiteral("5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60");

LockHolder holder(const QString &client, const QString &thread, const QString &mode = QString())
{
    LockHolder h;
    h.clientId = client;
    h.threadId = thread;
    h.field = client + QLatin1Char(':') + thread;
    h.holdCount = 1;
    h.mode = mode;
    return h;
}

LockSnapshot lock(const QString &name, const QVector<LockHolder> &holders, const QStringList &waiters = {})
{
    LockSnapshot s;
    s.name = name;
    s.isLock = true;
    s.exists = !holders.isEmpty();
    s.holders = holders;
    int position = 0;
    for (const QString &w : waiters) {
        LockWaiter lw;
        lw.field = w;
        lw.position = ++position;
        s.waiters << lw;
    }
    s.queueLength = waiters.size();
    return s;
}

} // namespace

class TestLockFilter : public QObject
{
    Q_OBJECT

private slots:
    void emptyFilterMatchesEverything();
    void holderTextMatchesClientIdThreadAndWaiters();
    void namePatternIsARedisGlob_data();
    void namePatternIsARedisGlob();
    void doctorCommandsEndWithTheConnection();
};

void TestLockFilter::emptyFilterMatchesEverything()
{
    const LockFilter all;
    QVERIFY(all.isEmpty());
    QVERIFY(all.matches(lock(QStringLiteral("orders:42"), {holder(kClient, QStringLiteral("1"))})));
    QVERIFY(LockFilter(QStringLiteral("*"), QString()).isEmpty());
    QVERIFY(!LockFilter(QStringLiteral("orders:*"), QString()).isEmpty());
    QVERIFY(!LockFilter(QString(), QStringLiteral("8743c9c0")).isEmpty());
}

void TestLockFilter::holderTextMatchesClientIdThreadAndWaiters()
{
    const LockSnapshot held = lock(QStringLiteral("orders:42"), {holder(kClient, QStringLiteral("57"))});
    const LockSnapshot queued =
        lock(QStringLiteral("fair:1"), {holder(kOther, QStringLiteral("3"))}, {kClient + QStringLiteral(":9")});
    const LockSnapshot readers =
        lock(QStringLiteral("rw:1"), {holder(kOther, QStringLiteral("10"), QStringLiteral("read")),
                                      holder(kClient, QStringLiteral("11"), QStringLiteral("read"))});
    const LockSnapshot other = lock(QStringLiteral("inventory:7"), {holder(kOther, QStringLiteral("1"))});
    auto matching = [&](const QString &text) {
        const LockFilter f(QString(), text);
        QStringList names;
        for (const auto &s : {held, queued, readers, other})
            if (f.matches(s))
                names << s.name;
        return names;
    };
    // The whole client id, its first 8 characters (as people quote it), any case.
    const QStringList byClient{QStringLiteral("orders:42"), QStringLiteral("fair:1"), QStringLiteral("rw:1")};
    QCOMPARE(matching(kClient), byClient);
    QCOMPARE(matching(kClient.left(8)), byClient);
    QCOMPARE(matching(kClient.left(8).toUpper()), byClient);
    // <clientId>:<threadId>: that thread only (a holder, a waiter).
    QCOMPARE(matching(kClient + QStringLiteral(":57")), QStringList{QStringLiteral("orders:42")});
    QCOMPARE(matching(kClient + QStringLiteral(":9")), QStringList{QStringLiteral("fair:1")});
    // A thread id alone, exactly (not "5" for "57").
    QCOMPARE(matching(QStringLiteral("57")), QStringList{QStringLiteral("orders:42")});
    QCOMPARE(matching(QStringLiteral("5")), QStringList()); // not client 5d3c1a2e… either: too short for an id
    QCOMPARE(matching(QStringLiteral("5d3c")),
             (QStringList{QStringLiteral("fair:1"), QStringLiteral("rw:1"), QStringLiteral("inventory:7")}));
    QCOMPARE(matching(QStringLiteral("deadbeef")), QStringList());
    // The name pattern and the holder text together.
    QVERIFY(!LockFilter(QStringLiteral("orders:*"), kOther).matches(other));
    QVERIFY(LockFilter(QStringLiteral("inventory:*"), kOther).matches(other));
}

void TestLockFilter::namePatternIsARedisGlob_data()
{
    QTest::addColumn<QString>("glob");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("match");
    QTest::newRow("star") << "orders:*"
                          << "orders:42" << true;
    QTest::newRow("star crosses slashes") << "a*z"
                                          << "a/b/z" << true;
    QTest::newRow("anchored") << "orders"
                              << "orders:42" << false;
    QTest::newRow("question") << "lock:?"
                              << "lock:1" << true;
    QTest::newRow("question is one") << "lock:?"
                                     << "lock:10" << false;
    QTest::newRow("set") << "lock:[12]"
                         << "lock:2" << true;
    QTest::newRow("negated set") << "lock:[^12]"
                                 << "lock:2" << false;
    QTest::newRow("range") << "lock:[a-c]"
                           << "lock:b" << true;
    QTest::newRow("escaped star") << "a\\*"
                                  << "a*" << true;
    QTest::newRow("escaped star is literal") << "a\\*"
                                             << "ab" << false;
    QTest::newRow("regex characters are literal") << "order.{7}"
                                                  << "order.{7}" << true;
    QTest::newRow("dot is not any") << "order.1"
                                    << "orderX1" << false;
    QTest::newRow("case-sensitive") << "Orders:*"
                                    << "orders:1" << false;
}

void TestLockFilter::namePatternIsARedisGlob()
{
    QFETCH(QString, glob);
    QFETCH(QString, name);
    QFETCH(bool, match);
    QCOMPARE(LockFilter(glob, QString()).matchesName(name), match);
}

void TestLockFilter::doctorCommandsEndWithTheConnection()
{
    LockSnapshot s = lock(QStringLiteral("big order:7"), {holder(kClient, QStringLiteral("1"))});
    s.pttlMs = -1; // no_ttl
    QHash<QString, LockSnapshot> locks{{s.name, s}};
    LockDoctor doctor;
    QCOMPARE(doctor.diagnose(locks, 0).first().code, QStringLiteral("no_ttl"));
    // Default: no connection arguments (lockscope-cli's default server or LOCKSCOPE_URL); the
    // name is quoted for the shell.
    QVERIFY2(doctor.diagnose(locks, 0).first().action.contains(
                 QStringLiteral("lockscope-cli set-ttl 'big order:7' --ttl-ms 30000)")),
             qPrintable(doctor.diagnose(locks, 0).first().action));
    doctor.setCommandConnection(QStringLiteral("--url redis://10.0.0.5:6380/0"));
    const QString action = doctor.diagnose(locks, 0).first().action;
    QVERIFY2(action.contains(
                 QStringLiteral("lockscope-cli set-ttl 'big order:7' --ttl-ms 30000 --url redis://10.0.0.5:6380/0")),
             qPrintable(action));
    QVERIFY2(action.contains(QStringLiteral("lockscope-cli force-unlock 'big order:7' --url redis://10.0.0.5:6380/0")),
             qPrintable(action));
    QCOMPARE(LockDoctor::shellQuoted(QStringLiteral("orders:{42}")), QStringLiteral("orders:{42}"));
    QCOMPARE(LockDoctor::shellQuoted(QStringLiteral("it's")), QStringLiteral("'it'\\''s'"));
    QCOMPARE(LockDoctor::shellQuoted(QStringLiteral("a;rm -rf")), QStringLiteral("'a;rm -rf'"));
    QCOMPARE(LockDoctor::shellQuoted(QStringLiteral("{a,b}")), QStringLiteral("'{a,b}'")); // no brace expansion
    QCOMPARE(LockDoctor::shellQuoted(QStringLiteral("$HOME")), QStringLiteral("'$HOME'"));
    QCOMPARE(LockDoctor::shellQuoted(QString()), QStringLiteral("''"));
}

QTEST_GUILESS_MAIN(TestLockFilter)
#include "tst_lockfilter.moc"
