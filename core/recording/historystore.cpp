#include "recording/historystore.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace lockscope
{

// trim() needs one notion of "when" per element type; an open interval is never too old.
namespace
{
struct TimeOf {
    static qint64 of(const HistoryStore::Sample &s) { return s.timeMs; }
    static qint64 of(const HistoryStore::Interval &i)
    {
        return i.endMs < 0 ? std::numeric_limits<qint64>::max() : i.endMs;
    }
    static qint64 of(const LockEvent &e) { return e.timeMs; }
};

template <typename T> void trim(std::deque<T> &d, int maxCount, qint64 cutoffMs)
{
    while (!d.empty() && (int(d.size()) > maxCount || TimeOf::of(d.front()) < cutoffMs))
        d.pop_front();
}

qint64 percentile(QVector<qint64> v, double p)
{
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    const int idx = qBound(0, int(p * (v.size() - 1) + 0.5), int(v.size()) - 1);
    return v[idx];
}
} // namespace

const QString HistoryStore::kSubscriberWaiter = QStringLiteral("unlock-channel subscriber");

void HistoryStore::closeHold(LockHistory &h, qint64 timeMs, const QString &reason)
{
    if (!h.holds.empty() && h.holds.back().endMs < 0) {
        h.holds.back().endMs = timeMs;
        h.holds.back().endReason = reason;
    }
}

void HistoryStore::addSnapshot(const LockSnapshot &s, qint64 timeMs)
{
    LockHistory &h = m_locks[s.name];
    h.lastSeenMs = timeMs;
    m_lastTimeMs = qMax(m_lastTimeMs, timeMs);

    Sample sample;
    sample.timeMs = timeMs;
    sample.pttlMs = s.exists ? s.pttlMs : -2;
    sample.holders = s.holderSummary();
    sample.holdCount = s.totalHoldCount();
    sample.waiters = s.kind == LockKind::FairLock ? s.queueLength : s.subscribers;
    const bool changedHolders = h.samples.empty() || h.samples.back().holders != sample.holders;
    // A reading that only confirms the countdown adds nothing; one that departs from it by more
    // than 250 ms (a renewal, even one that reads the same PTTL as the last) is kept.
    bool onCountdown = false;
    if (!h.samples.empty()) {
        const Sample &last = h.samples.back();
        if (last.pttlMs < 0 || sample.pttlMs < 0)
            onCountdown = last.pttlMs == sample.pttlMs;
        else
            onCountdown = qAbs(sample.pttlMs - (last.pttlMs - (timeMs - last.timeMs))) <= 250;
    }
    if (h.samples.empty() || !onCountdown || changedHolders || h.samples.back().holdCount != sample.holdCount ||
        h.samples.back().waiters != sample.waiters)
        h.samples.push_back(sample);

    if (changedHolders) {
        closeHold(h, timeMs, QStringLiteral("changed"));
        if (!sample.holders.isEmpty())
            h.holds.push_back(Interval{s.name, sample.holders, timeMs, -1, QString()});
    }

    QStringList waiters;
    for (const auto &w : s.waiters)
        waiters << w.field;
    const QSet<QString> now(waiters.cbegin(), waiters.cend());
    const QSet<QString> before(h.lastWaiters.cbegin(), h.lastWaiters.cend());
    for (const auto &w : waiters)
        if (!before.contains(w))
            h.waits.push_back(Interval{s.name, w, timeMs, -1, QString()});
    for (const auto &w : h.lastWaiters) {
        if (now.contains(w))
            continue;
        for (auto it = h.waits.rbegin(); it != h.waits.rend(); ++it) {
            if (it->who == w && it->endMs < 0) {
                it->endMs = timeMs;
                it->endReason = sample.holders.contains(w) ? QStringLiteral("acquired") : QStringLiteral("left");
                break;
            }
        }
    }
    h.lastWaiters = waiters;
    if (s.exists && s.kind != LockKind::FairLock)
        trackSubscriberWaits(h, s, timeMs, changedHolders && !sample.holders.isEmpty());
    trim(h.samples, m_retention.maxSamplesPerLock, timeMs - m_retention.maxAgeMs);
    trim(h.holds, m_retention.maxIntervalsPerLock, timeMs - m_retention.maxAgeMs);
    trim(h.waits, m_retention.maxIntervalsPerLock, timeMs - m_retention.maxAgeMs);
    prune(timeMs);
}

void HistoryStore::trackSubscriberWaits(LockHistory &h, const LockSnapshot &s, qint64 timeMs, bool newHolder)
{
    // Non-fair waiters are anonymous: a Redisson client waiting in lock()/tryLock(wait) holds one
    // SUBSCRIBE on the unlock channel (one per client, however many of its threads wait), so the
    // subscriber count is all we know. Each new subscriber opens a wait; when the count drops,
    // the oldest open waits close: "acquired" when a new holder appeared in the same reading
    // (acquire after wait), "left" otherwise (gave up, timed out, died). Durations are exact in
    // sum; which waiter got which duration assumes first come, first served, which Redisson does
    // not promise for non-fair locks. A reading of an absent lock changes nothing here: between
    // a release and the next holder's acquire the waiters are still subscribed.
    if (s.subscribers == 0 && h.lastSubscribers == 0)
        return;
    h.lastSubscribers = s.subscribers;
    int open = 0;
    for (const auto &i : h.waits)
        open += (i.endMs < 0 && i.who == kSubscriberWaiter) ? 1 : 0;
    const int subscribers = int(qMin<qint64>(s.subscribers, 10000));
    for (int n = open; n < subscribers; ++n)
        h.waits.push_back(Interval{s.name, kSubscriberWaiter, timeMs, -1, QString()});
    for (auto it = h.waits.begin(); open > subscribers && it != h.waits.end(); ++it) {
        if (it->endMs >= 0 || it->who != kSubscriberWaiter)
            continue;
        it->endMs = timeMs;
        it->endReason = newHolder ? QStringLiteral("acquired") : QStringLiteral("left");
        newHolder = false; // one acquisition per reading; any further drop left
        --open;
    }
}

void HistoryStore::addRemoval(const QString &name, qint64 timeMs)
{
    LockSnapshot gone;
    gone.name = name;
    addSnapshot(gone, timeMs);
}

void HistoryStore::addEvents(const QVector<LockEvent> &events)
{
    for (const auto &e : events) {
        m_events.push_back(e);
        m_lastTimeMs = qMax(m_lastTimeMs, e.timeMs);
        // Give the hold interval that just ended the reason the event names.
        if (e.type == QLatin1String("released") || e.type == QLatin1String("expired") ||
            e.type == QLatin1String("force_unlocked")) {
            auto it = m_locks.find(e.lock);
            if (it != m_locks.end()) {
                for (auto h = it->holds.rbegin(); h != it->holds.rend(); ++h) {
                    if (h->endMs >= 0 && h->who.contains(e.holder)) {
                        if (h->endReason == QLatin1String("changed"))
                            h->endReason = e.type;
                        break;
                    }
                }
            }
        }
    }
    trim(m_events, m_retention.maxEvents, m_lastTimeMs - m_retention.maxAgeMs);
    prune(m_lastTimeMs);
}

void HistoryStore::prune(qint64 nowMs)
{
    if (nowMs - m_lastPruneMs < 1000 && m_locks.size() <= m_retention.maxLocks)
        return;
    if (nowMs - m_lastPruneMs < 1000) {
        // Only over the lock limit: evict without walking every ring.
        evictLeastRecentlySeen();
        return;
    }
    m_lastPruneMs = nowMs;
    const qint64 cutoff = nowMs - m_retention.maxAgeMs;
    for (auto it = m_locks.begin(); it != m_locks.end();) {
        LockHistory &h = it.value();
        trim(h.samples, m_retention.maxSamplesPerLock, cutoff);
        trim(h.holds, m_retention.maxIntervalsPerLock, cutoff);
        trim(h.waits, m_retention.maxIntervalsPerLock, cutoff);
        if (h.lastSeenMs < cutoff && h.samples.empty())
            it = m_locks.erase(it);
        else
            ++it;
    }
    evictLeastRecentlySeen();
}

void HistoryStore::evictLeastRecentlySeen()
{
    if (m_locks.size() > m_retention.maxLocks) {
        // Too many locks: drop the least recently seen in one pass, down to 90% of the limit, so a
        // scan of 100k locks costs O(n log n) once instead of O(n) per lock.
        QVector<QPair<qint64, QString>> seen;
        seen.reserve(m_locks.size());
        for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it)
            seen.append({it->lastSeenMs, it.key()});
        const int drop = int(seen.size()) - m_retention.maxLocks * 9 / 10;
        std::nth_element(seen.begin(), seen.begin() + drop, seen.end());
        for (int i = 0; i < drop; ++i)
            m_locks.remove(seen[i].second);
    }
}

