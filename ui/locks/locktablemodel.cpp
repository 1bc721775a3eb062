#include "locks/locktablemodel.h"

#include "redis/redisbytes.h"
#include "text/displaytext.h"
#include "text/durationtext.h"

#include "locks/findingmodel.h"

#include "redis/hashslot.h"

#include <QBrush>
#include <QDateTime>
#include <QFont>
#include <QHash>
#include <QPainter>
#include <QPixmap>
#include <QSet>

#include <algorithm>

namespace lockscope
{

namespace
{
/** The same holder fields (a re-entry or a renewal keeps "held for"; a hand-over restarts it). */
bool sameHolderFields(const LockSnapshot &a, const LockSnapshot &b)
{
    if (a.holders.size() != b.holders.size())
        return false;
    for (int i = 0; i < a.holders.size(); ++i)
        if (a.holders[i].field != b.holders[i].field)
            return false;
    return true;
}
} // namespace

LockTableModel::LockTableModel(QObject *parent)
    : ColumnTableModel({tr("Lock name"), tr("Kind"), tr("Holder (client id : thread id)"), tr("Hold count"), tr("TTL"),
                        tr("Waiting"), tr("Held for"), tr("Node")},
                       parent, NameColumn)
{
}

QIcon LockTableModel::kindIcon(LockKind kind)
{
    static QHash<int, QIcon> cache;
    auto it = cache.find(int(kind));
    if (it != cache.end())
        return it.value();
    QString text;
    QColor color;
    switch (kind) {
    case LockKind::Lock:
        text = QStringLiteral("R");
        color = QColor(0x45, 0x6b, 0x9e);
        break;
    case LockKind::FairLock:
        text = QStringLiteral("F");
        color = QColor(0x7b, 0x4f, 0x9d);
        break;
    case LockKind::ReadWriteLock:
        text = QStringLiteral("RW");
        color = QColor(0x1e, 0x7d, 0x72);
        break;
    case LockKind::FencedLock:
        text = QStringLiteral("T");
        color = QColor(0x9e, 0x6a, 0x1e);
        break;
    case LockKind::FasterMultiLock:
        text = QStringLiteral("M");
        color = QColor(0x5a, 0x6e, 0x2a);
        break;
    }
    QIcon icon;
    for (int size : {16, 24, 32, 48}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawRoundedRect(QRectF(0.5, 0.5, size - 1, size - 1), size / 5.0, size / 5.0);
        QFont f;
        f.setBold(true);
        f.setPixelSize(text.size() > 1 ? size * 9 / 20 : size * 2 / 3);
        p.setFont(f);
        p.setPen(Qt::white);
        p.drawText(QRect(0, 0, size, size), Qt::AlignCenter, text);
        p.end();
        icon.addPixmap(pm);
    }
    cache.insert(int(kind), icon);
    return icon;
}

int LockTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows.size();
}
QVariant LockTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    // Named actors (workshop): the cells say "A", the header need not explain ids.
    if (role == Qt::DisplayRole && section == HolderColumn && !m_names.isEmpty())
        return tr("Holder");
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("The lock's Redis key (a hash)");
        case KindColumn:
            return tr("Reentrant lock, fair lock (with a waiter queue), read-write lock or fenced lock");
        case HolderColumn:
            return tr("Hash field <client id>:<thread id>: the Redisson client (one UUID per RedissonClient) "
                      "and the Java thread that holds the lock");
        case HoldCountColumn:
            return tr("Reentrancy: how many times the holder acquired it without releasing. It is free only "
                      "when this reaches 0");
        case TtlColumn:
            return tr("Time to live left. The bar jumps back with ⟳ when a watchdog renews the lease "
                      "(every lease/3, 10 s by default); a lease that only counts down belongs to an explicit "
                      "lease time");
        case WaitingColumn:
            return tr("Fair locks: threads in the waiter queue. Other locks: Redisson clients subscribed to "
                      "the unlock channel (PUBSUB NUMSUB), i.e. clients waiting, not threads");
        case HeldForColumn:
            return tr("How long the current holders have held the lock, from when LockScope first saw them. "
                      "≥: they already held it when LockScope first read it, so it is at least that long "
                      "(Redis keeps no acquire time)");
        case NodeColumn:
            return tr("Redis Cluster: the master serving the lock's hash slot (CRC16 of the name, or of the part "
                      "in {braces}, mod 16384). Redisson's companion keys share the slot through {name}");
        }
    }
    return ColumnTableModel::headerData(section, orientation, role);
}

