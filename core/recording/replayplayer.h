#pragma once

#include "recording/recording.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace lockscope
{

/**
 * Plays a Recording back through the same signals a LockSession emits (locksUpdated,
 * eventsOccurred), so the same views show it. Play, pause, speed 0.25x-16x and seek: a seek
 * emits reset() and then the state at that instant in one batch (the latest snapshot of each
 * lock, the events up to it).
 *
 * Clock: snapshots are emitted with `readAtSteadyMs` = the epoch ms at which they were read,
 * so views that compute countdowns as `pttlMs - (now - readAtSteadyMs)` must take `now` from
 * clockMs() (the replay position) instead of LockSnapshot::steadyNowMs(): countdowns then run at
 * the replay speed, stop on pause and are right after a seek.
 */
class ReplayPlayer : public QObject
{
    Q_OBJECT
public:
    explicit ReplayPlayer(QObject *parent = nullptr);

    void setRecording(const Recording &recording);
    const Recording &recording() const { return m_recording; }

    bool isPlaying() const { return m_timer.isActive(); }
    double speed() const { return m_speed; }
    /** Current position, epoch ms of the recording's clock. */
    qint64 positionMs() const { return m_positionMs; }
    /** The replay clock for countdowns, in the same unit as emitted snapshots' readAtSteadyMs. */
    qint64 clockMs() const { return m_positionMs; }

public slots:
    void play();
    void pause();
    /** Clamped to 0.25..16. */
    void setSpeed(double speed);
    void seek(qint64 positionMs);

signals:
    void reset();
    void locksUpdated(const QVector<lockscope::LockSnapshot> &changed, const QStringList &removed);
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    void positionChanged(qint64 positionMs);
    void playingChanged(bool playing);
    void finished();

private:
    void tick();
    void emitRecord(const Recording::Record &r);
    /** `r` with snapshots lacking a read time (readAtSteadyMs 0) read at the record's time. */
    static Recording::Record stamped(const Recording::Record &r);

    Recording m_recording;
    int m_next = 0; ///< index of the next record to emit
    qint64 m_positionMs = 0;
    double m_speed = 1.0;
    QTimer m_timer;
    QElapsedTimer m_wall;
};

} // namespace lockscope
