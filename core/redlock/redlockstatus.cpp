#include "redlock/redlockstatus.h"

#include "text/enumwords.h"

#include <QHash>
#include <QJsonArray>

#include <algorithm>
#include <limits>

namespace lockscope
{

using State = RedLockServerState::State;

namespace
{

const EnumWords<State> kStateWords{
    {State::Held, "held"}, {State::Free, "free"}, {State::NotALock, "not_a_lock"}, {State::Unreachable, "unreachable"}};

} // namespace

QString RedLockServerState::stateName(State state)
{
    return kStateWords.word(state);
}

QStringList RedLockServerState::holderFields() const
{
    QStringList fields;
    if (state == State::Held)
        for (const auto &h : snapshot.holders)
            fields << h.field;
    return fields;
}

qint64 RedLockServerState::remainingTtlMs(qint64 nowSteadyMs) const
{
    if (state != State::Held)
        return -2;
    return snapshot.remainingTtlMs(nowSteadyMs);
}

QJsonObject RedLockServerState::toJson(qint64 nowSteadyMs) const
{
    const QStringList fields = holderFields();
    QJsonObject o{{QStringLiteral("server"), server},
                  {QStringLiteral("name"), name},
                  {QStringLiteral("state"), stateName(state)},
                  {QStringLiteral("holder"), fields.isEmpty() ? QJsonValue() : QJsonValue(fields.first())},
                  {QStringLiteral("holders"), QJsonArray::fromStringList(fields)},
                  {QStringLiteral("hold_count"), state == State::Held ? snapshot.totalHoldCount() : 0},
                  {QStringLiteral("pttl_ms"), remainingTtlMs(nowSteadyMs)}};
    if (state != State::Unreachable)
        o.insert(QStringLiteral("server_time_ms"), snapshot.serverTimeMs);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    return o;
}

int RedLockStatus::unreachableCount() const
{
    return static_cast<int>(std::count_if(servers.begin(), servers.end(),
                                          [](const RedLockServerState &s) { return s.state == State::Unreachable; }));
}

int RedLockStatus::heldCount() const
{
    return static_cast<int>(std::count_if(servers.begin(), servers.end(),
                                          [](const RedLockServerState &s) { return s.state == State::Held; }));
}

RedLockStatus RedLockStatus::evaluate(const QVector<RedLockServerState> &servers, qint64 nowSteadyMs)
{
    RedLockStatus st;
    st.servers = servers;
    st.evaluatedAtSteadyMs = nowSteadyMs;
    st.quorum = static_cast<int>(servers.size()) / 2 + 1;

    // Tally holder fields (each server counts once per field) and thread ids (once per server).
    QStringList order;
    QHash<QString, int> votes;
    QHash<QString, int> threads;
    for (const auto &s : servers) {
        QStringList seenThreads;
        for (const auto &h : s.state == State::Held ? s.snapshot.holders : QVector<LockHolder>()) {
            if (!votes.contains(h.field))
                order << h.field;
            ++votes[h.field];
            if (!seenThreads.contains(h.threadId)) {
                seenThreads << h.threadId;
                ++threads[h.threadId];
            }
        }
    }
    for (const QString &field : order) {
        if (votes.value(field) > st.agreeing) {
            st.agreeing = votes.value(field);
            st.holder = field;
        }
    }
    for (int n : threads)
        st.sameThreadServers = qMax(st.sameThreadServers, n);
    st.hasQuorum = !st.holder.isEmpty() && st.agreeing >= st.quorum;
    if (st.holder.isEmpty())
        return st;

    // TTLs of the agreeing servers; "no expiry" sorts above every TTL.
    constexpr qint64 kNever = std::numeric_limits<qint64>::max();
    QVector<qint64> ttls;
    for (const auto &s : servers)
        if (s.holderFields().contains(st.holder)) {
            const qint64 t = s.remainingTtlMs(nowSteadyMs);
            ttls << (t == -1 ? kNever : qMax<qint64>(t, 0));
        }
    std::sort(ttls.begin(), ttls.end(), std::greater<qint64>());
    st.validityMs = ttls.last() == kNever ? -1 : ttls.last();
    if (st.hasQuorum) {
        const qint64 t = ttls.at(st.quorum - 1);
        st.quorumLostInMs = t == kNever ? -1 : t;
    }
    return st;
}

QJsonObject RedLockStatus::toJson() const
{
    QJsonArray rows;
    QStringList names;
    for (const auto &s : servers) {
        rows.append(s.toJson(evaluatedAtSteadyMs));
        if (!names.contains(s.name))
            names << s.name;
    }
    QJsonObject o{{QStringLiteral("name"), names.value(0)},
                  {QStringLiteral("server_count"), serverCount()},
                  {QStringLiteral("quorum"), quorum},
                  {QStringLiteral("agreeing"), agreeing},
                  {QStringLiteral("has_quorum"), hasQuorum},
                  {QStringLiteral("holder"), holder.isEmpty() ? QJsonValue() : QJsonValue(holder)},
                  {QStringLiteral("validity_ms"), validityMs},
                  {QStringLiteral("quorum_lost_in_ms"), quorumLostInMs},
                  {QStringLiteral("same_thread_servers"), sameThreadServers},
                  {QStringLiteral("held"), heldCount()},
                  {QStringLiteral("unreachable"), unreachableCount()},
                  {QStringLiteral("servers"), rows}};
    if (names.size() > 1)
        o.insert(QStringLiteral("names"), QJsonArray::fromStringList(names));
    return o;
}

} // namespace lockscope
