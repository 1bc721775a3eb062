// LockVariant, the one shape of every lock kind, and LockVariantFactory against a real
// redis-server: each kind made by the factory takes, renews, gives back and force-unlocks a hold
// with its own data shape, and a waiter of each kind wakes when the holder unlocks. A kind
// registered by a test (its own class and one LockKinds::add) is known to the factory, AcquirePlan,
// the --kind help and the session's acquire, release and audit records.

#include "lock/lockclient.h"
#include "lock/lockvariant.h"
#include "lock/lockvariantfactory.h"
#include "lock/readlock.h"
#include "lock/readwritelock.h"
#include "lock/writelock.h"
#include "protocol/acquireplan.h"
#include "protocol/lockkinds.h"
#include "protocol/locknames.h"
#include "session/locksession.h"

#include "lockfixture.h"
#include "testlockkind.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::awaitAcquire;
using lockscope::test::awaitBool;
using lockscope::test::awaitUnlock;
using lockscope::test::Box;
using lockscope::test::waitUntil;

namespace
{

/** A participant with one LockVariant of every kind on its client, all made by the factory. */
struct Participant : test::LockParticipant {
    std::unique_ptr<QObject> owner = std::make_unique<QObject>();
    QMap<AcquireKind, LockVariant *> locks;

    explicit Participant(const RedisEndpoint &endpoint) : LockParticipant(endpoint)
    {
        for (AcquireKind kind : LockVariantFactory::kinds())
            locks.insert(kind, LockVariantFactory::create(kind, client.get(), owner.get()));
    }
    ~Participant() { owner.reset(); } // the variants go before the client
};

} // namespace

class TestLockVariant : public test::LockTestCase<Participant>
{
    Q_OBJECT

private slots:
    void factoryMakesEachKind();
    void aRegisteredKindIsKnownEverywhere();
    void descriptorsSayWhatTheVariantsDo();
    void shapes();
    void holdRoundTripOfEveryKind();
    void waiterOfEveryKindWakesOnUnlock();
    void forceUnlockPublishesWhatRedissonPublishes();
};

void TestLockVariant::factoryMakesEachKind()
{
    for (AcquireKind kind : LockVariantFactory::kinds()) {
        LockVariant *v = m_a->locks.value(kind);
        QVERIFY(v);
        QVERIFY(v->kind() == kind);
        QCOMPARE(v->client(), m_a->client.get());
        QCOMPARE(v->kindName(), AcquirePlan::kindName(kind));
    }
    QObject parent;
    LockVariant *autoKind = LockVariantFactory::create(AcquireKind::Auto, m_a->client.get(), &parent);
    QVERIFY(autoKind->kind() == AcquireKind::Lock);
    // The two halves share one ReadWriteLock per client and parent, as Redisson's do.
    auto *read = qobject_cast<ReadLock *>(m_a->locks.value(AcquireKind::Read));
    auto *write = qobject_cast<WriteLock *>(m_a->locks.value(AcquireKind::Write));
    QVERIFY(read && write);
    QCOMPARE(read->readWriteLock(), write->readWriteLock());
    QCOMPARE(LockVariantFactory::create(AcquireKind::Read, m_a->client.get(), m_a->owner.get()), read);
}