QVariant LockTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows[index.row()];
    const LockSnapshot &s = row.snapshot;
    switch (role) {
    case SnapshotRole:
        return QVariant::fromValue(s);
    case TtlScaleRole:
        return row.ttlScaleMs;
    case LastRenewalRole:
        return row.lastRenewalSteadyMs;
    case HeldSinceRole:
        return row.heldSinceMs;
    case OwnHoldRole:
        return !m_ownClientId.isEmpty() &&
               std::any_of(s.holders.cbegin(), s.holders.cend(),
                           [this](const LockHolder &h) { return h.clientId == m_ownClientId; });
    case SortRole:
        switch (index.column()) {
        case HoldCountColumn:
            return s.totalHoldCount();
        case TtlColumn: {
            const qint64 ttl = s.remainingTtlMs(m_clock());
            return ttl == -1 ? std::numeric_limits<qint64>::max() : ttl;
        }
        case WaitingColumn:
            return s.kind == LockKind::FairLock ? s.queueLength : s.subscribers;
        case HeldForColumn:
            return row.heldSinceMs > 0 ? heldForMs(row.heldSinceMs) : qint64(-1);
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: // a name that is not valid UTF-8 shows its bytes as \xNN rather than vanish
            return RedisBytes::hasEscapedBytes(s.name) ? DisplayText::escaped(s.name) : s.name;
        case KindColumn:
            if (s.kind == LockKind::FencedLock && s.token >= 0)
                return tr("Fenced (token %1)").arg(s.token);
            if (s.kind == LockKind::ReadWriteLock)
                return tr("Read-write (%1)").arg(s.rwMode);
            if (s.kind == LockKind::FasterMultiLock)
                return tr("Multilock (%n value(s))", nullptr, int(s.multiLockValues.size()));
            // A plain RLock without waiters reads exactly like an idle fair lock: the table says
            // "Reentrant lock" (what it almost always is), the tooltip, the detail panel and the
            // JSON keep the doubt (kind_certain false).
            return lockKindLabel(s.kind);
        case HolderColumn: {
            if (s.holders.isEmpty())
                return tr("(free)");
            QStringList parts;
            for (const auto &h : s.holders)
                parts << m_names.label(h.field, DisplayText::escaped(h.field)) +
                             (h.mode.isEmpty() ? QString() : QStringLiteral(" [%1]").arg(h.mode)) +
                             (h.clientId == m_ownClientId ? tr(" (LockScope)") : QString());
            return parts.join(QStringLiteral(", "));
        }
        case HoldCountColumn:
            return s.holders.isEmpty() ? QVariant() : QVariant(s.totalHoldCount());
        case TtlColumn:
            // Painted by TtlBarDelegate; a stale row's countdown means nothing, so it says from when
            // the row is instead.
            return s.stale ? staleText(s) : QVariant();
        case WaitingColumn:
            if (s.kind == LockKind::FairLock)
                return tr("%n queued", nullptr, int(s.queueLength));
            return s.subscribers > 0 ? tr("%n client(s)", nullptr, int(s.subscribers)) : QString();
        case HeldForColumn:
            if (row.heldSinceMs <= 0)
                return {};
            return (row.heldSinceAtLeast ? QStringLiteral("≥ ") : QString()) +
                   DurationText::duration(qMax<qint64>(0, heldForMs(row.heldSinceMs)), DurationText::Style::Hours);
        case NodeColumn: {
            if (m_slotMaster.isEmpty())
                return {};
            const int slot = HashSlot::of(s.name.toUtf8());
            const QString master = m_slotMaster.value(slot);
            return tr("%1 · slot %2").arg(master.isEmpty() ? tr("(no master)") : master).arg(slot);
        }
        }
        break;
    case LeaseBadgeRole:
    case LeaseBadgeColorRole: {
        if (index.column() != HolderColumn)
            return {};
        const LeaseAlerts::Alert *a = leaseAlert(s.name);
        if (!a) {
            // Exposure before loss: only the master has the lock's last write (ExposureTracker).
            if (s.replication != LockSnapshot::Replication::NotReplicated || !s.isHeld())
                return {};
            return role == LeaseBadgeRole ? QVariant(tr("not replicated")) : QVariant::fromValue(QColor(0x7d3c98));
        }
        return role == LeaseBadgeRole ? QVariant(LeaseAlerts::badgeText(*a))
                                      : QVariant::fromValue(LeaseAlerts::badgeColor(*a));
    }
    case Qt::ToolTipRole:
        // Stale data says so before anything else: it must never be taken for live data.
        if (s.stale)
            return tr("Stale: LockScope lost its connection; this is the lock as of %1 and may have changed since.")
                .arg(QDateTime::fromMSecsSinceEpoch(s.staleAsOfMs).toString(QStringLiteral("HH:mm:ss")));
        // A lost lease concerns the holder column first: who lost it, when, who holds it now.
        if (index.column() == HolderColumn) {
            if (const LeaseAlerts::Alert *a = leaseAlert(s.name)) {
                const QString holders = holderTooltip(s);
                return LeaseAlerts::tooltip(*a, m_names) + (holders.isEmpty() ? QString() : tr("\n\nNow: ") + holders);
            }
            if (s.replication == LockSnapshot::Replication::NotReplicated && s.isHeld())
                return tr("Not replicated: no replica has acknowledged this lock's last write (%1 s). Redis "
                          "replicates asynchronously: a failover now would lose the lock, and another client could "
                          "take it while its holder still runs.\n%2")
                    .arg(s.exposedMs / 1000.0, 0, 'f', 1)
                    .arg(s.replicationNote);
        }
        // What the data cannot tell (fair or plain, whose keys `x` and `{x}` share) comes first.
        if (index.column() == KindColumn && !s.kindCertain && s.kind == LockKind::Lock)
            return tr("Fair or plain reentrant lock: %1.").arg(s.kindNote);
        if (index.column() == NameColumn && !s.nameNote().isEmpty())
            return tr("Name: %1.").arg(s.nameNote());
        if (!s.problems.isEmpty())
            return s.problems.join(QLatin1Char('\n'));
        if (index.column() == KindColumn) {
            switch (s.kind) {
            case LockKind::Lock:
                return tr("Reentrant lock (RLock): one holder, who may re-enter; waiters are woken by a message on "
                          "the unlock channel");
            case LockKind::FairLock:
                return tr("Fair lock: waiters queue in FIFO order (redisson_lock_queue) with deadlines "
                          "(redisson_lock_timeout); only the head waiter is woken");
            case LockKind::ReadWriteLock:
                return tr("Read-write lock: many readers or one writer; mode '%1'").arg(s.rwMode);
            case LockKind::FencedLock:
                return tr("Fenced lock: every acquire gets a higher token (redisson_lock_token) that storage can "
                          "check to reject a stale holder");
            case LockKind::FasterMultiLock:
                return tr("Faster multilock group (getMultiLock(group, values)): one hash per group, one field per "
                          "locked value with its holder, hold count and expiry; unlocks publish on "
                          "redisson_lock__channel:{group}");
            }
        }
        if (index.column() == HeldForColumn && row.heldSinceMs > 0) {
            const QString since = QDateTime::fromMSecsSinceEpoch(m_eventClock() - heldForMs(row.heldSinceMs))
                                      .toString(QStringLiteral("HH:mm:ss"));
            return row.heldSinceAtLeast
                       ? tr("Already held when LockScope first read it at %1: held at least this long").arg(since)
                       : tr("Held since %1 (first seen by LockScope)").arg(since);
        }
        if (index.column() == HolderColumn && !s.holders.isEmpty())
            return holderTooltip(s);
        return {};
    case Qt::DecorationRole:
        if (index.column() == KindColumn)
            return kindIcon(s.kind);
        if (index.column() == NameColumn && m_severity.contains(s.name))
            return FindingModel::severityIcon(LockFinding::Severity(m_severity.value(s.name)));
        return {};
    case Qt::ForegroundRole:
        if (s.stale) // greyed while LockScope cannot see the server
            return QBrush(QColor(0x90, 0x90, 0x90));
        if (index.column() == NameColumn && !s.problems.isEmpty())
            return QBrush(onDark() ? QColor(0xff, 0xa0, 0x60) : QColor(0xb0, 0x3a, 0x00));
        return {};
    case Qt::FontRole:
        if (index.column() == HolderColumn && data(index, OwnHoldRole).toBool()) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == HoldCountColumn || index.column() == HeldForColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return {};
}

