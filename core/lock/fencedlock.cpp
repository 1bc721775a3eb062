#include "fencedlock.h"

#include "lockwatchdog.h"

#include "observe/locknames.h"
#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QElapsedTimer>
#include <QTimer>

#include <limits>

namespace lockscope {

namespace {

/** Runs `fn` from the event loop (never re-entrantly), unless `context` died meanwhile. */
void later(QObject *context, std::function<void()> fn)
{
    QPointer<QObject> ctx(context);
    const bool hasContext = context != nullptr;
    QTimer::singleShot(0, [ctx, hasContext, fn = std::move(fn)] {
        if (!hasContext || ctx)
            fn();
    });
}

QString notConnected() { return QStringLiteral("lock client has no Redis connection"); }

int timerMs(qint64 ms) { return static_cast<int>(qBound(qint64(1), ms, qint64(std::numeric_limits<int>::max()))); }

} // namespace

/**
 * One waiting fenced acquire: the RLock waiting loop (§1.5) on `redisson_lock__channel:{name}`
 * around the token-returning script. Stops when the wait is over or the caller's context died
 * (unlocking a lock won in that race). Deletes itself after finishing.
 */
class FencedLock::Acquisition : public QObject
{
public:
    Acquisition(FencedLock *lock, const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                QObject *context, LockClient::AcquireCallback callback)
        : QObject(lock), m_lock(lock), m_client(lock->client()), m_name(name), m_threadId(threadId), m_leaseMs(leaseMs),
          m_waitMs(waitMs), m_context(context), m_hasContext(context != nullptr), m_callback(std::move(callback)),
          m_channel(LockNames::unlockChannel(name).toUtf8())
    {
        m_retryTimer.setParent(this);
        m_retryTimer.setSingleShot(true);
        connect(&m_retryTimer, &QTimer::timeout, this, [this] { attempt(); });
        if (context)
            connect(context, &QObject::destroyed, this, [this] { cancel(); });
    }

    ~Acquisition() override
    {
        if (m_subscribed && m_client)
            m_client->releaseChannel(m_channel);
    }

    void start()
    {
        m_clock.start();
        attempt();
    }

private:
    qint64 remainingMs() const
    {
        if (m_waitMs < 0)
            return std::numeric_limits<qint64>::max();
        return m_waitMs - m_clock.elapsed();
    }

    void attempt()
    {
        if (m_done)
            return;
        if (!m_lock) {
            AcquireResult r;
            r.error = notConnected();
            finish(r);
            return;
        }
        if (m_attemptInFlight) {
            m_retryWanted = true; // woken during an attempt: try once more after it
            return;
        }
        m_attemptInFlight = true;
        m_lock->tryAcquire(m_name, m_threadId, m_leaseMs, this, [this](const AcquireResult &r) { onResult(r); });
    }

    void onResult(const AcquireResult &r)
    {
        m_attemptInFlight = false;
        if (r.acquired) {
            if (m_cancelled && m_lock) // nobody is left to use it
                m_lock->unlock(m_name, m_threadId, nullptr, nullptr);
            finish(r);
            return;
        }
        const qint64 remaining = remainingMs();
        if (!r.error.isEmpty() || m_cancelled || remaining <= 0) {
            finish(r);
            return;
        }
        if (!m_subscribed && m_client && m_client->subscriber()) {
            m_subscribed = true;
            RedisSubscriber *sub = m_client->subscriber();
            connect(sub, &RedisSubscriber::message, this,
                    [this](const QByteArray &channel, const QByteArray &payload, const QByteArray &) {
                        if (channel == m_channel && (payload == "0" || payload == "1"))
                            attempt();
                    });
            // Retry once the subscription is confirmed: a release between the attempt and the
            // SUBSCRIBE would otherwise go unnoticed until the TTL.
            connect(sub, &RedisSubscriber::subscribed, this, [this](const QByteArray &channel) {
                if (channel == m_channel)
                    attempt();
            });
            m_client->retainChannel(m_channel);
        }
        if (m_retryWanted) {
            m_retryWanted = false;
            m_retryTimer.start(0);
            return;
        }
        // ttl < 0: held with no expiry; only a message (or the end of the wait) helps. Without a
        // subscriber, poll every second instead.
        const qint64 delay = r.pttlMs >= 0 ? r.pttlMs : (m_subscribed ? remaining : 1000);
        m_retryTimer.start(timerMs(qMin(delay, remaining)));
    }