// A new kind is its own class plus one registration: the tests' own kind, registered here, is
// then made by the factory, named and parsed by AcquirePlan and judged by the data it leaves, in
// the --kind help, and taken, audited (JSON) and released by the session like a shipped kind.
void TestLockVariant::aRegisteredKindIsKnownEverywhere()
{
    const QString word = QStringLiteral("testkind");
    QVERIFY(!AcquirePlan::parseKind(word));
    QVERIFY(!LockKinds::kindHelp().contains(word));
    const AcquireKind kind = test::TestLockKind::registerKind();
    auto unregister = qScopeGuard([] { test::TestLockKind::unregisterKind(); });
    QVERIFY(kind != AcquireKind::Auto);
    QVERIFY(int(kind) > int(AcquireKind::Spin));

    // The factory.
    QVERIFY(LockVariantFactory::kinds().contains(kind));
    QObject parent;
    LockVariant *v = LockVariantFactory::create(kind, m_a->client.get(), &parent);
    QVERIFY(dynamic_cast<test::TestLockKind *>(v));
    QVERIFY(v->kind() == kind);
    QCOMPARE(v->kindName(), word);

    // AcquirePlan: its word both ways, and the data it may join (it leaves an RLock hash).
    QCOMPARE(AcquirePlan::kindName(kind), word);
    QVERIFY(AcquirePlan::parseKind(QStringLiteral("TestKind")) == kind);
    LockSnapshot free;
    free.name = QStringLiteral("free:1");
    QVERIFY(AcquirePlan::decide(free, kind).kind == kind);
    LockSnapshot fair = free;
    fair.exists = fair.isLock = true;
    fair.queueLength = fair.timeoutSetSize = 1;
    QVERIFY2(AcquirePlan::decide(fair, kind).refusal.contains(QLatin1String("\"testkind\" would jump the queue")),
             qPrintable(AcquirePlan::decide(fair, kind).refusal));

    // lockscope-cli's --kind help.
    QVERIFY2(LockKinds::kindHelp().contains(QLatin1String("fenced or testkind")), qPrintable(LockKinds::kindHelp()));
    QCOMPARE(LockKinds::kindSynopsis(), QStringLiteral("lock|fair|read|write|fenced|testkind"));

    // The session: acquire with it, the acquired() event and the audit record (JSON) name it, and
    // the release uses it again.
    QTemporaryDir dir;
    const QString auditPath = dir.filePath(QStringLiteral("audit.jsonl"));
    LockSession::Options o;
    o.endpoint = m_server.endpoint();
    o.auditLogPath = auditPath;
    LockSession session(o);
    session.open();
    QString field, kindWord;
    connect(&session, &LockSession::acquired, this, [&](const QString &, const QString &f, const QString &k, qint64) {
        field = f;
        kindWord = k;
    });
    test::ActionOutcome out = test::runSessionAction(
        &session, [&] { session.acquire(QStringLiteral("reg"), 3, 20000, 0, kind); }, 30000);
    QVERIFY2(out.ok, qPrintable(out.message));
    QCOMPARE(kindWord, word);
    QCOMPARE(field, session.clientId() + QStringLiteral(":3"));
    QCOMPARE(m_admin->hget("reg", field.toUtf8()), QByteArray("1"));
    out = test::runSessionAction(
        &session, [&] { session.release(QStringLiteral("reg"), 3); }, 30000);
    QVERIFY2(out.ok && out.message.contains(QLatin1String("testkind unlock")), qPrintable(out.message));
    QVERIFY(!m_admin->exists("reg"));
    QFile audit(auditPath);
    QVERIFY(audit.open(QIODevice::ReadOnly));
    QString auditedKind;
    for (const QByteArray &line : audit.readAll().split('\n')) {
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        if (record.value(QStringLiteral("action")).toString() == QLatin1String("acquire"))
            auditedKind = record.value(QStringLiteral("args")).toObject().value(QStringLiteral("kind")).toString();
    }
    QCOMPARE(auditedKind, word);

    // Unregistered, it is gone again.
    unregister.dismiss();
    test::TestLockKind::unregisterKind();
    QVERIFY(!AcquirePlan::parseKind(word));
    QVERIFY(!LockVariantFactory::kinds().contains(kind));
}

// Each shipped kind's descriptor tells the truth about its variant: word, id, holder field and
// wait channel, and which kinds the front ends offer.
void TestLockVariant::descriptorsSayWhatTheVariantsDo()
{
    QStringList offered;
    for (const LockKindDescriptor &d : LockKinds::all()) {
        LockVariant *v = m_a->locks.value(d.kind);
        QVERIFY2(v, qPrintable(d.word));
        QVERIFY(v->kind() == d.kind);
        QCOMPARE(v->kindName(), d.word);
        QCOMPARE(v->holderField(7), d.holderFieldOf(m_a->client->clientId(), 7));
        QCOMPARE(QString::fromUtf8(v->waitChannel(QStringLiteral("orders"), 7)),
                 d.waitChannelOf(QStringLiteral("orders"), v->holderField(7)));
        QVERIFY(QByteArray(d.protocolSection).startsWith("\xc2\xa7")); // "§N"
        if (d.offered)
            offered << d.word;
    }
    QCOMPARE(offered.join(QLatin1Char('|')), LockKinds::kindSynopsis());
    QCOMPARE(offered, QStringList({"lock", "fair", "read", "write", "fenced"}));
}

