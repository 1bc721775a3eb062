#pragma once

#include "lockclient.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

namespace lockscope
{

/**
 * One component lock of a MultiLock or RedLock: an RLock named `name` taken through `client`,
 * which talks to one server over its own RedisConnection (and, optionally, its own subscriber
 * so that waiting acquires wake on unlock messages). `server` is the label results carry (the
 * endpoint's address, "host:port"); empty = the client's connection address.
 */
struct MultiLockComponent {
    QPointer<LockClient> client;
    QString name;
    QString server;
};

/** What happened to one component in an acquire (MultiLockResult) or an unlock. */
struct MultiLockComponentOutcome {
    enum class Status {
        NotTried, ///< never attempted: the quorum was reached (RedLock) or the acquire stopped first
        Granted,  ///< acquired, and held when the acquire finished
        Refused,  ///< held by someone else for the whole component wait (`pttlMs` = its last PTTL)
        Error,    ///< server down, transport or server error (`error` says which); nothing of ours held there
        Unknown,  ///< sent, but no reply came (a timeout, a lost connection): the server may have run it,
                  ///< and the compensating unlock got no answer before the component's lease ran out
        Released, ///< granted, then unlocked again because the MultiLock/RedLock failed
        Unlocked, ///< unlock(): this component was released (or is still held re-entrantly)
        NotHeld,  ///< unlock(): this client did not hold the component
    };
    QString server;
    QString name;
    Status status = Status::NotTried;
    qint64 pttlMs = -2; ///< Refused: the PTTL the acquire script returned (-1 = no expiry)
    QString error;      ///< Error / NotHeld: the sentence
    int attempts = 0;   ///< component acquires tried over all rounds

    /** "not_tried", "granted", "refused", "error", "released", "unlocked", "not_held". */
    static QString statusName(Status status);
    /** {server, name, status, pttl_ms (refused), error (when set), attempts}. */
    QJsonObject toJson() const;
};

/** Outcome of MultiLock::acquire() or MultiLock::unlock(). */
struct MultiLockResult {
    bool acquired = false; ///< acquire(): at least `required` components granted (all for MultiLock)
    bool redLock = false;  ///< RedLock rules (quorum) rather than MultiLock rules (all)
    int required = 0;      ///< minLocksAmount: N for MultiLock, N/2+1 for RedLock
    int rounds = 0;        ///< passes over the components (a failed pass restarts within the wait)
    qint64 elapsedMs = 0;  ///< wall time of the whole call
    qint64 leaseMs = 0;    ///< the lease each granted component ends with (0 = watchdog)
    QString error;         ///< why it failed, as a sentence (empty when acquired)
    /** In component order. After several rounds each component shows its latest attempt (a
     *  component not tried again in the last round keeps the status of its previous try). */
    QVector<MultiLockComponentOutcome> components;

    int grantedCount() const;
    /** Servers of the Granted (acquire) or Unlocked (unlock) components. */
    QStringList grantedServers() const;
    /** {acquired, mode ("redlock"/"multilock"), required, granted, servers_granted, rounds,
     *  elapsed_ms, lease_ms, error, components: [MultiLockComponentOutcome::toJson()]}. */
    QJsonObject toJson() const;
};

/**
 * Redisson's RedissonMultiLock and RedissonRedLock (protocol §5.3, §5.4) over independent
 * servers: one RLock (§2) per component, each through its own LockClient and connection.
 * Components are tried one after the other, in the given order, as Redisson does:
 *
 * - failedLocksLimit: 0 for MultiLock (every component must be granted); for RedLock
 *   N - minLocksAmount with minLocksAmount = N/2 + 1 (integer division).
 * - Per-component wait: MultiLock min(remaining wait, remaining wait) = the remaining wait;
 *   RedLock min(max(waitMs / N, 1), remaining wait) (calcLockWaitTime, computed once per call).
 *   With waitMs <= 0 and leaseMs <= 0 each component gets one attempt (tryLock()); with
 *   waitMs <= 0 and leaseMs > 0 also one attempt, with that lease.
 * - Lease: leaseMs <= 0 = the watchdog of each component's client (30 s, renewed every 10 s);
 *   leaseMs > 0 with waitMs > 0: components are acquired with lease 2 x waitMs, and once the
 *   MultiLock is acquired each granted component is PEXPIREd to leaseMs; leaseMs > 0 with
 *   waitMs <= 0: components are acquired with leaseMs directly.
 * - A component that is refused or fails (a server that is down counts as failed: it answers at
 *   once with a transport error, or after the connection's connect timeout) uses up one of the
 *   failedLocksLimit. RedLock stops early and succeeds as soon as N - granted == failedLocksLimit
 *   after a failure. When the limit is exhausted the granted components are unlocked; with
 *   waitMs <= 0 the call fails, otherwise it restarts with the first component (after a pause of
 *   min(50 ms, remaining wait), LockScope's addition so that servers refusing at once do not
 *   make it spin) until the wait is over.
 * - After every component, when waitMs > 0 and the wait is over, the granted components are
 *   unlocked and the call fails (also after the last one, as Redisson does).
 * - A component whose acquire was sent but got no reply (a timeout, a connection lost meanwhile)
 *   may hold: before the call reports, it is sent an unlock, retried on a new connection until the
 *   server answers or the component's lease has run out (Redisson unlocks a component whose
 *   acquire timed out, since the script may have run). Released: status Released, it had taken
 *   it; NotHeld: status Error, it had not; no answer in time: status Unknown. A component whose
 *   acquire failed before it was sent (not connected, refused) holds nothing and gets no unlock.
 *
 * unlock() releases every component in parallel (RedissonRedLock.unlock = unlockInner(all)),
 * never stopping at a failure. forceUnlock is not offered (Redisson does not support it either).
 *
 * All components share one `threadId` (the holder field of each is that component client's
 * "<clientId>:<threadId>"; give every client the same client id to have one holder on every
 * server). Calls are asynchronous; the callback runs once on this object's thread, and not at all
 * when `context` was destroyed first. Destroying the MultiLock mid-acquire drops the callback;
 * components granted by then stay held until their lease ends (or the watchdog's client dies).
 */
class MultiLock : public QObject
{
    Q_OBJECT
public:
    /** How one hold spans the servers: every component (MultiLock, §5.3) or a quorum (RedLock,
     *  §5.4). Not a lock kind: each component is an RLock (AcquireKind::Lock), and a snapshot of
     *  one server finds a `lock` (LockKind::Lock); see LockKindDescriptor for the kind enums. */
    enum class Mode { MultiLock, RedLock };
    using Callback = std::function<void(const MultiLockResult &)>;

