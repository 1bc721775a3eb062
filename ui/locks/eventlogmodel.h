#pragma once

#include "common/actornames.h"

#include "protocol/lockevent.h"

#include "common/columntablemodel.h"
#include <QVector>

namespace lockscope
{

/** Recent lock events, newest first, capped (default 5000) so a busy server cannot grow it forever. */
class EventLogModel : public ColumnTableModel
{
    Q_OBJECT
public:
    enum Column { TimeColumn, LockColumn, TypeColumn, HolderColumn, DetailColumn, ColumnCount };

    explicit EventLogModel(QObject *parent = nullptr);

    void setCapacity(int rows) { m_capacity = qMax(1, rows); }
    void append(const QVector<LockEvent> &events);
    void clear();
    const LockEvent &event(int row) const { return m_events[row]; }
    /** Every row, newest first (as shown). */
    const QVector<LockEvent> &events() const { return m_events; }
    /** Shows `newestFirst` instead of what it showed (one model reset): an earlier events(). */
    void setEvents(const QVector<LockEvent> &newestFirst);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    /** Tooltip text explaining an event type in Redisson's terms. */
    static QString explain(const QString &type);
    /** Lease-safety events that mean mutual exclusion was at risk (lease_lost, holder_returned,
     *  lost_in_failover, token_regressed): red and bold in the log. renewal_late is orange. */
    static bool isCritical(const QString &type);

    /** Workshop mode: holders and client ids in the holder and detail columns shown by name
     *  ("A"); the holder column's tooltip keeps the field. */
    void setActorNames(const ActorNames &names);

private:
    ActorNames m_names;
    QVector<LockEvent> m_events; // newest first
    int m_capacity = 5000;
};

} // namespace lockscope
