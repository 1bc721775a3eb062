#pragma once

#include "common/actornames.h"
#include "locks/clientlabels.h"
#include "protocol/clientidentity.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QSettings;
class QTableView;

namespace lockscope
{

class ClientsModel;
class LockTableModel;

/**
 * The Clients tab, for an operator who starts from a client rather than a lock: each Redisson client id with what it
 * holds and what it waits for, and a label the operator can give it ("billing-7f9c"), saved per connection
 * (ClientLabels) and shown in every lock view through labelsChanged(). Activating a client
 * (double-click on its id, Enter, or *Show its locks*) asks to filter the lock table by it.
 */
class ClientsView : public QWidget
{
    Q_OBJECT
public:
    /** `connectionKey`: ClientLabels::connectionKey() of the server; `settings`: nullptr = the
     *  application's QSettings. */
    ClientsView(LockTableModel *locks, const QString &connectionKey, QSettings *settings = nullptr,
                QWidget *parent = nullptr);

    ClientsModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    /** The labels as the lock views' names. */
    ActorNames actorNames() const;
    bool hasLabels() const { return !m_labels.all().isEmpty() || !m_clientNames.isEmpty(); }
    /** Labels `clientId` (empty removes the label), saves it and tells the lock views. */
    void setLabel(const QString &clientId, const QString &label);
    /** What the session knows of the clients: the table's columns, and client names as the lock
     *  views' names of clients without a label. */
    void setIdentities(const QVector<ClientIdentity> &clients);
    /** The outcome of an identification (LockSession::clientsIdentified), shown above the table. */
    void showIdentifyOutcome(const QString &method, const QString &note);
    /** A sentence about identifying clients (e.g. CLIENT LIST refused), shown above the table. */
    void showNotice(const QString &message);

signals:
    void labelsChanged(const lockscope::ActorNames &names);
    /** Filter the lock table by this client id. */
    void showLocksOf(const QString &clientId);
    /** Identify: a MONITOR sample of at most `sampleMs` for `clientIds` (every client listed). */
    void identifyRequested(const QStringList &clientIds, qint64 sampleMs);

protected:
    /** The model follows the lock table only while the tab is shown. */
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void activateCurrent();

    ClientLabels m_labels;
    QHash<QString, QString> m_clientNames; ///< client id -> client name (CLIENT SETNAME), when known
    QLabel *m_status = nullptr;
    QPushButton *m_identify = nullptr;
    ClientsModel *m_model = nullptr;
    QTableView *m_view = nullptr;
};

} // namespace lockscope
