#include "redlockstage.h"

#include "demo/redisserverprocess.h"
#include "lock/lockclient.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "redis/redissubscriber.h"

#include <QJsonObject>

namespace lockscope
{

RedLockStage::RedLockStage(QObject *parent) : QObject(parent) {}

RedLockStage::~RedLockStage() = default;

bool RedLockStage::start(int count, QString *error)
{
    for (int i = 0; i < count; ++i) {
        auto server = std::make_unique<RedisServerProcess>();
        QString why;
        if (!server->start(10000, &why)) {
            *error = QStringLiteral("cannot start RedLock server %1 of %2: %3").arg(i + 1).arg(count).arg(why);
            return false;
        }
        auto *reader = new RedisConnection(server->endpoint(), this);
        reader->setClientName("lockscope-workshop-redlock");
        m_readers << reader;
        m_toOpen << reader;
        m_links.append({reader});
        m_servers.push_back(std::move(server));
        m_stopped << false;
        m_replicaOf << -1;
    }
    return true;
}

LockClient *RedLockStage::clientOf(const QString &actor, int index) const
{
    const auto clients = m_clients.constFind(actor);
    return clients != m_clients.cend() && index >= 0 && index < clients->size() ? clients->at(index) : nullptr;
}

void RedLockStage::setReplicaOf(int index, int master)
{
    if (index >= 0 && index < count())
        m_replicaOf[index] = master;
}

int RedLockStage::replicaOf(int index) const
{
    return index >= 0 && index < count() ? m_replicaOf.at(index) : -1;
}

QVector<QObject *> RedLockStage::addActor(const QString &actor, const QString &clientId, qint64 watchdogTimeoutMs)
{
    QVector<QObject *> created;
    QVector<LockClient *> clients;
    for (int i = 0; i < count(); ++i) {
        const auto &server = m_servers[i];
        auto *connection = new RedisConnection(server->endpoint(), this);
        connection->setClientName(QStringLiteral("workshop-%1").arg(actor).toUtf8());
        // A stopped server must fail the component at once, not stall the RedLock.
        connection->setConnectTimeoutMs(1000);
        auto *subscriber = new RedisSubscriber(server->endpoint(), this);
        auto *client = new LockClient(connection, subscriber, this, clientId);
        client->setWatchdogTimeoutMs(watchdogTimeoutMs);
        clients << client;
        created << connection;
        m_toOpen << connection << subscriber;
        m_links[i] << connection << subscriber;
    }
    m_clients.insert(actor, clients);
    return created;
}

MultiLock *RedLockStage::redLockOf(const QString &actor, const QString &lockName)
{
    const QString key = actor + QLatin1Char('\n') + lockName;
    if (MultiLock *m = m_redLocks.value(key))
        return m;
    const auto clients = m_clients.constFind(actor);
    if (clients == m_clients.cend())
        return nullptr;
    QVector<MultiLockComponent> components;
    for (int i = 0; i < clients->size(); ++i)
        components << MultiLockComponent{clients->at(i), lockName, address(i)};
    auto *m = new MultiLock(MultiLock::Mode::RedLock, components, this);
    m_redLocks.insert(key, m);
    return m;
}

void RedLockStage::open()
{
    for (QObject *o : std::as_const(m_toOpen)) {
        if (auto *c = qobject_cast<RedisConnection *>(o))
            c->open();
        else if (auto *s = qobject_cast<RedisSubscriber *>(o))
            s->open();
    }
}

void RedLockStage::stopServer(int index)
{
    if (index < 0 || index >= count() || m_stopped.at(index))
        return;
    // Killed, as a crashed server is: a clean SIGTERM shutdown waits for lagging replicas (a
    // paused one never catches up), and that wait would freeze the workshop's GUI thread.
    m_servers[index]->kill();
    m_stopped[index] = true;
}

bool RedLockStage::restartServer(int index, QString *error)
{
    if (index < 0 || index >= count() || !m_stopped.at(index))
        return true;
    QString why;
    if (!m_servers[index]->restart(10000, &why)) {
        *error = QStringLiteral("cannot start RedLock server %1 again: %2").arg(index + 1).arg(why);
        return false;
    }
    m_stopped[index] = false;
    const QString reason = QStringLiteral("the workshop restarted server %1").arg(index + 1);
    for (QObject *o : std::as_const(m_links[index])) {
        if (auto *c = qobject_cast<RedisConnection *>(o))
            c->reconnectNow(reason);
        else if (auto *sub = qobject_cast<RedisSubscriber *>(o))
            sub->connection()->reconnectNow(reason);
    }
    return true;
}

QString RedLockStage::address(int index) const
{
    return index >= 0 && index < count() ? m_servers[index]->endpoint().address() : QString();
}

QString RedLockStage::keyName(int index, const QString &lockName) const
{
    return QStringLiteral("server %1 (%2) · %3").arg(index + 1).arg(address(index), lockName);
}

bool RedLockStage::isStopped(int index) const
{
    return index >= 0 && index < count() && m_stopped.at(index);
}

RedisConnection *RedLockStage::reader(int index) const
{
    return index >= 0 && index < count() && !m_stopped.at(index) ? m_readers.at(index) : nullptr;
}

void RedLockStage::dump(const QString &lockName, std::function<void(const StepReport::Keys &)> then)
{
    struct Acc {
        int pending = 0;
        StepReport::Keys keys;
        std::function<void(const StepReport::Keys &)> then;
    };
    auto acc = std::make_shared<Acc>();
    acc->then = std::move(then);
    acc->pending = count();
    auto one = [acc] {
        if (--acc->pending == 0)
            acc->then(acc->keys);
    };
    if (count() == 0) {
        acc->then(acc->keys);
        return;
    }
    for (int i = 0; i < count(); ++i) {
        const QString key = keyName(i, lockName);
        if (m_stopped.at(i)) {
            acc->keys.insert(key, StepReport::Key{QStringLiteral("down"), -1, QStringLiteral("stopped")});
            one();
            continue;
        }
        m_readers[i]->pipeline(
            {{"HGETALL", lockName.toUtf8()}, {"PTTL", lockName.toUtf8()}}, this,
            [acc, key, one](const QVector<RedisReply> &r) {
                if (r.size() == 2 && !r[0].isError() && r[0].size() > 0) {
                    QJsonObject fields;
                    for (int f = 0; f + 1 < r[0].size(); f += 2)
                        fields.insert(QString::fromUtf8(r[0].at(f).toByteArray()),
                                      QString::fromUtf8(r[0].at(f + 1).toByteArray()));
                    acc->keys.insert(key, StepReport::Key{QStringLiteral("hash"), r[1].toInteger(-1), fields});
                }
                one();
            });
    }
}

} // namespace lockscope
