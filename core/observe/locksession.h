#pragma once

#include "lockevent.h"
#include "lockmonitor.h"
#include "locksnapshot.h"

#include "redis/redisendpoint.h"
#include "redis/redissubscriber.h"
#include "redis/redisconnection.h"

#include <QObject>

namespace lockscope {

class ForceUnlocker;
class LockClient;
class RedisConnection;
class RedisConnectionPool;

/**
 * Everything one LockScope window or CLI command needs against one Redis: the connection pool,
 * the LockMonitor and LockScope's own LockClient (one client UUID per process), plus the
 * read-only guard. The GUI moves it to its `redis-io` thread and talks to it only through
 * queued invocations of its slots and its signals (value types only); the CLI uses it directly.
 *
 * Every write slot refuses in read-only mode and reports through actionFinished(); nothing is
 * ever written to Redis except by these slots.
 */
class LockSession : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        RedisEndpoint endpoint;
        QString pattern = QStringLiteral("*");
        bool readOnly = false;
        bool forcePolling = false;
        int pollIntervalMs = 1000;
    };

    explicit LockSession(const Options &options, QObject *parent = nullptr);
    ~LockSession() override;

    /** LockScope's own Redisson client id (fixed at construction; safe to read from any thread). */
    QString clientId() const { return m_clientId; }
    bool isReadOnly() const { return m_options.readOnly; }
    const Options &options() const { return m_options; }

    LockMonitor *monitor() const { return m_monitor; }
    LockClient *client() const { return m_client; }
    RedisConnection *connection() const;

public slots:
    /** Opens the command and pub/sub connections (on this object's thread) without monitoring. */
    void open();
    /** open() plus the LockMonitor: discovery, then live updates or polling. */
    void start();
    void refresh();
    /** Stops a running scan (see LockMonitor::cancelDiscovery()). */
    void cancelScan();
    void setPattern(const QString &glob);
    void enableNotifications();
    /** Acquire as LockScope's client: leaseMs <= 0 = watchdog; waitMs 0 = one attempt. */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs);
    void renew(const QString &name, qint64 threadId);
    void release(const QString &name, qint64 threadId);
    /** Kind-aware force unlock (ForceUnlocker, protocol §9): atomic DEL + the wake-up message
     *  each kind's waiters listen for, so they acquire at once instead of after the TTL. */
    void forceUnlock(const QString &name);

signals:
    /** `action`: "acquire", "renew", "release", "force_unlock", "enable_notifications". */
    void actionFinished(const QString &action, const QString &lock, bool ok, const QString &message);
    void modeChanged(lockscope::LockMonitor::Mode mode, const QString &detail);
    void locksUpdated(const QVector<lockscope::LockSnapshot> &changed, const QStringList &removed);
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    void discoveryProgress(qint64 scannedKeys, qint64 locksFound, bool finished);
    void notificationsChecked(bool enabled, const QString &detail);
    void errorOccurred(const QString &message);

private:
    bool refuseIfReadOnly(const QString &action, const QString &name);

    Options m_options;
    QString m_clientId;
    RedisConnectionPool *m_pool = nullptr;
    LockMonitor *m_monitor = nullptr;
    LockClient *m_client = nullptr;
    ForceUnlocker *m_forceUnlocker = nullptr;
};

} // namespace lockscope
