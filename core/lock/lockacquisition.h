#pragma once

#include "lockclient.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

namespace lockscope
{

/**
 * One waiting acquire of any lock kind: Redisson's lock()/tryLock(wait) loop (protocol §1.5) for
 * the pub/sub-based locks (RLock, fair, read-write, fenced) and the backoff polling of the spin
 * lock (§5.1). What differs between the kinds comes in as Steps.
 *
 * The loop: attempt; when not acquired, subscribe to `channel` (if any) and retry when one of
 * `wakeMessages` arrives there, when the subscription is confirmed (an unlock between the attempt
 * and the SUBSCRIBE would otherwise go unnoticed), or after min(retryDelay, remaining wait).
 * A wake-up during an attempt is kept and runs one more attempt right after it. The wait ends
 * when acquired, on a server/transport error, or when `waitMs` (< 0 = forever) is over; a
 * failure runs `giveUp` before it is reported. The callback runs once, with the last attempt's
 * result, and not at all when `context` was destroyed. The object deletes itself after that.
 */
class LockAcquisition : public QObject
{
    Q_OBJECT
public:
    /** One try, reporting to `done`; `context` (the acquisition) must be passed on as the
     *  context of the request, so no reply arrives after the acquisition is gone. */
    using Attempt = std::function<void(QObject *context, LockClient::AcquireCallback done)>;
    /** How long to wait before the next attempt after `last` missed (before it is capped at the
     *  remaining wait); `subscribed` tells whether a message can wake the waiter earlier. */
    using RetryDelay = std::function<qint64(const AcquireResult &last, bool subscribed)>;
    /** A clean-up before a failure is reported (e.g. the fair lock leaving its queue); `done`
     *  runs when it is finished. Called with a null context and null `done` from the destructor
     *  of an acquisition that never finished. */
    using GiveUp = std::function<void(QObject *context, std::function<void()> done)>;

    /** The lock-kind specific parts of a wait; only `attempt` is required. */
    struct Steps {
        Attempt attempt;
        /** Channel to listen on through the client's subscriber (SUBSCRIBE, or SSUBSCRIBE when
         *  the client has a sharded subscriber, §1.3); empty = poll only. */
        QByteArray channel;
        /** Payloads on `channel` that wake the waiter; empty = any message. */
        QList<QByteArray> wakeMessages;
        /** Default: ttlRetryDelay. */
        RetryDelay retryDelay;
        /** Optional; see GiveUp. */
        GiveUp giveUp;
        /** Gives back a lock acquired after the caller's `context` was destroyed. When set, the
         *  wait stops as soon as `context` is destroyed; without it the wait goes on and only the
         *  callback is skipped. */
        std::function<void()> releaseOrphan;
    };

    /**
     * Creates the acquisition as a child of `owner` (the lock object: the acquisition dies with
     * it) and makes the first attempt. `client` provides the subscriber for `steps.channel`.
     */
    static void start(QObject *owner, LockClient *client, qint64 waitMs, QObject *context,
                      LockClient::AcquireCallback callback, Steps steps);

    /**
     * Goes on with a wait whose first attempt the caller made itself (LockClient::acquire() sends
     * it directly, so an uncontended lock costs no acquisition object): `first` is that attempt's
     * result (not acquired, no error) and `clock` was started before it, so `waitMs` counts from
     * then. Subscribes and retries as after any missed attempt. `context` must still be alive.
     */
    static void resume(QObject *owner, LockClient *client, qint64 waitMs, const QElapsedTimer &clock, QObject *context,
                       LockClient::AcquireCallback callback, Steps steps, const AcquireResult &first);

    /**
     * The RLock retry delay (§1.5): the PTTL the attempt returned; for a lock held with no expiry
     * (PTTL < 0) only a message (or the end of the wait) helps, and without a subscription it
     * polls every second instead.
     */
    static qint64 ttlRetryDelay(const AcquireResult &last, bool subscribed);

    ~LockAcquisition() override;

private:
    LockAcquisition(QObject *owner, LockClient *client, qint64 waitMs, QObject *context,
                    LockClient::AcquireCallback callback, Steps steps);

    void attempt();
    void onResult(const AcquireResult &result);
    void subscribe();
    void cancel();
    void giveUp(const AcquireResult &result);
    void finish(const AcquireResult &result);
    qint64 remainingMs() const;

    QPointer<LockClient> m_client;
    qint64 m_waitMs;
    QPointer<QObject> m_context;
    bool m_hasContext;
    LockClient::AcquireCallback m_callback;
    Steps m_steps;
    bool m_subscribed = false;
    bool m_attemptInFlight = false;
    bool m_retryWanted = false;
    bool m_cancelled = false;
    bool m_givingUp = false;
    bool m_done = false;
    QElapsedTimer m_clock;
    QTimer m_retryTimer;
};

} // namespace lockscope
