#include "locks/lockbatchbuffer.h"

namespace lockscope
{

void LockBatchBuffer::merge(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    for (const QString &name : removed) {
        // A change buffered before this removal is void: the lock is gone.
        const auto it = m_index.find(name);
        if (it != m_index.end()) {
            m_dropped[it.value()] = true; // skipped by take()
            m_index.erase(it);
        }
        if (!m_removed.contains(name)) {
            m_removed.insert(name);
            m_removedOrder << name;
        }
    }
    for (const LockSnapshot &s : changed) {
        const auto it = m_index.constFind(s.name);
        if (it != m_index.cend()) {
            m_changed[it.value()] = s;
        } else {
            m_index.insert(s.name, m_changed.size());
            m_changed << s;
            m_dropped << false;
        }
    }
}

void LockBatchBuffer::take(QVector<LockSnapshot> *changed, QStringList *removed)
{
    changed->clear();
    changed->reserve(m_index.size());
    for (qsizetype i = 0; i < m_changed.size(); ++i)
        if (!m_dropped[i])
            *changed << std::move(m_changed[i]);
    *removed = m_removedOrder;
    clear();
}

void LockBatchBuffer::clear()
{
    m_changed.clear();
    m_dropped.clear();
    m_index.clear();
    m_removed.clear();
    m_removedOrder.clear();
}

} // namespace lockscope
