#include "session/replicationwatch.h"

#include "diagnose/exposuretracker.h"
#include "protocol/lockevent.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"

#include <QTimer>

#include <algorithm>

namespace lockscope
{

ReplicationWatch::ReplicationWatch(Routes routes, QObject *parent)
    : QObject(parent), m_routes(std::move(routes)), m_exposure(std::make_unique<ExposureTracker>())
{
    m_timer = new QTimer(this);
    m_timer->setInterval(int(ExposureTracker::kAckIntervalMs)); // one INFO per master per second at most
    connect(m_timer, &QTimer::timeout, this, &ReplicationWatch::poll);
}

ReplicationWatch::~ReplicationWatch() = default;

void ReplicationWatch::start()
{
    m_timer->start();
}

void ReplicationWatch::clear()
{
    m_exposure->clear();
    m_asked.clear();
}

void ReplicationWatch::observe(const LockSnapshot &s, qint64 steadyMs)
{
    if (s.isHeld())
        m_exposure->seen(m_routes.masterOf(s.name), s.name, steadyMs, s.pttlMs);
    else
        m_exposure->forget(s.name);
}

void ReplicationWatch::forget(const QString &lock)
{
    m_exposure->forget(lock);
}

void ReplicationWatch::observeEvents(const QVector<LockEvent> &events, qint64 steadyMs)
{
    for (const LockEvent &e : events)
        if (e.type == QLatin1String("acquired") || e.type == QLatin1String("reentered") ||
            e.type == QLatin1String("renewed")) {
            const QString master = m_routes.masterOf(e.lock);
            m_exposure->wrote(master, e.lock, steadyMs);
            ++m_waitGuards[master].lockWrites;
        }
}

void ReplicationWatch::apply(LockSnapshot &s, qint64 steadyMs) const
{
    m_exposure->apply(s, m_routes.masterOf(s.name), steadyMs);
}

QStringList ReplicationWatch::exposed() const
{
    return m_exposure->exposed();
}

void ReplicationWatch::checkWaitGuard()
{
    for (const QString &master : m_routes.masters()) {
        RedisConnection *c = m_routes.connectionOf(master);
        if (!c || !c->isReady() || m_exposure->info(master).replicas.isEmpty())
            continue; // no replica: nothing to wait for (Redisson skips WAIT there too)
        c->send({"INFO", "commandstats"}, this, [this, master](const RedisReply &r) {
            if (r.isError())
                return;
            qint64 calls = 0;
            for (const QByteArray &line : r.toByteArray().split('\n'))
                if (line.startsWith("cmdstat_wait:") || line.startsWith("cmdstat_waitaof:")) {
                    const int at = line.indexOf("calls=");
                    if (at >= 0)
                        calls += line.mid(at + 6, line.indexOf(',', at) - at - 6).toLongLong();
                }
            WaitGuard &g = m_waitGuards[master];
            const qint64 waits = g.waitCalls < 0 ? -1 : calls - g.waitCalls;
            const qint64 writes = g.lockWrites;
            const qint64 now = LockSnapshot::steadyNowMs();
            const qint64 windowS = (now - g.readAtMs + 500) / 1000;
            g.waitCalls = calls;
            g.lockWrites = 0;
            g.readAtMs = now;
            if (waits < 0 || writes < 3)
                return; // the first reading, or too few lock writes to tell
            QString text;
            if (waits >= writes / 2)
                text = QStringLiteral("%1: lock writes are followed by WAIT (%2 WAIT for %3 lock writes in the last "
                                      "%4 s): Redisson's checkLockSyncedSlaves is on, a write no replica "
                                      "acknowledged fails instead of going unnoticed. (INFO commandstats counts "
                                      "every client of the server.)")
                           .arg(master)
                           .arg(waits)
                           .arg(writes)
                           .arg(windowS);
            else if (waits == 0)
                text = QStringLiteral("%1: no WAIT seen after %2 lock writes in the last %3 s: the services do not "
                                      "wait for a replica (Redisson older than 3.17, or checkLockSyncedSlaves off), "
                                      "so a failover can lose locks silently. LockScope shows which locks are "
                                      "exposed (not replicated).")
                           .arg(master)
                           .arg(writes)
                           .arg(windowS);
            else
                text = QStringLiteral("%1: %2 WAIT for %3 lock writes in the last %4 s: some services wait for a "
                                      "replica after a lock write and some do not (INFO commandstats counts every "
                                      "client of the server).")
                           .arg(master)
                           .arg(waits)
                           .arg(writes)
                           .arg(windowS);
            // Said once per verdict, not every 30 s.
            const QString kind = waits >= writes / 2 ? QStringLiteral("guarded")
                                 : waits == 0        ? QStringLiteral("unguarded")
                                                     : QStringLiteral("partly");
            if (kind == g.said)
                return;
            g.said = kind;
            emit noticeOccurred(text);
        });
    }
}

void ReplicationWatch::poll()
{
    ++m_ticks;
    if (m_ticks == 2 || m_ticks % kWaitGuardTicks == 0) // 2: the replicas are known
        checkWaitGuard();
    for (const QString &master : m_routes.masters()) {
        RedisConnection *c = m_routes.connectionOf(master);
        if (!c || !c->isReady() || m_asked.contains(master))
            continue;
        m_asked.insert(master);
        c->send({"INFO", "replication"}, this, [this, master](const RedisReply &r) {
            m_asked.remove(master);
            if (r.isError())
                return; // refused (ACL without +info) or lost: verdicts stand, nothing is claimed
            const ReplicationInfo info = ReplicationInfo::parse(r.toByteArray(), LockSnapshot::steadyNowMs());
            if (!info.valid || info.role != QLatin1String("master"))
                return; // a replica watched (read-only): it has no replicas of its own to judge
            const QStringList changed = m_exposure->absorb(master, info);
            emit replicationRead(master, info);
            // The changed ones, and the exposed ones too: their exposure time goes on.
            QSet<QString> names(changed.cbegin(), changed.cend());
            for (const QString &name : m_exposure->exposed())
                names.insert(name);
            if (!names.isEmpty())
                emit verdictsChanged(names);
        });
    }
}

void ReplicationWatch::judge(QVector<LockSnapshot> locks, std::function<void(QVector<LockSnapshot>)> done)
{
    auto tracker = std::make_shared<ExposureTracker>();
    const qint64 now = LockSnapshot::steadyNowMs();
    QSet<QString> masters;
    for (const LockSnapshot &s : locks) {
        const QString master = m_routes.masterOf(s.name);
        masters.insert(master);
        if (s.isHeld())
            tracker->seen(master, s.name, now, s.pttlMs);
    }
    struct Round {
        int pending = 0;
        bool again = false; // some master's replicas have not reached its offset yet
    };
    auto finish = [this, tracker, locks, done]() mutable {
        const qint64 at = LockSnapshot::steadyNowMs();
        for (LockSnapshot &s : locks)
            tracker->apply(s, m_routes.masterOf(s.name), at);
        done(locks);
    };
    // One reading of every master; `then(again)` after the last answer.
    auto readAll = [this, masters, tracker](std::function<void(bool again)> then) {
        auto round = std::make_shared<Round>();
        round->pending = int(masters.size());
        if (round->pending == 0) {
            then(false);
            return;
        }
        for (const QString &master : masters) {
            m_routes.connectionOf(master)->send(
                {"INFO", "replication"}, this, [tracker, master, round, then](const RedisReply &r) {
                    if (!r.isError()) {
                        const ReplicationInfo info =
                            ReplicationInfo::parse(r.toByteArray(), LockSnapshot::steadyNowMs());
                        if (info.valid && info.role == QLatin1String("master")) {
                            tracker->absorb(master, info);
                            const bool caughtUp = std::any_of(info.replicas.cbegin(), info.replicas.cend(),
                                                              [&info](const ReplicationInfo::Replica &rep) {
                                                                  return rep.offset >= info.masterOffset;
                                                              });
                            if (!info.replicas.isEmpty() && !caughtUp)
                                round->again = true;
                        }
                    }
                    if (--round->pending == 0)
                        then(round->again);
                });
        }
    };
    readAll([this, readAll, finish](bool again) mutable {
        if (!again) {
            finish();
            return;
        }
        QTimer::singleShot(ExposureTracker::kAckIntervalMs + ExposureTracker::kMarginMs, this,
                           [readAll, finish]() mutable { readAll([finish](bool) mutable { finish(); }); });
    });
}

} // namespace lockscope
