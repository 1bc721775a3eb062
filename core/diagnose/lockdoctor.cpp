#include "diagnose/lockdoctor.h"
#include "diagnose/doctorprobe.h"
#include "redis/redisbytes.h"
#include "text/displaytext.h"

#include "protocol/locknames.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <functional>

namespace lockscope
{

static QString ms(qint64 v)
{
    if (v >= 120000)
        return QStringLiteral("%1 min").arg(v / 60000);
    return QStringLiteral("%1 s").arg(v / 1000.0, 0, 'f', 1);
}

QString LockDoctor::shellQuoted(const QString &raw)
{
    // A name that is not UTF-8 is suggested in the form the CLI reads back (`lock:\xff`).
    const QString text = RedisBytes::hasEscapedBytes(raw) ? DisplayText::escaped(raw) : raw;
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_./:@%+={}-]+$")); // no "," ({a,b} expands)
    if (!text.isEmpty() && safe.match(text).hasMatch())
        return text;
    return QLatin1Char('\'') + QString(text).replace(QLatin1Char('\''), QStringLiteral("'\\''")) + QLatin1Char('\'');
}

QString LockDoctor::suggestedCommand(const QString &words, const QString &connection)
{
    return QStringLiteral("lockscope-cli ") + words +
           (connection.isEmpty() ? QString() : QLatin1Char(' ') + connection);
}

LockSnapshot LockDoctor::History::previous() const
{
    LockSnapshot p;
    p.holders = lastHolders;
    p.rwMode = lastRwMode;
    p.pttlMs = lastPttlMs;
    p.serverTimeMs = lastServerTimeMs;
    p.readAtSteadyMs = lastReadAtSteadyMs;
    return p;
}

void LockDoctor::observe(const LockSnapshot &s)
{
    m_leases.observe(s);
    History &h = m_history[s.name];
    if (!s.isHeld()) {
        h.holdersHash = 0;
        h.heldSinceMs = -1;
        h.renewals = 0;
    } else {
        const size_t holders = qHash(s.holderSummary());
        if (holders != h.holdersHash || h.heldSinceMs < 0) {
            h.holdersHash = holders;
            h.heldSinceMs = s.readAtSteadyMs;
            h.renewals = 0;
        } else if (s.isRenewalOf(h.previous())) {
            ++h.renewals;
        }
    }
    const bool freeWithWaiters = !s.exists && s.queueLength > 0;
    if (!freeWithWaiters)
        h.freeWithWaitersSinceMs = -1;
    else if (h.freeWithWaitersSinceMs < 0)
        h.freeWithWaitersSinceMs = s.readAtSteadyMs;
    h.lastHolders = s.holders;
    h.lastRwMode = s.rwMode;
    h.lastPttlMs = s.pttlMs;
    h.lastServerTimeMs = s.serverTimeMs;
    h.lastReadAtSteadyMs = s.readAtSteadyMs;
}

void LockDoctor::forget(const QString &name)
{
    m_leases.forget(name);
    m_history.remove(name);
}

void LockDoctor::observeOrphanWaiters(const QHash<QString, qint64> &subscribersByLock, qint64 nowSteadyMs)
{
    QHash<QString, qint64> since;
    for (auto it = subscribersByLock.cbegin(); it != subscribersByLock.cend(); ++it)
        since.insert(it.key(), m_orphanSinceMs.value(it.key(), nowSteadyMs));
    m_orphanSinceMs = since;
    m_orphanSubscribers = subscribersByLock;
    m_orphanObservedAtMs = nowSteadyMs;
}

void LockDoctor::observeLatches(const QVector<QPair<QString, qint64>> &latchKeys, qint64 total)
{
    m_latches = latchKeys;
    m_latchTotal = qMax<qint64>(total, latchKeys.size());
}

int LockDoctor::worstSeverity(const QVector<LockFinding> &findings)
{
    int worst = -1;
    for (const auto &f : findings)
        worst = qMax(worst, int(f.severity));
    return worst;
}