QString LockTableModel::holderTooltip(const LockSnapshot &s) const
{
    QStringList lines;
    for (const auto &h : s.holders)
        lines << (m_names.nameOfField(h.field).isEmpty() ? QString()
                                                         : m_names.nameOfField(h.field) + QStringLiteral(": ")) +
                     tr("client id %1, thread id %2, hold count %3").arg(h.clientId, h.threadId).arg(h.holdCount);
    return lines.join(QLatin1Char('\n'));
}

void LockTableModel::applyEvents(const QVector<LockEvent> &events)
{
    m_lease.prune(m_eventClock());
    const QStringList changed = m_lease.apply(events);
    for (const QString &name : changed) {
        const int row = m_index.value(name, -1);
        if (row >= 0)
            emit dataChanged(index(row, HolderColumn), index(row, HolderColumn),
                             {LeaseBadgeRole, LeaseBadgeColorRole, Qt::ToolTipRole});
    }
}

void LockTableModel::restoreLeaseAlerts(const QVector<LockEvent> &oldestFirst)
{
    m_lease.clear();
    m_lease.apply(oldestFirst);
    columnChanged(HolderColumn, {LeaseBadgeRole, LeaseBadgeColorRole, Qt::ToolTipRole});
}

const LeaseAlerts::Alert *LockTableModel::leaseAlert(const QString &name) const
{
    if (!m_lease.contains(name)) // every holder cell asks at every frame: most locks have none
        return nullptr;
    const int row = m_index.value(name, -1);
    QStringList holders;
    if (row >= 0)
        for (const auto &h : m_rows[row].snapshot.holders)
            holders << h.field;
    return m_lease.current(name, m_eventClock(), holders);
}

