#include "lockjsonlines.h"

#include <QJsonDocument>

#include <cstdio>

#ifdef Q_OS_LINUX
#include <pthread.h>
#include <sched.h>
#endif

namespace lockscope
{

LockJsonLines::LockJsonLines()
{
    m_worker = std::thread([this] { work(); });
}

LockJsonLines::~LockJsonLines()
{
    stop();
}

QByteArray LockJsonLines::line(const LockSnapshot &s)
{
    QByteArray out = QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact);
    out.append('\n');
    return out;
}

void LockJsonLines::add(const QVector<LockSnapshot> &snapshots)
{
    if (snapshots.isEmpty())
        return;
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (m_stopping)
            return;
        m_queue.push_back(snapshots);
    }
    m_wake.notify_one();
}

void LockJsonLines::work()
{
#ifdef Q_OS_LINUX
    // Only CPU nobody else wants: the event loop reading Redis (and a redis-server on the same
    // machine) must not wait for lines that write() can still build at the end.
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
#endif
    for (;;) {
        QVector<LockSnapshot> batch;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_stopping)
                return;
            batch = std::move(m_queue.front());
            m_queue.pop_front();
        }
        for (const LockSnapshot &s : std::as_const(batch)) {
            if (m_stopping.load(std::memory_order_relaxed))
                return;
            if (!s.isLock)
                continue;
            Built &b = m_built[s.name];
            b.snapshot = s;
            b.line = line(s);
        }
    }
}

void LockJsonLines::stop()
{
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
        m_queue.clear();
    }
    m_wake.notify_one();
    if (m_worker.joinable())
        m_worker.join();
}

bool LockJsonLines::sameRead(const LockSnapshot &b, const LockSnapshot &c)
{
    // A later read of the lock has another read time; what LockMonitor itself changes on a
    // snapshot it keeps (staleness, a kind it settled, findings) is compared as well.
    return b.readAtSteadyMs == c.readAtSteadyMs && b.serverTimeMs == c.serverTimeMs && b.pttlMs == c.pttlMs &&
           b.stale == c.stale && b.staleAsOfMs == c.staleAsOfMs && b.kind == c.kind &&
           b.kindCertain == c.kindCertain && b.kindNote == c.kindNote && b.exists == c.exists &&
           b.twinExists == c.twinExists && b.queueLength == c.queueLength && b.subscribers == c.subscribers &&
           b.token == c.token && b.problems == c.problems && b.anomalies == c.anomalies &&
           b.holders.size() == c.holders.size() && b.waiters.size() == c.waiters.size() && b.sameHolders(c) &&
           b.timeoutSet == c.timeoutSet;
}

void LockJsonLines::write(const QVector<const LockSnapshot *> &locks)
{
    stop();
    // Each line is either one built ahead from the same read, or built now: the missing ones on
    // two threads (each snapshot is only read), then all written in order, block by block.
    constexpr int kBlock = 4096;
    QVector<QByteArray> lines(qMin(int(locks.size()), kBlock));
    for (int begin = 0; begin < locks.size(); begin += kBlock) {
        const int end = qMin(int(locks.size()), begin + kBlock);
        QVector<int> missing;
        for (int i = begin; i < end; ++i) {
            const LockSnapshot &s = *locks.at(i);
            const auto it = m_built.constFind(s.name);
            if (it != m_built.cend() && sameRead(it->snapshot, s)) {
                lines[i - begin] = it->line;
                ++m_reused;
            } else {
                missing << i;
            }
        }
        auto build = [&](int from, int to) {
            for (int k = from; k < to; ++k)
                lines[missing.at(k) - begin] = line(*locks.at(missing.at(k)));
        };
        const int half = int(missing.size()) / 2;
        if (missing.size() >= 64) {
            std::thread helper(build, half, int(missing.size()));
            build(0, half);
            helper.join();
        } else {
            build(0, int(missing.size()));
        }
        m_builtAtEnd += missing.size();
        for (int i = 0; i < end - begin; ++i) {
            std::fwrite(lines.at(i).constData(), 1, size_t(lines.at(i).size()), stdout);
            lines[i].clear();
        }
    }
    std::fflush(stdout);
}

} // namespace lockscope
