#include "session/stagetime.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMutexLocker>

namespace lockscope
{

namespace
{
constexpr int kKeepSegments = 16;
} // namespace

void StageTime::restart(qint64 epochZeroMs, qint64 realSteadyMs)
{
    QMutexLocker lock(&m_mutex);
    m_epochZeroMs = epochZeroMs;
    m_segments = {Segment{realSteadyMs, 0, false}};
}

void StageTime::sync(qint64 stageMs, bool running, qint64 realSteadyMs, bool back)
{
    QMutexLocker lock(&m_mutex);
    if (!back)
        stageMs = qMax(stageMs, stageMsLocked(realSteadyMs));
    // A sync never rewrites the past: reads taken before it keep the times they were given.
    while (!m_segments.isEmpty() && m_segments.last().realSteadyMs > realSteadyMs)
        m_segments.removeLast();
    m_segments.append(Segment{realSteadyMs, stageMs, running});
    if (m_segments.size() > kKeepSegments)
        m_segments.remove(0, m_segments.size() - kKeepSegments);
}

void StageTime::setRunning(bool running, qint64 realSteadyMs)
{
    sync(stageMs(realSteadyMs), running, realSteadyMs);
}

qint64 StageTime::stageMsLocked(qint64 realSteadyMs) const
{
    if (m_segments.isEmpty())
        return 0;
    for (int i = int(m_segments.size()) - 1; i >= 0; --i) {
        const Segment &s = m_segments.at(i);
        if (s.realSteadyMs <= realSteadyMs)
            return s.stageMs + (s.running ? realSteadyMs - s.realSteadyMs : 0);
    }
    return m_segments.first().stageMs;
}

qint64 StageTime::stageMs(qint64 realSteadyMs) const
{
    QMutexLocker lock(&m_mutex);
    return stageMsLocked(realSteadyMs);
}

qint64 StageTime::epochMs(qint64 realSteadyMs) const
{
    QMutexLocker lock(&m_mutex);
    return m_epochZeroMs + stageMsLocked(realSteadyMs);
}

qint64 StageTime::epochShiftLocked(qint64 realSteadyMs) const
{
    const qint64 wallMs =
        QDateTime::currentMSecsSinceEpoch() - (LockSnapshot::steadyNowMs() - realSteadyMs); // the wall clock then
    return wallMs - (m_epochZeroMs + stageMsLocked(realSteadyMs));
}

LockSnapshot StageTime::mapped(LockSnapshot s) const
{
    QMutexLocker lock(&m_mutex);
    if (s.readAtSteadyMs <= 0)
        return s;
    const qint64 shift = epochShiftLocked(s.readAtSteadyMs);
    auto shifted = [shift](qint64 &t) {
        if (t > 0)
            t -= shift;
    };
    shifted(s.serverTimeMs);
    for (LockWaiter &w : s.waiters)
        shifted(w.deadlineEpochMs);
    for (auto &entry : s.timeoutSet)
        shifted(entry.second);
    for (MultiLockValue &v : s.multiLockValues)
        shifted(v.expireEpochMs);
    shifted(s.staleAsOfMs);
    s.readAtSteadyMs = kSteadyZeroMs + stageMsLocked(s.readAtSteadyMs);
    return s;
}

LockEvent StageTime::mapped(LockEvent e, qint64 realSteadyNowMs) const
{
    QMutexLocker lock(&m_mutex);
    const qint64 shift = epochShiftLocked(realSteadyNowMs);
    e.timeMs -= shift;
    const QString readSteady = QStringLiteral("read_steady_ms");
    const QString readServer = QStringLiteral("read_server_ms");
    const QString deadline = QStringLiteral("deadline_epoch_ms");
    if (e.extra.contains(readSteady)) {
        const qint64 readAt = e.extra.value(readSteady).toInteger();
        e.extra.insert(readSteady, kSteadyZeroMs + stageMsLocked(readAt));
        if (e.extra.contains(readServer))
            e.extra.insert(readServer, e.extra.value(readServer).toInteger() - epochShiftLocked(readAt));
    } else if (e.extra.contains(readServer)) {
        e.extra.insert(readServer, e.extra.value(readServer).toInteger() - shift);
    }
    if (e.extra.contains(deadline) && e.extra.value(deadline).toInteger() > 0)
        e.extra.insert(deadline, e.extra.value(deadline).toInteger() - shift);
    return e;
}

} // namespace lockscope
