#pragma once

#include "common/actornames.h"
#include "protocol/lockfinding.h"

#include <QTabWidget>

#include <functional>

class QTableView;

namespace lockscope
{

class ClientsView;
class ClusterTopologyPanel;
class ContentionView;
class EventLogModel;
class FindingModel;
class HistoryChart;
class HistoryStore;
class LockFilterProxy;
class LockTableModel;
class TimelineWidget;
class TtlChart;

/**
 * The bottom half of a server's dashboard (ServerView), one tab each: the event log (newest
 * first), the doctor's Problems (count and worst severity on the tab), the history charts (TTL
 * chart, timeline, contention: they draw the view's HistoryStore and follow the selected lock),
 * the Clients (per client id, for an operator who starts from a client) and, in Redis Cluster mode, the Cluster
 * topology. Holds no data of its own: the models and the history belong to the ServerView. GUI thread.
 */
class BottomTabs : public QTabWidget
{
    Q_OBJECT
public:
    /** `clock`: epoch ms of "now" for the charts (the replay position in a replay);
     *  `clientsKey`: ClientLabels::connectionKey() of the server. Nothing is owned. */
    BottomTabs(LockTableModel *locks, LockFilterProxy *proxy, EventLogModel *events, FindingModel *findings,
               const HistoryStore *history, std::function<qint64()> clock, const QString &clientsKey,
               QWidget *parent = nullptr);

    QTableView *eventView() const { return m_eventView; }
    QTableView *findingView() const { return m_findingView; }
    TtlChart *ttlChart() const { return m_ttlChart; }
    TimelineWidget *timeline() const { return m_timeline; }
    ContentionView *contentionView() const { return m_contention; }
    ClientsView *clientsView() const { return m_clients; }
    /** nullptr until addClusterTab(). */
    ClusterTopologyPanel *clusterPanel() const { return m_clusterPanel; }
    /** The TTL chart, the timeline and the contention view. */
    QList<HistoryChart *> charts() const;

    /** The charts follow `name` (the selected lock). */
    void setChartLock(const QString &name);
    /** Actor names in the timeline and the TTL chart (the models take them from the view). */
    void setActorNames(const ActorNames &names);
    /** Problems tab title: the count of warnings and worse, the icon of the worst. */
    void showFindingCount(const QVector<LockFinding> &findings);
    /** Adds the Cluster tab (once) and returns it. */
    ClusterTopologyPanel *addClusterTab();
    void showProblems();
    /** Brings the tab whose title starts with `name` (case-insensitive) to the front; false when
     *  there is none. */
    bool showTab(const QString &name);

signals:
    /** A problem or a chart lane was activated: select this lock. */
    void lockActivated(const QString &name);

private:
    void addCharts(const HistoryStore *history, const std::function<qint64()> &clock, LockFilterProxy *proxy);

    FindingModel *m_findingModel;
    QTableView *m_eventView = nullptr;
    QTableView *m_findingView = nullptr;
    TtlChart *m_ttlChart = nullptr;
    TimelineWidget *m_timeline = nullptr;
    ContentionView *m_contention = nullptr;
    ClientsView *m_clients = nullptr;
    ClusterTopologyPanel *m_clusterPanel = nullptr;
};

} // namespace lockscope
