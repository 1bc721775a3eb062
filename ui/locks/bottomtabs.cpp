#include "locks/bottomtabs.h"

#include "charts/contentionview.h"
#include "charts/timelinewidget.h"
#include "charts/ttlchart.h"
#include "cluster/clustertopologypanel.h"
#include "locks/clientsview.h"
#include "locks/eventlogmodel.h"
#include "locks/findingmodel.h"
#include "locks/lockfilterproxy.h"

#include "diagnose/lockdoctor.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>

namespace lockscope
{

namespace
{

/** A table of whole rows (a log, a list of problems): no row numbers, whole rows selected, the
 *  last column stretched, Tab leaves it (to the next widget). `widthsPx`: the first columns'
 *  widths, in column order. */
QTableView *rowTable(QAbstractItemModel *model, const QString &objectName, const QString &accessibleName,
                     std::initializer_list<int> widthsPx, QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setModel(model);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    int column = 0;
    for (int px : widthsPx)
        view->setColumnWidth(column++, px);
    view->setTabKeyNavigation(false);
    view->setObjectName(objectName);
    view->setAccessibleName(accessibleName);
    return view;
}

} // namespace

BottomTabs::BottomTabs(LockTableModel *locks, LockFilterProxy *proxy, EventLogModel *events, FindingModel *findings,
                       const HistoryStore *history, std::function<qint64()> clock, const QString &clientsKey,
                       QWidget *parent)
    : QTabWidget(parent), m_findingModel(findings)
{
    // The table's filter applies to the event log too: with a lock or a client typed, its events
    // stay in sight instead of being pushed out by every other lock's routine ones. A glob
    // matches the lock name; a word any column (lock, holder or waiter, detail).
    auto *eventFilter = new QSortFilterProxyModel(this);
    eventFilter->setSourceModel(events);
    eventFilter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    auto followTableFilter = [eventFilter, proxy] {
        const QString text = proxy ? proxy->filterText() : QString();
        const bool glob =
            text.contains(QLatin1Char('*')) || text.contains(QLatin1Char('?')) || text.contains(QLatin1Char('['));
        eventFilter->setFilterKeyColumn(glob ? int(EventLogModel::LockColumn) : -1);
        eventFilter->setFilterRegularExpression(proxy ? proxy->filterRegularExpression() : QRegularExpression());
    };
    if (proxy)
        connect(proxy, &LockFilterProxy::filterTextChanged, this, followTableFilter);
    // Columns: time, lock, event, holder; the detail stretches.
    m_eventView = rowTable(eventFilter, QStringLiteral("eventTable"), tr("Event log"), {100, 150, 120, 340}, this);
    m_eventView->verticalHeader()->setDefaultSectionSize(22);
    // Columns: severity, lock, problem; what to do stretches.
    m_findingView = rowTable(findings, QStringLiteral("problemsTable"), tr("Problems"), {100, 150, 520}, this);
    m_findingView->setWordWrap(false);
    m_findingView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_findingView, &QAbstractItemView::activated, this, [this](const QModelIndex &idx) {
        emit lockActivated(idx.data(FindingModel::FindingRole).value<LockFinding>().lock);
    });
    setAccessibleName(tr("Event log, problems, charts and clients"));
    addTab(m_eventView, tr("Event log (newest first)"));
    addTab(m_findingView, tr("Problems"));
    setTabToolTip(1, tr("The stuck-lock doctor: no TTL, watchdogs held too long, dead waiters and "
                        "readers, waiters without holder, deadlocks. Double-click to select the lock."));
    addCharts(history, clock, proxy);

    // Who holds and waits for what, per client id, with the operator's labels: an operator often
    // starts from a client (a stack trace), not from a lock.
    m_clients = new ClientsView(locks, clientsKey, nullptr, this);
    setTabToolTip(addTab(m_clients, tr("Clients")),
                  tr("Each client id with what it holds and waits for; labels you give ids are shown everywhere"));
}

