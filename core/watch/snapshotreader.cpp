#include "watch/snapshotreader.h"

#include "redis/redisbytes.h"
#include <QRegularExpression>

#include "diagnose/lockdoctor.h"
#include "protocol/locknames.h"

#include "redis/hashslot.h"
#include "redis/redisconnection.h"

#include <QHash>

#include <QMap>
#include <QPointer>
#include <QRegularExpression>
#include <cmath>

#include <algorithm>

#include <memory>

namespace lockscope
{

SnapshotReader::SnapshotReader(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection), m_script(RedisScript::fromResource(QStringLiteral("snapshot")))
{
}

static constexpr int kMinBatch = 1;
static constexpr int kMaxBatch = 1000;

struct SnapshotReader::ReadState {
    QVector<QStringList> groups; ///< names to read, one group per hash slot in cluster mode
    int group = 0;               ///< next name: groups[group][offset]
    int offset = 0;
    int nextPart = 0;
    int inFlight = 0;
    QMap<int, QVector<LockSnapshot>> parts; ///< by send order
    QStringList plain;                      ///< names for plain reads: plain[plainOffset...] not sent yet
    int plainOffset = 0;
    QString error;
    QPointer<QObject> context;
    Callback callback;
    Callback onBatch; ///< streaming: each batch as it arrives (parts then stay empty)
    bool scriptMore() const { return group < groups.size(); }
    bool more() const { return scriptMore() || plainOffset < plain.size(); }
    /** Adds names for the script: one group, or one per hash slot. */
    void addScriptNames(const QStringList &names, bool oneSlotPerBatch)
    {
        if (oneSlotPerBatch) {
            QMap<int, QStringList> bySlot;
            for (const auto &n : names)
                bySlot[HashSlot::of(RedisBytes::toBytes(n))] << n;
            for (const auto &g : std::as_const(bySlot))
                groups << g;
        } else if (!names.isEmpty()) {
            groups << names;
        }
    }
};

void SnapshotReader::read(const QStringList &names, QObject *context, Callback callback, Callback onBatch)
{
    read(names, {}, context, std::move(callback), std::move(onBatch));
}

void SnapshotReader::read(const QStringList &names, const QStringList &plainNames, QObject *context, Callback callback,
                          Callback onBatch)
{
    auto state = std::make_shared<ReadState>();
    state->callback = std::move(callback);
    state->onBatch = std::move(onBatch);
    state->context = context;
    state->addScriptNames(names, m_oneSlotPerBatch);
    if (m_plainRefused)
        state->addScriptNames(plainNames, m_oneSlotPerBatch);
    else
        state->plain = plainNames;
    if (!state->more()) {
        QMetaObject::invokeMethod(
            this, [state] { state->callback({}, QString()); }, Qt::QueuedConnection);
        return;
    }
    sendMore(state);
}

void SnapshotReader::adapt(int locks, qint64 usedUs)
{
    m_slowestBatchUs = qMax(m_slowestBatchUs, usedUs);
    if (m_budgetUs <= 0 || locks <= 0)
        return;
    // Aim at 70 % of the budget from the cost per lock just measured (the script's TIMEs miss the
    // conversion of its reply, about a fifth more); at most double or halve.
    const double perLockUs = qMax(1.0, double(usedUs) / locks);
    int next = int(0.7 * double(m_budgetUs) / perLockUs);
    if (locks < m_batchSize && usedUs <= m_budgetUs)
        next = qMax(next, m_batchSize); // a short tail batch says little: keep the size
    m_batchSize = qBound(qMax(kMinBatch, m_batchSize / 2), next, qMin(kMaxBatch, m_batchSize * 2));
    if (usedUs > m_budgetUs)
        m_batchSize = qMax(kMinBatch, qMin(m_batchSize, locks / 2)); // too slow: at least halve
}

void SnapshotReader::sendMoreOrStop(const QPointer<SnapshotReader> &self, const std::shared_ptr<ReadState> &state)
{
    if (self) {
        self->sendMore(state);
        return;
    }
    // The reader is gone: nothing more is sent, and the read reports what was read.
    state->groups.clear();
    state->plain.clear();
    state->plainOffset = 0;
}

void SnapshotReader::finishBatch(const std::shared_ptr<ReadState> &state, int part, QVector<LockSnapshot> out)
{
    if (state->onBatch) {
        if (!out.isEmpty())
            state->onBatch(out, QString());
    } else {
        state->parts[part] = std::move(out);
    }
    if (state->inFlight == 0 && !state->more()) {
        QVector<LockSnapshot> all;
        for (auto &p : state->parts)
            all += p;
        state->callback(all, state->error);
    }
}

void SnapshotReader::probeScript(QObject *context, std::function<void(const QString &error)> done)
{
    m_script.eval(m_connection, {}, {QByteArray::number(m_maxWaiters)}, context,
                  [done](const RedisReply &reply) { done(reply.isError() ? reply.errorMessage() : QString()); });
}

void SnapshotReader::retryWithScript(const std::shared_ptr<ReadState> &state, const QStringList &names)
{
    m_plainRetried += names.size();
    state->addScriptNames(names, m_oneSlotPerBatch);
}

void SnapshotReader::sendMore(const std::shared_ptr<ReadState> &state)
{
    while (state->more() && state->inFlight < m_maxInFlight) {
        if (!state->scriptMore()) {
            sendPlain(state);
            continue;
        }
        const QStringList &group = state->groups.at(state->group);
        const QStringList chunk = group.mid(state->offset, m_batchSize);
        state->offset += int(chunk.size());
        if (state->offset >= group.size()) {
            ++state->group;
            state->offset = 0;
        }
        const int part = state->nextPart++;
        ++state->inFlight;
        QList<QByteArray> keys;
        keys.reserve(chunk.size());
        for (const auto &n : chunk)
            keys << RedisBytes::toBytes(n);
        ++m_callsSent;
        QPointer<SnapshotReader> self(this);
        m_script.eval(m_connection, keys, {QByteArray::number(m_maxWaiters)}, state->context,
                      [self, state, chunk, part](const RedisReply &reply) {
                          const qint64 readAt = LockSnapshot::steadyNowMs();
                          --state->inFlight;
                          // The next batch goes out before this one is parsed: Redis works on it
                          // meanwhile (it sat idle while the client parsed).
                          sendMoreOrStop(self, state);
                          QVector<LockSnapshot> out;
                          if (reply.isError() && self && self->m_routedSend && isSlotRedirect(reply.errorMessage())) {
                              // Resharding: read where each key lives. The part is counted in flight
                              // now and its commands go out from the event loop, so this script
                              // part finishes first and the read's callback comes once, last.
                              const int keyedPart = state->nextPart++;
                              ++state->inFlight;
                              const bool migrating = !reply.errorMessage().startsWith(QLatin1String("MOVED "));
                              QMetaObject::invokeMethod(
                                  self.data(),
                                  [self, state, chunk, keyedPart, migrating] {
                                      if (self)
                                          self->readKeyByKey(state, chunk, keyedPart, migrating);
                                  },
                                  Qt::QueuedConnection);
                          } else if (reply.isError()) {
                              if (state->error.isEmpty())
                                  state->error = reply.errorMessage();
                          } else {
                              const RedisReply &time = reply.at(0);
                              const qint64 startUs = time.at(0).toInteger() * 1000000 + time.at(1).toInteger();
                              const qint64 serverMs = startUs / 1000;
                              out.reserve(chunk.size());
                              const RedisReply &twins = reply.at(chunk.size() + 1); // §14.4
                              for (int i = 0; i < chunk.size(); ++i)
                                  out.append(
                                      parse(chunk[i], reply.at(i + 1), serverMs, readAt, twins.at(i).toInteger() == 1));
                              const RedisReply &end = reply.at(chunk.size() + 2);
                              if (self && end.size() == 2)
                                  self->adapt(int(chunk.size()),
                                              end.at(0).toInteger() * 1000000 + end.at(1).toInteger() - startUs);
                          }
                          finishBatch(state, part, std::move(out));
                      });
    }
}

bool SnapshotReader::isSlotRedirect(const QString &error)
{
    return error.startsWith(QLatin1String("ASK ")) || error.startsWith(QLatin1String("MOVED ")) ||
           error.startsWith(QLatin1String("TRYAGAIN")) || error.contains(QLatin1String("non local key")) ||
           error.contains(QLatin1String("rehashing"));
}

void SnapshotReader::readKeyByKey(const std::shared_ptr<ReadState> &state, const QStringList &names, int part,
                                  bool migrating)
{
    // One part of the read (counted in flight by the caller) until every name's commands answered.
    m_keyByKey += names.size();
    struct Pending {
        QVector<LockSnapshot> out;
        int namesLeft = 0;
    };
    auto pending = std::make_shared<Pending>();
    pending->namesLeft = int(names.size());
    QPointer<SnapshotReader> self(this);
    auto nameDone = [self, state, pending, part](LockSnapshot s, const QString &error) {
        if (!error.isEmpty() && state->error.isEmpty())
            state->error = error;
        else if (error.isEmpty())
            pending->out << s;
        if (--pending->namesLeft > 0)
            return;
        --state->inFlight;
        sendMoreOrStop(self, state);
        finishBatch(state, part, std::move(pending->out));
    };
    const QByteArray max = QByteArray::number(m_maxWaiters - 1);
    for (const QString &name : names) {
        const QByteArray key = RedisBytes::toBytes(name);
        const QByteArray queue = RedisBytes::toBytes(LockNames::fairQueueKey(name));
        const QByteArray timeouts = RedisBytes::toBytes(LockNames::fairTimeoutKey(name));
        const QByteArray channel = RedisBytes::toBytes(LockNames::unlockChannel(name));
        const QByteArray rwChannel = RedisBytes::toBytes(LockNames::readWriteChannel(name));
        const QByteArray twin = RedisBytes::toBytes(LockNames::twinName(name));
        // (key the command is routed by, the command): the slot of every one is the lock's (§1.2).
        const QVector<QPair<QByteArray, QList<QByteArray>>> commands{
            {key, {"TIME"}},
            {key, {"HSCAN", key, "0", "COUNT", "1024"}},
            {key, {"HLEN", key}},
            {key, {"TYPE", key}},
            {key, {"PTTL", key}},
            {queue, {"LLEN", queue}},
            {queue, {"LRANGE", queue, "0", max}},
            {timeouts, {"ZCARD", timeouts}},
            {timeouts, {"ZRANGE", timeouts, "0", max, "WITHSCORES"}},
            {key, {"GET", RedisBytes::toBytes(LockNames::tokenKey(name))}},
            {key, twin.isEmpty() ? QList<QByteArray>{"TIME"} : QList<QByteArray>{"TYPE", twin}},
            {key, {"PUBSUB", "NUMSUB", channel}},
            {channel, {"PUBSUB", "SHARDNUMSUB", channel}},
            {key, {"PUBSUB", "NUMSUB", rwChannel}},
            {rwChannel, {"PUBSUB", "SHARDNUMSUB", rwChannel}},
        };
        struct Replies {
            QVector<RedisReply> r;
            int left = 0;
        };
        auto replies = std::make_shared<Replies>();
        replies->r.resize(commands.size());
        replies->left = int(commands.size());
        const bool hasTwin = !twin.isEmpty();
        for (int i = 0; i < commands.size(); ++i) {
            m_routedSend(commands[i].first, commands[i].second, state->context,
                         [replies, i, name, hasTwin, nameDone, migrating](const RedisReply &reply) {
                             replies->r[i] = reply;
                             if (--replies->left > 0)
                                 return;
                             const QVector<RedisReply> &r = replies->r;
                             for (int c = 0; c < r.size(); ++c) {
                                 // WRONGTYPE is data (another type under a companion's name), and a
                                 // server without SHARDNUMSUB has no sharded subscribers; any other
                                 // error (CLUSTERDOWN, LOADING, NOPERM, a lost node) fails the
                                 // name: never read as "no such key", which would report it gone.
                                 const QString m = r[c].isError() ? r[c].errorMessage() : QString();
                                 const bool data = m.startsWith(QLatin1String("WRONGTYPE")) ||
                                                   ((c == 12 || c == 14) && !r[c].isTransportError());
                                 if (r[c].isError() && !data) {
                                     nameDone(LockSnapshot(), m);
                                     return;
                                 }
                             }
                             const qint64 serverMs = r[0].at(0).toInteger() * 1000 + r[0].at(1).toInteger() / 1000;
                             const QByteArray type = r[3].isError() ? QByteArray("none") : r[3].toByteArray();
                             static const RedisReply empty = RedisReply::makeArray({});
                             const bool isHash = type == "hash";
                             auto count = [](const RedisReply &x) { return x.isError() ? -1 : x.toInteger(); };
                             auto shardCount = [](const RedisReply &x) {
                                 return x.isError() ? 0 : x.at(1).toInteger(); // before Redis 7: none
                             };
                             const RedisReply entry = RedisReply::makeArray(
                                 {RedisReply::makeString(type), isHash ? r[1].at(1) : empty,
                                  RedisReply::makeInteger(r[4].toInteger(-2)), RedisReply::makeInteger(count(r[5])),
                                  r[6].isError() ? empty : r[6], RedisReply::makeInteger(count(r[7])),
                                  r[8].isError() ? empty : r[8],
                                  RedisReply::makeString(r[9].isError() ? QByteArray() : r[9].toByteArray()),
                                  RedisReply::makeInteger(r[11].at(1).toInteger() + shardCount(r[12])), empty,
                                  RedisReply::makeInteger(r[13].at(1).toInteger() + shardCount(r[14])),
                                  RedisReply::makeInteger(isHash ? r[2].toInteger() : 0)});
                             LockSnapshot s = parse(name, entry, serverMs, LockSnapshot::steadyNowMs(),
                                                    hasTwin && r[10].toByteArray() == "hash");
                             if (migrating) // not after a MOVED: that slot has moved, not moving
                                 s.migratingSlot = HashSlot::of(RedisBytes::toBytes(name));
                             nameDone(s, QString());
                         });
        }
    }
}

// The unlock channel Redisson derives for `name` (§1.2): its hash tag is `{name}`, or the name
// itself when it has braces.
static QByteArray unlockChannelOf(const QByteArray &name)
{
    // One allocation per name (360k of them at 1M keys).
    static const QByteArray prefix = QByteArrayLiteral("redisson_lock__channel:");
    const bool braced = name.contains('{');
    QByteArray channel;
    channel.reserve(prefix.size() + name.size() + 2);
    channel.append(prefix);
    if (!braced)
        channel.append('{');
    channel.append(name);
    if (!braced)
        channel.append('}');
    return channel;
}

void SnapshotReader::sendPlain(const std::shared_ptr<ReadState> &state)
{
    const QStringList chunk = state->plain.mid(state->plainOffset, m_plainBatch);
    state->plainOffset += int(chunk.size());
    if (state->plainOffset >= state->plain.size()) {
        state->plain.clear(); // nothing of it is needed any more
        state->plainOffset = 0;
    }
    const int part = state->nextPart++;
    ++state->inFlight;
    ++m_plainBatchesSent;
    // TIME, HRANDFIELD + PTTL per name, one NUMSUB and one SHARDNUMSUB for all, TIME: the server
    // time of the batch comes from the two TIMEs, as the script's does.
    QList<QList<QByteArray>> commands;
    commands.reserve(2 * chunk.size() + 4);
    QList<QByteArray> numsub{"PUBSUB", "NUMSUB"};
    QList<QByteArray> shardnumsub{"PUBSUB", "SHARDNUMSUB"};
    numsub.reserve(chunk.size() + 2);
    shardnumsub.reserve(chunk.size() + 2);
    commands << QList<QByteArray>{"TIME"};
    // Shared words: each `"HRANDFIELD"` spelled here would be a new QByteArray per name.
    static const QByteArray hrandfield = QByteArrayLiteral("HRANDFIELD");
    static const QByteArray seventeen = QByteArrayLiteral("17");
    static const QByteArray withValues = QByteArrayLiteral("WITHVALUES");
    static const QByteArray pttl = QByteArrayLiteral("PTTL");
    for (const QString &n : chunk) {
        const QByteArray key = RedisBytes::toBytes(n);
        commands << QList<QByteArray>{hrandfield, key, seventeen, withValues} << QList<QByteArray>{pttl, key};
        numsub << unlockChannelOf(key);
    }
    shardnumsub += numsub.mid(2);
    commands << numsub << shardnumsub << QList<QByteArray>{"TIME"};
    QPointer<SnapshotReader> self(this);
    m_connection->pipeline(commands, state->context, [self, state, chunk, part](const QVector<RedisReply> &replies) {
        const qint64 readAt = LockSnapshot::steadyNowMs();
        --state->inFlight;
        QVector<LockSnapshot> out;
        QStringList retry;
        const int n = int(chunk.size());
        if (replies.size() != 2 * n + 4 || replies.at(0).isError()) {
            const RedisReply bad =
                replies.isEmpty() ? RedisReply::makeError(QStringLiteral("no reply"), true) : replies.at(0);
            if (bad.isTransportError()) {
                if (state->error.isEmpty())
                    state->error = bad.errorMessage();
            } else {
                retry = chunk;
            }
        } else {
            const RedisReply &time = replies.at(0);
            const qint64 startUs = time.at(0).toInteger() * 1000000 + time.at(1).toInteger();
            const qint64 serverMs = startUs / 1000;
            const RedisReply &counts = replies.at(2 * n + 1);
            const RedisReply &sharded = replies.at(2 * n + 2);
            static const RedisReply empty = RedisReply::makeArray({});
            out.reserve(n);
            for (int i = 0; i < n; ++i) {
                const RedisReply &fields = replies.at(1 + 2 * i);
                const RedisReply &pttl = replies.at(2 + 2 * i);
                if (fields.isError() && fields.errorMessage().contains(QLatin1String("unknown command"))) {
                    if (self)
                        self->m_plainRefused = true; // before Redis 6.2: the script reads all
                    retry << chunk.at(i);
                    continue;
                }
                const qint64 ttl = pttl.toInteger(-3);
                const int fieldCount = int(fields.size() / 2);
                bool plainEnough = !fields.isError() && !pttl.isError() && fields.isArray() && fieldCount < 17;
                if (plainEnough && fieldCount == 0) {
                    plainEnough = ttl == -2; // gone, and nothing else there either
                } else if (plainEnough) {
                    plainEnough = ttl != -2; // a hash and no key: it changed between the two
                    for (int f = 0; plainEnough && f < 2 * fieldCount; f += 2)
                        plainEnough = fields.at(f).toByteArray() != "mode";
                }
                if (!plainEnough) {
                    retry << chunk.at(i);
                    continue;
                }
                // As snapshot.lua: a hash without a field `mode` and without a field name holding
                // `:` (every holder field has one) cannot be a lock: the script's short entry.
                bool lockLike = false;
                for (int f = 0; !lockLike && f < 2 * fieldCount; f += 2)
                    lockLike = fields.at(f).toByteArray().contains(':');
                if (fieldCount > 0 && !lockLike) {
                    out.append(parse(chunk.at(i), RedisReply::makeArray({RedisReply::makeString("hash")}), serverMs,
                                     readAt, false));
                    continue;
                }
                qint64 subscribers = counts.at(2 * i + 1).toInteger();
                if (!sharded.isError())
                    subscribers += sharded.at(2 * i + 1).toInteger();
                // The script's entry for a lock without companions (see snapshot.lua).
                const RedisReply entry = RedisReply::makeArray(
                    {RedisReply::makeString(fieldCount > 0 ? QByteArrayLiteral("hash") : QByteArrayLiteral("none")),
                     fields, RedisReply::makeInteger(ttl), RedisReply::makeInteger(0), empty,
                     RedisReply::makeInteger(0), empty, RedisReply::makeString(QByteArray()),
                     RedisReply::makeInteger(subscribers), empty, RedisReply::makeInteger(0),
                     RedisReply::makeInteger(fieldCount)});
                out.append(parse(chunk.at(i), entry, serverMs, readAt, false));
            }
            const RedisReply &end = replies.at(2 * n + 3);
            if (self && end.size() == 2)
                self->m_slowestBatchUs =
                    qMax(self->m_slowestBatchUs, end.at(0).toInteger() * 1000000 + end.at(1).toInteger() - startUs);
        }
        if (!retry.isEmpty()) {
            if (self)
                self->retryWithScript(state, retry);
            else if (state->error.isEmpty())
                state->error = QStringLiteral("the reader is gone");
        }
        sendMoreOrStop(self, state);
        finishBatch(state, part, std::move(out));
    });
}

// Faster multilock group (§5.5, §14.10): every field is a value field `h` -> holder lockName, or
// `h:<holder>:expire_time` / `h:<holder>:lock_count` with a number; at least one of the latter.
static bool parseFasterMultiLock(const RedisReply &fields, LockSnapshot *s)
{
    static const QString expireSuffix = QStringLiteral(":expire_time");
    static const QString countSuffix = QStringLiteral(":lock_count");
    // Most hashes are no such group: tell from the raw field names before converting anything.
    bool anySuffix = false;
    for (int i = 0; i + 1 < fields.size() && !anySuffix; i += 2) {
        const QByteArray f = fields.at(i).toByteArray();
        anySuffix = f.endsWith(":expire_time") || f.endsWith(":lock_count");
    }
    if (!anySuffix)
        return false;
    QHash<QString, QByteArray> byField;
    QStringList valueFields;
    bool sawSuffix = false;
    for (int i = 0; i + 1 < fields.size(); i += 2) {
        const QString field = RedisBytes::toText(fields.at(i).toByteArray());
        const QByteArray value = fields.at(i + 1).toByteArray();
        byField.insert(field, value);
        if (field.endsWith(expireSuffix) || field.endsWith(countSuffix)) {
            bool numeric = false;
            value.toLongLong(&numeric);
            if (!numeric)
                return false;
            sawSuffix = true;
        } else if (LockNames::parseHolderField(RedisBytes::toText(value), nullptr, nullptr, nullptr)) {
            valueFields << field;
        } else {
            return false;
        }
    }
    if (!sawSuffix || valueFields.isEmpty())
        return false;
    valueFields.sort();
    QHash<QString, int> holderIndex;
    for (const QString &f : std::as_const(valueFields)) {
        MultiLockValue v;
        v.fieldId = f;
        v.holder = RedisBytes::toText(byField.value(f));
        LockNames::parseHolderField(v.holder, &v.clientId, &v.threadId, nullptr);
        const QString prefix = f + QLatin1Char(':') + v.holder;
        v.holdCount = byField.value(prefix + countSuffix).toLongLong();
        bool ok = false;
        const qint64 expire = byField.value(prefix + expireSuffix).toLongLong(&ok);
        v.expireEpochMs = ok ? expire : -1;
        s->multiLockValues << v;
        if (!v.isLive(s->serverTimeMs))
            continue;
        auto it = holderIndex.find(v.holder);
        if (it == holderIndex.end()) {
            LockHolder h;
            h.field = v.holder;
            h.clientId = v.clientId;
            h.threadId = v.threadId;
            it = holderIndex.insert(v.holder, s->holders.size());
            s->holders << h;
        }
        s->holders[it.value()].holdCount += v.holdCount;
    }
    for (auto it = byField.cbegin(); it != byField.cend(); ++it)
        s->rawFields << QPair<QString, QString>{it.key(), RedisBytes::toText(it.value())};
    s->kind = LockKind::FasterMultiLock;
    return true;
}

LockSnapshot SnapshotReader::parse(const QString &name, const RedisReply &entry, qint64 serverTimeMs,
                                   qint64 readAtSteadyMs, bool twinHashExists)
{
    LockSnapshot s;
    s.name = name;
    s.serverTimeMs = serverTimeMs;
    s.readAtSteadyMs = readAtSteadyMs;
    const QByteArray type = entry.at(0).toByteArray();
    const RedisReply &fields = entry.at(1);
    s.pttlMs = entry.at(2).toInteger(-2);
    s.queueLength = qMax<qint64>(0, entry.at(3).toInteger());
    const RedisReply &queue = entry.at(4);
    s.timeoutSetSize = qMax<qint64>(0, entry.at(5).toInteger());
    const RedisReply &timeouts = entry.at(6);
    const QByteArray token = entry.at(7).toByteArray();
    s.subscribers = entry.at(8).toInteger();
    s.exists = type == "hash";
    s.fieldCount = entry.size() > 11 ? entry.at(11).toInteger() : fields.size() / 2;
    s.sampled = s.exists && s.fieldCount > fields.size() / 2;
    s.twinName = LockNames::twinName(name);
    s.twinExists = !s.twinName.isEmpty() && twinHashExists;
    if (s.companionsOfTwin()) {
        // §14.4: the queue, timeout set, token and channel read are the twin's, not this name's.
        s.isLock = false;
        return s;
    }

    if (s.exists && parseFasterMultiLock(fields, &s)) {
        s.isLock = true;
        for (const auto &f : LockDoctor::snapshotFindings(s))
            s.problems << f.title;
        return s;
    }

    bool holderShaped = s.exists && fields.size() >= 2;
    bool hasMode = false;
    bool nonNumericCount = false;
    for (int i = 0; i + 1 < fields.size(); i += 2) {
        const QString field = RedisBytes::toText(fields.at(i).toByteArray());
        const QByteArray value = fields.at(i + 1).toByteArray();
        if (field == QLatin1String("mode")) {
            hasMode = true;
            s.rwMode = RedisBytes::toText(value);
            continue;
        }
        LockHolder h;
        h.field = field;
        bool write = false;
        bool numeric = false;
        h.holdCount = value.toLongLong(&numeric);
        if (!LockNames::parseHolderField(field, &h.clientId, &h.threadId, &write)) {
            // Old or hand-written clients write lock-shaped hashes without Redisson's UUID
            // (`HSET legacy:cron x:1 1`): one field `<id>:<decimal thread>` with a positive hold
            // count is shown as a lock, with a note on what is not Redisson-like. Anything
            // looser stays "no lock" (an application's hash of counters is not one).
            static const QRegularExpression legacy(QStringLiteral("^([^\\s:]+):([0-9]{1,19})$"));
            const auto m = fields.size() == 2 ? legacy.match(RedisBytes::matchable(field)) : QRegularExpressionMatch();
            if (fields.size() == 2 && m.hasMatch() && numeric && h.holdCount >= 1) {
                h.clientId = field.left(m.capturedLength(1));
                h.threadId = m.captured(2);
                s.anomalies << QStringLiteral("holder field '%1' has no Redisson client UUID before the thread id "
                                              "(written by an old or hand-written client, not by Redisson)")
                                   .arg(field.left(80));
                s.holders.append(h);
                continue;
            }
            holderShaped = false;
            continue;
        }
        if (!numeric) {
            // A holder field with a count that is not a number: in a read-write lock (`mode`) still
            // that holder, shown with what is there; a hash without `mode` is no lock (below).
            s.anomalies << QStringLiteral("holder %1 has hold count '%2', not a number")
                               .arg(field, RedisBytes::toText(value.left(40)));
            h.holdCount = 0;
            nonNumericCount = true;
        } else if (h.holdCount < 1)
            s.problems << QStringLiteral("holder %1 has hold count %2 (expected >= 1)").arg(field).arg(h.holdCount);
        s.holders.append(h);
        if (write)
            s.holders.last().mode = QStringLiteral("write");
    }
    if (nonNumericCount && !(hasMode && (s.rwMode == QLatin1String("read") || s.rwMode == QLatin1String("write"))))
        holderShaped = false;
    if (hasMode && s.rwMode != QLatin1String("read") && s.rwMode != QLatin1String("write"))
        s.anomalies << QStringLiteral("field 'mode' is '%1' (Redisson's read-write lock writes 'read' or 'write')")
                           .arg(s.rwMode.left(40));
    if (hasMode && (s.rwMode == QLatin1String("read") || s.rwMode == QLatin1String("write"))) {
        s.kind = LockKind::ReadWriteLock;
        holderShaped = s.exists;
        s.subscribers = entry.at(10).toInteger();
        QHash<QString, QVector<qint64>> holdTtls;
        const RedisReply &ttlPairs = entry.at(9);
        for (int i = 0; i + 1 < ttlPairs.size(); i += 2) {
            QVector<qint64> ttls;
            for (const auto &t : ttlPairs.at(i + 1).elements())
                ttls << t.toInteger(-2);
            holdTtls.insert(RedisBytes::toText(ttlPairs.at(i).toByteArray()), ttls);
        }
        for (auto &h : s.holders) {
            if (!h.mode.isEmpty())
                continue;
            h.mode = QStringLiteral("read");
            h.holdTtlsMs = holdTtls.value(h.field);
        }
    }

    // Fair-lock companions: queue in order with deadlines from the timeout set (§3.1).
    // Scores are doubles: Redisson writes epoch ms, but a zset also takes "inf", "-inf" and
    // fractions. What is not a finite epoch-ms number is kept as text and reported, never cast.
    QHash<QString, qint64> deadlines;
    QHash<QString, QString> rawDeadlines;
    for (int i = 0; i + 1 < timeouts.size(); i += 2) {
        const QString member = RedisBytes::toText(timeouts.at(i).toByteArray());
        const QByteArray raw = timeouts.at(i + 1).toByteArray();
        bool ok = false;
        const double score = raw.toDouble(&ok);
        qint64 deadline = -1;
        if (ok && std::isfinite(score) && score >= 0 && score < 9.0e15) {
            deadline = static_cast<qint64>(score);
        } else {
            rawDeadlines.insert(member, RedisBytes::toText(raw));
            s.anomalies << QStringLiteral("waiter %1 has deadline '%2' in the timeout set, not an epoch-ms time")
                               .arg(member, RedisBytes::toText(raw.left(40)));
        }
        deadlines.insert(member, deadline);
        s.timeoutSet.append({member, deadline});
    }
    for (int i = 0; i < queue.size(); ++i) {
        LockWaiter w;
        w.field = RedisBytes::toText(queue.at(i).toByteArray());
        w.position = i + 1;
        w.deadlineEpochMs = deadlines.value(w.field, -1);
        w.deadlineRaw = rawDeadlines.value(w.field);
        s.waiters.append(w);
    }
    const bool fair = s.queueLength > 0 || s.timeoutSetSize > 0;
    const bool fenced = !token.isEmpty();
    if (fenced) {
        bool numeric = false;
        s.token = token.toLongLong(&numeric);
        if (!numeric || s.token < 0) {
            s.token = 0; // still a fenced lock (the counter key exists); the anomaly says what is there
            s.anomalies << QStringLiteral("fencing token redisson_lock_token is '%1', not a counter")
                               .arg(RedisBytes::toText(token.left(40)));
        }
    }

    // A free fenced lock (token key only) is free like any other lock: not listed, as after a rescan.
    s.isLock = holderShaped || fair;
    if (!s.isLock) {
        s.holders.clear();
        s.problems.clear();
        s.anomalies.clear();
        return s;
    }
    if (s.kind != LockKind::ReadWriteLock) {
        if (fair)
            s.kind = LockKind::FairLock;
        else if (fenced)
            s.kind = LockKind::FencedLock;
    }
    // What the data proves about the kind (see LockSnapshot::kindCertain): a fair lock whose
    // queue emptied reads like a plain one.
    if (s.kind == LockKind::Lock) {
        if (s.subscribers > 0) {
            s.kindNote = QStringLiteral("plain lock: clients wait on the shared unlock channel (fair-lock waiters "
                                        "listen on per-waiter channels)");
        } else {
            s.kindCertain = false;
            s.kindNote = QStringLiteral("no fair queue, timeout set or waiting client now: a fair lock without "
                                        "waiters stores exactly what a plain lock stores (protocol §3.1)");
        }
    }

    // The stateless doctor rules give each snapshot its "problems" (titles); LockDoctor adds the
    // rules that need history (watchdog_long, waiters_without_holder) and deadlocks.
    for (const auto &f : LockDoctor::snapshotFindings(s))
        s.problems << f.title;
    return s;
}

} // namespace lockscope