void TestLockVariant::shapes()
{
    const QString base = m_a->client->clientId() + QStringLiteral(":7");
    const QString name = QStringLiteral("orders");
    QHash<AcquireKind, QString> field{
        {AcquireKind::Lock, base},   {AcquireKind::Fair, base},
        {AcquireKind::Read, base},   {AcquireKind::Write, base + QStringLiteral(":write")},
        {AcquireKind::Fenced, base}, {AcquireKind::Spin, base}};
    QHash<AcquireKind, QByteArray> channel{{AcquireKind::Lock, "redisson_lock__channel:{orders}"},
                                           {AcquireKind::Fair, "redisson_lock__channel:{orders}:" + base.toUtf8()},
                                           {AcquireKind::Read, "redisson_rwlock:{orders}"},
                                           {AcquireKind::Write, "redisson_rwlock:{orders}"},
                                           {AcquireKind::Fenced, "redisson_lock__channel:{orders}"},
                                           {AcquireKind::Spin, QByteArray()}};
    for (AcquireKind kind : LockVariantFactory::kinds()) {
        LockVariant *v = m_a->locks.value(kind);
        QCOMPARE(v->holderField(7), field.value(kind));
        QCOMPARE(v->waitChannel(name, 7), channel.value(kind));
    }
}

void TestLockVariant::holdRoundTripOfEveryKind()
{
    for (AcquireKind kind : LockVariantFactory::kinds()) {
        LockVariant *v = m_a->locks.value(kind);
        const QString name = QStringLiteral("variant:") + v->kindName();
        const QByteArray key = name.toUtf8();
        const QString field = v->holderField(1);

        AcquireResult r = awaitAcquire(
            [&](LockClient::AcquireCallback done) { v->tryAcquire(name, 1, 20000, nullptr, std::move(done)); });
        QVERIFY2(r.acquired, qPrintable(v->kindName() + QStringLiteral(": ") + r.error));
        QCOMPARE(r.token >= 1, kind == AcquireKind::Fenced);
        QCOMPARE(m_admin->hget(key, field.toUtf8()), QByteArray("1"));
        if (kind == AcquireKind::Read || kind == AcquireKind::Write)
            QCOMPARE(m_admin->hget(key, "mode"), kind == AcquireKind::Read ? QByteArray("read") : QByteArray("write"));

        test::BoolResult renewed =
            awaitBool([&](LockClient::BoolCallback done) { v->renew(name, 1, 60000, nullptr, std::move(done)); });
        QVERIFY2(renewed.ok, qPrintable(v->kindName() + QStringLiteral(": ") + renewed.error));
        QVERIFY2(m_admin->pttl(key) > 30000, qPrintable(v->kindName()));

        UnlockResult u =
            awaitUnlock([&](LockClient::UnlockCallback done) { v->unlock(name, 1, nullptr, std::move(done)); });
        QVERIFY2(u.status == UnlockResult::Status::Released,
                 qPrintable(v->kindName() + QStringLiteral(": ") + u.error));
        QVERIFY(!m_admin->exists(key));
        renewed = awaitBool([&](LockClient::BoolCallback done) { v->renew(name, 1, 60000, nullptr, std::move(done)); });
        QVERIFY2(!renewed.ok && renewed.error.isEmpty(), qPrintable(v->kindName()));

        r = awaitAcquire(
            [&](LockClient::AcquireCallback done) { v->tryAcquire(name, 1, 20000, nullptr, std::move(done)); });
        QVERIFY(r.acquired);
        test::BoolResult forced =
            awaitBool([&](LockClient::BoolCallback done) { v->forceUnlock(name, nullptr, std::move(done)); });
        QVERIFY2(forced.ok, qPrintable(v->kindName() + QStringLiteral(": ") + forced.error));
        QVERIFY(!m_admin->exists(key));
        forced = awaitBool([&](LockClient::BoolCallback done) { v->forceUnlock(name, nullptr, std::move(done)); });
        QVERIFY2(!forced.ok && forced.error.isEmpty(), qPrintable(v->kindName()));
    }
}