void BottomTabs::addCharts(const HistoryStore *history, const std::function<qint64()> &clock, LockFilterProxy *proxy)
{
    // They draw the history and follow the selected lock; each redraws at most a few times a second
    // (HistoryChart coalesces historyUpdated into frames), and only while its tab is shown. In a
    // replay, "now" is the replay position.
    m_ttlChart = new TtlChart(this);
    m_timeline = new TimelineWidget(this);
    m_contention = new ContentionView(this);
    m_timeline->setFilterModel(proxy); // lanes follow the table's filter
    for (HistoryChart *chart : charts()) {
        chart->setHistory(history);
        chart->setClock(clock);
        connect(chart, &HistoryChart::lockActivated, this, &BottomTabs::lockActivated);
    }
    setTabToolTip(addTab(m_ttlChart, tr("TTL chart")),
                  tr("TTL of the selected lock over time: a watchdog's saw-tooth, acquire/renew/release "
                     "markers, and a warning when an expected renewal does not come"));
    setTabToolTip(addTab(m_timeline, tr("Timeline")),
                  tr("One lane per lock: who held it when (one colour per holder) and who waited; "
                     "wheel to zoom, drag to pan, hover for the state at that instant"));
    setTabToolTip(addTab(m_contention, tr("Contention")),
                  tr("Held locks and waiters over time, hold and wait time histograms, longest held and "
                     "most contended locks"));
    // Charts need room: the first time one is opened, give the bottom pane at least 45 % of the height.
    connect(this, &QTabWidget::currentChanged, this, [this, grown = false](int) mutable {
        if (grown || !qobject_cast<HistoryChart *>(currentWidget()))
            return;
        grown = true;
        QTimer::singleShot(0, this, [this] {
            auto *split = qobject_cast<QSplitter *>(parentWidget());
            const QList<int> sizes = split ? split->sizes() : QList<int>();
            const int total = sizes.size() == 2 ? sizes.at(0) + sizes.at(1) : 0;
            if (total > 0 && sizes.at(1) < total * 45 / 100)
                split->setSizes({total - total * 45 / 100, total * 45 / 100});
        });
    });
}

QList<HistoryChart *> BottomTabs::charts() const
{
    return {m_ttlChart, m_timeline, m_contention};
}

void BottomTabs::setChartLock(const QString &name)
{
    for (HistoryChart *chart : charts())
        chart->setLock(name);
}

void BottomTabs::setActorNames(const ActorNames &names)
{
    m_timeline->setActorNames(names);
    m_ttlChart->setActorNames(names);
}

void BottomTabs::showFindingCount(const QVector<LockFinding> &findings)
{
    // The count is the rows the tab shows (a count of the serious ones only read "(1)" over two
    // rows); the icon is the worst severity, the tooltip splits them.
    const int serious = m_findingModel->countAtLeast(LockFinding::Severity::Warning);
    const int rows = m_findingModel->rowCount();
    setTabText(1, rows > 0 ? tr("Problems (%1)").arg(rows) : tr("Problems"));
    setTabToolTip(1, rows > 0 ? tr("%1 warning or critical, %2 for information").arg(serious).arg(rows - serious)
                              : tr("No problem found"));
    setTabIcon(1, rows > 0 ? FindingModel::severityIcon(LockFinding::Severity(LockDoctor::worstSeverity(findings)))
                           : QIcon());
}

ClusterTopologyPanel *BottomTabs::addClusterTab()
{
    if (!m_clusterPanel) {
        m_clusterPanel = new ClusterTopologyPanel(this);
        setTabToolTip(addTab(m_clusterPanel, tr("Cluster")),
                      tr("Redis Cluster: masters, replicas, hash slot ranges and how LockScope reads each master"));
    }
    return m_clusterPanel;
}

void BottomTabs::showProblems()
{
    setCurrentWidget(m_findingView);
}

bool BottomTabs::showTab(const QString &name)
{
    for (int i = 0; i < count(); ++i) {
        if (!name.isEmpty() && tabText(i).startsWith(name, Qt::CaseInsensitive)) {
            setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

} // namespace lockscope
