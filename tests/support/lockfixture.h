#pragma once

// The fixture of the lock client suites (tst_lockclient, tst_fairlock, tst_readwritelock,
// tst_fencedlock, tst_spinlock): one redis-server per test case, an admin SyncClient, and
// Redisson-like participants, each with its own connections and client id. Calls on the objects
// under test are awaited with test::await, so the event loop keeps running meanwhile.

#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "endpoint/redisendpoint.h"
#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QObject>
#include <QString>
#include <QTest>

#include <functional>
#include <memory>

namespace lockscope::test
{

/** The answer of a LockClient::BoolCallback. */
struct BoolResult {
    bool ok = false;
    QString error;
};

/** Awaits one acquire/unlock/bool call: `start` makes the call with the given callback. On no
 *  answer within `timeoutMs` the result carries the error "test: no answer" (ok=false). */
AcquireResult awaitAcquire(const std::function<void(LockClient::AcquireCallback)> &start, int timeoutMs = 10000);
UnlockResult awaitUnlock(const std::function<void(LockClient::UnlockCallback)> &start, int timeoutMs = 10000);
BoolResult awaitBool(const std::function<void(LockClient::BoolCallback)> &start, int timeoutMs = 10000);

/** A Redisson-like participant: its own command connection, pub/sub connection (unless
 *  `withSubscriber` is false) and LockClient, with a fresh client id unless one is given. */
struct LockParticipant {
    std::unique_ptr<RedisConnection> connection;
    std::unique_ptr<RedisSubscriber> subscriber;
    std::unique_ptr<LockClient> client;

    explicit LockParticipant(const RedisEndpoint &endpoint, bool withSubscriber = true,
                             const QString &clientId = QString());
    /** The client goes first: it refers to both connections. */
    ~LockParticipant();
    LockParticipant(const LockParticipant &) = delete;
    LockParticipant &operator=(const LockParticipant &) = delete;

    /** Waits until both connections are ready. */
    bool waitReady();
    QString field(qint64 thread) const { return client->holderField(thread); }
};

/**
 * A participant using one lock kind that has LockClient's tryAcquire/acquire/unlock signatures
 * (FairLock, FencedLock, SpinLock), built on its client and destroyed before it.
 */
template <typename Lock> struct LockKindParticipant : LockParticipant {
    std::unique_ptr<Lock> lock;

    explicit LockKindParticipant(const RedisEndpoint &endpoint, const QString &clientId = QString())
        : LockParticipant(endpoint, true, clientId), lock(std::make_unique<Lock>(client.get()))
    {
    }

    AcquireResult tryAcquire(const QString &name, qint64 thread, qint64 leaseMs)
    {
        return awaitAcquire([&](LockClient::AcquireCallback done) {
            lock->tryAcquire(name, thread, leaseMs, nullptr, std::move(done));
        });
    }
    /** Starts a waiting acquire; the box is filled when it ends. */
    std::shared_ptr<Box<AcquireResult>> startAcquire(const QString &name, qint64 thread, qint64 leaseMs, qint64 waitMs,
                                                     QObject *context = nullptr)
    {
        auto box = std::make_shared<Box<AcquireResult>>();
        lock->acquire(name, thread, leaseMs, waitMs, context, fillBox(box));
        return box;
    }
    UnlockResult unlock(const QString &name, qint64 thread)
    {
        return awaitUnlock(
            [&](LockClient::UnlockCallback done) { lock->unlock(name, thread, nullptr, std::move(done)); });
    }
};

/**
 * Base of a lock suite's test class; the class inherits these fixture slots (Qt Test runs
 * inherited initTestCase/cleanupTestCase/init/cleanup):
 * - initTestCase starts m_server (settings such as keyspace notifications go in the test class's
 *   constructor) and the admin client m_admin; cleanupTestCase stops both;
 * - init empties the database (FLUSHALL) and starts the participants; cleanup drops them.
 */
class LockTestBase : public QObject
{
    Q_OBJECT

protected:
    /** Makes the participants of one test function and waits until they are connected. */
    virtual void startParticipants() = 0;
    virtual void stopParticipants() = 0;

    RedisServerProcess m_server;
    std::unique_ptr<SyncClient> m_admin;

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();
};

/** LockTestBase with participants m_a and m_b of type `Participant`, constructed from the
 *  server's RedisEndpoint (the suite's own connections, client id and lock objects). */
template <typename Participant> class LockTestCase : public LockTestBase
{
protected:
    void startParticipants() override
    {
        m_a = std::make_unique<Participant>(m_server.endpoint());
        m_b = std::make_unique<Participant>(m_server.endpoint());
        QVERIFY(m_a->waitReady());
        QVERIFY(m_b->waitReady());
    }
    void stopParticipants() override
    {
        m_a.reset();
        m_b.reset();
    }

    std::unique_ptr<Participant> m_a;
    std::unique_ptr<Participant> m_b;
};

} // namespace lockscope::test