QVector<LockFinding> LockDoctor::snapshotFindings(const LockSnapshot &s, const QString &connection)
{
    auto cli = [&connection](const QString &words) { return suggestedCommand(words, connection); };
    const QString name = shellQuoted(s.name);
    QVector<LockFinding> out;
    if (!s.isLock)
        return out;
    if (s.exists && s.pttlMs == -1) {
        LockFinding f = LockFinding::about(s.name, QStringLiteral("no_ttl"), LockFinding::Severity::Critical);
        f.title = QStringLiteral("%1 has no TTL: it never expires on its own").arg(s.name);
        f.explanation = QStringLiteral("Redisson always sets a lease. A lock without one was written by an old or "
                                       "foreign client, or its PEXPIRE was lost; if its holder dies, the lock stays "
                                       "held forever. Waiters that saw it without a TTL (PTTL -1) sleep with no "
                                       "timer until an unlock message comes, and neither an expiry nor a plain DEL "
                                       "publishes one.");
        f.evidence = {{QStringLiteral("pttl_ms"), s.pttlMs}, {QStringLiteral("holders"), s.holderSummary()}};
        f.action = QStringLiteral("Set a TTL (%1) so the holder can still finish, or force-unlock it if the holder "
                                  "is gone (%2: that publishes the wake-up). After a TTL runs out, sleeping waiters "
                                  "still need %3 (the doctor then reports waiters_without_holder).")
                       .arg(cli(QStringLiteral("set-ttl %1 --ttl-ms 30000").arg(name)),
                            cli(QStringLiteral("force-unlock %1").arg(name)), cli(QStringLiteral("wake %1").arg(name)));
        out << f;
    }
    if (!s.anomalies.isEmpty()) {
        LockFinding f = LockFinding::about(s.name, QStringLiteral("malformed_data"), LockFinding::Severity::Warning);
        f.title = QStringLiteral("%1 holds values Redisson never writes").arg(s.name);
        f.explanation = QStringLiteral("Redisson writes epoch-ms deadlines, hold counts and fencing tokens as whole "
                                       "numbers and 'read'/'write' as the read-write mode. Other values come from a "
                                       "foreign or broken writer; Redisson's own scripts may fail on them (a Lua error "
                                       "on every acquire) or misjudge the lock. LockScope shows what is there.");
        f.evidence = {{QStringLiteral("anomalies"), QJsonArray::fromStringList(s.anomalies)},
                      {QStringLiteral("holders"), s.holderSummary()}};
        f.action =
            QStringLiteral("Find the writer of these values (MONITOR on this server, or the clients named in the "
                           "holder fields). LockScope repairs none of them; force-unlock it (%1) "
                           "only once nobody relies on it.")
                .arg(cli(QStringLiteral("force-unlock %1").arg(name)));
        out << f;
    }
    // A faster multilock group holds one owner per value, so several owners are normal (§14.10).
    if (s.kind != LockKind::ReadWriteLock && s.kind != LockKind::FasterMultiLock && s.holders.size() > 1) {
        LockFinding f = LockFinding::about(s.name, QStringLiteral("several_holders"), LockFinding::Severity::Critical);
        // A hash too big to read whole is a sample: the title counts the hash (HLEN), not the sample.
        f.title =
            QStringLiteral("%1 has %2 holder fields").arg(s.name).arg(s.sampled ? s.fieldCount : s.holders.size());
        f.explanation = QStringLiteral("A Redisson lock has exactly one holder field. Several mean corruption or "
                                       "a foreign writer: mutual exclusion is not guaranteed for this lock.");
        f.evidence = {{QStringLiteral("holders"), s.holderSummary()}};
        f.action = QStringLiteral("Find which client wrote the extra field; force-unlock (%1) once the "
                                  "work is stopped.")
                       .arg(cli(QStringLiteral("force-unlock %1").arg(name)));
        out << f;
    }
    if (s.kind == LockKind::FairLock) {
        if (!s.waiters.isEmpty() && s.waiters.first().deadlineEpochMs >= 0 &&
            s.waiters.first().deadlineEpochMs < s.serverTimeMs) {
            const LockWaiter &w = s.waiters.first();
            const qint64 pastBy = s.serverTimeMs - w.deadlineEpochMs;
            // A live waiter polls again at most its last PTTL after its last poll (§1.5, §14.7).
            const qint64 graceMs = qMax(kFairHeadGraceMs, s.pttlMs);
            const bool stale = pastBy > graceMs;
            LockFinding f = LockFinding::about(s.name, QStringLiteral("fair_head_expired"),
                                               stale ? LockFinding::Severity::Warning : LockFinding::Severity::Info);
            if (stale) {
                f.title = QStringLiteral("Head waiter of %1 is stale: past its deadline by %2").arg(s.name, ms(pastBy));
                f.explanation =
                    QStringLiteral("The first thread in the waiter queue has not retried for longer after its "
                                   "deadline than a live waiter sleeps (its last PTTL, at most %1 here): it "
                                   "is dead. It stays at the head until an acquire attempt prunes it; while "
                                   "the lock is free, live waiters behind it re-run the acquire script at "
                                   "once, again and again, until then.")
                        .arg(ms(graceMs));
                f.action = QStringLiteral("Remove the stale waiter (%1).")
                               .arg(cli(QStringLiteral("remove-waiter %1 %2").arg(name, shellQuoted(w.field))));
            } else {
                f.title = QStringLiteral("Head waiter of %1 is past its deadline by %2: may still re-queue itself")
                              .arg(s.name, ms(pastBy));
                f.explanation =
                    QStringLiteral("A queued waiter's deadline is not refreshed while it waits: a live lock() "
                                   "waiter passes it whenever the holder keeps the lock longer than lease + "
                                   "wait, and re-queues itself at its next attempt, at most its last PTTL "
                                   "(up to %1 here) later. It is not known to be dead yet.")
                        .arg(ms(graceMs));
                f.action =
                    QStringLiteral("Nothing yet. If it is still at the head %1 after its deadline, it is dead: "
                                   "%2.")
                        .arg(ms(graceMs), cli(QStringLiteral("remove-waiter %1 %2").arg(name, shellQuoted(w.field))));
            }
            f.evidence = {{QStringLiteral("waiter"), w.field},
                          {QStringLiteral("deadline_epoch_ms"), w.deadlineEpochMs},
                          {QStringLiteral("server_time_ms"), s.serverTimeMs},
                          {QStringLiteral("past_deadline_ms"), pastBy},
                          {QStringLiteral("grace_ms"), graceMs},
                          {QStringLiteral("stale"), stale},
                          {QStringLiteral("queue_length"), s.queueLength}};
            out << f;
        }
        if (!s.exists && s.queueLength > 0) {
            // Normal for a moment during a hand-over; waiters_without_holder reports it when it lasts.
            LockFinding f = LockFinding::about(s.name, QStringLiteral("free_with_queue"), LockFinding::Severity::Info);
            f.title = QStringLiteral("%1 is a free lock with %2 queued waiter(s)").arg(s.name).arg(s.queueLength);
            f.explanation =
                QStringLiteral("The head waiter should take it on its next attempt. If this lasts, the head "
                               "is not running (dead or stalled) or sleeps without a timer (it enqueued "
                               "while the lock had no TTL); live waiters behind it spin meanwhile.");
            f.evidence = {{QStringLiteral("queue_length"), s.queueLength},
                          {QStringLiteral("head_waiter"), s.waiters.isEmpty() ? QString() : s.waiters.first().field}};
            f.action = QStringLiteral("Watch it; see waiters_without_holder if it lasts.");
            out << f;
        }
        // Companion keys that disagree: only decidable when both were read completely.
        if (s.queueLength == s.waiters.size() && s.timeoutSetSize == s.timeoutSet.size()) {
            QSet<QString> queued;
            for (const auto &w : s.waiters)
                queued.insert(w.field);
            QSet<QString> scored;
            for (const auto &t : s.timeoutSet)
                scored.insert(t.first);
            const QSet<QString> noScore = queued - scored;
            const QSet<QString> notQueued = scored - queued;
            if (!noScore.isEmpty() || !notQueued.isEmpty()) {
                LockFinding f = LockFinding::about(s.name, QStringLiteral("fair_companions_disagree"));
                f.title = QStringLiteral("Waiter queue and timeout set of %1 disagree").arg(s.name);
                f.explanation = QStringLiteral("Every queued thread should have a deadline in the timeout set and "
                                               "the reverse. A queued thread without a deadline is never pruned and "
                                               "can block the lock forever; a deadline without a queue entry "
                                               "shifts everyone's deadlines.");
                f.evidence = {
                    {QStringLiteral("queued_without_deadline"), QJsonArray::fromStringList(noScore.values())},
                    {QStringLiteral("deadline_without_queue_entry"), QJsonArray::fromStringList(notQueued.values())}};
                f.action = QStringLiteral("Remove the inconsistent waiter(s): %1.")
                               .arg(cli(QStringLiteral("remove-waiter %1 <field>").arg(name)));
                out << f;
            }
        }
    }
    if (s.kind == LockKind::ReadWriteLock) {
        QJsonObject dead;
        int total = 0;
        for (const auto &h : s.holders) {
            const int n = int(std::count(h.holdTtlsMs.cbegin(), h.holdTtlsMs.cend(), qint64(-2)));
            if (n > 0) {
                dead.insert(h.field, n);
                total += n;
            }
        }
        if (total > 0) {
            LockFinding f = LockFinding::about(s.name, QStringLiteral("dead_readers"));
            f.title = QStringLiteral("%1 has %2 read hold(s) of dead readers").arg(s.name).arg(total);
            f.explanation = QStringLiteral("Each read hold has an rwlock_timeout key kept alive by its reader. These "
                                           "keys are gone, so those readers are dead, but their hold counts still "
                                           "block writers until the lock's TTL runs out.");
            f.evidence = {{QStringLiteral("dead_holds_by_reader"), dead}, {QStringLiteral("pttl_ms"), s.pttlMs}};
            f.action = QStringLiteral("Remove the dead reader (%1).")
                           .arg(cli(QStringLiteral("remove-reader %1 %2")
                                        .arg(name, dead.size() == 1 ? shellQuoted(dead.keys().first())
                                                                    : QStringLiteral("<field>"))));
            out << f;
        }
    }
    return out;
}

