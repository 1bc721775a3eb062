#include "localcluster.h"

#include "testsupport.h"

#include "demo/redisserverprocess.h"
#include "redis/hashslot.h"

#include <QThread>

#include <signal.h>
#include <sys/types.h>

namespace lockscope::test
{

LocalCluster::LocalCluster() = default;

LocalCluster::~LocalCluster()
{
    stop();
}

bool LocalCluster::start(int masters, QString *error)
{
    return start(masters, 0, error);
}

bool LocalCluster::start(int masters, int replicasPerMaster, QString *error)
{
    stop();
    const int total = masters * (1 + replicasPerMaster);
    auto failWith = [error](const QString &e) {
        if (error)
            *error = e;
        return false;
    };
    QStringList addresses;
    for (int i = 0; i < total; ++i) {
        auto node = std::make_unique<RedisServerProcess>();
        // The bus port defaults to port + 10000, which may be taken or beyond 65535: pick one.
        // Validity factor 0: a replica takes over however long ago it last heard from its master.
        node->setExtraArguments({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                                 QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf"),
                                 QStringLiteral("--cluster-port"), QString::number(RedisServerProcess::freePort()),
                                 QStringLiteral("--cluster-node-timeout"), QString::number(m_nodeTimeoutMs),
                                 QStringLiteral("--cluster-replica-validity-factor"), QStringLiteral("0")});
        QString e;
        if (!node->start(10000, &e))
            return failWith(QStringLiteral("node %1: %2").arg(i).arg(e));
        addresses << QStringLiteral("127.0.0.1:%1").arg(node->port());
        m_nodes.push_back(std::move(node));
        m_down.push_back(false);
    }
    QStringList args{QStringLiteral("--cluster"), QStringLiteral("create")};
    args << addresses << QStringLiteral("--cluster-replicas") << QString::number(replicasPerMaster)
         << QStringLiteral("--cluster-yes");
    const ProcessResult created = runProcess(redisCliPath(), args, 60000);
    if (!created.finished || created.exitCode != 0)
        return failWith(QStringLiteral("redis-cli --cluster create: %1").arg(created.describe()));
    for (int i = 0; i < total; ++i) {
        SyncClient c(endpoint(i));
        if (!c.open())
            return failWith(QStringLiteral("node %1 does not answer").arg(i));
        const bool ok = waitUntil(
            [&] {
                return c.cmd({"CLUSTER", "INFO"}).toByteArray().contains("cluster_state:ok");
            },
            30000);
        if (!ok)
            return failWith(QStringLiteral("node %1 never reached cluster_state:ok").arg(i));
    }
    // Every node must also agree on the slot owners (and know every replica, so that masters can
    // vote in a failover) before tests route by them.
    for (int i = 0; i < total; ++i) {
        SyncClient c(endpoint(i));
        c.open();
        const bool agreed = waitUntil(
            [&] {
                const RedisReply ranges = c.cmd({"CLUSTER", "SLOTS"});
                if (ranges.size() != masters)
                    return false;
                for (const RedisReply &r : ranges.elements())
                    if (r.size() != 3 + replicasPerMaster)
                        return false;
                return true;
            },
            30000);
        if (!agreed)
            return failWith(QStringLiteral("node %1 does not list %2 slot ranges with %3 replica(s) each")
                                .arg(i)
                                .arg(masters)
                                .arg(replicasPerMaster));
        if (c.cmd({"ROLE"}).at(0).toByteArray() == "slave") {
            const bool linked = waitUntil(
                [&] {
                    return c.cmd({"INFO", "replication"}).toByteArray().contains("master_link_status:up");
                },
                30000);
            if (!linked)
                return failWith(QStringLiteral("replica %1 never synced with its master").arg(i));
        }
    }
    return true;
}

void LocalCluster::kill(int i)
{
    ::kill(pid_t(m_nodes.at(size_t(i))->pid()), SIGKILL);
    m_down.at(size_t(i)) = true;
}

void LocalCluster::pause(int i)
{
    ::kill(pid_t(m_nodes.at(size_t(i))->pid()), SIGSTOP);
    m_down.at(size_t(i)) = true;
}

void LocalCluster::resume(int i)
{
    ::kill(pid_t(m_nodes.at(size_t(i))->pid()), SIGCONT);
    m_down.at(size_t(i)) = false;
}

bool LocalCluster::isUp(int i) const
{
    return !m_down.at(size_t(i));
}

bool LocalCluster::isMaster(int i) const
{
    if (!isUp(i))
        return false;
    SyncClient c(endpoint(i));
    return c.open(2000) && c.cmd({"ROLE"}, 2000).at(0).toByteArray() == "master";
}

int LocalCluster::masterOf(int i) const
{
    if (!isUp(i))
        return -1;
    SyncClient c(endpoint(i));
    if (!c.open(2000))
        return -1;
    const RedisReply role = c.cmd({"ROLE"}, 2000); // slave, master host, master port, state, offset
    if (role.at(0).toByteArray() != "slave")
        return -1;
    return indexOfPort(quint16(role.at(2).toInteger()));
}

QList<int> LocalCluster::replicasOf(int i) const
{
    QList<int> out;
    for (int j = 0; j < size(); ++j)
        if (j != i && masterOf(j) == i)
            out << j;
    return out;
}

int LocalCluster::waitForPromotion(const QList<int> &replicas, int timeoutMs) const
{
    int promoted = -1;
    waitUntil(
        [&] {
            for (int r : replicas) {
                if (!isMaster(r))
                    continue;
                // Every live node routes some slots to it.
                const QByteArray address = QByteArray::number(port(r));
                bool everyone = true;
                for (int j = 0; j < size() && everyone; ++j) {
                    if (!isUp(j))
                        continue;
                    SyncClient c(endpoint(j));
                    bool found = false;
                    if (c.open(2000)) {
                        // Keep the reply alive: elements() refers into it (a temporary would dangle).
                        const RedisReply slotsReply = c.cmd({"CLUSTER", "SLOTS"}, 2000);
                        for (const RedisReply &range : slotsReply.elements())
                            found = found || QByteArray::number(range.at(2).at(1).toInteger()) == address;
                    }
                    everyone = found;
                }
                if (everyone) {
                    promoted = r;
                    return true;
                }
            }
            QThread::msleep(50);
            return false;
        },
        timeoutMs);
    return promoted;
}

void LocalCluster::stop()
{
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (m_down.at(i))
            ::kill(pid_t(m_nodes.at(i)->pid()), SIGCONT); // a paused node cannot handle SIGTERM
        m_nodes.at(i)->stop();
    }
    m_nodes.clear();
    m_down.clear();
}

quint16 LocalCluster::port(int i) const
{
    return m_nodes.at(size_t(i))->port();
}

RedisEndpoint LocalCluster::endpoint(int i) const
{
    return m_nodes.at(size_t(i))->endpoint();
}

QString LocalCluster::url(int i) const
{
    return m_nodes.at(size_t(i))->url();
}

int LocalCluster::indexOfPort(quint16 p) const
{
    for (int i = 0; i < size(); ++i)
        if (port(i) == p)
            return i;
    return -1;
}

int LocalCluster::nodeOf(const QByteArray &key) const
{
    int asked = 0;
    while (asked < size() && !isUp(asked))
        ++asked;
    if (asked == size())
        return -1;
    SyncClient c(endpoint(asked));
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
