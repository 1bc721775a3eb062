#include "locks/eventlogmodel.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>

namespace lockscope
{

EventLogModel::EventLogModel(QObject *parent)
    : ColumnTableModel({tr("Time"), tr("Lock"), tr("Event"), tr("Holder / waiter"), tr("Detail")}, parent, TypeColumn)
{
}

int EventLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_events.size();
}
bool EventLogModel::isCritical(const QString &type)
{
    return type == QLatin1String("lease_lost") || type == QLatin1String("holder_returned") ||
           type == QLatin1String("lost_in_failover") || type == QLatin1String("token_regressed");
}

namespace
{

/** Each event type's tooltip, in Redisson's terms (translated through EventLogModel's context). */
const struct {
    const char *type;
    const char *text;
} kExplanations[] = {
    {"acquired", QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                                   "A holder took the free lock (hash field created with hold count 1)")},
    {"reentered", QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                                    "The same client id and thread id acquired it again: hold count + 1")},
    {"released",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                       "The holder unlocked once (hold count - 1); at 0 the hash is deleted and waiters are told")},
    {"renewed", QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                                  "The TTL was pushed back: a watchdog renewal (every lease/3) or an explicit renew")},
    {"expired",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel", "The lease ran out before the holder released it: the holder "
                                                   "crashed, stalled or used a lease shorter than its work")},
    {"force_unlocked",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                       "Deleted by an operator (force unlock) regardless of the holder; waiters were woken")},
    {"unlock_message",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                       "A message on the unlock channel: Redisson clients waiting for this lock wake up and retry")},
    {"enqueued", QT_TRANSLATE_NOOP("lockscope::EventLogModel", "A thread joined the fair lock's waiter queue")},
    {"dequeued", QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                                   "A thread left the fair lock's waiter queue (acquired, gave up or was pruned)")},
    {"renewal_late",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                       "The watchdog renewed late: it renews every lease/3, and this renewal came with less than half "
                       "the lease left. The holder's process is struggling (GC pauses, CPU starvation, a slow link to "
                       "Redis); a little more and its lease runs out while it still works")},
    {"lease_lost",
     QT_TRANSLATE_NOOP(
         "lockscope::EventLogModel",
         "Lease lost: a watchdog had been renewing this lock, then the renewals stopped and the lease ran out while "
         "the holder still held it. Its client is stalled (GC pause, frozen host, network) or dead; if stalled, it may "
         "still be running its critical section without the lock. The next acquire of this lock names it")},
    {"holder_returned",
     QT_TRANSLATE_NOOP(
         "lockscope::EventLogModel",
         "The holder of a lost lease did something again (renewed, acquired or waited on a lock): it was stalled, not "
         "dead. It and the next holder may both have run the critical section; the detail gives the window")},
    {"lost_in_failover",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                       "Redis failed over before this lock reached the replica: the new master does not have it and no "
                       "release was seen. Its holder may still believe it holds it while another client acquires it. "
                       "RedLock, WAIT after acquiring, or a fenced lock guard against this")},
    {"token_regressed",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                       "A fenced lock's token went down (it only ever grows): its key lost writes, in a failover, a "
                       "restore or by hand. A resource that checks tokens may now accept a stale holder")},
    {"renewal_failed",
     QT_TRANSLATE_NOOP(
         "lockscope::EventLogModel",
         "LockScope's own watchdog could not renew its hold: the lease runs out unless the next renewal succeeds")},
    {"renewal_recovered",
     QT_TRANSLATE_NOOP("lockscope::EventLogModel", "LockScope's own watchdog renewed its hold again after failing")},
    {"failover", QT_TRANSLATE_NOOP("lockscope::EventLogModel",
                                   "Redis Sentinel named a new master and LockScope moved to it; locks held on the old "
                                   "master that the new one lacks are reported as lost_in_failover")},
};

} // namespace

QString EventLogModel::explain(const QString &type)
{
    for (const auto &e : kExplanations) {
        if (type == QLatin1String(e.type))
            return tr(e.text);
    }
    return {};
}

QVariant EventLogModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_events.size())
        return {};
    const LockEvent &e = m_events[index.row()];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case TimeColumn:
            return QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("HH:mm:ss.zzz"));
        case LockColumn:
            return e.lock;
        case TypeColumn:
            return e.type;
        case HolderColumn:
            return m_names.replaceIn(e.holder);
        case DetailColumn:
            return m_names.replaceIn(e.detail);
        }
    } else if (role == Qt::ToolTipRole) {
        if (index.column() == HolderColumn && !m_names.isEmpty() && !e.holder.isEmpty())
            return e.holder;
        // The detail in full (a column cuts it at any width), then what the type means.
        if (index.column() == DetailColumn && !e.detail.isEmpty())
            return QStringLiteral("<p>%1</p><p><i>%2</i></p>")
                .arg(e.detail.toHtmlEscaped(), explain(e.type).toHtmlEscaped());
        return explain(e.type);
    } else if (role == Qt::FontRole && (index.column() == TypeColumn || index.column() == DetailColumn)) {
        // Mutual exclusion was at risk: the rows an operator must not miss in a busy log.
        if (isCritical(e.type)) {
            QFont f;
            f.setBold(true);
            return f;
        }
    } else if (role == Qt::ForegroundRole && index.column() == TypeColumn) {
        if (e.type == QLatin1String("expired") || e.type == QLatin1String("force_unlocked") || isCritical(e.type))
            return QBrush(onDark() ? QColor(0xff, 0x7b, 0x6b) : QColor(0xc0, 0x39, 0x2b));
        if (e.type == QLatin1String("renewal_late"))
            return QBrush(onDark() ? QColor(0xff, 0xb0, 0x4c) : QColor(0xa8, 0x4c, 0x00));
        if (e.type == QLatin1String("acquired") || e.type == QLatin1String("reentered"))
            return QBrush(onDark() ? QColor(0x6f, 0xe0, 0x7f) : QColor(0x1e, 0x7d, 0x32));
        if (e.type == QLatin1String("renewed"))
            return QBrush(onDark() ? QColor(0x7f, 0xc8, 0xff) : QColor(0x15, 0x65, 0xc0));
    }
    return {};
}

void EventLogModel::append(const QVector<LockEvent> &events)
{
    if (events.isEmpty())
        return;
    const int n = events.size();
    beginInsertRows(QModelIndex(), 0, n - 1);
    QVector<LockEvent> fresh;
    fresh.reserve(n + m_events.size());
    for (int i = n - 1; i >= 0; --i)
        fresh << events[i];
    fresh += m_events;
    m_events = std::move(fresh);
    endInsertRows();
    if (m_events.size() > m_capacity) {
        beginRemoveRows(QModelIndex(), m_capacity, m_events.size() - 1);
        m_events.resize(m_capacity);
        endRemoveRows();
    }
}

void EventLogModel::clear()
{
    beginResetModel();
    m_events.clear();
    endResetModel();
}

void EventLogModel::setEvents(const QVector<LockEvent> &newestFirst)
{
    beginResetModel();
    m_events = newestFirst.mid(0, m_capacity);
    endResetModel();
}

void EventLogModel::setActorNames(const ActorNames &names)
{
    m_names = names;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

} // namespace lockscope
