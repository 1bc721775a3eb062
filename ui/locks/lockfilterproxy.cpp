#include "locks/lockfilterproxy.h"

#include "locks/locktablemodel.h"
#include "redis/redisbytes.h"

namespace lockscope
{

LockFilterProxy::LockFilterProxy(LockTableModel *source, QObject *parent)
    : QSortFilterProxyModel(parent), m_locks(source)
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
    setFilterRegularExpression(
        t.isEmpty() ? QRegularExpression()
        : m_isGlob  ? LockFilter::globToRegularExpression(t)
                    : QRegularExpression(QRegularExpression::escape(t), QRegularExpression::CaseInsensitiveOption));
    invalidateFilter();
    emit filterTextChanged(t);
}

bool LockFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_text.isEmpty() || sourceParent.isValid())
        return true;
    const LockSnapshot &s = m_locks->snapshotAt(sourceRow);
    if (m_isGlob)
        return m_nameGlob.matchesName(s.name);
    // A plain word: part of the name (as displayed), or a holder, reader or waiter, or part of
    // the label an operator gave a holder's or waiter's client id (the Clients tab).
    if (RedisBytes::displayed(s.name).contains(m_text, Qt::CaseInsensitive) || m_holder.matches(s))
        return true;
    if (m_names.isEmpty())
        return false;
    for (const LockHolder &h : s.holders)
        if (m_names.nameOfClient(h.clientId).contains(m_text, Qt::CaseInsensitive))
            return true;
    for (const LockWaiter &w : s.waiters)
        if (m_names.nameOfClient(w.field.section(QLatin1Char(':'), 0, 0)).contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

void LockFilterProxy::setActorNames(const ActorNames &names)
{
    m_names = names;
    if (!m_text.isEmpty())
        invalidateFilter();
}

bool LockFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (left.column() == LockTableModel::NameColumn && right.column() == LockTableModel::NameColumn)
        return naturalLess(m_locks->snapshotAt(left.row()).name, m_locks->snapshotAt(right.row()).name);
    return QSortFilterProxyModel::lessThan(left, right);
}

bool LockFilterProxy::naturalLess(const QString &a, const QString &b)
{
    const qsizetype na = a.size(), nb = b.size();
    qsizetype i = 0, j = 0;
    while (i < na && j < nb) {
        const QChar ca = a.at(i), cb = b.at(j);
        if (ca.isDigit() && cb.isDigit() && ca.unicode() < 128 && cb.unicode() < 128) {
            // Compare the two digit runs as numbers: skip leading zeros, then longer is larger.
            qsizetype si = i, sj = j;
            while (si < na && a.at(si) == QLatin1Char('0'))
                ++si;
            while (sj < nb && b.at(sj) == QLatin1Char('0'))
                ++sj;
            qsizetype ei = si, ej = sj;
            while (ei < na && a.at(ei).isDigit() && a.at(ei).unicode() < 128)
                ++ei;
            while (ej < nb && b.at(ej).isDigit() && b.at(ej).unicode() < 128)
                ++ej;
            if (ei - si != ej - sj)
                return ei - si < ej - sj;
            const int c = QStringView(a).mid(si, ei - si).compare(QStringView(b).mid(sj, ej - sj));
            if (c != 0)
                return c < 0;
            if (ei - i != ej - j)
                return ei - i < ej - j; // same number, fewer leading zeros first
            i = ei;
            j = ej;
            continue;
        }
        if (ca != cb)
            return ca.unicode() < cb.unicode();
        ++i;
        ++j;
    }
    return na - i < nb - j;
}

} // namespace lockscope