QVector<LockFinding> LockDoctor::replicationFindings(const LockSnapshot &s, qint64 criticalMs)
{
    if (s.replication != LockSnapshot::Replication::NotReplicated || !s.isHeld())
        return {};
    const qint64 limitMs = criticalMs > 0 ? criticalMs : s.exposureLimitMs;
    LockFinding f;
    f.code = QStringLiteral("not_replicated");
    f.severity =
        limitMs > 0 && s.exposedMs > limitMs ? LockFinding::Severity::Critical : LockFinding::Severity::Warning;
    f.lock = s.name;
    f.locks = {s.name};
    f.title = QStringLiteral("%1: no replica has it (%2 s): a failover now would lose this lock")
                  .arg(DisplayText::escaped(s.name))
                  .arg(s.exposedMs / 1000.0, 0, 'f', 1);
    f.explanation = QStringLiteral(
        "Redis replicates asynchronously: the master answered the lock's last write, and no replica has "
        "acknowledged it. If the master failed now, the promoted replica would not have the lock, and another "
        "client could take it while its holder still runs. Redisson's checkLockSyncedSlaves (3.17.0+, on by "
        "default) makes lock writes wait for a replica (WAIT); older clients, or that setting off, do not.");
    f.evidence = QJsonObject{{QStringLiteral("exposed_ms"), s.exposedMs},
                             {QStringLiteral("critical_after_ms"), limitMs},
                             {QStringLiteral("replication"), s.replicationNote}};
    f.action = QStringLiteral("Look at the lagging replica (its link, disk and CPU; INFO replication on the master). "
                              "Until a replica has the lock, a failover loses it.");
    return {f};
}

