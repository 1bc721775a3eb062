#include "localcluster.h"

#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "redis/hashslot.h"

namespace lockscope::test {

LocalCluster::LocalCluster() = default;

LocalCluster::~LocalCluster() { stop(); }

bool LocalCluster::start(int masters, QString *error)
{
    stop();
    auto failWith = [error](const QString &e) {
        if (error)
            *error = e;
        return false;
    };
    QStringList addresses;
    for (int i = 0; i < masters; ++i) {
        auto node = std::make_unique<RedisServerProcess>();
        // The bus port defaults to port + 10000, which may be taken or beyond 65535: pick one.
        node->setExtraArguments({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                                 QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf"),
                                 QStringLiteral("--cluster-port"), QString::number(RedisServerProcess::freePort()),
                                 QStringLiteral("--cluster-node-timeout"), QStringLiteral("5000")});
        QString e;
        if (!node->start(10000, &e))
            return failWith(QStringLiteral("node %1: %2").arg(i).arg(e));
        addresses << QStringLiteral("127.0.0.1:%1").arg(node->port());
        m_nodes.push_back(std::move(node));
    }
    QStringList args{QStringLiteral("--cluster"), QStringLiteral("create")};
    args << addresses << QStringLiteral("--cluster-replicas") << QStringLiteral("0") << QStringLiteral("--cluster-yes");
    const ProcessResult created = runProcess(redisCliPath(), args, 60000);
    if (!created.finished || created.exitCode != 0)
        return failWith(QStringLiteral("redis-cli --cluster create: %1").arg(created.describe()));
    for (int i = 0; i < masters; ++i) {
        SyncClient c(endpoint(i));
        if (!c.open())
            return failWith(QStringLiteral("node %1 does not answer").arg(i));
        const bool ok = waitUntil([&] { return c.cmd({"CLUSTER", "INFO"}).toByteArray().contains("cluster_state:ok"); }, 30000);
        if (!ok)
            return failWith(QStringLiteral("node %1 never reached cluster_state:ok").arg(i));
    }
    // Every node must also agree on the slot owners before tests route by them.
    for (int i = 0; i < masters; ++i) {
        SyncClient c(endpoint(i));
        c.open();
        const bool agreed = waitUntil([&] { return c.cmd({"CLUSTER", "SLOTS"}).size() == masters; }, 30000);
        if (!agreed)
            return failWith(QStringLiteral("node %1 does not list %2 slot ranges").arg(i).arg(masters));
    }
    return true;
}

void LocalCluster::stop()
{
    for (auto &n : m_nodes)
        n->stop();
    m_nodes.clear();
}

quint16 LocalCluster::port(int i) const { return m_nodes.at(size_t(i))->port(); }

RedisEndpoint LocalCluster::endpoint(int i) const { return m_nodes.at(size_t(i))->endpoint(); }

QString LocalCluster::url(int i) const { return m_nodes.at(size_t(i))->url(); }

int LocalCluster::indexOfPort(quint16 p) const
{
    for (int i = 0; i < size(); ++i)
        if (port(i) == p)
            return i;
    return -1;
}

int LocalCluster::nodeOf(const QByteArray &key) const
{
    SyncClient c(endpoint(0));
    if (!c.open())
        return -1;
    const int slot = HashSlot::of(key);
    const RedisReply slotReply = c.cmd({"CLUSTER", "SLOTS"});
    for (const RedisReply &r : slotReply.elements())
        if (slot >= r.at(0).toInteger() && slot <= r.at(1).toInteger())
            return indexOfPort(quint16(r.at(2).at(1).toInteger()));
    return -1;
}

QByteArray LocalCluster::nodeId(int i) const
{
    SyncClient c(endpoint(i));
    if (!c.open())
        return QByteArray();
    return c.cmd({"CLUSTER", "MYID"}).toByteArray();
}

} // namespace lockscope::test
