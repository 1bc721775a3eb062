#include "protocol/locksnapshot.h"
#include "redis/redisbytes.h"
#include "text/displaytext.h"
#include "text/enumwords.h"
#include "text/jsonobjectbuilder.h"

#include <QJsonArray>

#include <algorithm>
#include <chrono>

namespace lockscope
{

namespace
{

const EnumWords<LockKind> kKindWords{{LockKind::Lock, "lock"},
                                     {LockKind::FairLock, "fair_lock"},
                                     {LockKind::ReadWriteLock, "read_write_lock"},
                                     {LockKind::FencedLock, "fenced_lock"},
                                     {LockKind::FasterMultiLock, "faster_multi_lock"}};
const EnumWords<LockKind> kKindLabels{{LockKind::Lock, "Reentrant lock"},
                                      {LockKind::FairLock, "Fair lock"},
                                      {LockKind::ReadWriteLock, "Read-write lock"},
                                      {LockKind::FencedLock, "Fenced lock"},
                                      {LockKind::FasterMultiLock, "Faster multilock group"}};

} // namespace

QString lockKindName(LockKind kind)
{
    return kKindWords.word(kind, "lock");
}

QString lockKindLabel(LockKind kind)
{
    return kKindLabels.word(kind);
}

QJsonObject LockHolder::toJson() const
{
    JsonObjectBuilder o;
    DisplayText::insertJson(o, QLatin1StringView("field"), QLatin1StringView("field_hex"), field);
    o.insert(QLatin1StringView("client_id"), clientId);
    o.insert(QLatin1StringView("thread_id"), threadId);
    o.insert(QLatin1StringView("hold_count"), holdCount);
    o.insert(QLatin1StringView("mode"), mode.isEmpty() ? QJsonValue() : QJsonValue(mode));
    if (mode == QLatin1String("read")) {
        QJsonArray ttls;
        for (qint64 t : holdTtlsMs)
            ttls.append(t);
        o.insert(QLatin1StringView("hold_ttls_ms"), ttls);
    }
    return o.take();
}

QJsonObject MultiLockValue::toJson(qint64 serverTimeMs) const
{
    QJsonObject o;
    o.insert(QStringLiteral("field"), fieldId);
    o.insert(QStringLiteral("holder"), holder);
    o.insert(QStringLiteral("client_id"), clientId);
    o.insert(QStringLiteral("thread_id"), threadId);
    o.insert(QStringLiteral("hold_count"), holdCount);
    o.insert(QStringLiteral("expire_epoch_ms"), expireEpochMs >= 0 ? QJsonValue(expireEpochMs) : QJsonValue());
    o.insert(QStringLiteral("expire_in_ms"),
             expireEpochMs >= 0 ? QJsonValue(expireEpochMs - serverTimeMs) : QJsonValue());
    o.insert(QStringLiteral("live"), isLive(serverTimeMs));
    return o;
}

QString LockSnapshot::nameNote() const
{
    if (companionsShared())
        return QStringLiteral(
                   "both %1 and %2 exist, and Redisson derives the same fair queue, timeout set, token "
                   "and unlock channels for both (protocol §14.4): waiters and subscribers shown may be %2's")
            .arg(name, twinName);
    if (!nameCertain())
        return QStringLiteral("only keys Redisson derives for both %1 and %2 exist (protocol §14.4): this lock may be "
                              "named %1 or %2")
            .arg(name, twinName);
    return {};
}

QString LockSnapshot::kindDisplay() const
{
    if (!kindCertain && kind == LockKind::Lock)
        return QStringLiteral("lock (fair or plain)");
    return lockKindName(kind);
}

QJsonObject LockWaiter::toJson(qint64 serverTimeMs) const
{
    JsonObjectBuilder o;
    DisplayText::insertJson(o, QLatin1StringView("field"), QLatin1StringView("field_hex"), field);
    o.insert(QLatin1StringView("position"), position);
    o.insert(QLatin1StringView("deadline_epoch_ms"), deadlineEpochMs >= 0 ? QJsonValue(deadlineEpochMs) : QJsonValue());
    o.insert(QLatin1StringView("deadline_in_ms"),
             deadlineEpochMs >= 0 ? QJsonValue(deadlineEpochMs - serverTimeMs) : QJsonValue());
    if (!deadlineRaw.isEmpty())
        o.insert(QLatin1StringView("deadline_raw"), deadlineRaw);
    return o.take();
}

qint64 LockSnapshot::totalHoldCount() const
{
    qint64 n = 0;
    for (const auto &h : holders)
        n += h.holdCount;
    return n;
}

qint64 LockSnapshot::remainingTtlMs(qint64 nowSteadyMs) const
{
    if (pttlMs < 0)
        return pttlMs;
    return qMax<qint64>(0, pttlMs - (nowSteadyMs - readAtSteadyMs));
}

QString LockSnapshot::holderSummary() const
{
    if (sampled)
        return QStringLiteral("%1 holder fields (too many to list)").arg(fieldCount);
    QStringList parts;
    for (const auto &h : holders)
        parts << h.field;
    return parts.join(QStringLiteral(", "));
}

QString LockSnapshot::stateFingerprint() const
{
    if (!exists)
        return {};
    if (sampled) // a hash too big to read whole: its field count (force_unlock.lua, repair_set_ttl.lua)
        return QStringLiteral("#fields=%1").arg(fieldCount);
    QStringList parts;
    if (kind == LockKind::FasterMultiLock) {
        for (const auto &f : rawFields)
            parts << f.first + QLatin1Char('=') + f.second;
        std::sort(parts.begin(), parts.end(),
                  [](const QString &a, const QString &b) { return RedisBytes::toBytes(a) < RedisBytes::toBytes(b); });
        return parts.join(QLatin1Char('\n'));
    }
    for (const auto &h : holders)
        parts << h.field + QLatin1Char('=') + QString::number(h.holdCount);
    if (!rwMode.isEmpty())
        parts << QStringLiteral("mode=") + rwMode;
    std::sort(parts.begin(), parts.end(),
              [](const QString &a, const QString &b) { return RedisBytes::toBytes(a) < RedisBytes::toBytes(b); });
    return parts.join(QLatin1Char('\n'));
}

bool LockSnapshot::isRenewalOf(const LockSnapshot &before) const
{
    if (!(isHeld() && before.isHeld() && sameHolders(before) && before.pttlMs >= 0 && pttlMs >= 0))
        return false;
    // What `before`'s countdown predicts for this read. The server's TIME, read in the same atomic
    // script as the PTTL, places both readings on the server's clock, so a round trip that grew
    // (network latency, a busy client) is not mistaken for a renewal; the local
    // arrival times are only the fallback for snapshots without a server time.
    const qint64 predicted = serverTimeMs > 0 && before.serverTimeMs > 0
                                 ? before.pttlMs - (serverTimeMs - before.serverTimeMs)
                                 : before.remainingTtlMs(readAtSteadyMs);
    return pttlMs > predicted + 250;
}

bool LockSnapshot::sameHolders(const LockSnapshot &o) const
{
    return holders == o.holders && rwMode == o.rwMode;
}

QJsonObject LockSnapshot::toJson() const
{
    // 200k of these per `list --json`: JsonObjectBuilder fills a copy of an object of the same
    // keys instead of growing an empty one key by key.
    JsonObjectBuilder o;
    DisplayText::insertJson(o, QLatin1StringView("name"), QLatin1StringView("name_hex"), name);
    o.insert(QLatin1StringView("kind"), lockKindName(kind));
    o.insert(QLatin1StringView("pttl_ms"), pttlMs);
    if (stale) { // the last read before LockScope lost sight of the lock: say so
        o.insert(QLatin1StringView("stale"), true);
        o.insert(QLatin1StringView("stale_as_of_ms"), staleAsOfMs);
    }
    QJsonArray hs;
    for (const auto &h : holders)
        hs.append(h.toJson());
    o.insert(QLatin1StringView("holders"), hs);
    QJsonArray ws;
    for (const auto &w : waiters)
        ws.append(w.toJson(serverTimeMs));
    o.insert(QLatin1StringView("waiters"), ws);
    o.insert(QLatin1StringView("queue_length"), queueLength);
    if (kind == LockKind::FairLock) {
        QJsonArray ts;
        for (const auto &t : timeoutSet)
            ts.append(QJsonObject{{QStringLiteral("field"), t.first}, {QStringLiteral("deadline_epoch_ms"), t.second}});
        o.insert(QLatin1StringView("timeout_set"), ts);
    }
    if (kind == LockKind::ReadWriteLock)
        o.insert(QLatin1StringView("mode"), rwMode);
    o.insert(QLatin1StringView("subscribers"), subscribers);
    o.insert(QLatin1StringView("token"), token >= 0 ? QJsonValue(token) : QJsonValue());
    o.insert(QLatin1StringView("server_time_ms"), serverTimeMs);
    o.insert(QLatin1StringView("problems"), QJsonArray::fromStringList(problems));
    if (!anomalies.isEmpty())
        o.insert(QLatin1StringView("anomalies"), QJsonArray::fromStringList(anomalies));
    if (sampled) { // `holders` is a sample of a hash too big to read whole
        o.insert(QLatin1StringView("field_count"), fieldCount);
        o.insert(QLatin1StringView("holders_sampled"), true);
    }
    if (migratingSlot >= 0) // read key by key during a resharding of its slot
        o.insert(QLatin1StringView("migrating_slot"), migratingSlot);
    o.insert(QLatin1StringView("replicated"), replication == Replication::Unknown
                                                  ? QJsonValue(QJsonValue::Null)
                                                  : QJsonValue(replication == Replication::Replicated));
    if (replication == Replication::Replicated)
        o.insert(QLatin1StringView("replicated_on"), QJsonArray::fromStringList(replicatedOn));
    if (replication == Replication::NotReplicated)
        o.insert(QLatin1StringView("exposed_ms"), exposedMs);
    if (!replicationNote.isEmpty())
        o.insert(QLatin1StringView("replication_note"), replicationNote);
    o.insert(QLatin1StringView("kind_certain"), kindCertain);
    if (!kindNote.isEmpty())
        o.insert(QLatin1StringView("kind_note"), kindNote);
    if (kind == LockKind::FasterMultiLock) {
        QJsonArray vs;
        for (const auto &v : multiLockValues)
            vs.append(v.toJson(serverTimeMs));
        o.insert(QLatin1StringView("values"), vs);
    }
    o.insert(QLatin1StringView("name_certain"), nameCertain());
    if (!twinName.isEmpty() && (!nameCertain() || companionsShared())) {
        o.insert(QLatin1StringView("name_candidates"), QJsonArray{name, twinName});
        o.insert(QLatin1StringView("name_note"), nameNote());
    }
    return o.take();
}

LockSnapshot LockSnapshot::fromJson(const QJsonObject &o, qint64 readAtSteadyMs)
{
    LockSnapshot s;
    s.name = DisplayText::fromJson(o, QStringLiteral("name"));
    s.kind = kKindWords.value(o.value(QStringLiteral("kind")).toString(), LockKind::Lock);
    s.kindCertain = o.value(QStringLiteral("kind_certain")).toBool(true);
    s.kindNote = o.value(QStringLiteral("kind_note")).toString();
    s.migratingSlot = int(o.value(QStringLiteral("migrating_slot")).toInteger(-1));
    const QJsonValue replicated = o.value(QStringLiteral("replicated"));
    s.replication = replicated.isBool() ? (replicated.toBool() ? Replication::Replicated : Replication::NotReplicated)
                                        : Replication::Unknown;
    for (const QJsonValue &r : o.value(QStringLiteral("replicated_on")).toArray())
        s.replicatedOn << r.toString();
    s.exposedMs = o.value(QStringLiteral("exposed_ms")).toInteger(-1);
    s.replicationNote = o.value(QStringLiteral("replication_note")).toString();
    for (const auto &v : o.value(QStringLiteral("values")).toArray()) {
        const QJsonObject m = v.toObject();
        MultiLockValue value;
        value.fieldId = m.value(QStringLiteral("field")).toString();
        value.holder = m.value(QStringLiteral("holder")).toString();
        value.clientId = m.value(QStringLiteral("client_id")).toString();
        value.threadId = m.value(QStringLiteral("thread_id")).toString();
        value.holdCount = m.value(QStringLiteral("hold_count")).toInteger();
        value.expireEpochMs = m.value(QStringLiteral("expire_epoch_ms")).toInteger(-1);
        s.multiLockValues << value;
        s.rawFields << QPair<QString, QString>{value.fieldId, value.holder};
        const QString prefix = value.fieldId + QLatin1Char(':') + value.holder;
        if (value.expireEpochMs >= 0)
            s.rawFields << QPair<QString, QString>{prefix + QStringLiteral(":expire_time"),
                                                   QString::number(value.expireEpochMs)};
        s.rawFields << QPair<QString, QString>{prefix + QStringLiteral(":lock_count"),
                                               QString::number(value.holdCount)};
    }
    const QJsonArray candidates = o.value(QStringLiteral("name_candidates")).toArray();
    if (candidates.size() == 2) {
        s.twinName = candidates.at(1).toString();
        s.twinExists = o.value(QStringLiteral("name_certain")).toBool(true) &&
                       o.value(QStringLiteral("pttl_ms")).toInteger(-2) != -2;
    }
    s.isLock = true;
    s.pttlMs = o.value(QStringLiteral("pttl_ms")).toInteger(-2);
    s.exists = s.pttlMs != -2;
    for (const auto &v : o.value(QStringLiteral("holders")).toArray()) {
        const QJsonObject h = v.toObject();
        LockHolder holder;
        holder.field = DisplayText::fromJson(h, QStringLiteral("field"));
        holder.clientId = h.value(QStringLiteral("client_id")).toString();
        holder.threadId = h.value(QStringLiteral("thread_id")).toString();
        holder.holdCount = h.value(QStringLiteral("hold_count")).toInteger();
        holder.mode = h.value(QStringLiteral("mode")).toString();
        for (const auto &t : h.value(QStringLiteral("hold_ttls_ms")).toArray())
            holder.holdTtlsMs << t.toInteger();
        s.holders << holder;
    }
    for (const auto &v : o.value(QStringLiteral("waiters")).toArray()) {
        const QJsonObject w = v.toObject();
        s.waiters << LockWaiter{DisplayText::fromJson(w, QStringLiteral("field")),
                                w.value(QStringLiteral("position")).toInt(),
                                w.value(QStringLiteral("deadline_epoch_ms")).toInteger(-1),
                                w.value(QStringLiteral("deadline_raw")).toString()};
    }
    for (const auto &v : o.value(QStringLiteral("timeout_set")).toArray()) {
        const QJsonObject t = v.toObject();
        s.timeoutSet.append(
            {t.value(QStringLiteral("field")).toString(), t.value(QStringLiteral("deadline_epoch_ms")).toInteger()});
    }
    s.timeoutSetSize = s.timeoutSet.size();
    s.queueLength = o.value(QStringLiteral("queue_length")).toInteger();
    s.subscribers = o.value(QStringLiteral("subscribers")).toInteger();
    s.token = o.value(QStringLiteral("token")).toInteger(-1);
    s.rwMode = o.value(QStringLiteral("mode")).toString();
    s.serverTimeMs = o.value(QStringLiteral("server_time_ms")).toInteger();
    for (const auto &p : o.value(QStringLiteral("problems")).toArray())
        s.problems << p.toString();
    for (const auto &a : o.value(QStringLiteral("anomalies")).toArray())
        s.anomalies << a.toString();
    s.readAtSteadyMs = readAtSteadyMs;
    return s;
}

qint64 LockSnapshot::steadyNowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace lockscope
