#pragma once

#include "protocol/clientidentity.h"

#include "common/columntablemodel.h"
#include <QHash>
#include <QStringList>
#include <QTimer>
#include <QVector>

namespace lockscope
{

class LockTableModel;

/**
 * One row per Redisson client id seen in the lock table (so an operator can ask for "everything
 * client 8743c9c0 holds or waits for"): its label, the locks it holds (with thread and hold count), and the fair
 * locks it queues for (with its place). Non-fair waiters are not named by Redis (only a count of
 * unlock-channel subscribers), so they cannot be listed per client. No I/O: rebuilt from the
 * LockTableModel, at most every rebuildDelayMs(), and only reset when something changed.
 * The label column is editable: setData() emits labelEdited(), the owner saves it; a client without
 * a label shows its client name (CLIENT SETNAME) there, so services that name their connections
 * are labelled without typing. What LockScope knows of each client id (setIdentities(): state,
 * host, client name, connections, evidence) fills the State, Host, Name and Connections columns.
 */
class ClientsModel : public ColumnTableModel
{
    Q_OBJECT
public:
    enum Column {
        LabelColumn,
        ClientIdColumn,
        HoldsColumn,
        WaitsColumn,
        StateColumn,
        HostColumn,
        NameColumn,
        ConnectionsColumn,
        ColumnCount
    };
    enum Role { ClientIdRole = Qt::UserRole + 1 };

    explicit ClientsModel(LockTableModel *locks, QObject *parent = nullptr);

    static int rebuildDelayMs() { return 250; }
    /** Client id -> label (shown in the label column). */
    void setLabels(const QHash<QString, QString> &labels);
    /** What the session knows of the clients (LockSession::clientsUpdated). */
    void setIdentities(const QVector<ClientIdentity> &clients);
    /** The identity of `clientId` (state unknown, evidence none when nothing is known). */
    ClientIdentity identity(const QString &clientId) const;
    /** Rebuilds now (tests; normally a timer does after the lock table changed). */
    void rebuild();
    /**
     * Only an active model follows the lock table (a rebuild walks every lock: at 200k locks it
     * is worth doing only while someone looks at it). Activating rebuilds if the table changed
     * meanwhile. Active by default; ClientsView activates it while shown.
     */
    void setActive(bool active);
    int rowOfClient(const QString &clientId) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

signals:
    void labelEdited(const QString &clientId, const QString &label);

private:
    struct Client {
        QString clientId;
        QStringList holds; ///< "orders:42 (thread 1, ×2)"
        QStringList waits; ///< "orders:7 (#2 in the queue)"
        bool operator==(const Client &o) const
        {
            return clientId == o.clientId && holds == o.holds && waits == o.waits;
        }
    };
    LockTableModel *m_locks = nullptr;
    QVector<Client> m_clients;
    QHash<QString, QString> m_labels;
    QHash<QString, ClientIdentity> m_identities;
    QTimer m_rebuild;
    bool m_active = true;
    bool m_stale = false; ///< the lock table changed while inactive
};

} // namespace lockscope
