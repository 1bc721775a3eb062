#include "diagnose/doctorprobe.h"
#include "redis/redisbytes.h"

#include "protocol/locknames.h"
#include "redis/scanbudget.h"

#include "redis/redisconnection.h"

#include <QHash>
#include <QMap>
#include <QSet>

#include <memory>
#include <utility>

namespace lockscope
{

DoctorProbe::DoctorProbe(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection), m_scanStep(RedisScript::fromResource(QStringLiteral("scan_step")))
{
}

void DoctorProbe::run(std::function<void(const Result &)> callback)
{
    if (!m_connection)
        return;
    if (m_running) { // callers that overlap (the dashboard's loop, a command's) share one run
        m_callbacks << std::move(callback);
        return;
    }
    m_running = true;
    m_result = Result();
    m_callbacks = {std::move(callback)};
    m_pending = 2;

    // Classic and sharded pub/sub are separate name spaces (§1.3): Redisson 3.22+ waiters on a
    // Redis 7 cluster SSUBSCRIBE, and only PUBSUB SHARDCHANNELS / SHARDNUMSUB see them (§14.3).
    // Servers before 7.0 answer those with an error: then only the classic ones count.
    // Classic and sharded pub/sub are separate name spaces (§1.3): Redisson 3.22+ waiters on a
    // Redis 7 cluster SSUBSCRIBE, and only PUBSUB SHARDCHANNELS / SHARDNUMSUB see them (§14.3).
    // Servers before 7.0 answer those with an error: then only the classic ones count.
    m_connection->pipeline(
        {{"PUBSUB", "CHANNELS", "redisson_lock__channel:*"},
         {"PUBSUB", "CHANNELS", "redisson_rwlock:*"},
         {"PUBSUB", "SHARDCHANNELS", "redisson_lock__channel:*"},
         {"PUBSUB", "SHARDCHANNELS", "redisson_rwlock:*"}},
        this, [this](const QVector<RedisReply> &replies) {
            // channel -> the lock names it may belong to: `x` and `{x}` share it (§14.4).
            QMap<QString, QStringList> locksByChannel;
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
                    const QString channel = RedisBytes::toText(c.toByteArray());
                    QString waiter;
                    QString name = LockNames::lockNameFromUnlockChannel(channel, &waiter);
                    if (name.isEmpty())
                        name = LockNames::lockNameFromReadWriteChannel(channel);
                    if (!name.isEmpty() && waiter.isEmpty() && (!m_serves || m_serves(name))) {
                        locksByChannel.insert(channel, LockNames::withTwin(name));
                        if (shard)
                            sharded.insert(channel);
                    }
                }
            }
            if (locksByChannel.isEmpty()) {
                finish();
                return;
            }
            QList<QByteArray> numsub{"PUBSUB", "NUMSUB"};
            QList<QByteArray> shardNumsub{"PUBSUB", "SHARDNUMSUB"};
            QList<QList<QByteArray>> exists;
            for (auto it = locksByChannel.cbegin(); it != locksByChannel.cend(); ++it) {
                numsub << RedisBytes::toBytes(it.key());
                if (sharded.contains(it.key()))
                    shardNumsub << RedisBytes::toBytes(it.key());
                for (const QString &name : it.value())
                    exists << QList<QByteArray>{"EXISTS", RedisBytes::toBytes(name)};
            }
            QList<QList<QByteArray>> commands{numsub};
            commands += exists;
            const bool askShards = shardNumsub.size() > 2;
            if (askShards)
                commands << shardNumsub;
            m_connection->pipeline(commands, this, [this, locksByChannel, askShards](const QVector<RedisReply> &r) {
                // Reply index of each channel's first EXISTS, in the order the commands were built.
                QHash<QString, int> firstExists;
                int next = 1;
                for (auto it = locksByChannel.cbegin(); it != locksByChannel.cend(); ++it) {
                    firstExists.insert(it.key(), next);
                    next += int(it.value().size());
                }
                // Subscribers per channel: classic (NUMSUB) plus sharded (SHARDNUMSUB, the last reply).
                QHash<QString, qint64> waiting;
                QList<RedisReply> counted{r.at(0)};
                if (askShards && r.size() == next + 1)
                    counted << r.last();
                for (const RedisReply &counts : counted)
                    for (int i = 0; i + 1 < counts.size(); i += 2)
                        waiting[RedisBytes::toText(counts.at(i).toByteArray())] += counts.at(i + 1).toInteger();
                for (auto w = waiting.cbegin(); w != waiting.cend(); ++w) {
                    const QString &channel = w.key();
                    const qint64 n = w.value();
                    const QStringList names = locksByChannel.value(channel);
                    const int first = firstExists.value(channel, -1);
                    if (names.isEmpty() || first < 0)
                        continue;
                    bool known = true;
                    bool anyExists = false;
                    QString existing; // the first of the names whose hash exists
                    for (int k = 0; k < names.size(); ++k) {
                        const int idx = first + k;
                        if (idx >= r.size() || r.at(idx).isError()) {
                            // Unknown (e.g. MOVED): never report a waiter as orphaned on a guess.
                            if (idx < r.size() && m_result.error.isEmpty())
                                m_result.error = r.at(idx).errorMessage();
                            known = false;
                            break;
                        }
                        if (r.at(idx).toInteger() == 1 && existing.isEmpty())
                            existing = names.at(k);
                        anyExists = anyExists || r.at(idx).toInteger() == 1;
                    }
                    if (known && n > 0 && anyExists)
                        m_result.heldSubscribers[existing] += n;
                    // Orphaned only when no lock the channel may belong to exists: a client waiting
                    // on `{x}`'s channel while `{x}` is held is not waiting on a missing `x`.
                    if (known && n > 0 && !anyExists)
                        m_result.orphanSubscribers[names.first()] += n;
                }
                finish();
            });
        });
    scanLatches("0");
}

