// JsonObjectBuilder builds the object that inserting the same keys into an empty QJsonObject
// builds, byte for byte in Qt's JSON, whether it fills a template of a shape seen before or
// builds from scratch; and LockSnapshot::toJson() of every kind gives the same text either way.

#include "protocol/locksnapshot.h"
#include "text/jsonobjectbuilder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QtTest>

#include <thread>

using namespace lockscope;

class TestJsonObjectBuilder : public QObject
{
    Q_OBJECT

private slots:
    void sameObjectAsInsertingKeyByKey();
    void templateValuesNeverLeak();
    void snapshotJsonIsTheSameFromATemplate();
};

namespace
{

const char *const kKeys[] = {"name", "kind", "pttl_ms", "holders", "waiters", "mode", "token", "a", "b", "c"};

QJsonValue randomValue(QRandomGenerator &rng)
{
    switch (rng.bounded(8)) {
    case 0:
        return QJsonValue();
    case 1:
        return rng.bounded(2) == 1;
    case 2:
        return qint64(rng.generate64() >> 12);
    case 3:
        return rng.bounded(1000.0);
    case 4:
        return QStringLiteral("text %1 \u00e9\u2603").arg(rng.generate());
    case 5:
        return QJsonArray{1, QStringLiteral("x"), QJsonValue()};
    case 6:
        return QJsonObject{{QStringLiteral("k"), int(rng.bounded(5))}};
    default:
        return rng.bounded(20) == 0 ? QJsonValue(QJsonValue::Undefined) : QJsonValue(QString());
    }
}

QByteArray text(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

/** toJson() of `s` on a thread of its own: no template there yet, so built key by key. */
QByteArray freshText(const LockSnapshot &s)
{
    QByteArray out;
    std::thread t([&] { out = text(s.toJson()); });
    t.join();
    return out;
}

} // namespace

// Random shapes (some repeated many times, with duplicate keys and undefined values, which
// remove a key): the builder's object and the one-by-one object are written alike.
void TestJsonObjectBuilder::sameObjectAsInsertingKeyByKey()
{
    QRandomGenerator rng(20261128);
    QVector<QVector<int>> shapes;
    for (int s = 0; s < 12; ++s) {
        QVector<int> keys;
        const int n = 1 + int(rng.bounded(12));
        for (int k = 0; k < n; ++k)
            keys << int(rng.bounded(int(std::size(kKeys))));
        shapes << keys;
    }
    for (int round = 0; round < 3000; ++round) {
        const QVector<int> &keys = shapes.at(int(rng.bounded(int(shapes.size()))));
        JsonObjectBuilder b;
        QJsonObject expected;
        for (int k : keys) {
            const QJsonValue v = randomValue(rng);
            b.insert(QLatin1StringView(kKeys[k]), v);
            expected.insert(QLatin1StringView(kKeys[k]), v);
        }
        QCOMPARE(text(b.take()), text(expected));
    }
}

// A second object of a shape gets its own values everywhere, none of the first's; the builder
// is empty after take().
void TestJsonObjectBuilder::templateValuesNeverLeak()
{
    JsonObjectBuilder b;
    b.insert(QLatin1StringView("x"), QStringLiteral("first"));
    b.insert(QLatin1StringView("y"), QJsonArray{1, 2});
    const QJsonObject first = b.take();
    QCOMPARE(text(b.take()), QByteArray("{}"));
    b.insert(QLatin1StringView("x"), QJsonValue());
    b.insert(QLatin1StringView("y"), 7);
    const QJsonObject second = b.take();
    QCOMPARE(text(second), QByteArray(R"({"x":null,"y":7})"));
    QCOMPARE(text(first), QByteArray(R"({"x":"first","y":[1,2]})")); // the first is untouched
}

// Every kind and every optional key of a lock's JSON: the text from a template (this thread,
// after another snapshot of the same shape) is the text built key by key (a fresh thread).
void TestJsonObjectBuilder::snapshotJsonIsTheSameFromATemplate()
{
    const QString uuid = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b");
    auto holder = [&](int thread, qint64 count, const QString &mode) {
        LockHolder h;
        h.clientId = uuid;
        h.threadId = QString::number(thread);
        h.field = uuid + QLatin1Char(':') + h.threadId;
        h.holdCount = count;
        h.mode = mode;
        if (mode == QLatin1String("read"))
            h.holdTtlsMs = {1000 + thread, 2000 + thread};
        return h;
    };
    QVector<LockSnapshot> all;
    for (int variant = 0; variant < 2; ++variant) { // two of each shape, with different values
        const int v = variant + 1;
        LockSnapshot plain;
        plain.name = QStringLiteral("lock:%1").arg(v);
        plain.isLock = plain.exists = true;
        plain.pttlMs = 30000 * v;
        plain.serverTimeMs = 1800000000000 + v;
        plain.holders = {holder(v, v, QString())};
        plain.kindCertain = false;
        plain.kindNote = QStringLiteral("note %1").arg(v);
        all << plain;

        LockSnapshot fair = plain;
        fair.kind = LockKind::FairLock;
        fair.kindCertain = true;
        fair.kindNote.clear();
        LockWaiter w;
        w.field = uuid + QStringLiteral(":9%1").arg(v);
        w.position = 1;
        w.deadlineEpochMs = variant == 0 ? 1800000005000 : -1;
        w.deadlineRaw = variant == 0 ? QString() : QStringLiteral("inf");
        fair.waiters = {w};
        fair.queueLength = 1 + v;
        fair.timeoutSet = {{w.field, 1800000005000 + v}};
        fair.subscribers = v;
        all << fair;

        LockSnapshot rw = plain;
        rw.kind = LockKind::ReadWriteLock;
        rw.rwMode = QStringLiteral("read");
        rw.holders = {holder(v, 1, QStringLiteral("read")), holder(v + 10, 2, QStringLiteral("read"))};
        rw.problems = {QStringLiteral("problem %1").arg(v)};
        rw.anomalies = {QStringLiteral("anomaly %1").arg(v)};
        all << rw;

        LockSnapshot odd = plain; // a name that is not UTF-8, stale, sampled, fenced, a twin
        odd.name = QString::fromUtf8("lock:\xff%1").arg(v);
        odd.kind = LockKind::FencedLock;
        odd.token = 40 + v;
        odd.stale = true;
        odd.staleAsOfMs = 1800000000100 + v;
        odd.sampled = true;
        odd.fieldCount = 5000 + v;
        odd.exists = false;
        odd.twinName = QStringLiteral("{lock:%1}").arg(v);
        all << odd;

        LockSnapshot multi = plain;
        multi.kind = LockKind::FasterMultiLock;
        MultiLockValue m;
        m.fieldId = QStringLiteral("aGk%1").arg(v);
        m.holder = uuid + QStringLiteral(":3");
        m.clientId = uuid;
        m.threadId = QStringLiteral("3");
        m.holdCount = v;
        m.expireEpochMs = 1800000009000 + v;
        multi.multiLockValues = {m};
        all << multi;
    }
    for (const LockSnapshot &s : std::as_const(all))
        (void)s.toJson(); // every shape has a template on this thread now
    for (const LockSnapshot &s : std::as_const(all)) {
        const QByteArray fresh = freshText(s);
        QCOMPARE(text(s.toJson()), fresh);
        QVERIFY2(fresh.contains(s.name.toUtf8()) || s.name.contains(QChar(0xFFFD)) || fresh.contains("_hex"),
                 fresh.constData());
    }
}

QTEST_GUILESS_MAIN(TestJsonObjectBuilder)
#include "tst_jsonobjectbuilder.moc"
