#pragma once

#include "endpoint/redisendpoint.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <functional>

namespace lockscope
{

class RedisConnection;
class RedisSubscriber;

/**
 * Finds and follows the master of a `redis-sentinel://` endpoint, as Redis's "guidelines for
 * Redis clients with support for Redis Sentinel" ask (and as Lettuce and Redisson do):
 *
 * - resolve(): asks the sentinels in turn, `SENTINEL GET-MASTER-ADDR-BY-NAME <master name>`; the
 *   first that answers with an address wins and is asked first from then on. A sentinel that
 *   cannot be reached, refuses, or does not know the name is skipped. When none answers, the
 *   callback gets a sentence naming every sentinel and what it said; `retrySlowly` is set when
 *   every sentinel was reached and none knows the master name (a wrong name does not fix itself).
 *   Concurrent resolve() calls share one round of questions.
 * - startWatching(): SUBSCRIBEs `+switch-master` on one sentinel (moving on to the next one when
 *   it is lost) and asks again after every (re)subscription, since a switch may have been missed.
 * - masterChanged() is emitted whenever the master named by the sentinels differs from the one
 *   known before (a `+switch-master` message for this master name, or a resolve() with a new
 *   answer), after the callbacks of that resolve() ran.
 *
 * The sentinels get the endpoint's user, password and TLS settings; a sentinel that has no
 * password set for its default user ("AUTH ... without any password configured") is asked again
 * without credentials. Connections to sentinels are the resolver's own; it never writes anything.
 * Lives on one thread; not thread-safe.
 */
class SentinelResolver : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const RedisEndpoint &master, const QString &error, bool retrySlowly)>;

    /** `endpoint` must be a sentinel endpoint (RedisEndpoint::isSentinel()). */
    explicit SentinelResolver(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~SentinelResolver() override;

    /** Per sentinel: connect timeout and answer timeout, in ms (default 1000 and 2000). */
    void setTimeoutsMs(int connectMs, int commandMs);

    /** Asks the sentinels for the master's address (see class comment). `done` runs once, from
     *  the event loop, unless `context` is destroyed first (nullptr = no context). */
    void resolve(QObject *context, Callback done);
    /** Subscribes to `+switch-master` on a sentinel (idempotent). */
    void startWatching();
    void stop();

    QString masterName() const { return m_endpoint.sentinelMasterName(); }
    /** The master named last (invalid before the first successful resolve()). */
    RedisEndpoint currentMaster() const { return m_current; }
    /** "host:port" of the sentinel subscribed to `+switch-master`, empty when none is. */
    QString watchedSentinel() const;

signals:
    /** The sentinels now name another master. `how` says who told us: "+switch-master from
     *  sentinel 127.0.0.1:26379" or "sentinel 127.0.0.1:26379 now names it". */
    void masterChanged(const lockscope::RedisEndpoint &oldMaster, const lockscope::RedisEndpoint &newMaster,
                       const QString &how);
    /** The `+switch-master` subscription is (again) in place on `sentinel` ("host:port"). */
    void watching(const QString &sentinel);

private:
    struct Waiter {
        QPointer<QObject> context;
        bool hasContext = false;
        Callback done;
    };

    void askNext();
    void finish(const RedisEndpoint &master, const QString &error, bool retrySlowly, const QString &sentinel);
    void adopt(const RedisEndpoint &master, const QString &how);
    RedisConnection *connectionTo(int index);
    void watchNext();
    void onSwitchMessage(const QByteArray &payload, const QString &sentinel);

    RedisEndpoint m_endpoint;
    QList<RedisEndpoint> m_sentinels;                ///< in asking order: the last that answered comes first
    QHash<QString, RedisConnection *> m_connections; ///< by sentinel address
    QHash<QString, bool> m_withoutAuth;              ///< sentinels that have no password set
    int m_connectTimeoutMs = 1000;
    int m_commandTimeoutMs = 2000;

    RedisEndpoint m_current;
    QList<Waiter> m_waiters;
    bool m_resolving = false;
    int m_asking = 0;      ///< index in m_sentinels of the sentinel asked now
    QStringList m_answers; ///< what each sentinel asked so far said (for the error sentence)
    int m_unknownName = 0; ///< sentinels that answered they do not know the master name

    bool m_watch = false;
    int m_watchIndex = -1;
    RedisSubscriber *m_subscriber = nullptr;
    QTimer m_watchRetry;
};

} // namespace lockscope