QVector<LockFinding> LockDoctor::deadlocks(const QHash<QString, LockSnapshot> &locks, const QString &connection)
{
    // Edge waiter -> holder, labelled with the lock the waiter is queued on.
    QHash<QString, QVector<QPair<QString, QString>>> edges;
    for (const auto &s : locks) {
        if (s.waiters.isEmpty() || s.holders.isEmpty())
            continue;
        for (const auto &w : s.waiters)
            for (const auto &h : s.holders)
                if (w.field != h.field)
                    edges[w.field].append({h.field, s.name});
    }
    QVector<LockFinding> out;
    QSet<QString> reported;
    QHash<QString, int> state; // 0 new, 1 on stack, 2 done
    QStringList stackNodes;
    QStringList stackLocks;
    std::function<void(const QString &)> visit = [&](const QString &node) {
        state[node] = 1;
        stackNodes << node;
        for (const auto &e : edges.value(node)) {
            if (state.value(e.first) == 1) {
                const int start = int(stackNodes.indexOf(e.first));
                QStringList cycleNodes = stackNodes.mid(start);
                QStringList cycleLocks = stackLocks.mid(start);
                cycleLocks << e.second;
                QStringList key = cycleNodes;
                key.sort();
                const QString id = key.join(QLatin1Char('|'));
                if (reported.contains(id))
                    continue;
                reported.insert(id);
                LockFinding f;
                f.severity = LockFinding::Severity::Critical;
                f.code = QStringLiteral("deadlock");
                QStringList uniqueLocks = cycleLocks;
                uniqueLocks.removeDuplicates();
                f.lock = uniqueLocks.first();
                f.locks = uniqueLocks;
                QStringList steps;
                for (int i = 0; i < cycleNodes.size(); ++i)
                    steps << QStringLiteral("%1 waits for %2").arg(cycleNodes[i], cycleLocks[i]);
                f.title = QStringLiteral("Deadlock: %1 thread(s) wait for each other on %2")
                              .arg(cycleNodes.size())
                              .arg(uniqueLocks.join(QStringLiteral(", ")));
                f.explanation =
                    QStringLiteral("Each thread on the cycle holds a lock the next one is queued for, so none "
                                   "can proceed: %1.")
                        .arg(steps.join(QStringLiteral("; ")));
                QJsonArray cycle;
                for (int i = 0; i < cycleNodes.size(); ++i)
                    cycle.append(QJsonObject{{QStringLiteral("holder"), cycleNodes[i]},
                                             {QStringLiteral("waits_for_lock"), cycleLocks[i]}});
                f.evidence = {{QStringLiteral("cycle"), cycle}};
                f.action =
                    QStringLiteral("Break the cycle: force-unlock one of its locks (%1: its holder "
                                   "loses it) or stop one of the threads.")
                        .arg(suggestedCommand(QStringLiteral("force-unlock %1").arg(shellQuoted(f.lock)), connection));
                out << f;
            } else if (state.value(e.first) == 0) {
                stackLocks << e.second;
                visit(e.first);
                stackLocks.removeLast();
            }
        }
        stackNodes.removeLast();
        state[node] = 2;
    };
    QStringList nodes = edges.keys();
    nodes.sort();
    for (const auto &n : nodes)
        if (state.value(n) == 0)
            visit(n);
    return out;
}