void HistoryStore::clear()
{
    m_locks.clear();
    m_events.clear();
    m_lastTimeMs = 0;
    m_lastPruneMs = 0;
}

QStringList HistoryStore::lockNames() const
{
    QStringList names = m_locks.keys();
    names.sort();
    return names;
}

QVector<HistoryStore::Sample> HistoryStore::samples(const QString &lock, qint64 fromMs, qint64 toMs) const
{
    QVector<Sample> out;
    const auto it = m_locks.constFind(lock);
    if (it == m_locks.cend())
        return out;
    const auto &d = it->samples; // in time order: binary search the range
    auto first = std::lower_bound(d.cbegin(), d.cend(), fromMs, [](const Sample &s, qint64 t) { return s.timeMs < t; });
    for (; first != d.cend() && first->timeMs <= toMs; ++first)
        out << *first;
    return out;
}

HistoryStore::Sample HistoryStore::sampleAt(const QString &lock, qint64 timeMs) const
{
    const auto it = m_locks.constFind(lock);
    if (it == m_locks.cend())
        return {};
    const auto &d = it->samples;
    auto pos = std::upper_bound(d.cbegin(), d.cend(), timeMs, [](qint64 t, const Sample &s) { return t < s.timeMs; });
    if (pos == d.cbegin())
        return {};
    return *std::prev(pos);
}

