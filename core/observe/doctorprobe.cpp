#include "doctorprobe.h"

#include "locknames.h"

#include "redis/redisconnection.h"

#include <QMap>
#include <QSet>

#include <iterator>

namespace lockscope {

DoctorProbe::DoctorProbe(RedisConnection *connection, QObject *parent) : QObject(parent), m_connection(connection) {}

void DoctorProbe::run(std::function<void(const Result &)> callback)
{
    if (m_running || !m_connection)
        return;
    m_running = true;
    m_result = Result();
    m_latchKeys.clear();
    m_callback = std::move(callback);
    m_pending = 2;

    // Classic and sharded pub/sub are separate name spaces (§1.3): Redisson 3.22+ waiters on a
    // Redis 7 cluster SSUBSCRIBE, and only PUBSUB SHARDCHANNELS / SHARDNUMSUB see them (§14.3).
    // Servers before 7.0 answer those with an error: then only the classic ones count.
    m_connection->pipeline({{"PUBSUB", "CHANNELS", "redisson_lock__channel:*"}, {"PUBSUB", "CHANNELS", "redisson_rwlock:*"},
                            {"PUBSUB", "SHARDCHANNELS", "redisson_lock__channel:*"},
                            {"PUBSUB", "SHARDCHANNELS", "redisson_rwlock:*"}},
                           this, [this](const QVector<RedisReply> &replies) {
        QMap<QString, QString> lockByChannel;
        QSet<QString> sharded;
        for (int i = 0; i < replies.size(); ++i) {
            const RedisReply &r = replies.at(i);
            const bool shard = i >= 2;
            if (r.isError()) {
                if (m_result.error.isEmpty() && !(shard && !r.isTransportError()))
                    m_result.error = r.errorMessage();
                continue;
            }
            for (const auto &c : r.elements()) {
                const QString channel = QString::fromUtf8(c.toByteArray());
                QString waiter;
                QString name = LockNames::lockNameFromUnlockChannel(channel, &waiter);
                if (name.isEmpty())
                    name = LockNames::lockNameFromReadWriteChannel(channel);
                if (!name.isEmpty() && waiter.isEmpty() && (!m_serves || m_serves(name))) {
                    lockByChannel.insert(channel, name);
                    if (shard)
                        sharded.insert(channel);
                }
            }
        }
        if (lockByChannel.isEmpty()) {
            finish();
            return;
        }
        QList<QByteArray> numsub{"PUBSUB", "NUMSUB"};
        QList<QByteArray> shardNumsub{"PUBSUB", "SHARDNUMSUB"};
        QList<QList<QByteArray>> exists;
        for (auto it = lockByChannel.cbegin(); it != lockByChannel.cend(); ++it) {
            numsub << it.key().toUtf8();
            if (sharded.contains(it.key()))
                shardNumsub << it.key().toUtf8();
            exists << QList<QByteArray>{"EXISTS", it.value().toUtf8()};
        }
        QList<QList<QByteArray>> commands{numsub};
        commands += exists;
        const bool askShards = shardNumsub.size() > 2;
        if (askShards)
            commands << shardNumsub;
        m_connection->pipeline(commands, this, [this, lockByChannel, askShards](const QVector<RedisReply> &r) {
            // Subscribers per channel: classic (NUMSUB) plus sharded (SHARDNUMSUB, the last reply).
            QHash<QString, qint64> waiting;
            QList<RedisReply> counted{r.at(0)};
            if (askShards && r.size() == lockByChannel.size() + 2)
                counted << r.last();
            for (const RedisReply &counts : counted)
                for (int i = 0; i + 1 < counts.size(); i += 2)
                    waiting[QString::fromUtf8(counts.at(i).toByteArray())] += counts.at(i + 1).toInteger();
            for (auto w = waiting.cbegin(); w != waiting.cend(); ++w) {
                const QString &channel = w.key();
                const qint64 n = w.value();
                if (!lockByChannel.contains(channel))
                    continue;
                const QString name = lockByChannel.value(channel);
                const int idx = int(std::distance(lockByChannel.cbegin(), lockByChannel.constFind(channel)));
                if (idx + 1 >= r.size() || r.at(idx + 1).isError()) {
                    // Unknown (e.g. MOVED): never report a waiter as orphaned on a guess.
                    if (idx + 1 < r.size() && m_result.error.isEmpty())
                        m_result.error = r.at(idx + 1).errorMessage();
                    continue;
                }
                const bool exists = r.at(idx + 1).toInteger() == 1;
                if (n > 0 && !exists)
                    m_result.orphanSubscribers[name] += n;
            }
            finish();
        });
    });
    scanLatches("0");
}

void DoctorProbe::scanLatches(const QByteArray &cursor)
{
    m_connection->send({"SCAN", cursor, "MATCH", "redisson_unlock_latch:*", "COUNT", "1000"}, this,
                       [this](const RedisReply &r) {
        if (r.isError()) {
            if (m_result.error.isEmpty())
                m_result.error = r.errorMessage();
            finish();
            return;
        }
        for (const auto &k : r.at(1).elements())
            m_latchKeys << QString::fromUtf8(k.toByteArray());
        const QByteArray next = r.at(0).toByteArray();
        if (next != "0" && !next.isEmpty()) {
            scanLatches(next);
            return;
        }
        if (m_latchKeys.isEmpty()) {
            finish();
            return;
        }
        QList<QList<QByteArray>> pttls;
        for (const auto &k : m_latchKeys)
            pttls << QList<QByteArray>{"PTTL", k.toUtf8()};
        m_connection->pipeline(pttls, this, [this](const QVector<RedisReply> &replies) {
            for (int i = 0; i < replies.size() && i < m_latchKeys.size(); ++i) {
                const qint64 pttl = replies[i].toInteger(-2);
                if (pttl != -2)
                    m_result.latches.append({m_latchKeys[i], pttl});
            }
            finish();
        });
    });
}

void DoctorProbe::finish()
{
    if (--m_pending > 0)
        return;
    m_running = false;
    if (m_callback)
        m_callback(m_result);
}

} // namespace lockscope
