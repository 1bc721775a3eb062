#pragma once

#include <QHash>
#include <QPair>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * What one DoctorProbe run found (a plain value, so that headers which hand it on need no Redis
 * header): waiters on locks that do not exist, waiters on held locks, and unlock latch keys.
 * Shapes and units as below; `error` is the first error met, with the partial results kept.
 */
struct DoctorProbeResult {
    QHash<QString, qint64> orphanSubscribers; ///< lock name -> clients waiting on its channel
    /** Locks whose hash exists, with the clients subscribed to their unlock channel (lock name
     *  -> subscribers > 0): plain-lock waiters, whom no keyspace event announces (a waiter's
     *  failed attempt writes nothing), for the lease-safety rules. */
    QHash<QString, qint64> heldSubscribers;
    QVector<QPair<QString, qint64>> latches; ///< latch key -> PTTL ms (-1 = no expiry): every one
                                             ///< without expiry, others up to DoctorProbe::kMaxLatchesKept
    qint64 latchCount = 0;                   ///< latch keys found in all
    QString error;                           ///< first error met (partial results kept)
};

} // namespace lockscope