QVector<LockFinding> LockDoctor::diagnose(const QHash<QString, LockSnapshot> &locks, qint64 nowSteadyMs) const
{
    QVector<LockFinding> out;
    for (const auto &s : locks) {
        out += snapshotFindings(s, m_commandConnection);
        out += replicationFindings(s, m_thresholds.replicationMs);
        const auto it = m_history.constFind(s.name);
        if (it == m_history.cend())
            continue;
        const History &h = it.value();
        if (s.isHeld() && h.heldSinceMs >= 0 && h.renewals > 0 &&
            nowSteadyMs - h.heldSinceMs > m_thresholds.watchdogHeldMs) {
            LockFinding f = LockFinding::about(s.name, QStringLiteral("watchdog_long"));
            f.title = QStringLiteral("%1 has been kept alive by a watchdog for at least %2")
                          .arg(s.name, ms(nowSteadyMs - h.heldSinceMs));
            f.explanation = QStringLiteral("The holder's process is alive (its watchdog renews the lease every "
                                           "lease/3) but has not released the lock for longer than %1: it may be "
                                           "stuck inside its critical section.")
                                .arg(ms(m_thresholds.watchdogHeldMs));
            f.evidence = {{QStringLiteral("holders"), s.holderSummary()},
                          {QStringLiteral("held_for_at_least_ms"), nowSteadyMs - h.heldSinceMs},
                          {QStringLiteral("renewals_seen"), h.renewals},
                          {QStringLiteral("pttl_ms"), s.pttlMs}};
            f.action = QStringLiteral("Look at the holder's thread (a thread dump of client %1); force-unlock only "
                                      "once it is stopped (%2).")
                           .arg(s.holders.first().clientId,
                                suggestedCommand(QStringLiteral("force-unlock %1").arg(shellQuoted(s.name)),
                                                 m_commandConnection));
            out << f;
        }
        if (h.freeWithWaitersSinceMs >= 0 &&
            nowSteadyMs - h.freeWithWaitersSinceMs > m_thresholds.waitersWithoutHolderMs) {
            LockFinding f = LockFinding::about(s.name, QStringLiteral("waiters_without_holder"));
            f.title = QStringLiteral("%1 is free but %2 thread(s) have been queued for %3")
                          .arg(s.name)
                          .arg(s.queueLength)
                          .arg(ms(nowSteadyMs - h.freeWithWaitersSinceMs));
            const QString head = s.waiters.isEmpty() ? QStringLiteral("<head field>") : s.waiters.first().field;
            f.explanation = QStringLiteral("Nobody holds the fair lock and its head waiter %1 does not take it, so it "
                                           "is not running (dead or stalled), or it sleeps without a timer because it "
                                           "enqueued while the lock had no TTL. The waiters behind it did not miss a "
                                           "message: a free fair lock answers them 0 and they retry at once, spinning "
                                           "on the acquire script until the head is pruned at its deadline. A force "
                                           "unlock would not help: the lock is free, so it deletes and publishes "
                                           "nothing.")
                                .arg(head);
            f.evidence = {{QStringLiteral("queue_length"), s.queueLength},
                          {QStringLiteral("head_waiter"), s.waiters.isEmpty() ? QString() : s.waiters.first().field}};
            if (!s.waiters.isEmpty() && s.waiters.first().deadlineEpochMs >= 0 && s.serverTimeMs > 0)
                f.evidence.insert(QStringLiteral("head_deadline_in_ms"),
                                  s.waiters.first().deadlineEpochMs - s.serverTimeMs);
            f.action =
                QStringLiteral("Remove the stale head waiter (%1). Only if its "
                               "client is alive and may have enqueued while the lock had no TTL, try "
                               "%2 first: it publishes to the head's own channel.")
                    .arg(suggestedCommand(QStringLiteral("remove-waiter %1 %2")
                                              .arg(shellQuoted(s.name), s.waiters.isEmpty() ? head : shellQuoted(head)),
                                          m_commandConnection),
                         suggestedCommand(QStringLiteral("wake %1").arg(shellQuoted(s.name)), m_commandConnection));
            out << f;
        }
    }
    for (auto it = m_orphanSubscribers.cbegin(); it != m_orphanSubscribers.cend(); ++it) {
        if (locks.contains(it.key()) && locks.value(it.key()).isHeld())
            continue;
        const qint64 since = m_orphanSinceMs.value(it.key(), m_orphanObservedAtMs);
        if (nowSteadyMs - since <= m_thresholds.waitersWithoutHolderMs)
            continue;
        LockFinding f = LockFinding::about(it.key(), QStringLiteral("waiters_without_holder"));
        f.title = QStringLiteral("%1 is free but %2 client(s) still wait on its unlock channel")
                      .arg(it.key())
                      .arg(it.value());
        f.explanation = QStringLiteral("Clients subscribed to %1 or %2 are waiting for an unlock message that will "
                                       "not come: the lock is free (expired, or deleted without publishing). They "
                                       "sleep until their own timer, forever if their last attempt saw the lock "
                                       "without a TTL.")
                            .arg(LockNames::unlockChannel(it.key()), LockNames::readWriteChannel(it.key()));
        f.evidence = {{QStringLiteral("subscribers"), it.value()}, {QStringLiteral("lock_exists"), false}};
        f.action =
            QStringLiteral("Wake them: %1 publishes the unlock message on the channel "
                           "they wait on (there is nothing to delete, so force unlock would not).")
                .arg(suggestedCommand(QStringLiteral("wake %1").arg(shellQuoted(it.key())), m_commandConnection));
        out << f;
    }
    if (!m_latches.isEmpty()) {
        LockFinding f;
        f.severity = LockFinding::Severity::Info;
        QJsonObject keys;
        for (const auto &l : m_latches) {
            keys.insert(l.first, l.second);
            if (l.second == -1)
                f.severity = LockFinding::Severity::Warning;
        }
        f.code = QStringLiteral("lingering_latch");
        f.lock = m_latches.first().first;
        f.title = QStringLiteral("%1 unlock latch key(s) linger").arg(m_latchTotal);
        f.explanation = QStringLiteral("Redisson 3.24+ writes redisson_unlock_latch:{name}:<request id> during an "
                                       "unlock and deletes it right after. Keys that stay mean the follow-up DEL "
                                       "was lost; without a TTL they stay forever.");
        f.evidence = {{QStringLiteral("keys"), keys}, {QStringLiteral("key_count"), m_latchTotal}};
        if (m_latchTotal > m_latches.size())
            f.evidence.insert(
                QStringLiteral("keys_shown"),
                QStringLiteral("every key without a TTL and %1 others").arg(DoctorProbe::kMaxLatchesKept));
        f.action = QStringLiteral("Harmless for locking; keys without a TTL can be deleted (DEL on this server).");
        out << f;
    }
    if (!m_disconnected.isEmpty())
        for (const auto &s : locks) {
            const auto it = m_history.constFind(s.name);
            out += disconnectedHolders(s, it == m_history.cend() ? nullptr : &it.value());
        }
    out += deadlocks(locks, m_commandConnection);
    out += m_leases.findings(locks, nowSteadyMs, m_commandConnection);
    std::stable_sort(out.begin(), out.end(), [](const LockFinding &a, const LockFinding &b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return a.lock < b.lock;
    });
    return out;
}