QVector<LockEvent> HistoryStore::events(const QString &lock, qint64 fromMs, qint64 toMs) const
{
    QVector<LockEvent> out;
    for (const auto &e : m_events)
        if (e.timeMs >= fromMs && e.timeMs <= toMs && (lock.isEmpty() || e.lock == lock))
            out << e;
    return out;
}

static bool overlaps(const HistoryStore::Interval &i, qint64 fromMs, qint64 toMs)
{
    return i.startMs <= toMs && (i.endMs < 0 || i.endMs >= fromMs);
}

QVector<HistoryStore::Interval> HistoryStore::intervals(const QString &lock, qint64 fromMs, qint64 toMs,
                                                        bool holdsNotWaits) const
{
    QVector<Interval> out;
    auto collect = [&](const LockHistory &h) {
        for (const auto &i : holdsNotWaits ? h.holds : h.waits)
            if (overlaps(i, fromMs, toMs))
                out << i;
    };
    if (!lock.isEmpty()) {
        const auto it = m_locks.constFind(lock);
        if (it != m_locks.cend())
            collect(it.value());
        return out;
    }
    for (const auto &h : m_locks)
        collect(h);
    return out;
}

QVector<HistoryStore::Interval> HistoryStore::holds(const QString &lock, qint64 fromMs, qint64 toMs) const
{
    return intervals(lock, fromMs, toMs, true);
}