void LockTableModel::setClusterNodes(const QVector<ClusterNodeStatus> &nodes)
{
    QVector<QString> slotMaster;
    if (!nodes.isEmpty()) {
        slotMaster.resize(HashSlot::kSlotCount);
        for (const auto &n : nodes)
            for (const auto &r : n.slotRanges)
                for (int slot = qMax(0, r.first); slot <= r.second && slot < HashSlot::kSlotCount; ++slot)
                    slotMaster[slot] = n.address; // implicitly shared: no copy per slot
    }
    if (slotMaster == m_slotMaster)
        return;
    m_slotMaster = slotMaster;
    columnChanged(NodeColumn);
}

QString LockTableModel::nodeOf(const QString &name) const
{
    return m_slotMaster.isEmpty() ? QString() : m_slotMaster.value(HashSlot::of(name.toUtf8()));
}

QString LockTableModel::staleText(const LockSnapshot &s)
{
    if (!s.stale)
        return {};
    return tr("as of %1").arg(QDateTime::fromMSecsSinceEpoch(s.staleAsOfMs).toString(QStringLiteral("HH:mm:ss")));
}

const LockSnapshot &LockTableModel::snapshotAt(int row) const
{
    return m_rows.at(row).snapshot;
}

const LockSnapshot *LockTableModel::snapshot(const QString &name) const
{
    const int row = m_index.value(name, -1);
    return row < 0 ? nullptr : &m_rows[row].snapshot;
}

