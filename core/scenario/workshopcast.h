#pragma once

#include "scenario.h"
#include "workshopactions.h"

#include "endpoint/redisendpoint.h"

#include <QHash>
#include <QObject>
#include <QVector>

#include <functional>

namespace lockscope
{

class RedLockStage;
class RedisConnection;

/**
 * The cast of a running workshop Scenario (ScenarioRunner): per actor one LockClient with its
 * client id, its own RedisConnection and RedisSubscriber, and a LockVariant of every kind on it
 * (WorkshopActor::locks, from LockVariantFactory); the runner's own connection ("lockscope-workshop") to the
 * private server; and for RedLock scenarios the independent servers (RedLockStage).
 */
class WorkshopCast : public QObject
{
    Q_OBJECT
public:
    /** How long connecting every client may take (ms) before failing. */
    static constexpr int kConnectTimeoutMs = 5000;
    /** How long a step waits at most (ms) for its message to arrive and its subscriptions to apply. */
    static constexpr int kSettleTimeoutMs = 1000;
    /** poll()'s interval (ms). */
    static constexpr int kPollEveryMs = 20;
    using Probe = ActionContext::Probe;

    WorkshopCast(const Scenario &scenario, const RedisEndpoint &endpoint, QObject *parent = nullptr);
    ~WorkshopCast() override;

    /**
     * Creates and opens every connection (starting the RedLock servers first, blocking), waits
     * until all are ready and empties the private server (each key deleted, so a watch sees
     * them go, then FLUSHALL), then `ready()`. On any failure (a
     * RedLock server does not start, no answer within kConnectTimeoutMs, FLUSHALL refused)
     * `failed(sentence)` instead, asynchronously.
     */
    void connectAll(std::function<void()> ready, std::function<void(const QString &)> failed);

    /** The runner's own connection to the private server; nullptr before connectAll(). */
    RedisConnection *control() const { return m_control; }
    /** The RedLock servers; nullptr when the scenario has none (or before connectAll()). */
    RedLockStage *stage() const { return m_stage; }
    /** The scenario's own (main) server. */
    const RedisEndpoint &endpoint() const { return m_endpoint; }
    QVector<WorkshopActor> &actors() { return m_actors; }
    const QVector<WorkshopActor> &actors() const { return m_actors; }
    /** The actor named `name`, nullptr for none (or "", an actor-less step). */
    WorkshopActor *actor(const QString &name);
    const WorkshopActor *actor(const QString &name) const;
    /** `name`'s connection, or control() when there is no such actor. */
    RedisConnection *connectionOf(const QString &name) const;
    /** Actor name of a holder field "<clientId>:<threadId>[:write]", or the field itself. */
    QString actorOfField(const QString &field) const;
    /** Client id -> actor name. Empty before connectAll(). */
    QHash<QString, QString> actorOfClientId() const;

    /** Asks `probe` every kPollEveryMs until it answers true or `timeoutMs` passed, then
     *  `done(answered true)`. */
    void poll(Probe probe, int timeoutMs, std::function<void(bool)> done);
    /** Polls PUBSUB NUMSUB on `conn` (at most kSettleTimeoutMs) until each of `channels` has as
     *  many subscribers as actors now wait on it (WorkshopActor::waitingOn), then `then` (at
     *  once when `channels` is empty). */
    void awaitSubscriptions(RedisConnection *conn, const QList<QByteArray> &channels, std::function<void()> then);

signals:
    /** A message on `channel` reached `actor`'s subscriber. */
    void received(const QString &actor, const QByteArray &channel);

private:
    Scenario m_scenario;
    RedisEndpoint m_endpoint;
    RedisConnection *m_control = nullptr;
    RedLockStage *m_stage = nullptr;
    QVector<WorkshopActor> m_actors;
};

} // namespace lockscope
