#include "lockfixture.h"

namespace lockscope::test
{

namespace
{

QString noAnswer()
{
    return QStringLiteral("test: no answer");
}

} // namespace

AcquireResult awaitAcquire(const std::function<void(LockClient::AcquireCallback)> &start, int timeoutMs)
{
    AcquireResult none;
    none.error = noAnswer();
    return await(start, none, timeoutMs);
}

UnlockResult awaitUnlock(const std::function<void(LockClient::UnlockCallback)> &start, int timeoutMs)
{
    UnlockResult none;
    none.error = noAnswer();
    return await(start, none, timeoutMs);
}

BoolResult awaitBool(const std::function<void(LockClient::BoolCallback)> &start, int timeoutMs)
{
    return await(
        [&](const std::function<void(const BoolResult &)> &deliver) {
            start([deliver](bool ok, const QString &error) { deliver({ok, error}); });
        },
        BoolResult{false, noAnswer()}, timeoutMs);
}

LockParticipant::LockParticipant(const RedisEndpoint &endpoint, bool withSubscriber, const QString &clientId)
{
    connection = std::make_unique<RedisConnection>(endpoint);
    connection->setReconnectDelaysMs(20, 200);
    connection->open();
    if (withSubscriber) {
        subscriber = std::make_unique<RedisSubscriber>(endpoint);
        subscriber->open();
    }
    client = std::make_unique<LockClient>(connection.get(), subscriber.get(), nullptr, clientId);
}

LockParticipant::~LockParticipant()
{
    client.reset();
    subscriber.reset();
    connection.reset();
}

bool LockParticipant::waitReady()
{
    return waitUntil([this] { return connection->isReady() && (!subscriber || subscriber->isReady()); });
}

void LockTestBase::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    m_admin = std::make_unique<SyncClient>(m_server.endpoint(), "test-admin");
    QVERIFY(m_admin->open());
}

void LockTestBase::cleanupTestCase()
{
    m_admin.reset();
    m_server.stop();
}

void LockTestBase::init()
{
    m_admin->flushall();
    startParticipants();
}

void LockTestBase::cleanup()
{
    stopParticipants();
}

} // namespace lockscope::test
