#pragma once

#include "endpoint/redisendpoint.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <vector>

class QProcess;

namespace lockscope
{
class RedisServerProcess;
}

namespace lockscope::test
{

/**
 * A real Redis Sentinel set-up on loopback, for tests: one master and `replicas` replicas
 * (private redis-servers, RedisServerProcess, with `--repl-diskless-sync-delay 0` so a new replica
 * syncs at once) and `sentinels` sentinels (`redis-server sentinel.conf --sentinel`, each with its own
 * writable sentinel.conf in a temp dir) monitoring the master as `masterName` with quorum 2,
 * down-after-milliseconds 1000 and failover-timeout 3000. Every process is killed by stop() or
 * the destructor (and by the kernel if the test dies: PR_SET_PDEATHSIG).
 *
 * The servers start with notify-keyspace-events `notifyFlags` ("" = off, so tests can check that
 * LockScope turns them on again on the new master when asked to).
 *
 * Two replicas (the default) allow failovers one after the other: the sentinels move the other
 * replica to the new master during a failover, while an old master comes back as a replica only
 * after two of the sentinels' 10 s INFO rounds.
 */
class LocalSentinel
{
public:
    explicit LocalSentinel(const QString &masterName = QStringLiteral("mymaster"));
    ~LocalSentinel();

    /** Starts everything and waits until every sentinel knows the replica and the other sentinels
     *  (blocking, spins the event loop). */
    bool start(QString *error, int sentinels = 3, int replicas = 2, const QString &notifyFlags = QString());
    void stop();

    QString masterName() const { return m_masterName; }
    QList<quint16> sentinelPorts() const { return m_sentinelPorts; }
    /** `redis-sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3#mymaster`. */
    QString url() const;
    /** Port of the master as sentinel `index` names it now (-1: the first live one; 0 when it
     *  cannot tell). */
    quint16 masterPort(int index = -1) const;
    /** Ports of the data servers (master and replicas, in start order). */
    QList<quint16> serverPorts() const;
    /** The data server (master or replica) listening on `port`; nullptr if none. */
    RedisServerProcess *server(quint16 port) const;
    RedisEndpoint endpoint(quint16 port) const { return RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), port); }

    /** Waits until every sentinel names the same master, knows a replica whose link is up and
     *  knows the other sentinels: a failover can then be started. */
    bool waitReady(int timeoutMs = 30000, QString *error = nullptr);
    /** `SENTINEL FAILOVER <name>` on sentinel `index` (a forced failover, no agreement needed). */
    bool forceFailover(QString *error = nullptr, int index = 0);
    /** Kills sentinel `index` (SIGKILL); waitReady() and masterPort() then skip it. */
    void killSentinel(int index);
    /** Index of the first sentinel still running. */
    int firstLiveSentinel() const;
    /** SIGKILL of the current master's process: the sentinels must notice and agree (ODOWN). */
    bool killMaster(QString *error = nullptr);
    /** Waits until the first live sentinel names a master other than `oldPort`; returns its port, or 0. */
    quint16 waitNewMaster(quint16 oldPort, int timeoutMs = 30000) const;

private:
    QString m_masterName;
    std::vector<std::unique_ptr<RedisServerProcess>> m_servers;
    std::vector<std::unique_ptr<QProcess>> m_sentinels;
    std::vector<std::unique_ptr<QTemporaryDir>> m_sentinelDirs;
    QList<quint16> m_sentinelPorts;
};

} // namespace lockscope::test
