#include "locks/clientsview.h"

#include "locks/clientsmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace lockscope
{

ClientsView::ClientsView(LockTableModel *locks, const QString &connectionKey, QSettings *settings, QWidget *parent)
    : QWidget(parent), m_labels(connectionKey, settings)
{
    m_model = new ClientsModel(locks, this);
    m_model->setActive(false); // until shown
    m_model->setLabels(m_labels.all());
    connect(m_model, &ClientsModel::labelEdited, this, &ClientsView::setLabel);

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("clientsTable"));
    m_view->setAccessibleName(tr("Clients: what each client id holds and waits for"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_view->setTabKeyNavigation(false); // Tab leaves the table, as in every pane
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    // Who it is first (state, host, name, connections), then what it holds and waits for.
    QHeaderView *header = m_view->horizontalHeader();
    int visual = 2;
    for (int column : {ClientsModel::StateColumn, ClientsModel::HostColumn, ClientsModel::NameColumn,
                       ClientsModel::ConnectionsColumn})
        header->moveSection(header->visualIndex(column), visual++);
    m_view->setColumnWidth(ClientsModel::LabelColumn, 120);
    m_view->setColumnWidth(ClientsModel::ClientIdColumn, 280);
    m_view->setColumnWidth(ClientsModel::StateColumn, 100);
    m_view->setColumnWidth(ClientsModel::HostColumn, 170);
    m_view->setColumnWidth(ClientsModel::NameColumn, 110);
    m_view->setColumnWidth(ClientsModel::ConnectionsColumn, 200);
    m_view->setColumnWidth(ClientsModel::HoldsColumn, 300);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        if (index.column() != ClientsModel::LabelColumn)
            activateCurrent();
    });
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex &index) {
        if (index.column() != ClientsModel::LabelColumn)
            activateCurrent();
    });

    auto *hint = new QLabel(tr("Each Redisson client (one id per RedissonClient, i.e. per service instance) with the "
                               "locks it holds and the fair queues it waits in. Give an id a label (F2) to see it "
                               "everywhere instead of the UUID; labels are kept for this server."),
                            this);
    hint->setWordWrap(true);
    auto *show = new QPushButton(tr("Show its locks"), this);
    show->setToolTip(tr("Filter the lock table by the selected client id"));
    show->setAccessibleName(tr("Show the locks of the selected client"));
    connect(show, &QPushButton::clicked, this, &ClientsView::activateCurrent);
    m_identify = new QPushButton(tr("&Identify"), this);
    m_identify->setObjectName(QStringLiteral("identifyClients"));
    m_identify->setToolTip(tr("Find out which host and connections each client id is: a MONITOR sample of at most "
                              "10 s that stops as soon as every client listed is seen sending a lock script. Only "
                              "the lock scripts' client ids and addresses are kept. Without the +monitor "
                              "permission, lock events are matched with CLIENT LIST instead."));
    connect(m_identify, &QPushButton::clicked, this, [this] {
        QStringList ids;
        for (int r = 0; r < m_model->rowCount(); ++r)
            ids << m_model->index(r, 0).data(ClientsModel::ClientIdRole).toString();
        m_identify->setEnabled(false);
        m_status->setText(tr("Identifying %n client(s)…", nullptr, int(ids.size())));
        emit identifyRequested(ids, 10000);
    });
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("identifyStatus"));
    m_status->setWordWrap(true);
    auto *top = new QHBoxLayout;
    top->addWidget(hint, 1);
    top->addWidget(m_identify, 0, Qt::AlignTop);
    top->addWidget(show, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_view, 1);
}

void ClientsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_model->setActive(true);
}

void ClientsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_model->setActive(false);
}

void ClientsView::setLabel(const QString &clientId, const QString &label)
{
    m_labels.setLabel(clientId, label);
    m_model->setLabels(m_labels.all());
    emit labelsChanged(m_labels.actorNames());
}

void ClientsView::setIdentities(const QVector<ClientIdentity> &clients)
{
    m_model->setIdentities(clients);
    QHash<QString, QString> names;
    for (const auto &c : clients)
        if (!c.name.isEmpty() && c.evidence != ClientIdentity::Evidence::Self)
            names.insert(c.clientId, c.name);
    if (names == m_clientNames)
        return;
    m_clientNames = names;
    emit labelsChanged(actorNames());
}

ActorNames ClientsView::actorNames() const
{
    QHash<QString, QString> names = m_clientNames; // a typed label wins over a client name
    for (auto it = m_labels.all().cbegin(); it != m_labels.all().cend(); ++it)
        names.insert(it.key(), it.value());
    return ActorNames(names);
}

void ClientsView::showIdentifyOutcome(const QString &method, const QString &note)
{
    m_identify->setEnabled(true);
    m_status->setText(method == QLatin1String("monitor") ? tr("Identified with MONITOR: %1").arg(note)
                                                         : tr("Identified by correlation: %1").arg(note));
}

void ClientsView::showNotice(const QString &message)
{
    m_identify->setEnabled(true);
    m_status->setText(message);
}

void ClientsView::activateCurrent()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        emit showLocksOf(current.data(ClientsModel::ClientIdRole).toString());
}

} // namespace lockscope
