#pragma once

#include "protocol/locksnapshot.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * Batches of lock changes merged into one, for a lock table that is too big to be updated batch
 * by batch (at 200k locks the sorted proxy does O(rows) work per batch, so the first
 * discovery's ~1000 batches, taken one by one, froze the window for 25 s).
 *
 * merge() keeps, per lock name, only what applying all batches in order would leave: the latest
 * snapshot of a changed lock, and a removal unless the lock came back after it. take() returns the
 * merged batch in the shape LockTableModel::applyBatch takes (removals are applied first there, so
 * a lock removed and then seen again is both removed and changed: its row is re-created).
 */
class LockBatchBuffer
{
public:
    /** Adds one batch (`removed` is applied before `changed`, as in LockSession::locksUpdated). */
    void merge(const QVector<LockSnapshot> &changed, const QStringList &removed);
    bool isEmpty() const { return m_changed.isEmpty() && m_removed.isEmpty(); }
    /** The merged batch, in first-seen order; the buffer is empty afterwards. */
    void take(QVector<LockSnapshot> *changed, QStringList *removed);
    /** Drops what is buffered (a replay seek starts over). */
    void clear();

private:
    QVector<LockSnapshot> m_changed;
    QVector<bool> m_dropped;           ///< m_changed[i] was removed after it was buffered
    QHash<QString, qsizetype> m_index; ///< name -> position in m_changed
    QSet<QString> m_removed;
    QStringList m_removedOrder;
};

} // namespace lockscope