QVector<HistoryStore::Interval> HistoryStore::waits(const QString &lock, qint64 fromMs, qint64 toMs) const
{
    return intervals(lock, fromMs, toMs, false);
}

HistoryStore::Stats HistoryStore::stats(const QString &nameRegex, qint64 fromMs, qint64 toMs) const
{
    const QRegularExpression re(nameRegex);
    Stats st;
    QVector<qint64> holdMs;
    QVector<qint64> waitMs;
    for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it) {
        if (!nameRegex.isEmpty() && !re.match(it.key()).hasMatch())
            continue;
        for (const auto &i : it->holds)
            if (i.endMs >= fromMs && i.endMs <= toMs)
                holdMs << i.durationMs(i.endMs);
        for (const auto &i : it->waits)
            if (i.endMs >= fromMs && i.endMs <= toMs)
                waitMs << i.durationMs(i.endMs);
    }
    st.holds = holdMs.size();
    st.holdMsMedian = percentile(holdMs, 0.5);
    st.holdMsP95 = percentile(holdMs, 0.95);
    st.holdMsMax = holdMs.isEmpty() ? 0 : *std::max_element(holdMs.cbegin(), holdMs.cend());
    st.waits = waitMs.size();
    st.waitMsMedian = percentile(waitMs, 0.5);
    st.waitMsP95 = percentile(waitMs, 0.95);
    st.waitMsMax = waitMs.isEmpty() ? 0 : *std::max_element(waitMs.cbegin(), waitMs.cend());
    int acquired = 0;
    int released = 0;
    for (const auto &e : m_events) {
        if (e.timeMs < fromMs || e.timeMs > toMs || (!nameRegex.isEmpty() && !re.match(e.lock).hasMatch()))
            continue;
        if (e.type == QLatin1String("acquired"))
            ++acquired;
        else if (e.type == QLatin1String("released") && !e.detail.contains(QLatin1String("still held")))
            ++released;
        else if (e.type == QLatin1String("renewed"))
            ++st.renewals;
        else if (e.type == QLatin1String("expired"))
            ++st.expiries;
    }
    const double seconds = qMax<double>(1.0, (qMin(toMs, m_lastTimeMs) - qMax(fromMs, firstTimeMs())) / 1000.0);
    st.acquisitionsPerSecond = acquired / seconds;
    st.releasesPerSecond = released / seconds;
    return st;
}

qint64 HistoryStore::firstTimeMs() const
{
    qint64 first = m_events.empty() ? std::numeric_limits<qint64>::max() : m_events.front().timeMs;
    for (const auto &h : m_locks)
        if (!h.samples.empty())
            first = qMin(first, h.samples.front().timeMs);
    return first == std::numeric_limits<qint64>::max() ? 0 : first;
}

int HistoryStore::intervalCount(const QString &lock) const
{
    const auto it = m_locks.constFind(lock);
    return it == m_locks.cend() ? 0 : int(it->holds.size() + it->waits.size());
}

int HistoryStore::sampleCount() const
{
    int n = 0;
    for (const auto &h : m_locks)
        n += int(h.samples.size());
    return n;
}

qint64 HistoryStore::approximateBytes() const
{
    qint64 bytes = 0;
    for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it) {
        bytes += 64 + it.key().size() * 2;
        for (const auto &s : it->samples)
            bytes += qint64(sizeof(Sample)) + s.holders.size() * 2;
        for (const auto &i : it->holds)
            bytes += qint64(sizeof(Interval)) + (i.who.size() + i.endReason.size()) * 2;
        for (const auto &i : it->waits)
            bytes += qint64(sizeof(Interval)) + (i.who.size() + i.endReason.size()) * 2;
    }
    for (const auto &e : m_events)
        bytes += qint64(sizeof(LockEvent)) + (e.lock.size() + e.type.size() + e.holder.size() + e.detail.size()) * 2;
    return bytes;
}

} // namespace lockscope