void LockTableModel::applyBatch(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    // Removals first (descending rows, contiguous ranges collapsed).
    if (!removed.isEmpty()) {
        QVector<int> rows;
        for (const auto &name : removed) {
            const int r = m_index.value(name, -1);
            if (r >= 0)
                rows << r;
        }
        std::sort(rows.begin(), rows.end(), std::greater<int>());
        int i = 0;
        while (i < rows.size()) {
            int last = rows[i];
            int first = last;
            while (i + 1 < rows.size() && rows[i + 1] == first - 1)
                first = rows[++i];
            beginRemoveRows(QModelIndex(), first, last);
            m_rows.remove(first, last - first + 1);
            endRemoveRows();
            ++i;
        }
        if (!rows.isEmpty())
            rebuildIndex();
    }

    QVector<Row> appended;
    QHash<QString, int> appendedIndex;
    int minChanged = -1;
    int maxChanged = -1;
    for (const auto &s : changed) {
        const int r = m_index.value(s.name, -1);
        if (r < 0) {
            Row row;
            row.snapshot = s;
            row.ttlScaleMs = qMax<qint64>(s.pttlMs, 0);
            if (!s.holders.isEmpty()) {
                row.heldSinceMs = qMax<qint64>(1, s.readAtSteadyMs);
                row.heldSinceAtLeast = !m_initialReadDone;
            }
            const int a = appendedIndex.value(s.name, -1);
            if (a >= 0) {
                appended[a] = row;
            } else {
                appendedIndex.insert(s.name, appended.size());
                appended << row;
            }
            continue;
        }
        Row &row = m_rows[r];
        const LockSnapshot &old = row.snapshot;
        if (!sameHolderFields(old, s)) { // a new holder (or none): held for restarts from this read
            row.heldSinceMs = s.holders.isEmpty() ? 0 : qMax<qint64>(1, s.readAtSteadyMs);
            row.heldSinceAtLeast = false;
        }
        if (!old.sameHolders(s) || s.pttlMs < 0) {
            row.ttlScaleMs = qMax<qint64>(s.pttlMs, 0);
            row.lastRenewalSteadyMs = 0;
        } else if (s.isRenewalOf(old)) {
            row.lastRenewalSteadyMs = s.readAtSteadyMs; // TTL jumped back: renewed
            row.ttlScaleMs = qMax(row.ttlScaleMs, s.pttlMs);
        } else {
            row.ttlScaleMs = qMax(row.ttlScaleMs, s.pttlMs);
        }
        row.snapshot = s;
        minChanged = minChanged < 0 ? r : qMin(minChanged, r);
        maxChanged = qMax(maxChanged, r);
    }
    if (minChanged >= 0)
        emit dataChanged(index(minChanged, 0), index(maxChanged, ColumnCount - 1));
    if (!appended.isEmpty()) {
        const int first = m_rows.size();
        // Many new rows at once (a discovery of thousands of locks): a reset lets a sorting proxy
        // sort once, where row insertions cost it O(rows) each time (25 s of frozen
        // window for 200k locks). Views lose their selection; MainWindow restores it by name.
        const bool bulk = appended.size() >= kBulkInsertRows && appended.size() * 8 >= first;
        if (bulk)
            beginResetModel();
        else
            beginInsertRows(QModelIndex(), first, first + appended.size() - 1);
        // Grow by a quarter, not QList's doubling: a row is a whole LockSnapshot (~400 bytes),
        // and at 200k locks a doubled buffer is ~80 MB of nothing.
        if (m_rows.capacity() < first + appended.size())
            m_rows.reserve(qMax<qsizetype>(first + appended.size(), first + first / 4));
        m_rows += appended;
        for (int i = first; i < m_rows.size(); ++i)
            m_index.insert(m_rows[i].snapshot.name, i);
        if (bulk)
            endResetModel();
        else
            endInsertRows();
    }
}

void LockTableModel::setSeverities(const QHash<QString, int> &severityByLock)
{
    if (severityByLock == m_severity)
        return;
    m_severity = severityByLock;
    columnChanged(NameColumn, {Qt::DecorationRole});
}

void LockTableModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_index.clear();
    m_lease.clear();
    endResetModel();
}

void LockTableModel::rebuildIndex()
{
    m_index.clear();
    m_index.reserve(m_rows.size());
    for (int i = 0; i < m_rows.size(); ++i)
        m_index.insert(m_rows[i].snapshot.name, i);
}

void LockTableModel::setActorNames(const ActorNames &names)
{
    m_names = names;
    emit headerDataChanged(Qt::Horizontal, HolderColumn, HolderColumn);
    columnChanged(HolderColumn);
}

} // namespace lockscope
