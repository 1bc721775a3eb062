#include "demoworkload.h"

#include "lock/fairlock.h"
#include "lock/fencedlock.h"
#include "lock/lockclient.h"
#include "lock/readwritelock.h"
#include "redis/redisconnection.h"
#include "redis/redisconnectionpool.h"
#include "redis/redissubscriber.h"

#include <QRandomGenerator>
#include <QTimer>

namespace lockscope
{

DemoWorkload::DemoWorkload(const RedisEndpoint &endpoint, QObject *parent) : QObject(parent)
{
    for (int i = 0; i < 3; ++i) {
        auto *pool = new RedisConnectionPool(endpoint, this);
        pool->connection()->setClientName("lockscope-demo");
        m_pools << pool;
        auto *client = new LockClient(pool->connection(), pool->subscriber(), this);
        m_clients << client;
        m_fair << new FairLock(client, this);
        m_rw << new ReadWriteLock(client, this);
        m_fenced << new FencedLock(client, this);
    }
}

DemoWorkload::~DemoWorkload() = default;

static int jitter(int lowMs, int highMs)
{
    return QRandomGenerator::global()->bounded(lowMs, highMs);
}

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

    // Fair lock: enqueue in a known order, 300 ms apart, so the queue shows that order.
    const QList<QPair<int, qint64>> fairWaiters{{0, 11}, {1, 12}, {2, 13}, {1, 14}};
    for (int i = 0; i < fairWaiters.size(); ++i) {
        const auto w = fairWaiters[i];
        QTimer::singleShot(i * 300, this, [this, w] { fairTurn(w.first, w.second); });
    }
    readerCycle(0, 21, 5000);
    QTimer::singleShot(1500, this, [this] { readerCycle(1, 22, 4500); });
    QTimer::singleShot(800, this, &DemoWorkload::writerCycle);
    fencedCycle();
}

void DemoWorkload::fairTurn(int client, qint64 threadId)
{
    if (!m_running)
        return;
    const QString name = QStringLiteral("jobs:nightly");
    FairLock *fair = m_fair[client];
    fair->acquire(name, threadId, 15000, -1, this, [this, fair, client, threadId, name](const AcquireResult &r) {
        if (!r.acquired) {
            QTimer::singleShot(1000, this, [this, client, threadId] { fairTurn(client, threadId); });
            return;
        }
        QTimer::singleShot(jitter(1500, 2500), this, [this, fair, client, threadId, name] {
            fair->unlock(name, threadId, this, [this, client, threadId](const UnlockResult &) {
                QTimer::singleShot(jitter(300, 800), this, [this, client, threadId] { fairTurn(client, threadId); });
            });
        });
    });
}

void DemoWorkload::readerCycle(int client, qint64 threadId, int holdMs)
{
    if (!m_running)
        return;
    const QString name = QStringLiteral("config:rw");
    ReadWriteLock *rw = m_rw[client];
    rw->acquireRead(
        name, threadId, 20000, -1, this, [this, rw, client, threadId, holdMs, name](const AcquireResult &r) {
            if (!r.acquired) {
                QTimer::singleShot(1000, this,
                                   [this, client, threadId, holdMs] { readerCycle(client, threadId, holdMs); });
                return;
            }
            QTimer::singleShot(holdMs, this, [this, rw, client, threadId, holdMs, name] {
                rw->unlockRead(name, threadId, this, [this, client, threadId, holdMs](const UnlockResult &) {
                    // Readers pause long enough for the waiting writer to get its turn.
                    QTimer::singleShot(4000, this,
                                       [this, client, threadId, holdMs] { readerCycle(client, threadId, holdMs); });
                });
            });
        });
}

void DemoWorkload::writerCycle()
{
    if (!m_running)
        return;
    const QString name = QStringLiteral("config:rw");
    ReadWriteLock *rw = m_rw[2];
    rw->acquireWrite(name, 23, 20000, -1, this, [this, rw, name](const AcquireResult &r) {
        if (!r.acquired) {
            QTimer::singleShot(1000, this, &DemoWorkload::writerCycle);
            return;
        }
        QTimer::singleShot(1500, this, [this, rw, name] {
            rw->unlockWrite(name, 23, this, [this](const UnlockResult &) {
                QTimer::singleShot(2500, this, &DemoWorkload::writerCycle);
            });
        });
    });
}

void DemoWorkload::fencedCycle()
{
    if (!m_running)
        return;
    const QString name = QStringLiteral("ledger:fenced");
    FencedLock *fenced = m_fenced[1];
    fenced->acquire(name, 31, 10000, -1, this, [this, fenced, name](const AcquireResult &r) {
        QTimer::singleShot(r.acquired ? 2000 : 1000, this, [this, fenced, name, acquired = r.acquired] {
            if (!acquired) {
                fencedCycle();
                return;
            }
            fenced->unlock(name, 31, this, [this](const UnlockResult &) {
                QTimer::singleShot(1000, this, &DemoWorkload::fencedCycle);
            });
        });
    });
}

void DemoWorkload::stop()
{
    m_running = false;
}

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
