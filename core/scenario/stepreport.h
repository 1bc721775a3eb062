#pragma once

#include "protocol/lockevent.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

class RedisReply;

/**
 * What one executed workshop step did (ScenarioRunner): who acted, the call in Redisson terms,
 * which branch of the Lua script ran, the Redis keys before and after with the changes, the
 * pub/sub message and who it woke, the narration, and whether the step's expectations held.
 * A plain value type.
 */
struct StepReport {
    /** One Redis key of the sandbox as workshop_dump.lua read it. */
    struct Key {
        QString type;       ///< "hash", "list", "zset", "string", "set"
        qint64 pttlMs = -1; ///< -1 = no expiry
        QJsonValue value;   ///< hash/zset: object field -> value/score; list/set: array; string: string
        bool operator==(const Key &o) const { return type == o.type && value == o.value; }
    };
    using Keys = QMap<QString, Key>;

    /** One expectation of the step and what was seen. */
    struct Check {
        QString name; ///< Scenario::expectations() name
        QJsonValue expected;
        QJsonValue actual;
        bool held = false;
    };

    int index = 0; ///< 0-based step index
    int line = 0;  ///< line of the step in the scenario file (0 = unknown)
    QString actor; ///< actor name (empty for actor-less steps)
    QString clientId;
    qint64 threadId = 0;
    QString action; ///< the scenario action ("lock", "fairUnlock", ...)
    QString call;   ///< the call in Redisson terms, e.g. "tryLock(waitTime=3000 ms, leaseTime=1500 ms)"
    QString lock;
    QString branch;         ///< which branch of the script ran and why, e.g. "acquire: key absent -> ..."
    QString result;         ///< acquired, refused, queued, released, still_held, not_held, renewed, lost, ...
    QString reply;          ///< the raw reply as Redis gave it (or the client's summary)
    qint64 token = -1;      ///< fenced acquires: the token; fencedWrite: the token sent
    QString messageChannel; ///< the unlock message published by the script, empty when none
    QString messagePayload;
    QStringList woke; ///< actors whose subscriber received a message during the step
    QString narration;
    QStringList findings; ///< doctor: titles of the deadlock findings
    /** What LockScope's lease-safety engine made of the step (StageLeaseWatch): the events of the
     *  locks' change (acquired, expired, ...) after LeaseTracker (lease_lost, holder_returned,
     *  lost_in_failover, ...), timed on the stage clock. */
    QVector<LockEvent> events;
    /** The types of `events`, in order. */
    QStringList eventTypes() const;
    Keys before;
    Keys after;
    QVector<Check> checks;
    bool ok = true;        ///< every expectation held (true when there were none)
    QString error;         ///< transport/server error, if any (then ok is false)
    qint64 startedUs = 0;  ///< steady clock, µs: the step's first Redis command was sent
    qint64 finishedUs = 0; ///< steady clock, µs: the step's last Redis reply arrived

    /** `keys`' hash `name` (field -> value), empty when absent or not a hash. */
    static QJsonObject hashOf(const Keys &keys, const QString &name);
    /** `keys`' list `name`, empty when absent. */
    static QStringList listOf(const Keys &keys, const QString &name);
    /** `keys`' PTTL of `name` (ms): -1 = no expiry, -2 = absent. */
    static qint64 pttlOf(const Keys &keys, const QString &name);
    /** The holder fields of lock hash `name` (every field but "mode") -> hold count. */
    static QJsonObject holdersOf(const Keys &keys, const QString &name);
    /** Holder fields as text, "A:1 x2, B:1 x1", or "nobody". */
    static QString fieldsText(const QJsonObject &holders);

    /** Parses workshop_dump.lua's reply. */
    static Keys parseDump(const RedisReply &reply);
    /** Lines describing what changed between `before` and `after`, e.g.
     *  "+ orders (hash) A:1=1 PTTL 3000 ms", "~ orders: A:1 1 -> 2; PTTL 2100 -> 3000 ms", "- orders". */
    static QStringList changes(const Keys &before, const Keys &after);

    /** The JSON line of `workshop run --json`: index, actor, client_id, thread_id, action, call,
     *  lock, branch, result, reply, token, message {channel, payload}, woke, narration,
     *  keys_before, keys_after ({key: {type, pttl_ms, value}}), changes, checks
     *  [{name, expected, actual, held}], did_not_hold (failedChecks(), only when not ok), events (LockEvent::toJson()),
     * ok, error, started_us, finished_us. */
    QJsonObject toJson() const;
    /** One key's content as text: "hash A:1=2 PTTL 2900 ms", "list [B:1, C:1]", ... */
    static QString keyText(const Key &key);
    /** `text` with every client id replaced by its actor's name. */
    static QString withActorNames(const QString &text, const QHash<QString, QString> &actorOfClientId);
    /** The expectations that did not hold, one sentence each, e.g. "result: expected released,
     *  saw not_held". Empty when every expectation held. */
    QStringList failedChecks() const;
    /** The narration as it may be told: the scenario's text when every expectation held (it
     *  describes the branch that ran); otherwise "expected: <text> — did not hold: <failedChecks>",
     *  since the text then describes a branch that did not run. Empty without narration. */
    QString narrationText() const;
    /** Human text of the step; client ids are shown as actor names via `actorOfClientId`. */
    QString toText(const QHash<QString, QString> &actorOfClientId) const;
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::StepReport)
