#include "workshopcast.h"

#include "redlockstage.h"

#include "lock/lockclient.h"
#include "lock/lockvariantfactory.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "redis/redissubscriber.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QUuid>

#include <memory>

namespace lockscope
{

WorkshopCast::WorkshopCast(const Scenario &scenario, const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent), m_scenario(scenario), m_endpoint(endpoint)
{
}

WorkshopCast::~WorkshopCast() = default;

void WorkshopCast::connectAll(std::function<void()> ready, std::function<void(const QString &)> failed)
{
    m_control = new RedisConnection(m_endpoint, this);
    m_control->setClientName("lockscope-workshop");
    QVector<QObject *> pending;
    auto waitReady = [&pending](QObject *o) { pending.append(o); };
    waitReady(m_control);
    for (const Scenario::Actor &def : m_scenario.actors) {
        WorkshopActor a;
        a.def = def;
        a.clientId = def.clientId.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : def.clientId;
        a.connection = new RedisConnection(m_endpoint, this);
        a.connection->setClientName(QStringLiteral("workshop-%1").arg(def.name).toUtf8());
        a.subscriber = new RedisSubscriber(m_endpoint, this);
        a.client = new LockClient(a.connection, a.subscriber, this, a.clientId);
        a.client->setWatchdogTimeoutMs(def.watchdogTimeoutMs);
        for (AcquireKind kind : LockVariantFactory::kinds())
            a.locks.insert(kind, LockVariantFactory::create(kind, a.client, this));
        const QString name = def.name;
        connect(a.subscriber, &RedisSubscriber::message, this,
                [this, name](const QByteArray &channel, const QByteArray &, const QByteArray &) {
                    emit received(name, channel);
                });
        waitReady(a.connection);
        waitReady(a.subscriber);
        m_actors.append(a);
    }
    QVector<RedisConnection *> stageConnections;
    if (m_scenario.servers > 0) {
        m_stage = new RedLockStage(this);
        QString error;
        if (!m_stage->start(m_scenario.servers, &error)) {
            QTimer::singleShot(0, this, [failed, error] { failed(error); });
            return;
        }
        for (const WorkshopActor &a : std::as_const(m_actors))
            for (QObject *o : m_stage->addActor(a.def.name, a.clientId, a.def.watchdogTimeoutMs))
                if (auto *c = qobject_cast<RedisConnection *>(o)) {
                    waitReady(c);
                    stageConnections << c;
                }
    }
    auto remaining = std::make_shared<int>(int(pending.size()));
    auto done = std::make_shared<bool>(false);
    auto timer = new QTimer(this);
    timer->setSingleShot(true);
    auto oneReady = [this, remaining, done, timer, ready, failed] {
        if (*done || --*remaining > 0)
            return;
        *done = true;
        timer->deleteLater();
        // Each key of an earlier run is deleted on its own first, so that a watch of this server
        // (the workshop window's lock views) sees every lock go (FLUSHALL sends no keyspace
        // event); FLUSHALL then empties the other databases too.
        static const QByteArray kDeleteEach =
            "for _, k in ipairs(redis.call('keys', '*')) do redis.call('del', k) end return 0";
        m_control->pipeline(
            {{"EVAL", kDeleteEach, "0"}, {"FLUSHALL"}}, this, [ready, failed](const QVector<RedisReply> &replies) {
                for (const RedisReply &r : replies) {
                    if (r.isError()) {
                        failed(QStringLiteral("cannot reset the workshop server: %1").arg(r.errorMessage()));
                        return;
                    }
                }
                ready();
            });
    };
    connect(timer, &QTimer::timeout, this, [this, done, failed] {
        if (*done)
            return;
        *done = true;
        failed(QStringLiteral("the workshop redis-server at %1 did not answer within %2 ms")
                   .arg(m_endpoint.address())
                   .arg(kConnectTimeoutMs));
    });
    timer->start(kConnectTimeoutMs);
    connect(m_control, &RedisConnection::ready, this, oneReady, Qt::SingleShotConnection);
    m_control->open();
    for (RedisConnection *c : std::as_const(stageConnections))
        connect(c, &RedisConnection::ready, this, oneReady, Qt::SingleShotConnection);
    if (m_stage)
        m_stage->open();
    for (WorkshopActor &a : m_actors) {
        connect(a.connection, &RedisConnection::ready, this, oneReady, Qt::SingleShotConnection);
        connect(a.subscriber, &RedisSubscriber::ready, this, oneReady, Qt::SingleShotConnection);
        a.connection->open();
        a.subscriber->open();
    }
}

WorkshopActor *WorkshopCast::actor(const QString &name)
{
    for (WorkshopActor &a : m_actors)
        if (a.def.name == name)
            return &a;
    return nullptr;
}

const WorkshopActor *WorkshopCast::actor(const QString &name) const
{
    for (const WorkshopActor &a : m_actors)
        if (a.def.name == name)
            return &a;
    return nullptr;
}

RedisConnection *WorkshopCast::connectionOf(const QString &name) const
{
    const WorkshopActor *a = actor(name);
    return a ? a->connection : m_control;
}

QString WorkshopCast::actorOfField(const QString &field) const
{
    QString f = field;
    if (f.endsWith(QLatin1String(":write")))
        f.chop(6);
    for (const WorkshopActor &a : m_actors)
        if (f == a.holderField())
            return a.def.name;
    return field;
}

QHash<QString, QString> WorkshopCast::actorOfClientId() const
{
    QHash<QString, QString> h;
    for (const WorkshopActor &a : m_actors)
        h.insert(a.clientId, a.def.name);
    return h;
}

void WorkshopCast::poll(Probe probe, int timeoutMs, std::function<void(bool)> done)
{
    QElapsedTimer t;
    t.start();
    auto attempt = std::make_shared<std::function<void()>>();
    *attempt = [this, probe, timeoutMs, done, t, attempt] {
        probe([this, timeoutMs, done, t, attempt](bool ok) {
            if (ok || t.elapsed() >= timeoutMs) {
                done(ok);
                *attempt = nullptr; // break the cycle
                return;
            }
            QTimer::singleShot(kPollEveryMs, this, [attempt] {
                if (*attempt)
                    (*attempt)();
            });
        });
    };
    (*attempt)();
}

void WorkshopCast::awaitSubscriptions(RedisConnection *conn, const QList<QByteArray> &channels,
                                      std::function<void()> then)
{
    if (channels.isEmpty()) {
        then();
        return;
    }
    // channel -> how many actors now wait on it (their subscriber is subscribed).
    QList<QByteArray> numsub{"PUBSUB", "NUMSUB"};
    QVector<qint64> wanted;
    for (const QByteArray &ch : channels) {
        qint64 n = 0;
        for (const WorkshopActor &a : std::as_const(m_actors))
            n += a.waitingOn.contains(ch) ? 1 : 0;
        wanted.append(n);
        numsub.append(ch);
    }
    poll(
        [this, conn, numsub, wanted](std::function<void(bool)> answer) {
            conn->send(numsub, this, [answer, wanted](const RedisReply &r) {
                bool all = r.isArray() && r.size() == 2 * wanted.size();
                for (int i = 0; all && i < wanted.size(); ++i)
                    all = r.at(2 * i + 1).toInteger() == wanted.at(i);
                answer(all);
            });
        },
        kSettleTimeoutMs, [then](bool) { then(); });
}

} // namespace lockscope