    /** Pause between two rounds of a waiting acquire, in ms (LockScope's addition, see above). */
    static constexpr qint64 kRoundPauseMs = 50;
    /** Pause between two tries of a compensating unlock that got no answer, ms. */
    static constexpr qint64 kCompensateRetryMs = 250;

    MultiLock(Mode mode, const QVector<MultiLockComponent> &components, QObject *parent = nullptr);
    ~MultiLock() override;

    Mode mode() const { return m_mode; }
    const QVector<MultiLockComponent> &components() const { return m_components; }

    /** N for MultiLock, N/2 + 1 for RedLock (§5.4). */
    int minLocksAmount() const;
    /** N - minLocksAmount(): how many components may fail (0 for MultiLock). */
    int failedLocksLimit() const;
    /** Redisson's calcLockWaitTime(remainMs): remainMs for MultiLock, max(remainMs / N, 1) for
     *  RedLock (integer division, as Java's long division). */
    qint64 lockWaitMs(qint64 remainMs) const;
    /** The component lease of an acquire with these arguments (ms; <= 0 = watchdog): 2 x waitMs
     *  when both are > 0, else leaseMs. */
    static qint64 componentLeaseMs(qint64 leaseMs, qint64 waitMs);

    /** Redisson tryLock(waitMs, leaseMs) of the MultiLock / RedLock (see the class comment).
     *  `waitMs` <= 0 = no waiting. Only one acquire may run at a time: a second call while one
     *  runs fails at once with an error. */
    void acquire(qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context, Callback callback);
    /** Unlocks every component for `threadId`; `acquired` is true when every component answered
     *  Unlocked, and the components say which were not held or failed. */
    void unlock(qint64 threadId, QObject *context, Callback callback);

private:
    struct Run;

    /** A call's state: its thread id, caller and clock started, and one "not_tried" outcome per
     *  component (server and lock name). */
    std::shared_ptr<Run> newRun(qint64 threadId, QObject *context, Callback callback) const;
    void step(const std::shared_ptr<Run> &run);
    void onComponent(const std::shared_ptr<Run> &run, int index, const AcquireResult &result);
    void releaseGranted(const std::shared_ptr<Run> &run, std::function<void()> then);
    /** The compensating unlock of every component whose acquire got no reply (it may hold):
     *  retried every kCompensateRetryMs until the server answers or the component's lease has
     *  run out (then nothing of ours can be left there), then `then`. */
    void releaseUncertain(const std::shared_ptr<Run> &run, std::function<void()> then);
    void succeed(const std::shared_ptr<Run> &run);
    void fail(const std::shared_ptr<Run> &run, const QString &error);
    void finish(const std::shared_ptr<Run> &run);
    QString serverOf(int index) const;

    Mode m_mode;
    QVector<MultiLockComponent> m_components;
    bool m_busy = false;
};

} // namespace lockscope
