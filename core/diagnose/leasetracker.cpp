#include "diagnose/leasetracker.h"

#include "diagnose/lockdoctor.h"
#include "redis/hashslot.h"

#include <QDateTime>
#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace lockscope
{

namespace
{

QString seconds(qint64 ms)
{
    if (ms >= 120000)
        return QStringLiteral("%1 min").arg(ms / 60000);
    return QStringLiteral("%1 s").arg(ms / 1000.0, 0, 'f', 1);
}

QString clock(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(QStringLiteral("HH:mm:ss.zzz"));
}

bool isHolderGone(const QString &type)
{
    return type == QLatin1String("released") || type == QLatin1String("expired") ||
           type == QLatin1String("force_unlocked");
}

/** Events that show a client doing something (its holder field is its own). */
bool isActivity(const QString &type)
{
    return type == QLatin1String("acquired") || type == QLatin1String("reentered") ||
           type == QLatin1String("renewed") || type == QLatin1String("enqueued") || type == QLatin1String("released") ||
           type == QLatin1String("renewal_late");
}

// Keep what is remembered bounded (200k locks, clients that come and go).
constexpr int kMaxClients = 100000;
constexpr int kMaxRecords = 1000;

} // namespace

QString LeaseTracker::clientOf(const QString &holderField)
{
    QString f = holderField;
    if (f.endsWith(QLatin1String(":write")))
        f.chop(6);
    const int colon = f.lastIndexOf(QLatin1Char(':'));
    return colon > 0 ? f.left(colon) : f;
}

void LeaseTracker::observe(const LockSnapshot &s)
{
    auto r = m_renewals.find(s.name);
    if (r != m_renewals.end()) {
        const bool stillHeld = std::any_of(s.holders.cbegin(), s.holders.cend(),
                                           [&r](const LockHolder &h) { return h.field == r->holder; });
        // A read without the holder comes before the events of the same read (locksUpdated, then
        // eventsOccurred): the holder-gone event in process() decides and drops the entry.
        if (stillHeld) {
            r->lastSeenHeldMs = s.readAtSteadyMs;
            r->heldServerMs = s.serverTimeMs;
            r->heldReadSteadyMs = s.readAtSteadyMs;
        } else if (r->goneServerMs == 0) {
            r->goneServerMs = s.serverTimeMs; // the server's clock now: did it jump meanwhile?
            r->goneReadSteadyMs = s.readAtSteadyMs;
        }
    }
    // A lock read with its holders still there after a failover survived it.
    auto p = m_pending.find(s.name);
    if (p != m_pending.end() && s.isHeld() && !s.stale) {
        for (const auto &h : s.holders)
            if (p->holders.contains(h.field)) {
                m_pending.erase(p);
                break;
            }
    }
    // A new holder: waiting behind it starts now.
    auto sub = m_subscribed.find(s.name);
    if (sub != m_subscribed.end()) {
        const size_t holders = qHash(s.holderSummary());
        if (!s.isHeld()) {
            m_subscribed.erase(sub);
        } else if (sub->holdersHash != holders) {
            sub->holdersHash = holders;
            sub->sinceMs = s.readAtSteadyMs;
        }
    }
    // Waiters behind a holder: a fair queue, or clients subscribed to the unlock channel.
    const bool waiting = s.isHeld() && (s.queueLength > 0 || s.subscribers > 0);
    if (!waiting) {
        m_waiting.remove(s.name);
        return;
    }
    const size_t holders = qHash(s.holderSummary());
    Waiting &w = m_waiting[s.name];
    if (w.holdersHash != holders || w.sinceMs < 0) {
        w.holdersHash = holders;
        w.sinceMs = s.readAtSteadyMs;
    }
}

void LeaseTracker::observeSubscribers(const QHash<QString, qint64> &subscribersByLock, qint64 nowSteadyMs)
{
    QHash<QString, Subscribed> next;
    const QHash<QString, LockSnapshot> locks = m_locks ? m_locks() : QHash<QString, LockSnapshot>();
    for (auto it = subscribersByLock.cbegin(); it != subscribersByLock.cend(); ++it) {
        if (it.value() <= 0)
            continue;
        Subscribed s = m_subscribed.value(it.key());
        s.subscribers = it.value();
        const auto snap = locks.constFind(it.key());
        const size_t holders = snap != locks.cend() ? qHash(snap->holderSummary()) : 0;
        if (s.sinceMs < 0 || (holders != 0 && s.holdersHash != 0 && holders != s.holdersHash))
            s.sinceMs = nowSteadyMs;
        if (holders != 0)
            s.holdersHash = holders;
        next.insert(it.key(), s);
    }
    m_subscribed = next;
}

void LeaseTracker::forget(const QString &name)
{
    m_waiting.remove(name);
    m_subscribed.remove(name);
    // Renewals stay until the holder-gone event of the same batch is processed (it comes after
    // the removal); process() drops them.
}

void LeaseTracker::touch(const QString &holderField, qint64 nowSteadyMs)
{
    if (holderField.isEmpty())
        return;
    if (m_clientActivity.size() >= kMaxClients)
        prune(nowSteadyMs);
    m_clientActivity.insert(clientOf(holderField), nowSteadyMs);
}

bool LeaseTracker::blindSince(qint64 steadyMs) const
{
    return m_blind || (m_blindEndMs >= 0 && m_blindEndMs >= steadyMs);
}

void LeaseTracker::setBlind(bool blind, qint64 nowSteadyMs)
{
    if (blind == m_blind)
        return;
    m_blind = blind;
    if (blind)
        m_blindStartMs = nowSteadyMs;
    else
        m_blindEndMs = nowSteadyMs;
}

void LeaseTracker::armFailover(const QHash<QString, LockSnapshot> &held, const QString &detail, qint64 nowSteadyMs)
{
    for (auto it = held.cbegin(); it != held.cend(); ++it) {
        const LockSnapshot &s = it.value();
        if (!s.isLock || !s.isHeld())
            continue;
        Pending p;
        for (const auto &h : s.holders)
            p.holders << h.field;
        p.predictedEndSteadyMs = s.pttlMs < 0 ? -1 : s.readAtSteadyMs + s.pttlMs;
        p.detail = detail;
        p.armedAtMs = nowSteadyMs;
        m_pending.insert(s.name, p);
    }
}

void LeaseTracker::observeTopology(const QVector<TopologyEvent> &events, qint64 nowSteadyMs)
{
    for (const auto &t : events) {
        if (t.type != QLatin1String("failover") && t.type != QLatin1String("slots_moved"))
            continue;
        if (!m_locks)
            continue;
        QHash<QString, LockSnapshot> concerned;
        const auto locks = m_locks();
        for (auto it = locks.cbegin(); it != locks.cend(); ++it) {
            const int slot = HashSlot::of(it.key().toUtf8());
            for (const auto &range : t.slotRanges)
                if (slot >= range.first && slot <= range.second) {
                    concerned.insert(it.key(), it.value());
                    break;
                }
        }
        armFailover(concerned, QStringLiteral("cluster %1: %2 -> %3").arg(t.type, t.oldMaster, t.newMaster),
                    nowSteadyMs);
    }
}

QVector<LockEvent> LeaseTracker::process(const QVector<LockEvent> &events, qint64 nowSteadyMs)
{
    prune(nowSteadyMs);
    QVector<LockEvent> out;
    out.reserve(events.size());
    for (const LockEvent &in : events) {
        LockEvent e = in;
        const QString client = e.holder.isEmpty() ? QString() : clientOf(e.holder);
        // The read that found a lock gone (LockMonitor): the server's clock then, for the jump test.
        const qint64 readServerMs = e.extra.value(QStringLiteral("read_server_ms")).toInteger(0);
        const qint64 readSteadyMs = e.extra.value(QStringLiteral("read_steady_ms")).toInteger(0);
        e.extra.remove(QStringLiteral("read_server_ms"));
        e.extra.remove(QStringLiteral("read_steady_ms"));

        // A Sentinel failover: every lock held now must still be there on the new master.
        if (e.type == QLatin1String("failover") && e.lock.isEmpty()) {
            if (m_locks)
                armFailover(m_locks(), e.detail, nowSteadyMs);
            out << e;
            continue;
        }
        // Output of another tracker (the session's, a recording's): record it, do not redo it.
        if (e.type == QLatin1String("lease_lost")) {
            const bool known = std::any_of(m_lost.cbegin(), m_lost.cend(), [&e](const LostLease &l) {
                return l.lock == e.lock && l.holder == e.holder && l.lostEpochMs == e.timeMs;
            });
            if (!known) {
                LostLease l;
                l.lock = e.lock;
                l.holder = e.holder;
                l.clientId = clientOf(e.holder);
                l.lostEpochMs = e.timeMs;
                l.lostSteadyMs = nowSteadyMs;
                l.lastRenewedEpochMs = e.extra.value(QStringLiteral("last_renewed_ms")).toInteger();
                l.leaseMs = e.extra.value(QStringLiteral("lease_ms")).toInteger();
                l.silentMs = e.extra.value(QStringLiteral("silent_ms")).toInteger();
                l.nextHolder = e.extra.value(QStringLiteral("next_holder")).toString();
                l.nextEpochMs = e.extra.value(QStringLiteral("overlap_from_ms")).toInteger();
                m_lost << l;
            }
            m_renewals.remove(e.lock);
            out << e;
            continue;
        }
        if (e.type == QLatin1String("holder_returned")) {
            for (auto &l : m_lost)
                if (l.lock == e.lock && l.holder == e.holder && !l.returned) {
                    l.returned = true;
                    l.returnedEpochMs = e.timeMs;
                    l.returnedOn = e.extra.value(QStringLiteral("returned_on")).toString();
                }
            out << e;
            continue;
        }
        if (e.type == QLatin1String("lost_in_failover")) {
            m_pending.remove(e.lock);
            FailoverLoss f{e.lock,   e.holder,    e.extra.value(QStringLiteral("failover")).toString(),
                           e.timeMs, nowSteadyMs, QString()};
            m_failoverLosses << f;
            m_renewals.remove(e.lock);
            out << e;
            continue;
        }
        if (e.type == QLatin1String("renewal_late"))
            continue; // recomputed from the `renewed` event it follows
        if (e.type == QLatin1String("token_regressed")) {
            m_regressed << Regressed{e.lock, e.extra.value(QStringLiteral("token_before")).toInteger(),
                                     e.extra.value(QStringLiteral("token_after")).toInteger(), e.timeMs, nowSteadyMs};
            out << e;
            continue;
        }

        // A holder gone from a lock that was held when a failover was seen.
        auto pending = m_pending.find(e.lock);
        if (pending != m_pending.end() && isHolderGone(e.type) && pending->holders.contains(e.holder) &&
            e.extra.value(QStringLiteral("removal")).toString() != QLatin1String("lockscope")) {
            const bool leaseRanOut = pending->predictedEndSteadyMs >= 0 && pending->predictedEndSteadyMs <= nowSteadyMs;
            if (!leaseRanOut) {
                const QString detail = pending->detail;
                m_pending.erase(pending);
                e.type = QStringLiteral("lost_in_failover");
                e.detail = QStringLiteral("held by %1 before the failover (%2) and missing on the new master with "
                                          "no release seen: replication had not carried it. Another client can "
                                          "acquire it while %1 still believes it holds it; RedLock, WAIT after "
                                          "acquiring, or a fenced lock guard against this")
                               .arg(e.holder, detail);
                e.extra.remove(QStringLiteral("removal"));
                e.extra.insert(QStringLiteral("failover"), detail);
                e.extra.insert(QStringLiteral("client_id"), client);
                m_failoverLosses << FailoverLoss{e.lock, e.holder, detail, e.timeMs, nowSteadyMs, QString()};
                m_renewals.remove(e.lock);
                out << e;
                continue;
            }
            m_pending.erase(pending);
        }

        // A renewed lock that expired: its holder stopped renewing.
        auto r = m_renewals.find(e.lock);
        if (e.type == QLatin1String("expired") && r != m_renewals.end() && r->holder == e.holder) {
            const Renewals ren = *r;
            m_renewals.erase(r);
            const qint64 silentMs = qMax<qint64>(0, nowSteadyMs - m_clientActivity.value(client, ren.lastSteadyMs));
            e.extra.insert(QStringLiteral("client_id"), client);
            e.extra.insert(QStringLiteral("thread_id"), e.holder.mid(client.size() + 1));
            e.extra.insert(QStringLiteral("lease_ms"), ren.leaseMs);
            e.extra.insert(QStringLiteral("renewals"), ren.count);
            e.extra.insert(QStringLiteral("last_renewed_ms"), ren.lastEpochMs);
            e.extra.insert(QStringLiteral("silent_ms"), silentMs);
            if (blindSince(ren.lastSeenHeldMs)) {
                // LockScope did not see the server for part of that time: it cannot tell.
                e.extra.insert(QStringLiteral("lease_lost"), QStringLiteral("unknown"));
                e.detail += QStringLiteral(" (a watchdog had renewed it %1 time(s), but LockScope was disconnected "
                                           "meanwhile and cannot tell whether the holder stopped renewing)")
                                .arg(ren.count);
                out << e;
                continue;
            }
            e.type = QStringLiteral("lease_lost");
            // The server's clock, not the holder: it jumped between the last read that showed the
            // holder and the one that did not, and in real time the lease could not have run out.
            const qint64 goneServerMs = ren.goneServerMs > 0 ? ren.goneServerMs : readServerMs;
            const qint64 goneSteadyMs = ren.goneServerMs > 0 ? ren.goneReadSteadyMs : readSteadyMs;
            const qint64 jumpMs =
                ren.heldServerMs > 0 && goneServerMs > 0
                    ? serverClockJumpMs(ren.heldServerMs, ren.heldReadSteadyMs, goneServerMs, goneSteadyMs)
                    : 0;
            const bool clockJumped =
                jumpMs > kClockJumpMs && ren.leaseMs > 0 && nowSteadyMs - ren.lastSteadyMs < ren.leaseMs;
            if (clockJumped) {
                e.detail = QStringLiteral("lease lost to the server's clock: it jumped %1 ahead between two reads "
                                          "(Redis expires keys by its own clock), %2 after the last renewal by a "
                                          "watchdog that renews every %3. %4 did not stop: it still believes it "
                                          "holds the lock, and its next renewal will find it gone")
                               .arg(seconds(jumpMs), seconds(nowSteadyMs - ren.lastSteadyMs), seconds(ren.leaseMs / 3),
                                    e.holder);
                e.extra.insert(QStringLiteral("meaning"), QStringLiteral("server_clock_jump"));
                e.extra.insert(QStringLiteral("server_clock_jump_ms"), jumpMs);
            } else {
                e.detail = QStringLiteral("lease lost: a watchdog had renewed it %1 time(s), the last at %2, then "
                                          "nothing for %3; the lease ran out while %4 held it. Its client is stalled "
                                          "(GC pause, frozen host, network) or dead; if stalled, it may still be "
                                          "running its critical section without the lock")
                               .arg(ren.count)
                               .arg(clock(ren.lastEpochMs), seconds(silentMs), e.holder);
                e.extra.insert(QStringLiteral("meaning"), QStringLiteral("stalled_or_dead"));
            }
            LostLease l;
            l.lock = e.lock;
            l.holder = e.holder;
            l.clientId = client;
            l.lostEpochMs = e.timeMs;
            l.lostSteadyMs = nowSteadyMs;
            l.lastRenewedEpochMs = ren.lastEpochMs;
            l.leaseMs = ren.leaseMs;
            l.silentMs = silentMs;
            l.clockJumpMs = clockJumped ? jumpMs : 0;
            m_lost << l;
            out << e;
            continue;
        }
        if (isHolderGone(e.type) && r != m_renewals.end() && r->holder == e.holder)
            m_renewals.erase(r);

        // Another holder takes a lock whose lease was lost: both may run the critical section.
        if (e.type == QLatin1String("acquired")) {
            for (auto &l : m_lost) {
                if (l.lock != e.lock || !l.nextHolder.isEmpty() || l.returned || l.holder == e.holder)
                    continue;
                l.nextHolder = e.holder;
                l.nextEpochMs = e.timeMs;
                e.extra.insert(QStringLiteral("after_lease_lost"), l.holder);
                e.detail += QStringLiteral(" — while %1, whose lease was lost, may still be running its critical "
                                           "section")
                                .arg(l.holder);
                // The lease_lost of the same batch names it too.
                for (int i = int(out.size()) - 1; i >= 0; --i)
                    if (out[i].type == QLatin1String("lease_lost") && out[i].lock == e.lock &&
                        out[i].holder == l.holder) {
                        out[i].extra.insert(QStringLiteral("next_holder"), e.holder);
                        out[i].extra.insert(QStringLiteral("overlap_from_ms"), e.timeMs);
                        break;
                    }
            }
            for (auto &f : m_failoverLosses)
                if (f.lock == e.lock && f.nextHolder.isEmpty() && f.holder != e.holder) {
                    f.nextHolder = e.holder;
                    for (int i = int(out.size()) - 1; i >= 0; --i)
                        if (out[i].type == QLatin1String("lost_in_failover") && out[i].lock == e.lock) {
                            out[i].extra.insert(QStringLiteral("next_holder"), e.holder);
                            break;
                        }
                }
        }
        out << e;

        // The client of a lost lease does something: it was stalled, not dead.
        if (!client.isEmpty() && isActivity(e.type)) {
            for (auto &l : m_lost) {
                if (l.returned || l.clientId != client || e.timeMs < l.lostEpochMs)
                    continue;
                l.returned = true;
                l.returnedEpochMs = e.timeMs;
                l.returnedOn = e.lock;
                LockEvent back;
                back.timeMs = e.timeMs;
                back.lock = l.lock;
                back.type = QStringLiteral("holder_returned");
                back.holder = l.holder;
                const qint64 from = l.nextEpochMs > 0 ? l.nextEpochMs : l.lostEpochMs;
                back.detail =
                    l.nextHolder.isEmpty()
                        ? QStringLiteral("%1 came back (%2 on %3) after its lease on %4 was lost at %5: %6, and may "
                                         "have gone on with its critical section without the lock")
                              .arg(l.holder, e.type, e.lock, l.lock, clock(l.lostEpochMs),
                                   l.clockJumpMs > 0 ? QStringLiteral("the server's clock jump had ended its lease")
                                                     : QStringLiteral("it was stalled, not dead"))
                        : QStringLiteral("%1 came back (%2 on %3) after its lease on %4 was lost at %5; %6 has held "
                                         "%4 since %7: both may have run the critical section between %7 and %8 (%9)")
                              .arg(l.holder, e.type, e.lock, l.lock, clock(l.lostEpochMs), l.nextHolder,
                                   clock(l.nextEpochMs), clock(e.timeMs),
                                   seconds(qMax<qint64>(0, e.timeMs - l.nextEpochMs)));
                back.extra.insert(QStringLiteral("client_id"), client);
                back.extra.insert(QStringLiteral("returned_on"), e.lock);
                back.extra.insert(QStringLiteral("returned_by"), e.type);
                back.extra.insert(QStringLiteral("lost_at_ms"), l.lostEpochMs);
                back.extra.insert(QStringLiteral("next_holder"),
                                  l.nextHolder.isEmpty() ? QJsonValue() : QJsonValue(l.nextHolder));
                back.extra.insert(QStringLiteral("overlap_from_ms"), from);
                back.extra.insert(QStringLiteral("overlap_to_ms"), e.timeMs);
                out << back;
            }
        }
        if (!client.isEmpty() && isActivity(e.type))
            touch(e.holder, nowSteadyMs);

        // Renewal cadence and margin.
        if (e.type == QLatin1String("renewed")) {
            const qint64 marginMs = e.extra.value(QStringLiteral("margin_ms")).toInteger(-1);
            const qint64 pttlMs = e.extra.value(QStringLiteral("pttl_ms")).toInteger(-1);
            Renewals &ren = m_renewals[e.lock];
            if (ren.holder != e.holder)
                ren = Renewals{e.holder};
            const qint64 previousEpochMs = ren.lastEpochMs;
            // The server's clock and the real one at the reads of the renewal before and of this one.
            const qint64 previousServerMs = ren.renewalServerMs;
            const qint64 previousReadSteadyMs = ren.renewalReadSteadyMs;
            if (ren.heldServerMs > 0) {
                ren.renewalServerMs = ren.heldServerMs;
                ren.renewalReadSteadyMs = ren.heldReadSteadyMs;
            }
            ren.goneServerMs = 0; // held again (a renewal): no read without it yet
            ren.count += 1;
            ren.leaseMs = qMax(ren.leaseMs, pttlMs);
            ren.lastEpochMs = e.timeMs;
            ren.lastSteadyMs = nowSteadyMs;
            ren.lastSeenHeldMs = nowSteadyMs;
            if (marginMs < 0 || ren.leaseMs <= 0)
                continue;
            const qint64 lease = ren.leaseMs;
            // Redisson renews at lease/3 (two thirds left). Late: less than half the lease left,
            // allowing for how late the read of it may have come.
            if (marginMs + m_readLagMs < lease / 2) {
                const qint64 actual = previousEpochMs > 0 ? e.timeMs - previousEpochMs : lease - marginMs;
                LockEvent late;
                late.timeMs = e.timeMs;
                late.lock = e.lock;
                late.type = QStringLiteral("renewal_late");
                late.holder = e.holder;
                late.detail = QStringLiteral("renewal came %1 after the previous one where the watchdog renews every "
                                             "%2 (lease/3): only %3 of the %4 lease was left")
                                  .arg(seconds(actual), seconds(lease / 3), seconds(marginMs), seconds(lease));
                // By the server's clock, or by real time? A server clock that runs fast makes the
                // lease run out sooner than the holder's watchdog expects: the clock's doing. Both
                // from the reads of the two renewals (the server's TIME, and when each arrived).
                const qint64 realMs = previousReadSteadyMs > 0 && ren.renewalReadSteadyMs > previousReadSteadyMs
                                          ? ren.renewalReadSteadyMs - previousReadSteadyMs
                                          : 0;
                const qint64 serverMs = previousServerMs > 0 ? ren.renewalServerMs - previousServerMs : 0;
                if (realMs >= 1000 && double(serverMs) > 1.3 * double(realMs)) {
                    const double rate = double(serverMs) / double(realMs);
                    late.detail = QStringLiteral("renewal came %1 by the server's clock but %2 in real time after the "
                                                 "previous one: the server's clock runs %3 times as fast as real "
                                                 "time, so the %4 lease runs out that much sooner than the watchdog "
                                                 "(every %5) expects; only %6 was left. The holder renewed on time; "
                                                 "fix the server's clock")
                                      .arg(seconds(serverMs), seconds(realMs), QString::number(rate, 'f', 1),
                                           seconds(lease), seconds(lease / 3), seconds(marginMs));
                    late.extra.insert(QStringLiteral("server_clock_rate"), std::round(rate * 100) / 100);
                    late.extra.insert(QStringLiteral("real_interval_ms"), realMs);
                }
                late.extra.insert(QStringLiteral("lease_ms"), lease);
                late.extra.insert(QStringLiteral("expected_interval_ms"), lease / 3);
                late.extra.insert(QStringLiteral("actual_interval_ms"), actual);
                late.extra.insert(QStringLiteral("margin_ms"), marginMs);
                out << late;
            }
            if (marginMs < lease / 3 &&
                (ren.lowMarginMs < 0 || marginMs <= ren.lowMarginMs || nowSteadyMs - ren.lowMarginAtMs > kLateKeepMs)) {
                ren.lowMarginMs = marginMs;
                ren.lowMarginAtMs = nowSteadyMs;
                ren.lowMarginEpochMs = e.timeMs;
            }
        }
    }
    return out;
}

void LeaseTracker::prune(qint64 nowSteadyMs)
{
    auto old = [nowSteadyMs](qint64 at) { return nowSteadyMs - at > kKeepMs; };
    m_lost.erase(std::remove_if(m_lost.begin(), m_lost.end(), [&](const LostLease &l) { return old(l.lostSteadyMs); }),
                 m_lost.end());
    m_failoverLosses.erase(std::remove_if(m_failoverLosses.begin(), m_failoverLosses.end(),
                                          [&](const FailoverLoss &f) { return old(f.steadyMs); }),
                           m_failoverLosses.end());
    m_regressed.erase(
        std::remove_if(m_regressed.begin(), m_regressed.end(), [&](const Regressed &r) { return old(r.steadyMs); }),
        m_regressed.end());
    while (m_lost.size() > kMaxRecords)
        m_lost.removeFirst();
    while (m_failoverLosses.size() > kMaxRecords)
        m_failoverLosses.removeFirst();
    while (m_regressed.size() > kMaxRecords)
        m_regressed.removeFirst();
    // A failover check that no read settled within a minute: the lock was not read again.
    for (auto it = m_pending.begin(); it != m_pending.end();)
        it = nowSteadyMs - it->armedAtMs > 60000 ? m_pending.erase(it) : std::next(it);
    if (m_clientActivity.size() >= kMaxClients) {
        for (auto it = m_clientActivity.begin(); it != m_clientActivity.end();)
            it = old(it.value()) ? m_clientActivity.erase(it) : std::next(it);
    }
}

QVector<LockFinding> LeaseTracker::findings(const QHash<QString, LockSnapshot> &locks, qint64 nowSteadyMs,
                                            const QString &connection) const
{
    auto cli = [&connection](const QString &words) { return LockDoctor::suggestedCommand(words, connection); };
    const qint64 nowEpochMs = QDateTime::currentMSecsSinceEpoch();
    QVector<LockFinding> out;

    for (const LostLease &l : m_lost) {
        if (nowSteadyMs - l.lostSteadyMs > kKeepMs)
            continue;
        LockFinding f = LockFinding::about(l.lock, QStringLiteral("lease_lost"), LockFinding::Severity::Critical);
        f.title = l.returned ? QStringLiteral("%1: lease lost by %2, which then came back").arg(l.lock, l.holder)
                  : l.clockJumpMs > 0
                      ? QStringLiteral("%1: lease of %2 lost to a jump of the server's clock").arg(l.lock, l.holder)
                      : QStringLiteral("%1: lease lost by %2 (it stopped renewing)").arg(l.lock, l.holder);
        // "holds it now" only while it does: the next holder may have released it since.
        const auto current = locks.constFind(l.lock);
        const bool nextHoldsIt =
            current != locks.cend() && std::any_of(current->holders.cbegin(), current->holders.cend(),
                                                   [&l](const LockHolder &h) { return h.field == l.nextHolder; });
        const QString now = l.nextHolder.isEmpty() ? QString()
                            : nextHoldsIt          ? QStringLiteral(", while %1 holds it now").arg(l.nextHolder)
                                                   : QStringLiteral(", while %1 held it after it").arg(l.nextHolder);
        f.explanation =
            l.clockJumpMs > 0
                ? QStringLiteral("A watchdog was renewing this lock on time, but the server's clock jumped %1 ahead "
                                 "and Redis expired the lock by it. %2 still believes it holds the lock and goes on "
                                 "with its critical section until its next renewal fails%3.")
                      .arg(seconds(l.clockJumpMs), l.holder, now)
                : QStringLiteral("A watchdog had been renewing this lock; then the renewals stopped and the lease ran "
                                 "out while %1 still held it. Its client was stalled (GC pause, frozen container, "
                                 "network partition) or died. If it was stalled it wakes up believing it still holds "
                                 "the lock and goes on with its critical section%2.")
                      .arg(l.holder, now);
        if (l.returned)
            f.explanation += QStringLiteral(" It did come back (seen on %1 at %2): mutual exclusion was at risk.")
                                 .arg(l.returnedOn, clock(l.returnedEpochMs));
        f.evidence = {{QStringLiteral("holder"), l.holder},
                      {QStringLiteral("client_id"), l.clientId},
                      {QStringLiteral("lost_at_ms"), l.lostEpochMs},
                      {QStringLiteral("last_renewed_ms"), l.lastRenewedEpochMs},
                      {QStringLiteral("silent_ms"), l.silentMs},
                      {QStringLiteral("lease_ms"), l.leaseMs},
                      {QStringLiteral("next_holder"), l.nextHolder.isEmpty() ? QJsonValue() : QJsonValue(l.nextHolder)},
                      {QStringLiteral("returned"), l.returned}};
        if (l.returned)
            f.evidence.insert(QStringLiteral("returned_at_ms"), l.returnedEpochMs);
        if (l.clockJumpMs > 0)
            f.evidence.insert(QStringLiteral("server_clock_jump_ms"), l.clockJumpMs);
        f.action = QStringLiteral("Find client %1 (its process, GC and host logs around %2) and check what it wrote "
                                  "after that time%3. Guard the protected resource against a stale holder: a fenced "
                                  "lock's token that the resource checks, or a lease long enough for the longest "
                                  "pause.")
                       .arg(l.clientId, clock(l.lostEpochMs),
                            l.nextHolder.isEmpty()
                                ? QString()
                                : QStringLiteral(" and what %1 wrote since it took the lock").arg(l.nextHolder));
        if (l.clockJumpMs > 0)
            f.action = QStringLiteral("Check the clock of the Redis server (NTP stepping, a VM resumed, a manual date "
                                      "change around %1): every lock with a TTL shorter than the jump expired at "
                                      "once. Then check what %2 wrote after that time%3.")
                           .arg(clock(l.lostEpochMs), l.clientId,
                                l.nextHolder.isEmpty()
                                    ? QString()
                                    : QStringLiteral(" and what %1 wrote since it took the lock").arg(l.nextHolder));
        out << f;
    }

    for (const FailoverLoss &x : m_failoverLosses) {
        if (nowSteadyMs - x.steadyMs > kKeepMs)
            continue;
        LockFinding f = LockFinding::about(x.lock, QStringLiteral("lost_in_failover"), LockFinding::Severity::Critical);
        f.title = QStringLiteral("%1 was lost in a failover while %2 held it").arg(x.lock, x.holder);
        f.explanation =
            QStringLiteral("Redis replicates asynchronously: the master failed over before this lock "
                           "reached its replica, so the new master does not have it. %1 still believes it "
                           "holds it, and any other client can acquire it%2.")
                .arg(x.holder, x.nextHolder.isEmpty() ? QString() : QStringLiteral(" (%1 did)").arg(x.nextHolder));
        f.evidence = {
            {QStringLiteral("holder"), x.holder},
            {QStringLiteral("failover"), x.detail},
            {QStringLiteral("lost_at_ms"), x.epochMs},
            {QStringLiteral("next_holder"), x.nextHolder.isEmpty() ? QJsonValue() : QJsonValue(x.nextHolder)}};
        f.action = QStringLiteral("Check what the holder did after the failover. Where a lock must survive a "
                                  "failover use RedLock over independent masters, WAIT for the replica after "
                                  "acquiring, or a fenced lock whose token the protected resource checks.");
        out << f;
    }

    for (const Regressed &r : m_regressed) {
        if (nowSteadyMs - r.steadyMs > kKeepMs)
            continue;
        LockFinding f = LockFinding::about(r.lock, QStringLiteral("token_regressed"), LockFinding::Severity::Critical);
        f.title = QStringLiteral("%1: fencing token went down from %2 to %3").arg(r.lock).arg(r.before).arg(r.after);
        f.explanation = QStringLiteral("A fencing token only grows. A lower one means its key lost writes (a "
                                       "failover to a replica that had not received them): new holders get tokens "
                                       "that old holders already used, and the resource cannot tell them apart.");
        f.evidence = {{QStringLiteral("token_before"), r.before},
                      {QStringLiteral("token_after"), r.after},
                      {QStringLiteral("seen_at_ms"), r.epochMs}};
        f.action = QStringLiteral("Raise the token above every token handed out (INCRBY the token key by the "
                                  "difference and a margin) before the resource accepts writes again.");
        out << f;
    }

    for (auto it = m_renewals.cbegin(); it != m_renewals.cend(); ++it) {
        const Renewals &ren = it.value();
        if (ren.leaseMs <= 0)
            continue;
        const auto snap = locks.constFind(it.key());
        const qint64 left = snap == locks.cend() ? -2 : snap->remainingTtlMs(nowSteadyMs);
        const bool holderThere =
            snap != locks.cend() && std::any_of(snap->holders.cbegin(), snap->holders.cend(),
                                                [&ren](const LockHolder &h) { return h.field == ren.holder; });
        const bool overdue = holderThere && left >= 0 && left + m_readLagMs < ren.leaseMs / 3 && !snap->stale;
        const bool wasLow = ren.lowMarginMs >= 0 && nowSteadyMs - ren.lowMarginAtMs <= kLateKeepMs;
        if (!overdue && !wasLow)
            continue;
        LockFinding f = LockFinding::about(it.key(), QStringLiteral("renewal_late"), LockFinding::Severity::Warning);
        f.title = overdue ? QStringLiteral("%1: the watchdog of %2 is late, %3 of its %4 lease left")
                                .arg(it.key(), ren.holder, seconds(left), seconds(ren.leaseMs))
                          : QStringLiteral("%1: a renewal by %2 came with only %3 of its %4 lease left")
                                .arg(it.key(), ren.holder, seconds(ren.lowMarginMs), seconds(ren.leaseMs));
        f.explanation = QStringLiteral("Redisson's watchdog renews every lease/3 (%1), so a healthy lock never has "
                                       "less than two thirds of its lease left for long. Below a third the holder is "
                                       "pausing (GC, CPU starvation, slow network to Redis): one longer pause and the "
                                       "lease runs out while it still works.")
                            .arg(seconds(ren.leaseMs / 3));
        f.evidence = {{QStringLiteral("holder"), ren.holder},
                      {QStringLiteral("lease_ms"), ren.leaseMs},
                      {QStringLiteral("renewals"), ren.count},
                      {QStringLiteral("last_renewed_ms"), ren.lastEpochMs}};
        if (overdue)
            f.evidence.insert(QStringLiteral("ttl_left_ms"), left);
        if (wasLow)
            f.evidence.insert(QStringLiteral("lowest_margin_ms"), ren.lowMarginMs);
        f.action = QStringLiteral("Look at the holder's client (%1) now: GC logs, CPU throttling, its latency to "
                                  "Redis. A longer lease (lockWatchdogTimeout) gives pauses more room.")
                       .arg(clientOf(ren.holder));
        out << f;
    }

    // Since when each held lock has had waiters: from its reads (a fair queue, subscribers read
    // with it) or from the probe's subscriber counts, whichever saw them first.
    QHash<QString, qint64> waitingSince;
    for (auto it = m_waiting.cbegin(); it != m_waiting.cend(); ++it)
        if (it->sinceMs >= 0)
            waitingSince.insert(it.key(), it->sinceMs);
    for (auto it = m_subscribed.cbegin(); it != m_subscribed.cend(); ++it) {
        const qint64 since = it->sinceMs;
        if (!waitingSince.contains(it.key()) || since < waitingSince.value(it.key()))
            waitingSince.insert(it.key(), since);
    }
    for (auto it = waitingSince.cbegin(); it != waitingSince.cend(); ++it) {
        const qint64 sinceMs = it.value();
        const qint64 waitedMs = nowSteadyMs - sinceMs;
        if (sinceMs < 0 || waitedMs < m_silentHolderWaitMs)
            continue;
        const auto snap = locks.constFind(it.key());
        if (snap == locks.cend() || !snap->isHeld() || snap->stale || snap->pttlMs < 0)
            continue; // free, gone, not current, or no TTL at all (no_ttl says that)
        if (m_renewals.contains(it.key()))
            continue; // a watchdog renews it: the holder is alive
        bool active = false;
        for (const auto &h : snap->holders) {
            const qint64 at = m_clientActivity.value(clientOf(h.field), -1);
            if (at >= sinceMs)
                active = true;
        }
        if (active)
            continue;
        const qint64 left = snap->remainingTtlMs(nowSteadyMs);
        const qint64 waiters = snap->queueLength > 0
                                   ? snap->queueLength
                                   : qMax(snap->subscribers, m_subscribed.value(it.key()).subscribers);
        LockFinding f = LockFinding::about(it.key(), QStringLiteral("waiters_behind_silent_holder"),
                                           LockFinding::Severity::Warning);
        f.title = QStringLiteral("%1: %2 waiter(s) for %3 behind %4, which renews nothing and does nothing")
                      .arg(it.key())
                      .arg(waiters)
                      .arg(seconds(waitedMs), snap->holderSummary());
        f.explanation = QStringLiteral("The lock has a fixed lease (no watchdog renewal seen) and its holder showed no "
                                       "activity on any lock since the waiters began to wait. If it died, they wait "
                                       "until the lease ends on its own, in %1 (at %2).")
                            .arg(seconds(left), clock(nowEpochMs + left));
        f.evidence = {{QStringLiteral("holders"), snap->holderSummary()},
                      {QStringLiteral("waiters"), waiters},
                      {QStringLiteral("waiting_ms"), waitedMs},
                      {QStringLiteral("ttl_left_ms"), left},
                      {QStringLiteral("frees_at_ms"), nowEpochMs + left}};
        f.action = QStringLiteral("Check whether the holder's client (%1) is still running. If it is gone, "
                                  "force-unlock the lock to let the waiters in now: %2")
                       .arg(clientOf(snap->holders.first().field),
                            cli(QStringLiteral("force-unlock %1").arg(LockDoctor::shellQuoted(it.key()))));
        out << f;
    }
    return out;
}

} // namespace lockscope
