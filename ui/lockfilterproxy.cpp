#include "lockfilterproxy.h"

#include "locktablemodel.h"
#include "redis/redisbytes.h"

namespace lockscope {

LockFilterProxy::LockFilterProxy(LockTableModel *source, QObject *parent) : QSortFilterProxyModel(parent), m_locks(source)
{
    setSourceModel(source);
}

void LockFilterProxy::setFilterText(const QString &text)
{
    const QString t = text.trimmed();
    if (t == m_text)
        return;
    m_text = t;
    m_isGlob = t.contains(QLatin1Char('*')) || t.contains(QLatin1Char('?')) || t.contains(QLatin1Char('['));
    m_nameGlob = LockFilter(m_isGlob ? t : QString(), QString());
    m_holder = LockFilter(QString(), m_isGlob ? QString() : t);
    // Also as the base class's expression on names, which other views of the same proxy (the
    // timeline's lanes) follow; filterAcceptsRow() below decides the table's rows.
    setFilterRegularExpression(t.isEmpty() ? QRegularExpression()
                               : m_isGlob  ? LockFilter::globToRegularExpression(t)
                                           : QRegularExpression(QRegularExpression::escape(t),
                                                                QRegularExpression::CaseInsensitiveOption));
    invalidateFilter();
}

bool LockFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_text.isEmpty() || sourceParent.isValid())
        return true;
    const LockSnapshot &s = m_locks->snapshotAt(sourceRow);
    if (m_isGlob)
        return m_nameGlob.matchesName(s.name);
    // A plain word: part of the name (as displayed), or a holder, reader or waiter.
    return RedisBytes::displayed(s.name).contains(m_text, Qt::CaseInsensitive) || m_holder.matches(s);
}

} // namespace lockscope
