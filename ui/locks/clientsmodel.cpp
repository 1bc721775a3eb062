#include "locks/clientsmodel.h"

#include "locks/locktablemodel.h"

#include "text/displaytext.h"

#include <QFont>
#include <QMap>

#include <algorithm>

namespace lockscope
{

ClientsModel::ClientsModel(LockTableModel *locks, QObject *parent)
    : ColumnTableModel({tr("Label"), tr("Client id"), tr("Holds"), tr("Waits for (fair queues)"), tr("Connected"),
                        tr("Host"), tr("Client name"), tr("Connections")},
                       parent),
      m_locks(locks)
{
    m_rebuild.setSingleShot(true);
    m_rebuild.setInterval(rebuildDelayMs());
    connect(&m_rebuild, &QTimer::timeout, this, &ClientsModel::rebuild);
    auto later = [this] {
        if (!m_active)
            m_stale = true;
        else if (!m_rebuild.isActive())
            m_rebuild.start();
    };
    connect(locks, &QAbstractItemModel::dataChanged, this, later);
    connect(locks, &QAbstractItemModel::rowsInserted, this, later);
    connect(locks, &QAbstractItemModel::rowsRemoved, this, later);
    connect(locks, &QAbstractItemModel::modelReset, this, later);
    rebuild();
}

void ClientsModel::setLabels(const QHash<QString, QString> &labels)
{
    m_labels = labels;
    columnChanged(LabelColumn);
}

void ClientsModel::setIdentities(const QVector<ClientIdentity> &clients)
{
    m_identities.clear();
    for (const auto &c : clients)
        m_identities.insert(c.clientId, c);
    if (!m_clients.isEmpty())
        emit dataChanged(index(0, 0), index(m_clients.size() - 1, ColumnCount - 1));
}

ClientIdentity ClientsModel::identity(const QString &clientId) const
{
    ClientIdentity c = m_identities.value(clientId);
    c.clientId = clientId;
    return c;
}

void ClientsModel::setActive(bool active)
{
    m_active = active;
    if (active && m_stale)
        rebuild();
    if (!active)
        m_rebuild.stop();
}

void ClientsModel::rebuild()
{
    m_stale = false;
    QMap<QString, Client> byId; // sorted by client id
    for (int r = 0; r < m_locks->rowCount(); ++r) {
        const LockSnapshot &s = m_locks->snapshotAt(r);
        const QString name = DisplayText::escaped(s.name);
        for (const LockHolder &h : s.holders) {
            Client &c = byId[h.clientId];
            c.clientId = h.clientId;
            c.holds << tr("%1 (thread %2%3%4)")
                           .arg(name, DisplayText::escaped(h.threadId),
                                h.holdCount > 1 ? tr(", ×%1").arg(h.holdCount) : QString(),
                                h.mode.isEmpty() ? QString() : QStringLiteral(", ") + h.mode);
        }
        for (const LockWaiter &w : s.waiters) {
            const QString id = w.field.section(QLatin1Char(':'), 0, 0);
            Client &c = byId[id];
            c.clientId = id;
            c.waits << tr("%1 (thread %2, #%3 in the queue)")
                           .arg(name, w.field.section(QLatin1Char(':'), 1))
                           .arg(w.position);
        }
    }
    QVector<Client> clients;
    clients.reserve(byId.size());
    for (Client &c : byId) {
        std::sort(c.holds.begin(), c.holds.end());
        std::sort(c.waits.begin(), c.waits.end());
        clients << c;
    }
    if (clients == m_clients)
        return; // nothing changed: keep the view's selection and any label being typed
    beginResetModel();
    m_clients = clients;
    endResetModel();
}

int ClientsModel::rowOfClient(const QString &clientId) const
{
    for (int i = 0; i < m_clients.size(); ++i)
        if (m_clients[i].clientId == clientId)
            return i;
    return -1;
}

int ClientsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_clients.size();
}
QVariant ClientsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_clients.size())
        return {};
    const Client &c = m_clients[index.row()];
    if (role == ClientIdRole)
        return c.clientId;
    const ClientIdentity who = identity(c.clientId);
    if (role == Qt::FontRole && index.column() == LabelColumn && !m_labels.contains(c.clientId) &&
        !who.name.isEmpty()) {
        QFont italic;
        italic.setItalic(true); // from its client name, not typed
        return italic;
    }
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case LabelColumn:
            return m_labels.contains(c.clientId) || role == Qt::EditRole ? m_labels.value(c.clientId)
                                                                         : DisplayText::escaped(who.name);
        case StateColumn:
            return who.state == ClientIdentity::State::Connected      ? tr("connected")
                   : who.state == ClientIdentity::State::Disconnected ? tr("disconnected")
                                                                      : tr("unknown");
        case HostColumn:
            return who.host.isEmpty() ? QString() : who.hostText();
        case NameColumn:
            return DisplayText::escaped(who.name);
        case ConnectionsColumn: {
            QStringList addresses;
            for (const auto &conn : who.connections)
                addresses << conn.address;
            if (addresses.isEmpty() && !who.lastAddresses.isEmpty())
                return tr("was %1").arg(who.lastAddresses.join(QStringLiteral(", ")));
            return addresses.join(QStringLiteral(", "));
        }
        case ClientIdColumn:
            return DisplayText::escaped(c.clientId);
        case HoldsColumn:
            return c.holds.isEmpty()
                       ? QString()
                       : tr("%n lock(s): ", nullptr, int(c.holds.size())) + c.holds.join(QStringLiteral(", "));
        case WaitsColumn:
            return c.waits.join(QStringLiteral(", "));
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case LabelColumn:
            return m_labels.contains(c.clientId) || who.name.isEmpty()
                       ? tr("Your name for this client id (double-click or F2 to edit), shown wherever the id appears")
                       : tr("From its client name (CLIENT SETNAME); double-click or F2 to give it your own");
        case StateColumn:
        case HostColumn:
        case NameColumn:
        case ConnectionsColumn: {
            QStringList lines{DisplayText::escaped(who.summary())};
            for (const auto &conn : who.connections)
                lines << tr("%1 → %2, id %3, user %4, open %5 s, idle %6 s, last command %7")
                             .arg(conn.address, conn.localAddress.isEmpty() ? conn.server : conn.localAddress)
                             .arg(conn.id)
                             .arg(conn.user.isEmpty() ? QStringLiteral("?") : conn.user)
                             .arg(conn.ageS)
                             .arg(conn.idleS)
                             .arg(conn.command);
            if (who.evidence == ClientIdentity::Evidence::None)
                lines << tr("Not identified yet: LockScope learns it from this client's next acquire, renewal or "
                            "release, or at once with Identify (a short MONITOR sample).");
            return lines.join(QLatin1Char('\n'));
        }
        case HoldsColumn:
            return c.holds.join(QLatin1Char('\n'));
        case WaitsColumn:
            return c.waits.isEmpty() ? QVariant() : QVariant(c.waits.join(QLatin1Char('\n')));
        default:
            return tr("Redisson client id (one UUID per RedissonClient, i.e. per service instance)");
        }
    }
    return {};
}

bool ClientsModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.column() != LabelColumn || role != Qt::EditRole || index.row() >= m_clients.size())
        return false;
    const QString id = m_clients[index.row()].clientId;
    const QString label = value.toString().trimmed();
    if (label.isEmpty())
        m_labels.remove(id);
    else
        m_labels.insert(id, label);
    emit dataChanged(index, index);
    emit labelEdited(id, label);
    return true;
}

Qt::ItemFlags ClientsModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == LabelColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

} // namespace lockscope
