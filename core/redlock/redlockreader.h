#pragma once

#include "redlock/redlockstatus.h"

#include "endpoint/redisendpoint.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <functional>

namespace lockscope
{

class RedisConnection;
class SnapshotReader;

/**
 * The read-only RedLock / MultiLock view (protocol §5.3, §5.4): reads one component lock on each
 * of N independent servers with SnapshotReader (one atomic read-only script per server, nothing
 * written) and evaluates the quorum verdict (RedLockStatus::evaluate).
 *
 * It owns one RedisConnection per server, opened on the first read() and kept (with
 * auto-reconnect) for the next ones, so a view can refresh on a timer. A server that is down or
 * slow is reported as unreachable with the connection's sentence, after at most the connect
 * timeout (default 1000 ms) or the command timeout (default 2000 ms), so one stopped server does
 * not stall the others. Lives on one thread (the thread of its QObject), like the connections;
 * a GUI on another thread calls refresh() through a queued invocation and listens to statusRead().
 */
class RedLockReader : public QObject
{
    Q_OBJECT
public:
    /** One component: the server and the lock name on it (Redisson's RedLock allows different names). */
    struct Target {
        RedisEndpoint endpoint;
        QString name;
    };
    using Callback = std::function<void(const RedLockStatus &status)>;

    static constexpr int kDefaultConnectTimeoutMs = 1000;
    static constexpr int kDefaultCommandTimeoutMs = 2000;

    explicit RedLockReader(const QVector<Target> &targets, QObject *parent = nullptr);
    ~RedLockReader() override;

    const QVector<Target> &targets() const { return m_targets; }
    /** Changes the lock names (one per target, same order) without reconnecting; a list of one name
     *  applies to every server. Ignored when the count matches neither. */
    void setNames(const QStringList &names);
    /** Applies to connections not opened yet and to reconnects. */
    void setTimeoutsMs(int connectMs, int commandMs);
    /** The connection to target `index` (created on the first read()). */
    RedisConnection *connection(int index) const { return m_connections.value(index); }

    /**
     * Reads every target in parallel and calls `callback` once with the verdict, TTLs evaluated when
     * the last reply arrived. Never fails as a whole: each server's problem is in its row
     * (Unreachable with the error, NotALock). Skipped when `context` is destroyed first.
     */
    void read(QObject *context, Callback callback);

public slots:
    /** read() without a callback, for a view that listens to statusRead() (e.g. from another
     *  thread through a queued connection). */
    void refresh();

signals:
    /** After every read(): the verdict, also passed to that read's callback. */
    void statusRead(const lockscope::RedLockStatus &status);

private:
    void ensureConnections();

    QVector<Target> m_targets;
    QVector<RedisConnection *> m_connections;
    QVector<SnapshotReader *> m_readers;
    int m_connectTimeoutMs = kDefaultConnectTimeoutMs;
    int m_commandTimeoutMs = kDefaultCommandTimeoutMs;
};

} // namespace lockscope
