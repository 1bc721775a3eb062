#include "demoworkload.h"

#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/redissubscriber.h"

#include <QRandomGenerator>
#include <QTimer>

namespace lockscope {

DemoWorkload::DemoWorkload(const RedisEndpoint &endpoint, QObject *parent) : QObject(parent)
{
    for (int i = 0; i < 3; ++i) {
        auto *pool = new RedisConnectionPool(endpoint, this);
        pool->connection()->setClientName("lockscope-demo");
        m_pools << pool;
        m_clients << new LockClient(pool->connection(), pool->subscriber(), this);
    }
}

DemoWorkload::~DemoWorkload() = default;

static int jitter(int lowMs, int highMs) { return QRandomGenerator::global()->bounded(lowMs, highMs); }

void DemoWorkload::start()
{
    if (m_running)
        return;
    m_running = true;
    for (auto *pool : m_pools) {
        pool->connection()->open();
        pool->subscriber()->open();
    }
    LockClient *billing = m_clients[0];
    LockClient *inventory = m_clients[1];
    LockClient *reports = m_clients[2];

    // A watchdog-held, reentrant lock whose owner never releases it.
    billing->acquire(QStringLiteral("orders:42"), 1, 0, -1, this, [billing, this](const AcquireResult &) {
        billing->acquire(QStringLiteral("orders:42"), 1, 0, -1, this, nullptr);
    });
    // An old client that wrote its lock without PEXPIRE: it never expires.
    m_pools[2]->connection()->send({"HSET", "legacy:cron", reports->holderField(88).toUtf8(), "1"});

    expiringLease();
    reentrantCycle();
    contend(billing, 5);
    contend(inventory, 9);
    contend(reports, 3);
    Q_UNUSED(inventory);
}

void DemoWorkload::stop() { m_running = false; }

void DemoWorkload::expiringLease()
{
    if (!m_running)
        return;
    m_clients[1]->tryAcquire(QStringLiteral("inventory:7"), 17, 20000, this, [this](const AcquireResult &) {
        QTimer::singleShot(25000, this, &DemoWorkload::expiringLease);
    });
}

void DemoWorkload::reentrantCycle()
{
    if (!m_running)
        return;
    LockClient *c = m_clients[2];
    const QString name = QStringLiteral("reports:daily");
    // Hold count 1 -> 2 -> 3 at 1 s intervals, then 3 -> 2 -> 1 -> 0 at 2 s intervals, pause, repeat.
    for (int i = 0; i < 3; ++i)
        QTimer::singleShot(i * 1000, this, [this, c, name] {
            if (m_running)
                c->acquire(name, 1, 15000, 5000, this, nullptr);
        });
    for (int i = 0; i < 3; ++i)
        QTimer::singleShot(4000 + i * 2000, this, [this, c, name] {
            if (m_running)
                c->unlock(name, 1, this, nullptr);
        });
    QTimer::singleShot(13000, this, &DemoWorkload::reentrantCycle);
}

void DemoWorkload::contend(LockClient *client, qint64 threadId)
{
    if (!m_running)
        return;
    const QString name = QStringLiteral("payments:batch");
    client->acquire(name, threadId, 10000, -1, this, [this, client, threadId, name](const AcquireResult &r) {
        if (!r.acquired) {
            QTimer::singleShot(1000, this, [this, client, threadId] { contend(client, threadId); });
            return;
        }
        QTimer::singleShot(jitter(2000, 4000), this, [this, client, threadId, name] {
            client->unlock(name, threadId, this, [this, client, threadId](const UnlockResult &) {
                QTimer::singleShot(jitter(500, 1500), this, [this, client, threadId] { contend(client, threadId); });
            });
        });
    });
}

} // namespace lockscope
