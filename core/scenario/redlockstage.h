#pragma once

#include "stepreport.h"

#include "lock/multilock.h"

#include <QHash>
#include <QObject>
#include <QVector>

#include <functional>
#include <memory>
#include <vector>

namespace lockscope
{

class LockClient;
class RedisConnection;
class RedisServerProcess;
class RedisSubscriber;

/**
 * The independent Redis servers of a workshop RedLock scenario (protocol §5.4): N private
 * redis-servers started next to the scenario's own, one LockClient per (actor, server) with the
 * actor's client id, and a RedissonRedLock-rules MultiLock per actor over all N. A server can be
 * stopped (SIGKILL-like stop of its process) to show the quorum surviving a lost master.
 */
class RedLockStage : public QObject
{
    Q_OBJECT
public:
    explicit RedLockStage(QObject *parent = nullptr);
    ~RedLockStage() override;

    /** Starts `count` servers (blocking, a few hundred ms each). False with `*error`. */
    bool start(int count, QString *error);
    /** Creates the actor's clients (one per server) with `clientId`; their connections are
     *  returned for the caller to open and wait on. */
    QVector<QObject *> addActor(const QString &actor, const QString &clientId, qint64 watchdogTimeoutMs);
    /** Opens every connection created by addActor() and the stage's own read connections. */
    void open();
    /** The actor's RedLock on `lockName` over every server (RedLock rules: N/2 + 1), created on
     *  first use; nullptr for an actor never added. */
    MultiLock *redLockOf(const QString &actor, const QString &lockName);
    /** The actor's own LockClient on server `index` (0-based): a plain RLock there, for the
     *  replication scenarios; nullptr for an actor never added. */
    LockClient *clientOf(const QString &actor, int index) const;
    /** Server `index` replicates server `master` (0-based; -1 = it is a master). Only recorded
     *  here: the REPLICAOF itself is the `replicate` action's. A replica is left out of the stage
     *  clock (it refuses writes, and a paused one would hold them). */
    void setReplicaOf(int index, int master);
    int replicaOf(int index) const;
    /** Kills server `index` (0-based, SIGKILL: at once, as a crash); its clients then fail fast. */
    void stopServer(int index);
    /**
     * Starts stopped server `index` again, empty, on the same address (stepping back before its
     * stop: the caller then restores its keys), and makes every connection to it reconnect at
     * once (commands sent meanwhile wait for the connection). Blocking, a few hundred ms at
     * most. True at once for a running server; false with `*error` when it does not come up.
     */
    bool restartServer(int index, QString *error);
    /** The name dump() gives server `index`'s copy of `lockName`. */
    QString keyName(int index, const QString &lockName) const;
    int count() const { return int(m_servers.size()); }
    QString address(int index) const;
    bool isStopped(int index) const;
    /** The stage's own read connection to server `index` (0-based), for the stage clock; nullptr
     *  once that server is stopped. */
    RedisConnection *reader(int index) const;
    /**
     * Reads `lockName` on every server (HGETALL + PTTL, read-only) as keys named
     * "server N (host:port) · lockName"; a stopped server shows as a key of type "down".
     */
    void dump(const QString &lockName, std::function<void(const StepReport::Keys &)> then);

private:
    std::vector<std::unique_ptr<RedisServerProcess>> m_servers;
    QVector<bool> m_stopped;
    QVector<int> m_replicaOf;             ///< per server: the server it replicates, -1 none
    QVector<RedisConnection *> m_readers; ///< one per server, for dump()
    QVector<QObject *> m_toOpen;
    QVector<QVector<QObject *>> m_links;             ///< per server: every connection and subscriber to it
    QHash<QString, QVector<LockClient *>> m_clients; ///< actor -> one client per server
    QHash<QString, MultiLock *> m_redLocks;          ///< "actor\nlock" -> its RedLock
};

} // namespace lockscope
