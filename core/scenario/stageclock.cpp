#include "stageclock.h"

#include "redis/redisconnection.h"
#include "redis/redisreply.h"

#include <QTimer>

#include <memory>

namespace lockscope
{

namespace
{

/** "apply"/"restore" arguments of workshop_clock.lua for one server. */
QList<QByteArray> argsFor(const StageClock::Server &s, bool restore)
{
    QList<QByteArray> args{restore ? QByteArray("restore") : QByteArray("apply")};
    QList<QByteArray> keys;
    int n = 0;
    for (const StageClock::Key &k : s.keys) {
        if (!restore && k.pttlMs < 1)
            continue; // nothing to hold on a key without expiry
        keys << k.name << QByteArray::number(k.pttlMs);
        if (restore)
            keys << k.payload;
        ++n;
    }
    args << QByteArray::number(n) << keys;
    for (const StageClock::Deadline &d : s.deadlines)
        args << d.zset << d.member << QByteArray::number(d.leftMs);
    return args;
}

} // namespace

StageClock::StageClock(QObject *parent)
    : QObject(parent), m_script(RedisScript::fromResource(QStringLiteral("workshop_clock"))), m_timer(new QTimer(this))
{
    m_timer->setInterval(kReapplyMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (!m_applying)
            apply(nullptr);
    });
}

StageClock::~StageClock() = default;

void StageClock::setServers(std::function<QVector<RedisConnection *>()> servers)
{
    m_servers = std::move(servers);
}

void StageClock::onEvery(std::function<QList<QByteArray>(int)> argsOf,
                         std::function<void(const QVector<RedisReply> &)> then)
{
    const QVector<RedisConnection *> servers = m_servers ? m_servers() : QVector<RedisConnection *>();
    struct Acc {
        int pending = 0;
        QVector<RedisReply> replies;
    };
    auto acc = std::make_shared<Acc>();
    acc->replies.resize(servers.size());
    acc->pending = int(servers.size());
    if (servers.isEmpty()) {
        then(acc->replies);
        return;
    }
    for (int i = 0; i < servers.size(); ++i) {
        if (!servers.at(i)) {
            acc->replies[i] = RedisReply::makeError(QStringLiteral("server stopped"), true);
            if (--acc->pending == 0)
                then(acc->replies);
            continue;
        }
        m_script.eval(servers.at(i), {}, argsOf(i), this, [acc, i, then](const RedisReply &r) {
            acc->replies[i] = r;
            if (--acc->pending == 0)
                then(acc->replies);
        });
    }
}

void StageClock::read(bool withDumps, std::function<void(const Reading &)> then)
{
    onEvery(
        [withDumps](int) {
            return QList<QByteArray>{"read", withDumps ? QByteArray("dump") : QByteArray()};
        },
        [then](const QVector<RedisReply> &replies) {
            Reading reading;
            for (const RedisReply &r : replies) {
                Server s;
                if (r.isError() || !r.isArray() || r.size() < 3) {
                    s.down = true;
                    reading << s;
                    continue;
                }
                const RedisReply &keys = r.at(1);
                for (int i = 0; i + 2 < keys.size(); i += 3)
                    s.keys << Key{keys.at(i).toByteArray(), keys.at(i + 1).toInteger(-1), keys.at(i + 2).toByteArray()};
                const RedisReply &zsets = r.at(2);
                for (int i = 0; i + 2 < zsets.size(); i += 3)
                    s.deadlines << Deadline{zsets.at(i).toByteArray(), zsets.at(i + 1).toByteArray(),
                                            zsets.at(i + 2).toByteArray().toLongLong()};
                reading << s;
            }
            then(reading);
        });
}

void StageClock::apply(std::function<void()> then)
{
    m_applying = true;
    const Reading held = m_held;
    onEvery(
        [held](int i) {
            return i < held.size() && !held.at(i).down ? argsFor(held.at(i), false) : QList<QByteArray>{"apply", "0"};
        },
        [this, then](const QVector<RedisReply> &) {
            m_applying = false;
            if (m_holding)
                emit applied();
            if (then)
                then();
        });
}

void StageClock::hold(const Reading &reading)
{
    m_held = reading;
    const bool was = m_holding;
    m_holding = true;
    apply(nullptr);
    m_timer->start();
    if (!was)
        emit holdingChanged(true);
}

void StageClock::release(std::function<void()> then)
{
    m_timer->stop();
    if (!m_holding) {
        if (then)
            then();
        return;
    }
    apply([this, then] {
        m_holding = false;
        emit holdingChanged(false);
        if (then)
            then();
    });
}

void StageClock::restore(const Reading &reading, std::function<void(const QString &error)> then)
{
    m_timer->stop();
    onEvery(
        [reading](int i) {
            return i < reading.size() && !reading.at(i).down ? argsFor(reading.at(i), true)
                                                             : QList<QByteArray>{"apply", "0"};
        },
        [this, reading, then](const QVector<RedisReply> &replies) {
            QString error;
            for (int i = 0; i < replies.size(); ++i)
                if (replies.at(i).isError() && i < reading.size() && !reading.at(i).down)
                    error = QStringLiteral("server %1: %2").arg(i + 1).arg(replies.at(i).errorMessage());
            hold(reading);
            then(error);
        });
}

} // namespace lockscope
