#include "recording/replayplayer.h"

#include <QHash>

namespace lockscope
{

ReplayPlayer::ReplayPlayer(QObject *parent) : QObject(parent)
{
    m_timer.setParent(this);
    m_timer.setInterval(20);
    connect(&m_timer, &QTimer::timeout, this, &ReplayPlayer::tick);
}

void ReplayPlayer::setRecording(const Recording &recording)
{
    pause();
    m_recording = recording;
    m_next = 0;
    m_positionMs = recording.startMs();
    emit reset();
    emit positionChanged(m_positionMs);
}

void ReplayPlayer::play()
{
    if (m_timer.isActive() || m_recording.records.isEmpty())
        return;
    if (m_next >= m_recording.records.size())
        seek(m_recording.startMs()); // at the end: start over
    m_wall.start();
    m_timer.start();
    emit playingChanged(true);
}

void ReplayPlayer::pause()
{
    if (!m_timer.isActive())
        return;
    m_timer.stop();
    emit playingChanged(false);
}

void ReplayPlayer::setSpeed(double speed)
{
    m_speed = qBound(0.25, speed, 16.0);
}

void ReplayPlayer::emitRecord(const Recording::Record &r)
{
    if (!r.changed.isEmpty() || !r.removed.isEmpty())
        emit locksUpdated(r.changed, r.removed);
    if (!r.events.isEmpty())
        emit eventsOccurred(r.events);
}

Recording::Record ReplayPlayer::stamped(const Recording::Record &r)
{
    Recording::Record out = r;
    for (auto &s : out.changed)
        if (s.readAtSteadyMs <= 0)
            s.readAtSteadyMs = r.timeMs; // built in memory without a read time: read "at" the record
    return out;
}

void ReplayPlayer::tick()
{
    const qint64 elapsed = m_wall.restart();
    const qint64 target = m_positionMs + qint64(elapsed * m_speed);
    // Each record is emitted with the clock at its own time, so receivers that stamp what they
    // get with positionMs() (the history, the timeline) see the recorded times, not the tick's.
    while (m_next < m_recording.records.size() && m_recording.records[m_next].timeMs <= target) {
        m_positionMs = qMax(m_positionMs, m_recording.records[m_next].timeMs);
        emitRecord(stamped(m_recording.records[m_next++]));
    }
    m_positionMs = target;
    emit positionChanged(m_positionMs);
    if (m_next >= m_recording.records.size()) {
        pause();
        emit finished();
    }
}

void ReplayPlayer::seek(qint64 positionMs)
{
    positionMs = qBound(m_recording.startMs(), positionMs, m_recording.endMs());
    emit reset();
    // The state at `positionMs`: the last snapshot of each lock still present, and all events.
    QHash<QString, LockSnapshot> locks;
    QVector<LockEvent> events;
    int i = 0;
    for (; i < m_recording.records.size() && m_recording.records[i].timeMs <= positionMs; ++i) {
        const Recording::Record r = stamped(m_recording.records[i]);
        // Removals first, as LockTableModel::applyBatch and the monitor's batches mean it: a
        // lock both removed and changed in one batch was deleted and written again.
        for (const auto &n : r.removed)
            locks.remove(n);
        for (const auto &s : r.changed)
            locks.insert(s.name, s);
        events += r.events;
    }
    m_next = i;
    m_positionMs = positionMs;
    Recording::Record state;
    state.timeMs = positionMs;
    state.changed = locks.values().toVector();
    state.events = events;
    emitRecord(state);
    emit positionChanged(m_positionMs);
}

} // namespace lockscope
