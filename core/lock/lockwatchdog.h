#pragma once

#include "redis/redisscript.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace lockscope {

class RedisConnection;

/**
 * Lease renewal for one LockClient, as Redisson 3.44+ does it (protocol §2.6): one timer per
 * client firing every timeoutMs/3, renewing all watched locks with one batched script per chunk
 * of up to 100 (resources/scripts/lock_renew.lua). A lock whose renewal returns 0 (key or
 * field gone) is dropped and reported with `lost()`. Errors are reported and retried next tick.
 */
class LockWatchdog : public QObject
{
    Q_OBJECT
public:
    LockWatchdog(RedisConnection *connection, qint64 timeoutMs, QObject *parent = nullptr);

    void setTimeoutMs(qint64 ms);
    qint64 timeoutMs() const { return m_timeoutMs; }
    /** Starts renewing `name` for holder `field`; the first registered field of a name wins, as in Redisson. */
    void add(const QString &name, const QString &field);
    void remove(const QString &name);
    bool contains(const QString &name) const { return m_locks.contains(name); }
    QStringList lockNames() const { return m_locks.keys(); }
    /** Runs one renewal round now (also what the timer does). */
    void renewNow();

signals:
    void renewed(const QStringList &names);
    void lost(const QString &name);
    void errorOccurred(const QString &message);

private:
    QPointer<RedisConnection> m_connection;
    RedisScript m_script;
    qint64 m_timeoutMs;
    QHash<QString, QString> m_locks;
    QTimer m_timer;
};

} // namespace lockscope
