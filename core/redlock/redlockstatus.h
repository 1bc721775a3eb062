#pragma once

#include "protocol/locksnapshot.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * One server's side of a RedLock / MultiLock (protocol §5.3, §5.4): the component lock as read
 * there. A plain value; the snapshot is the one SnapshotReader returned (empty when unreachable).
 */
struct RedLockServerState {
    enum class State {
        Held,        ///< the component hash exists with at least one holder
        Free,        ///< no lock hash under that name on this server
        NotALock,    ///< the key exists but is not a Redisson lock (`error` says so)
        Unreachable, ///< the server could not be read (`error` is the connection or server error)
    };

    QString server; ///< "host:port" (RedisEndpoint::address())
    QString name;   ///< the component lock name on this server
    State state = State::Unreachable;
    QString error;
    LockSnapshot snapshot;

    /** "held", "free", "not_a_lock", "unreachable". */
    static QString stateName(State state);
    /** Holder fields "<clientId>:<threadId>" (several only in a corrupt or read-write lock). */
    QStringList holderFields() const;
    /** TTL left at `nowSteadyMs` (LockSnapshot::remainingTtlMs): -1 no expiry, -2 absent/unknown. */
    qint64 remainingTtlMs(qint64 nowSteadyMs) const;

    /** {server, name, state, holder (first field or null), holders [fields], hold_count,
     *  pttl_ms (at `nowSteadyMs`), server_time_ms, error (when set)}. */
    QJsonObject toJson(qint64 nowSteadyMs) const;
};

/**
 * The RedLock verdict over N independent servers: whether a quorum of N/2 + 1 servers (integer
 * division, RedissonRedLock.minLocksAmount, §5.4) has the component lock held by one and the same
 * holder field "<clientId>:<threadId>" (§1.1), which holder, and how long that lasts.
 *
 * Agreement is by the exact holder field: LockScope's own RedLocks use one client id on every
 * server. A Java application building a RedissonRedLock from N RedissonClient instances writes a
 * different client id on each server (one UUID per client), so its components never agree by field;
 * `sameThreadServers` then hints at it (the largest number of held servers sharing a thread id).
 *
 * Unreachable servers count against the quorum, like a component that was not granted.
 */
struct RedLockStatus {
    QVector<RedLockServerState> servers;
    int quorum = 0;         ///< N/2 + 1
    int agreeing = 0;       ///< servers whose lock is held by `holder`
    bool hasQuorum = false; ///< agreeing >= quorum
    QString holder;         ///< the field most servers agree on (ties: first seen); empty when none is held
    /** Conservative remaining validity of the agreement, in ms at `evaluatedAtSteadyMs`: the
     *  smallest TTL among the agreeing servers (-1 = none of them expires; -2 = no holder). */
    qint64 validityMs = -2;
    /** When the quorum is lost by expiry alone: the quorum-th largest TTL among the agreeing servers
     *  (-1 = never, -2 = no quorum now). Equal to validityMs when exactly `quorum` servers agree. */
    qint64 quorumLostInMs = -2;
    int sameThreadServers = 0; ///< see the class comment
    qint64 evaluatedAtSteadyMs = 0;

    int serverCount() const { return static_cast<int>(servers.size()); }
    int unreachableCount() const;
    int heldCount() const;

    /** Computes the verdict from per-server states, with TTLs taken at `nowSteadyMs`
     *  (LockSnapshot::steadyNowMs()). Pure: no I/O. */
    static RedLockStatus evaluate(const QVector<RedLockServerState> &servers, qint64 nowSteadyMs);

    /** {name (the first server's; names when they differ), server_count, quorum, agreeing,
     *  has_quorum, holder (or null), validity_ms, quorum_lost_in_ms, same_thread_servers,
     *  held, unreachable, servers: [RedLockServerState::toJson()]}; snake_case as the other
     *  machine-readable output (architecture doc). */
    QJsonObject toJson() const;
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::RedLockStatus)