void DoctorProbe::scanLatches(const QByteArray &cursor)
{
    // SCAN ... MATCH redisson_unlock_latch:* COUNT n in scan_step.lua: n adapts to the server's
    // time for each step, as discovery's (a fixed COUNT 1000 took
    // 1-2 ms of server time per step on 1M keys).
    const int count = m_scanCount;
    RedisConnection *connection =
        m_scanConnection && m_scanConnection->isReady() ? m_scanConnection.data() : m_connection.data();
    m_scanStep.eval(connection, {}, {cursor, "redisson_unlock_latch:*", QByteArray::number(count), "withpttl"}, this,
                    [this, count](const RedisReply &r) {
                        if (r.isError()) {
                            if (m_result.error.isEmpty())
                                m_result.error = r.errorMessage();
                            finish();
                            return;
                        }
                        // { page, server µs, PTTLs of the page's keys }. A reply of another shape ends the scan
                        // with an error, never a loop: a hostile or broken server must not make LockScope scan forever.
                        RedisReply::ScanPage page;
                        QString shapeError;
                        const bool shaped = r.isArray() && r.size() == 3;
                        const RedisReply &pageReply = shaped ? r.at(0) : r;
                        if (pageReply.toScanPage(&page, &shapeError))
                            m_scanCount = ScanBudget::nextCount(count, r.at(1).toInteger(-1), kScanBudgetUs);
                        else {
                            if (m_result.error.isEmpty())
                                m_result.error = shapeError;
                            finish();
                            return;
                        }
                        const RedisReply &pttls = r.at(2);
                        for (int i = 0; i < page.items.size(); ++i) {
                            const qint64 pttl = pttls.at(i).toInteger(-2);
                            if (pttl == -2)
                                continue; // gone meanwhile
                            ++m_result.latchCount;
                            // Every latch without a TTL (they stay forever), the others up to kMaxLatchesKept.
                            if (pttl == -1 || m_result.latches.size() < kMaxLatchesKept)
                                m_result.latches.append({RedisBytes::toText(page.items[i]), pttl});
                        }
                        if (!page.isLast()) {
                            scanLatches(page.cursor);
                            return;
                        }
                        finish();
                    });
}

void DoctorProbe::finish()
{
    if (--m_pending > 0)
        return;
    m_running = false;
    const auto callbacks = std::exchange(m_callbacks, {});
    for (const auto &callback : callbacks)
        if (callback)
            callback(m_result);
}

void DoctorProbe::runAll(const QVector<DoctorProbe *> &probes, std::function<void(const Result &)> callback)
{
    struct Merge {
        int pending = 0;
        Result result;
        std::function<void(const Result &)> callback;
    };
    auto merge = std::make_shared<Merge>();
    merge->callback = std::move(callback);
    merge->pending = int(probes.size());
    if (probes.isEmpty()) {
        merge->callback(merge->result);
        return;
    }
    for (DoctorProbe *p : probes) {
        p->run([merge](const Result &r) {
            for (auto it = r.orphanSubscribers.cbegin(); it != r.orphanSubscribers.cend(); ++it)
                merge->result.orphanSubscribers[it.key()] += it.value();
            merge->result.latches += r.latches;
            merge->result.latchCount += r.latchCount;
            if (merge->result.error.isEmpty())
                merge->result.error = r.error;
            if (--merge->pending == 0)
                merge->callback(merge->result);
        });
    }
}

} // namespace lockscope
