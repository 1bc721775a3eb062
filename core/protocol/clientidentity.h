#pragma once

#include "redis/clientlistentry.h"

#include <QHash>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <functional>

namespace lockscope
{

/**
 * What LockScope knows of one Redisson client id (the `<clientId>` of a holder field
 * `<clientId>:<threadId>`, one UUID per RedissonClient): its connections to Redis, the host they
 * come from, its client name, whether it is still connected and how LockScope knows. Redisson
 * writes nothing of this into the lock (protocol doc, "who holds it"), so it is learnt by watching
 * (ClientTracker): a MONITOR sample that saw the client id in a lock script's arguments sent from
 * an address, or lock events matched with CLIENT LIST. A guess is never shown as a fact: every
 * identity says its evidence.
 *
 * JSON (`holders[].client`, `waiters[].client`, `clients --json`): client_id, state (connected |
 * disconnected | unknown), evidence (monitor | correlated | self | none), events_matched, host,
 * host_name, name, connections [ClientListEntry::toJson()], last_addresses (the addresses it had
 * when its connections closed), disconnected_at_ms (epoch ms), last_seen_ms (epoch ms: last event
 * or last time a connection of it was listed), idle_s (the least idle of its connections), detail.
 */
struct ClientIdentity {
    enum class State { Unknown, Connected, Disconnected };
    enum class Evidence {
        None,       ///< never seen sending anything
        Correlated, ///< lock events of this client id matched with CLIENT LIST (eventsMatched of them)
        Monitor,    ///< seen in a MONITOR sample sending a lock script with this client id
        Self,       ///< LockScope's own client
    };

    QString clientId;
    State state = State::Unknown;
    Evidence evidence = Evidence::None;
    int eventsMatched = 0;
    QVector<ClientListEntry> connections; ///< open now, as last listed
    QString host;                         ///< the IP its connections come from
    QString hostName;                     ///< reverse DNS of `host`, when it resolved quickly
    QString name;                         ///< client name (first non-empty of its connections)
    QStringList lastAddresses;            ///< when disconnected: the addresses it had
    qint64 disconnectedAtMs = 0;          ///< epoch ms, when disconnected
    qint64 lastSeenMs = 0;                ///< epoch ms
    /** Connections all idle this long (s) make a connected client "silent" in summary(): twice
     *  Redisson's connection ping interval (30 s) and then some. */
    static constexpr qint64 kSilentS = 90;
    /** Seconds since the least idle of its connections sent a command (-1: no connection). */
    qint64 idleS() const;
    /** A short sentence: "connected from 127.0.0.1:51234 ('orders-7'), seen sending a lock
     *  script (MONITOR)", "disconnected at 12:01:07 (was 127.0.0.1:51234)", "not identified". */
    QString summary() const;
    /** "127.0.0.1 (orders-7)" or "?" when unknown: the HOST / NAME of list --wide and the views. */
    QString hostText() const;

    static QString stateName(State s);
    static QString evidenceName(Evidence e);
    static State stateFromName(const QString &name);
    static Evidence evidenceFromName(const QString &name);

    QJsonObject toJson() const;
    static ClientIdentity fromJson(const QJsonObject &o);

    /** The client id of a holder or waiter field (`<clientId>:<threadId>[:write]`), empty when
     *  the field has no colon. */
    static QString clientIdOfField(const QString &field);
    /**
     * Adds `client` (identity(clientId).toJson()) to each holder and waiter of a lock's JSON
     * (LockSnapshot::toJson()); `identity` returns the identity of a client id (an unknown one:
     * state unknown, evidence none).
     */
    static void annotateLockJson(QJsonObject *lock, const std::function<ClientIdentity(const QString &)> &identity);
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::ClientIdentity)
