#pragma once

#include "protocol/lockevent.h"
#include "protocol/lockfinding.h"
#include "protocol/locksnapshot.h"
#include "protocol/watchmode.h"
#include "session/locksession.h"

#include <QObject>
#include <QStringList>

class QThread;

namespace lockscope
{

/**
 * The dashboard's only door to Redis: owns the `redis-io` thread and the LockSession living on it.
 * Each request is a typed method that queues the matching LockSession slot onto that thread, so
 * the GUI thread never waits on Redis; the session's signals come back re-emitted by this object,
 * on the GUI thread (same arguments; see LockSession for their meaning). One per ServerView.
 * Lives on the GUI thread; the thread starts at construction, the session only with start().
 */
class SessionController : public QObject
{
    Q_OBJECT
public:
    /** `options` as the user gave them; the dashboard adds cluster detection and, unless given,
     *  the doctor's command connection (`--url <endpoint>`, so a pasted suggestion reaches this
     *  server). */
    explicit SessionController(const LockSession::Options &options, QObject *parent = nullptr);
    /** Stops the thread and waits for it (the session is deleted on redis-io as it finishes). */
    ~SessionController() override;

    QThread *ioThread() const { return m_ioThread; }
    /** LockScope's own Redisson client id (fixed at construction). */
    QString clientId() const { return m_clientId; }
    /** Why the audit log cannot take a record (LockSession::auditProblem), empty when it can.
     *  A file-system check on the calling thread: no Redis, no waiting. */
    QString auditProblem() const;

    /** Connect, discover, watch (LockSession::start). */
    void start();
    /** Ends the session for good: redis-io stops, nothing is retried any more. Does not wait. */
    void stop();
    void refresh();
    void cancelScan();
    void enableNotifications();
    /** The locks polling re-reads every tick (on screen and selected). */
    void setPriorityLocks(const QStringList &names);
    /** LockSession::acquire: `leaseMs` <= 0 = watchdog; `waitMs` 0 = one attempt, < 0 = forever. */
    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, AcquireKind kind);
    void renew(const QString &name, qint64 threadId);
    void release(const QString &name, qint64 threadId);
    /** Only if the lock still has `confirmedState` (LockSnapshot::stateFingerprint()). */
    void forceUnlock(const QString &name, const QString &confirmedState);
    /** Repairs (only in the confirmed state where one is given); `ttlMs` in ms. */
    void setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState);
    void removeWaiter(const QString &name, const QString &field);
    void removeReader(const QString &name, const QString &field);
    void wake(const QString &name);
    /** LockSession::identifyClients: a bounded MONITOR sample (or correlation without +monitor). */
    void identifyClients(const QStringList &clientIds, qint64 sampleMs);
    /** LockSession::resetDiagnosis (the workshop's step back and restart). */
    void resetDiagnosis(const QVector<lockscope::LockEvent> &oldestFirst);
    /** LockSession::followServer (the workshop follows its scenario's master). */
    void followServer(const QString &address, const QString &why, bool failover);
    /** LockSession::setStageTime (the workshop's stage clock). */
    void setStageTime(std::shared_ptr<const StageTime> time);
    /** What the session knows of `clientId`, as of its last clientsUpdated() (GUI thread, no waiting). */
    ClientIdentity clientIdentity(const QString &clientId) const;

signals:
    void locksUpdated(const QVector<lockscope::LockSnapshot> &changed, const QStringList &removed);
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    void modeChanged(lockscope::WatchMode mode, const QString &detail);
    void discoveryProgress(qint64 scannedKeys, qint64 locksFound, bool finished, qint64 approxTotalKeys);
    void actionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                        const QString &outcome);
    void findingsUpdated(const QVector<lockscope::LockFinding> &findings);
    void topologyChanged(const lockscope::SessionTopology &topology);
    void topologyEventsOccurred(const QVector<lockscope::TopologyEvent> &events);
    void notificationsChecked(bool enabled, const QString &detail);
    /** LockSession::writesChecked: the write commands the ACL user may not run. */
    void writesChecked(const QString &user, const QStringList &refused);
    void errorOccurred(const QString &message);
    void clientsUpdated(const QVector<lockscope::ClientIdentity> &clients);
    void clientsIdentified(const QString &method, const QString &note);
    void noticeOccurred(const QString &message);

private:
    /** Runs `call` on the session, on redis-io (queued). */
    template <typename F> void post(F call);

    QThread *m_ioThread = nullptr;
    LockSession *m_session = nullptr; ///< lives on m_ioThread; only touched through post()
    QString m_clientId;
    QHash<QString, ClientIdentity> m_clients; ///< the last clientsUpdated(), by client id
};

} // namespace lockscope
