#pragma once

#include "lockclient.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace lockscope {

/**
 * One waiting acquire of a LockClient (Redisson's lock()/tryLock(wait) loop, protocol §1.5):
 * attempt; if held, subscribe to `redisson_lock__channel:{name}` and retry when an unlock message
 * arrives or after min(ttl, remaining wait); give up when the wait is over. Deletes itself after
 * running its callback once.
 */
class LockAcquisition : public QObject
{
    Q_OBJECT
public:
    LockAcquisition(LockClient *client, const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs,
                    QObject *context, LockClient::AcquireCallback callback);
    ~LockAcquisition() override;

    void start();

private:
    void attempt();
    void finish(const AcquireResult &result);
    qint64 remainingMs() const;

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
    bool m_done = false;
    QElapsedTimer m_clock;
    QTimer m_retryTimer;
};

} // namespace lockscope
