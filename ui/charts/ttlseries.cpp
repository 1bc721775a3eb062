#include "charts/ttlseries.h"

#include "charts/historychart.h"

#include <QRegularExpression>

#include <algorithm>
#include <iterator>
#include <limits>

namespace lockscope
{

qint64 TtlSeries::renewalLevel(qint64 leaseMs)
{
    return leaseMs * 2 / 3;
}

qint64 TtlSeries::overdueLevel(qint64 leaseMs)
{
    return renewalLevel(leaseMs) - std::max<qint64>(1000, leaseMs / 10);
}

/**
 * The store keeps a reading only when something changed, so a renewal that reads the same PTTL
 * as the previous reading (29999 ms twice, say: likely when a snapshot follows each renewal within
 * a millisecond or two) leaves no sample, and the countdown would run on through it. Its
 * `renewed` event still tells: put a reading back at the event ("TTL a ms -> b ms": b, else the
 * largest TTL of that hold), unless a reading within the slack already shows it.
 */
QVector<HistoryStore::Sample> TtlSeries::withRenewals(QVector<HistoryStore::Sample> samples,
                                                      const QVector<LockEvent> &events)
{
    static const QRegularExpression newTtl(QStringLiteral("->\\s*(\\d+)\\s*ms"));
    QVector<HistoryStore::Sample> added;
    for (const LockEvent &e : events) {
        if (e.type != QLatin1String("renewed"))
            continue;
        const auto near = std::lower_bound(samples.cbegin(), samples.cend(), e.timeMs - kEventSlackMs,
                                           [](const HistoryStore::Sample &s, qint64 t) { return s.timeMs < t; });
        if (near != samples.cend() && near->timeMs <= e.timeMs + kEventSlackMs)
            continue; // a reading shows this renewal
        if (near == samples.cbegin())
            continue;
        const HistoryStore::Sample &prev = *std::prev(near);
        if (prev.pttlMs < 0 || prev.holders.isEmpty())
            continue;
        HistoryStore::Sample s = prev;
        s.timeMs = e.timeMs;
        const QRegularExpressionMatch m = newTtl.match(e.detail);
        if (m.hasMatch()) {
            s.pttlMs = m.captured(1).toLongLong();
        } else {
            for (auto it = std::make_reverse_iterator(near); it != samples.crend() && it->holders == prev.holders; ++it)
                s.pttlMs = std::max(s.pttlMs, it->pttlMs);
        }
        added << s;
    }
    if (added.isEmpty())
        return samples;
    QVector<HistoryStore::Sample> merged;
    merged.reserve(samples.size() + added.size());
    std::sort(added.begin(), added.end(), [](const auto &a, const auto &b) { return a.timeMs < b.timeMs; });
    std::merge(samples.cbegin(), samples.cend(), added.cbegin(), added.cend(), std::back_inserter(merged),
               [](const auto &a, const auto &b) { return a.timeMs < b.timeMs; });
    return merged;
}

TtlSeries TtlSeries::compute(const QVector<HistoryStore::Sample> &samples, const QVector<LockEvent> &events, qint64 now,
                             double fromKey, double toKey)
{
    QVector<qint64> renewedAt;
    for (const LockEvent &e : events)
        if (e.type == QLatin1String("renewed"))
            renewedAt << e.timeMs;
    std::sort(renewedAt.begin(), renewedAt.end());

    TtlSeries out;
    QVector<QCPGraphData> &raw = out.points;
    raw.reserve(samples.size() * 3);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QString holders;
    qint64 holdStartMs = 0;
    qint64 lease = 0;
    bool renewed = false;
    qint64 lastRenewal = -1;
    qint64 overdueSince = -1; // when a renewal still missing at this reading was due
    int nextEvent = 0;
    const int n = samples.size();
    for (int i = 0; i < n; ++i) {
        const HistoryStore::Sample &s = samples.at(i);
        const bool held = s.pttlMs >= 0 && !s.holders.isEmpty();
        if (i == 0 || s.holders != holders) { // a new hold (or none): its own lease and renewals
            holders = s.holders;
            holdStartMs = s.timeMs;
            lease = 0;
            renewed = false;
            lastRenewal = -1;
            overdueSince = -1;
        } else if (held) {
            const HistoryStore::Sample &prev = samples.at(i - 1);
            if (prev.pttlMs >= 0 && prev.holdCount == s.holdCount &&
                s.pttlMs > prev.pttlMs - (s.timeMs - prev.timeMs) + kJumpMs) {
                renewed = true; // pushed back with the same holders and count: a renewal (§2.6)
                lastRenewal = s.timeMs;
            }
        }
        for (; nextEvent < renewedAt.size() && renewedAt.at(nextEvent) <= s.timeMs + kEventSlackMs; ++nextEvent) {
            if (held && renewedAt.at(nextEvent) >= holdStartMs - kEventSlackMs) {
                renewed = true;
                lastRenewal = std::max(lastRenewal, renewedAt.at(nextEvent));
            }
        }
        if (!held) {
            raw << QCPGraphData(HistoryChart::keyOf(s.timeMs), nan); // absent or no expiry: a gap
            continue;
        }
        // The lease is the largest TTL read in this hold, rounded to whole seconds once it is over
        // 2 s: a reading comes a few ms after the PEXPIRE (29 987 ms for a 30 s lease).
        lease = std::max(lease, s.pttlMs >= 2000 ? (s.pttlMs + 500) / 1000 * 1000 : s.pttlMs);
        const bool last = i + 1 == n;
        const qint64 segEnd = last ? now : samples.at(i + 1).timeMs;
        const qint64 expireAt = s.timeMs + s.pttlMs;
        const qint64 end = std::min(segEnd, expireAt);
        if (HistoryChart::keyOf(s.timeMs) <= toKey && HistoryChart::keyOf(segEnd) >= fromKey)
            out.maxVisibleMs = std::max(out.maxVisibleMs, s.pttlMs);
        raw << QCPGraphData(HistoryChart::keyOf(s.timeMs), s.pttlMs / 1000.0);
        if (!last) {
            raw << QCPGraphData(HistoryChart::keyOf(end), (s.pttlMs - (end - s.timeMs)) / 1000.0);
            if (end < segEnd)
                raw << QCPGraphData(HistoryChart::keyOf(end + 1), nan); // expired before the next reading
        }
        if (renewed && !last) {
            // Overdue once below the level minus the margin; banded from when the renewal was due
            // until the TTL is pushed back (late: orange) or the hold ends (red). A reading that only
            // confirms the countdown continues the band.
            const qint64 due = s.timeMs + std::max<qint64>(0, s.pttlMs - renewalLevel(lease));
            const qint64 cross = s.timeMs + std::max<qint64>(0, s.pttlMs - overdueLevel(lease));
            const HistoryStore::Sample &next = samples.at(i + 1);
            if (overdueSince >= 0 || cross < end) {
                const qint64 from = overdueSince >= 0 ? overdueSince : due;
                const bool pushedBack = next.pttlMs >= 0 && !next.holders.isEmpty() &&
                                        next.pttlMs > s.pttlMs - (next.timeMs - s.timeMs) + kJumpMs;
                const bool continues = !pushedBack && end < expireAt && next.pttlMs >= 0 && next.holders == s.holders;
                overdueSince = continues ? from : -1;
                if (!continues)
                    out.spans << Span{from, end, !pushedBack};
            }
        }
        if (last) {
            out.haveLast = true;
            out.lastTimeMs = s.timeMs;
            out.lastPttlMs = s.pttlMs;
            out.lastHolders = s.holders;
            out.lastHoldCount = s.holdCount;
            out.leaseMs = lease;
            out.levelMs = renewed ? overdueLevel(lease) : -1;
            out.lastRenewalMs = lastRenewal;
            out.overdueSinceMs = overdueSince;
        }
    }
    return out;
}

} // namespace lockscope
