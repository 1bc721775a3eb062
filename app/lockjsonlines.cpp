#include "lockjsonlines.h"

#include <QJsonDocument>

#include <thread>

#ifdef Q_OS_LINUX
#include <pthread.h>
#include <sched.h>
#endif

namespace lockscope
{

LockJsonLines::LockJsonLines()
{
    m_worker.setMaxThreadCount(1);
    m_worker.setExpiryTimeout(-1); // one thread for the whole command
}

LockJsonLines::~LockJsonLines()
{
    m_stop.store(true);
    m_worker.clear();
    m_worker.waitForDone();
}

void LockJsonLines::update(const QVector<LockSnapshot> &changed)
{
    if (m_stop.load() || changed.isEmpty())
        return;
    // The snapshots share their data with the watcher's copies (implicitly shared Qt containers,
    // atomic counts); the worker only reads them.
    m_worker.start([this, changed] {
#ifdef Q_OS_LINUX
        if (!m_idleClass) {
            sched_param none{};
            none.sched_priority = 0;
            (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
            m_idleClass = true;
        }
#endif
        for (const LockSnapshot &s : changed) {
            if (m_stop.load(std::memory_order_relaxed) || m_bytes >= kMaxBytes)
                return; // stopped, or full: write() builds the rest
            append(s);
        }
    });
}

void LockJsonLines::append(const LockSnapshot &snapshot)
{
    constexpr qsizetype kChunk = 4 << 20;
    const QByteArray line = lineOf(snapshot);
    if (m_chunks.empty() || m_chunks.back().size() + line.size() > m_chunks.back().capacity()) {
        m_chunks.emplace_back();
        m_chunks.back().reserve(qMax(kChunk, line.size()));
    }
    QByteArray &chunk = m_chunks.back();
    m_lines.insert(snapshot.name, {int(m_chunks.size() - 1), int(chunk.size()), int(line.size()), snapshot.serverTimeMs,
                                   snapshot.readAtSteadyMs, snapshot.stale});
    chunk.append(line);
    m_bytes += line.size();
}

QByteArrayView LockJsonLines::builtLine(const LockSnapshot &s) const
{
    const auto it = m_lines.constFind(s.name);
    if (it == m_lines.cend() || it->serverTimeMs != s.serverTimeMs || it->readAtSteadyMs != s.readAtSteadyMs ||
        it->stale != s.stale)
        return {};
    return QByteArrayView(m_chunks[size_t(it->chunk)]).sliced(it->offset, it->length);
}

void LockJsonLines::write(const QVector<const LockSnapshot *> &locks, std::FILE *out)
{
    m_stop.store(true);
    m_worker.clear();
    m_worker.waitForDone(); // at most the line under way
    constexpr int kBlock = 4096;
    QVector<QByteArray> built;
    QVector<int> missing;
    QByteArray block;
    for (int begin = 0; begin < locks.size(); begin += kBlock) {
        const int end = qMin(int(locks.size()), begin + kBlock);
        missing.clear();
        for (int i = begin; i < end; ++i)
            if (builtLine(*locks.at(i)).isEmpty())
                missing << i;
        // What the worker did not build, built here on two threads (each snapshot is only read).
        built.fill(QByteArray(), missing.size());
        auto build = [&locks, &missing, &built](int from, int to) {
            for (int k = from; k < to; ++k)
                built[k] = lineOf(*locks.at(missing.at(k)));
        };
        const int half = int(missing.size()) / 2;
        if (missing.size() >= 64) {
            std::thread helper(build, half, int(missing.size()));
            build(0, half);
            helper.join();
        } else {
            build(0, int(missing.size()));
        }
        block.clear();
        int next = 0;
        for (int i = begin; i < end; ++i) {
            if (next < missing.size() && missing.at(next) == i)
                block += built.at(next++);
            else
                block.append(builtLine(*locks.at(i)));
        }
        std::fwrite(block.constData(), 1, size_t(block.size()), out);
    }
    std::fflush(out);
}

QByteArray LockJsonLines::lineOf(const LockSnapshot &snapshot)
{
    QByteArray line = QJsonDocument(snapshot.toJson()).toJson(QJsonDocument::Compact);
    line.append('\n');
    return line;
}

} // namespace lockscope