void TestLockVariant::waiterOfEveryKindWakesOnUnlock()
{
    for (AcquireKind kind : LockVariantFactory::kinds()) {
        // A reader is not kept out by another reader: it waits for a writer.
        const AcquireKind holderKind = kind == AcquireKind::Read ? AcquireKind::Write : kind;
        LockVariant *holder = m_b->locks.value(holderKind);
        LockVariant *waiter = m_a->locks.value(kind);
        const QString name = QStringLiteral("wake:") + waiter->kindName();
        AcquireResult held = awaitAcquire(
            [&](LockClient::AcquireCallback done) { holder->tryAcquire(name, 1, 30000, nullptr, std::move(done)); });
        QVERIFY2(held.acquired, qPrintable(waiter->kindName() + QStringLiteral(": ") + held.error));

        auto box = std::make_shared<Box<AcquireResult>>();
        QElapsedTimer clock;
        clock.start();
        waiter->acquire(name, 2, 30000, 20000, nullptr, test::fillBox(box));
        QTest::qWait(300); // the waiter has subscribed (or is polling)
        QVERIFY(!box->done);
        const UnlockResult u =
            awaitUnlock([&](LockClient::UnlockCallback done) { holder->unlock(name, 1, nullptr, std::move(done)); });
        QVERIFY(u.status == UnlockResult::Status::Released);
        // Woken by the unlock (or the spin lock's next poll), long before the 30 s lease ends.
        QVERIFY2(waitUntil([box] { return box->done; }, 10000), qPrintable(waiter->kindName()));
        QVERIFY2(box->value.acquired, qPrintable(waiter->kindName() + QStringLiteral(": ") + box->value.error));
        QVERIFY2(clock.elapsed() < 10000, qPrintable(waiter->kindName()));
        const UnlockResult mine =
            awaitUnlock([&](LockClient::UnlockCallback done) { waiter->unlock(name, 2, nullptr, std::move(done)); });
        QVERIFY(mine.status == UnlockResult::Status::Released);
    }
}

void TestLockVariant::forceUnlockPublishesWhatRedissonPublishes()
{
    // RedissonSpinLock.forceUnlockAsync only deletes: its waiters poll, and nothing is published.
    // RedissonLock's publishes "0" on the unlock channel; it serves as the marker that every
    // message of the spin lock's force unlock, had there been one, has been delivered.
    test::MessageListener listener(m_server.endpoint(), "redisson_lock__channel:*", test::MessageListener::Pattern);
    QVERIFY(listener.waitSubscribed());
    for (const auto &[kind, name] : {std::pair{AcquireKind::Spin, QStringLiteral("spun")},
                                     std::pair{AcquireKind::Lock, QStringLiteral("plain")}}) {
        LockVariant *v = m_a->locks.value(kind);
        const AcquireResult r = awaitAcquire(
            [&](LockClient::AcquireCallback done) { v->tryAcquire(name, 1, 20000, nullptr, std::move(done)); });
        QVERIFY(r.acquired);
        const test::BoolResult forced =
            awaitBool([&](LockClient::BoolCallback done) { v->forceUnlock(name, nullptr, std::move(done)); });
        QVERIFY2(forced.ok, qPrintable(v->kindName() + QStringLiteral(": ") + forced.error));
        QVERIFY(!m_admin->exists(name.toUtf8()));
    }
    QVERIFY(listener.waitFor("redisson_lock__channel:{plain}", "0"));
    QVERIFY2(listener.messages().size() == 1, listener.payloads().join(" ").constData());
}

QTEST_GUILESS_MAIN(TestLockVariant)

#include "tst_lockvariant.moc"