    void cancel()
    {
        if (m_done || m_cancelled)
            return;
        m_cancelled = true;
        m_retryTimer.stop();
        if (!m_attemptInFlight)
            finish(AcquireResult());
    }

    void finish(const AcquireResult &result)
    {
        if (m_done)
            return;
        m_done = true;
        m_retryTimer.stop();
        if (m_callback && !m_cancelled && (!m_hasContext || m_context))
            m_callback(result);
        deleteLater();
    }

    QPointer<FencedLock> m_lock;
    QPointer<LockClient> m_client;
    QString m_name;
    qint64 m_threadId;
    qint64 m_leaseMs;
    qint64 m_waitMs;
    QPointer<QObject> m_context;
    bool m_hasContext;
    LockClient::AcquireCallback m_callback;
    QByteArray m_channel;
    bool m_subscribed = false;
    bool m_attemptInFlight = false;
    bool m_retryWanted = false;
    bool m_cancelled = false;
    bool m_done = false;
    QElapsedTimer m_clock;
    QTimer m_retryTimer;
};

FencedLock::FencedLock(LockClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_acquire(RedisScript::fromResource(QStringLiteral("fenced_acquire")))
{
}

FencedLock::~FencedLock() = default;

void FencedLock::tryAcquire(const QString &name, qint64 threadId, qint64 leaseMs, QObject *context,
                            LockClient::AcquireCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            AcquireResult r;
            r.error = notConnected();
            if (callback)
                callback(r);
        });
        return;
    }
    const bool useWatchdog = leaseMs <= 0;
    const qint64 lease = useWatchdog ? m_client->watchdogTimeoutMs() : leaseMs;
    const QString field = m_client->holderField(threadId);
    QPointer<LockClient> client(m_client);
    m_acquire.eval(m_client->connection(), {name.toUtf8(), LockNames::tokenKey(name).toUtf8()},
                   {QByteArray::number(lease), field.toUtf8()}, context,
                   [client, name, threadId, field, lease, useWatchdog, callback](const RedisReply &r) {
                       AcquireResult result;
                       if (r.isError()) {
                           result.error = r.errorMessage();
                       } else if (!r.isArray() || r.size() != 2) {
                           result.error = QStringLiteral("unexpected fenced acquire reply: %1").arg(r.debugString());
                       } else if (r.at(1).toInteger(-1) != -1) {
                           // Decide by the token, not by the first element: a lock held with no
                           // expiry answers {-1 (its PTTL), -1}.
                           result.acquired = true;
                           result.token = r.at(1).toInteger(-1);
                           if (client) {
                               client->rememberLease(name, threadId, lease);
                               if (useWatchdog)
                                   client->watchdog()->add(name, field);
                           }
                       } else {
                           result.pttlMs = r.at(0).toInteger(-2);
                       }
                       if (callback)
                           callback(result);
                   });
}

void FencedLock::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context,
                         LockClient::AcquireCallback callback)
{
    auto *a = new Acquisition(this, name, threadId, leaseMs, waitMs, context, std::move(callback));
    a->start();
}

void FencedLock::unlock(const QString &name, qint64 threadId, QObject *context, LockClient::UnlockCallback callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            UnlockResult r;
            r.error = notConnected();
            if (callback)
                callback(r);
        });
        return;
    }
    m_client->unlock(name, threadId, context, std::move(callback));
}

void FencedLock::token(const QString &name, QObject *context, std::function<void(qint64)> callback)
{
    if (!m_client || !m_client->connection()) {
        later(context, [callback] {
            if (callback)
                callback(-1);
        });
        return;
    }
    m_client->connection()->send({"GET", LockNames::tokenKey(name).toUtf8()}, context, [callback](const RedisReply &r) {
        if (!callback)
            return;
        if (r.isError())
            callback(-1);
        else
            callback(r.isNil() ? 0 : r.toInteger(-1));
    });
}

} // namespace lockscope