void LockDoctor::observeClients(const QVector<ClientIdentity> &clients)
{
    m_disconnected.clear();
    for (const auto &c : clients)
        if (c.state == ClientIdentity::State::Disconnected)
            m_disconnected.insert(c.clientId, c);
}

QVector<LockFinding> LockDoctor::disconnectedHolders(const LockSnapshot &s, const History *h) const
{
    QVector<LockFinding> out;
    if (!s.isHeld())
        return out;
    for (const auto &holder : s.holders) {
        const auto it = m_disconnected.constFind(holder.clientId);
        if (it == m_disconnected.cend())
            continue;
        const ClientIdentity &c = it.value();
        const bool watchdog = h && h->renewals > 0;
        LockFinding f = LockFinding::about(s.name, QStringLiteral("holder_disconnected"));
        f.severity = watchdog ? LockFinding::Severity::Warning : LockFinding::Severity::Critical;
        const QString was =
            c.lastAddresses.isEmpty() ? QStringLiteral("its connections") : c.lastAddresses.join(QStringLiteral(", "));
        f.title =
            QStringLiteral("%1 is held by %2, whose client disconnected (%3%4)")
                .arg(s.name, holder.field, was, c.name.isEmpty() ? QString() : QStringLiteral(", '%1'").arg(c.name));
        f.explanation =
            watchdog
                ? QStringLiteral("Every connection of the holder's Redisson client closed while it holds the lock: "
                                 "the process died or lost Redis. Its watchdog no longer renews the lease, so the "
                                 "lock expires by itself within %1; its waiters wait until then.")
                      .arg(s.pttlMs >= 0 ? ms(s.pttlMs) : QStringLiteral("the watchdog timeout"))
            : s.pttlMs < 0
                ? QStringLiteral("Every connection of the holder's Redisson client closed while it holds the lock, and "
                                 "the lock has no TTL: nobody will ever release it.")
                : QStringLiteral("Every connection of the holder's Redisson client closed while it holds the lock. No "
                                 "renewal was seen, so it is a fixed lease: its waiters are blocked until it ends in "
                                 "%1.")
                      .arg(ms(s.pttlMs));
        f.evidence = {{QStringLiteral("holder"), holder.field},
                      {QStringLiteral("client"), c.toJson()},
                      {QStringLiteral("pttl_ms"), s.pttlMs},
                      {QStringLiteral("watchdog"), watchdog}};
        f.action =
            QStringLiteral("Check that the process behind %1 is gone (host %2), then release the lock: %3")
                .arg(was, c.hostText(),
                     suggestedCommand(QStringLiteral("force-unlock %1").arg(shellQuoted(s.name)), m_commandConnection));
        out << f;
    }
    return out;
}

} // namespace lockscope
