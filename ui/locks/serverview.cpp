#include "locks/serverview.h"
#include "session/stagetime.h"

#include "redis/redisreply.h"

#include <QEvent>

#include "charts/historychart.h"
#include "cluster/clustertopologypanel.h"
#include "connect/connectionbanner.h"
#include "locks/bottomtabs.h"
#include "locks/clientsview.h"
#include "locks/eventlogmodel.h"
#include "locks/findingmodel.h"
#include "locks/lockactions.h"
#include "locks/lockdetailpanel.h"
#include "locks/lockfilterproxy.h"
#include "locks/locktablemodel.h"
#include "locks/locktableview.h"
#include "locks/serverstatusbar.h"
#include "locks/sessioncontroller.h"
#include "locks/ttlbardelegate.h"

#include "diagnose/doctorloop.h"
#include "recording/replayplayer.h"
#include "recording/sessionrecorder.h"
#include "text/displaytext.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QLineEdit>
#include <QMessageBox>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace lockscope
{

ServerView::ServerView(const LockSession::Options &options, QWidget *parent) : QWidget(parent), m_options(options)
{
    m_session = new SessionController(options, this);
    m_lockModel = new LockTableModel(this);
    m_lockModel->setOwnClientId(m_session->clientId());
    m_eventModel = new EventLogModel(this);
    m_findingModel = new FindingModel(this);
    buildUi();

    m_actions = new LockActions(this, m_session, m_options);
    m_actions->fillToolBar(m_toolBar, m_filter);
    connect(m_actions, &LockActions::refreshRequested, this, [this] { m_userScan = true; });
    connect(m_actions->findAction(), &QAction::triggered, this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    m_actions->updateActions();
    if (m_tabs->clientsView()->hasLabels())
        setActorNames(m_tabs->clientsView()->actorNames());

    connect(m_session, &SessionController::locksUpdated, this, &ServerView::onLocksUpdated);
    connect(m_session, &SessionController::eventsOccurred, this, &ServerView::onEvents);
    connect(m_session, &SessionController::modeChanged, this, &ServerView::onModeChanged);
    connect(m_session, &SessionController::discoveryProgress, this, &ServerView::onProgress);
    connect(m_session, &SessionController::findingsUpdated, this, &ServerView::onFindings);
    connect(m_session, &SessionController::topologyChanged, this, &ServerView::onTopology);
    connect(m_session, &SessionController::topologyEventsOccurred, this, [this](const QVector<TopologyEvent> &events) {
        // Failovers and slot moves go to the event log (and the recording) like lock events.
        QVector<LockEvent> log;
        for (const auto &e : events)
            log << LockEvent{e.timeMs, QString(), e.type, QString(), e.detail};
        onEvents(log);
    });
    connect(m_session, &SessionController::errorOccurred, this, [this](const QString &msg) {
        m_statusBar->showMessage(msg, 10000);
        // An ACL that refuses the reads (a viewer user without TIME, say) must not look like an
        // empty server: the band names the command and the grant, the count says "unknown".
        if (m_banner && !m_player && RedisReply::isPermissionError(msg) && !msg.contains(QLatin1String("CONFIG"))) {
            m_banner->setReadsRefused(m_options.endpoint.address(), msg);
            updateCount();
        }
    });
    connect(m_statusBar, &ServerStatusBar::cancelScanRequested, m_session, &SessionController::cancelScan);

    m_animation.setInterval(50);
    connect(&m_animation, &QTimer::timeout, this, [this] {
        m_lockView->viewport()->update();
        m_detail->tick();
        if (m_detail->hasLeaseAlert() && !m_lockModel->leaseAlert(selectedLockName()))
            m_detail->setLeaseAlert(nullptr, m_lockModel->actorNames()); // its time is over
    });
    followPalette();
    m_animation.start();
}

ServerView::~ServerView()
{
    m_animation.stop();
    delete m_session; // redis-io stops before anything it reports to goes
    m_session = nullptr;
}

void ServerView::buildUi()
{
    m_proxy = new LockFilterProxy(m_lockModel, this);
    m_proxy->setSortRole(LockTableModel::SortRole);
    m_proxy->setFilterKeyColumn(LockTableModel::NameColumn);
    m_proxy->setDynamicSortFilter(true);

    m_lockView = new LockTableView(m_lockModel, m_proxy, this);
    m_lockView->viewport()->installEventFilter(this);

    m_detail = new LockDetailPanel(this);
    m_detail->setOwnClientId(m_session->clientId());
    m_detail->setAccessibleName(tr("Selected lock"));

    auto *top = new QSplitter(Qt::Horizontal, this);
    top->setObjectName(QStringLiteral("tableDetailSplitter"));
    top->addWidget(m_lockView);
    top->addWidget(m_detail);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 1);
    top->setSizes({980, 380});
    // The band over the table says what the table is when it is not live data, so an
    // empty table is not read as "no locks".
    m_banner = new ConnectionBanner(this);
    connect(m_banner, &ConnectionBanner::connectRequested, this, &ServerView::connectRequested);
    auto *upper = new QWidget(this);
    auto *upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->setSpacing(2);
    upperLayout->addWidget(m_banner);
    upperLayout->addWidget(top, 1);
    m_mainSplit = new QSplitter(Qt::Vertical, this);
    m_mainSplit->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplit->addWidget(upper);
    // In a replay, "now" for the charts is the replay position.
    const auto clock = [this] { return nowEpochMs(); };
    m_tabs = new BottomTabs(m_lockModel, m_proxy, m_eventModel, m_findingModel, &m_history, clock,
                            ClientLabels::connectionKey(m_options.endpoint.address(), m_options.endpoint.db()), this);
    connect(m_tabs, &BottomTabs::lockActivated, this, &ServerView::selectLock);
    for (HistoryChart *chart : m_tabs->charts())
        connect(this, &ServerView::historyChanged, chart, &HistoryChart::historyUpdated);
    connect(m_tabs->clientsView(), &ClientsView::labelsChanged, this, &ServerView::setActorNames);
    // Who the holders are: the Clients tab, the detail panel, the force-unlock dialog (LockActions).
    connect(m_session, &SessionController::clientsUpdated, this, [this](const QVector<ClientIdentity> &clients) {
        m_tabs->clientsView()->setIdentities(clients);
        m_detail->setClientIdentities(clients);
    });
    connect(m_tabs->clientsView(), &ClientsView::identifyRequested, m_session, &SessionController::identifyClients);
    connect(m_session, &SessionController::clientsIdentified, m_tabs->clientsView(), &ClientsView::showIdentifyOutcome);
    connect(m_session, &SessionController::noticeOccurred, m_tabs->clientsView(), &ClientsView::showNotice);
    connect(m_session, &SessionController::noticeOccurred, this,
            [this](const QString &msg) { m_statusBar->showMessage(msg, 30000); });
    connect(m_tabs->clientsView(), &ClientsView::showLocksOf, this, [this](const QString &clientId) {
        m_filter->setText(clientId);
        m_lockView->setFocus();
    });
    m_mainSplit->addWidget(m_tabs);
    m_mainSplit->setStretchFactor(0, 3);
    m_mainSplit->setStretchFactor(1, 1);
    m_mainSplit->setSizes({560, 220});

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter: lock name, glob, client id or thread  Ctrl+F"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(320);
    m_filter->setToolTip(tr("A Redis glob (* ? [abc]) matches whole lock names; any other text matches part of a "
                            "name, or a holder, reader or waiter by client id (or its first 4+ characters), "
                            "clientId:threadId or thread id"));
    m_filter->setAccessibleName(tr("Filter locks"));
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        const QString selected = selectedLockName();
        m_proxy->setFilterText(text);
        // Filtering never moves the selection to another lock: the selected lock stays selected
        // while it matches, and nothing is selected once it does not (the proxy would otherwise
        // make a neighbouring row current).
        if (selectedLockName() != selected) {
            m_lockView->clearLockSelection();
            if (!selected.isEmpty())
                m_lockView->selectLock(selected);
        }
        updateCount();
    });
    m_toolBar = new QToolBar(tr("Main"), this);
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    m_toolBar->setMovable(false);
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_statusBar = new ServerStatusBar(m_options.endpoint.address(), m_options.readOnly, this);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_toolBar);
    layout->addWidget(m_mainSplit, 1);
    layout->addWidget(m_statusBar);
    onModeChanged(WatchMode::Connecting, tr("connecting to %1").arg(m_options.endpoint.address()));
    updateCount();

    // Polling re-reads what is on screen and selected every tick, the rest in turn: on a big
    // keyspace re-reading everything each tick would load Redis with commands nobody looks at.
    m_priorityTimer.setSingleShot(true);
    m_priorityTimer.setInterval(200);
    m_tableFlush.setSingleShot(true);
    m_tableFlush.setInterval(200);
    connect(&m_tableFlush, &QTimer::timeout, this, &ServerView::flushTableBuffer);
    connect(&m_priorityTimer, &QTimer::timeout, this, &ServerView::sendPriorityLocks);
    auto priorityChanged = [this] { m_priorityTimer.start(); };
    connect(m_lockView->verticalScrollBar(), &QScrollBar::valueChanged, this, priorityChanged);
    connect(m_lockView->selectionModel(), &QItemSelectionModel::selectionChanged, this, priorityChanged);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, priorityChanged);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, priorityChanged);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, priorityChanged);
    connect(m_lockView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateDetail();
        if (m_actions)
            m_actions->updateActions();
        const QString name = selectedLockName();
        if (!name.isEmpty()) // a lock that expired leaves the table: keep charting it (its end is the interesting part)
            m_tabs->setChartLock(name);
    });
}

QThread *ServerView::ioThread() const
{
    return m_session->ioThread();
}

QTableView *ServerView::lockView() const
{
    return m_lockView;
}

QTableView *ServerView::findingView() const
{
    return m_tabs->findingView();
}

void ServerView::start()
{
    if (!m_player)
        m_session->start();
}

void ServerView::stopSession()
{
    m_session->stop();
}

bool ServerView::startRecording(const QString &path, QString *error)
{
    m_recorder = std::make_unique<SessionRecorder>();
    const QJsonObject header =
        SessionRecorder::header(m_options.endpoint.toString(), m_options.pattern,
                                QStringLiteral("lockscope %1").arg(QApplication::applicationVersion()));
    if (!m_recorder->open(path, header, error)) {
        m_recorder.reset();
        return false;
    }
    m_statusBar->showMessage(tr("Recording to %1").arg(path), 5000);
    return true;
}

qint64 ServerView::nowEpochMs() const
{
    if (m_player)
        return m_player->positionMs();
    return m_stageTime ? m_stageTime->epochMs(LockSnapshot::steadyNowMs()) : QDateTime::currentMSecsSinceEpoch();
}

void ServerView::setStageTime(std::shared_ptr<StageTime> time)
{
    m_stageTime = time;
    const auto steady = [time] { return time->steadyMs(LockSnapshot::steadyNowMs()); };
    m_lockModel->setClock(steady);
    m_lockModel->setEventClock([time] { return time->epochMs(LockSnapshot::steadyNowMs()); });
    m_lockView->ttlDelegate()->setClock(steady);
    m_detail->setClock(steady);
    m_session->setStageTime(std::move(time));
}

void ServerView::attachReplay(ReplayPlayer *player)
{
    m_player = player;
    // Countdowns run on the replay clock: at the replay speed, frozen on pause, right after a seek.
    const auto replayClock = [player] { return player->clockMs(); };
    m_lockModel->setClock(replayClock);
    m_lockModel->setEventClock([player] { return player->positionMs(); });
    m_lockView->ttlDelegate()->setClock(replayClock);
    m_detail->setClock(replayClock);
    m_actions->setReplay();
    const Recording &rec = player->recording();
    m_statusBar->showReplay(rec.header.value(QStringLiteral("server")).toString());
    // The doctor's snapshot rules run on the replayed data too (the probes that ask Redis do not):
    // the session's DoctorLoop without a probe, over the replayed table, on the replay clock, every
    // 2 s of wall time as live.
    m_replayDoctor = new DoctorLoop([this] { return tableLocks(); }, this);
    m_replayDoctor->setClock(replayClock);
    connect(m_replayDoctor, &DoctorLoop::findingsUpdated, this, &ServerView::onFindings);
    connect(player, &ReplayPlayer::reset, this, [this] {
        m_tableBuffer.clear(); // batches from before the seek
        m_tableFlush.stop();
        m_lockModel->clear();
        m_eventModel->clear();
        m_history.clear();
        m_detail->setSnapshot(LockSnapshot());
        m_replayDoctor->reset(); // duration rules count from the seek
        QTimer::singleShot(0, this, [this] { onFindings(m_replayDoctor->diagnose()); });
    });
    m_replayDoctor->start();
    connect(player, &ReplayPlayer::locksUpdated, this, &ServerView::onLocksUpdated);
    connect(player, &ReplayPlayer::eventsOccurred, this, &ServerView::onEvents);
    if (!rec.warning.isEmpty())
        QTimer::singleShot(0, this,
                           [this, rec] { QMessageBox::warning(this, tr("Recording cut short"), rec.warning); });
    QTimer::singleShot(0, this, [this, player] {
        player->seek(player->recording().startMs());
        m_initialData = true;
        emit initialDataArrived();
    });
}

void ServerView::sendPriorityLocks()
{
    QStringList names = m_lockView->visibleLockNames();
    const QString selected = selectedLockName();
    if (!selected.isEmpty() && !names.contains(selected))
        names << selected;
    if (names == m_priorityNames)
        return;
    m_priorityNames = names;
    m_session->setPriorityLocks(names);
}

QString ServerView::selectedLockName() const
{
    return m_lockView->selectedLockName();
}

void ServerView::selectLock(const QString &name)
{
    m_lockView->selectLock(name);
}

void ServerView::updateDetail()
{
    const QString name = selectedLockName();
    const LockSnapshot *s = m_lockModel->snapshot(name);
    m_detail->setSnapshot(s ? *s : LockSnapshot());
    m_detail->setLeaseAlert(s ? m_lockModel->leaseAlert(name) : nullptr, m_lockModel->actorNames());
}

void ServerView::updateCount()
{
    if (m_banner && m_banner->readsRefused() && m_lockModel->rowCount() == 0) {
        m_statusBar->showCountUnknown(tr("locks unknown: reads refused"));
        return;
    }
    m_statusBar->showCount(m_proxy->rowCount(), m_lockModel->rowCount(), m_proxy->filterText());
}

void ServerView::onLocksUpdated(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    if (m_banner && m_banner->readsRefused() && !changed.isEmpty() && !m_player) {
        m_banner->clearReadsRefused(); // reads work again (a grant, another user)
        m_banner->setState(m_mode, m_options.endpoint.address(), QString(), m_lastDataMs);
    }
    const qint64 now = nowEpochMs();
    if (!m_player && (!changed.isEmpty() || !removed.isEmpty()))
        m_lastDataMs = QDateTime::currentMSecsSinceEpoch();
    if (m_recorder)
        m_recorder->recordLocks(changed, removed, now);
    // Removals before changes, as LockTableModel::applyBatch applies a batch.
    for (const auto &name : removed)
        if (!m_historyMuted)
            m_history.addRemoval(name, now);
    for (const auto &s : changed)
        if (!m_historyMuted)
            m_history.addSnapshot(s, now);
    if (m_replayDoctor)
        m_replayDoctor->observe(changed, removed);
    emit historyChanged();
    // A sorted proxy over a big table does O(rows) work per batch: above a few thousand locks the
    // batches are merged and applied at most every 200 ms (the first discovery of 200k locks is
    // ~1000 batches). Small tables (demo, workshop, tests) stay batch by batch.
    constexpr int kBufferAboveRows = 5000;
    if (m_tableBuffer.isEmpty() && m_lockModel->rowCount() + changed.size() < kBufferAboveRows) {
        applyToTable(changed, removed);
        return;
    }
    m_tableBuffer.merge(changed, removed);
    if (!m_tableFlush.isActive())
        m_tableFlush.start();
}

void ServerView::flushTableBuffer()
{
    if (m_tableBuffer.isEmpty())
        return;
    QVector<LockSnapshot> changed;
    QStringList removed;
    m_tableBuffer.take(&changed, &removed);
    applyToTable(changed, removed);
#ifdef __GLIBC__
    // A big merged batch leaves megabytes of freed snapshot copies in malloc's free lists; give
    // them back so the resident size follows what is kept.
    if (changed.size() + removed.size() >= LockTableModel::kBulkInsertRows)
        QTimer::singleShot(0, this, [] { malloc_trim(0); });
#endif
}

void ServerView::applyToTable(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    const QString selected = selectedLockName();
    m_lockModel->applyBatch(changed, removed);
    if (!selected.isEmpty() && selectedLockName().isEmpty() && !removed.contains(selected))
        selectLock(selected); // a bulk insert resets the model, which drops the selection
    if (!selected.isEmpty() && removed.contains(selected)) {
        // The selection goes with its lock (released, expired, force-unlocked). The
        // view would move it to the next row, whose Force unlock… would then be one click away
        // while the operator still reads the first lock.
        m_lockView->clearLockSelection();
        const QString said = m_actions->lastSentence(selected); // the outcome of an action on it stays readable
        m_statusBar->showMessage(
            said.isEmpty() ? tr("%1 is no longer held (released, expired or force-unlocked): nothing is selected")
                                 .arg(DisplayText::escaped(selected))
                           : QStringLiteral("✔ ") + said + tr("; nothing is selected"),
            said.isEmpty() ? 10000 : 30000);
        updateDetail();
    }
    updateCount();
    if (showsCluster(m_topology) && !m_clusterCountsPending) { // per-master lock counts, at most 4 times a second
        m_clusterCountsPending = true;
        QTimer::singleShot(250, this, [this] {
            m_clusterCountsPending = false;
            updateClusterLockCounts();
        });
    }
    if (!selected.isEmpty()) {
        const bool touched = removed.contains(selected) ||
                             std::any_of(changed.cbegin(), changed.cend(),
                                         [&selected](const LockSnapshot &s) { return s.name == selected; });
        if (touched)
            updateDetail();
    }
    m_actions->updateActions();
}

void ServerView::onEvents(const QVector<LockEvent> &events)
{
    if (m_historyMuted)
        return;
    m_eventModel->append(events);
    m_lockModel->applyEvents(events); // lease badges beside the holder
    if (m_replayDoctor)               // the lease-safety findings of a replay (its events are already the session's)
        (void)m_replayDoctor->observeEvents(events);
    const QString selected = selectedLockName();
    if (!selected.isEmpty())
        m_detail->setLeaseAlert(m_lockModel->leaseAlert(selected), m_lockModel->actorNames());
    m_history.addEvents(events);
    if (m_recorder)
        m_recorder->recordEvents(events);
    emit historyChanged();
}

bool ServerView::eventFilter(QObject *watched, QEvent *event)
{
    if (m_lockView && watched == m_lockView->viewport()) {
        if (event->type() == QEvent::Enter)
            m_proxy->setDynamicSortFilter(false); // rows stay where the operator aims
        else if (event->type() == QEvent::Leave)
            m_proxy->setDynamicSortFilter(true); // sorted and filtered again, selection kept
    }
    return QWidget::eventFilter(watched, event);
}

ServerView::Shown ServerView::shown() const
{
    return Shown{m_eventModel->events(), m_history};
}

void ServerView::restoreShown(const Shown &shown)
{
    m_eventModel->setEvents(shown.events);
    // What was derived from those events goes back with them: the lease badges and the doctor's
    // findings are those of the checkpoint, none of an undone step, none of the restore's writes.
    const QVector<LockEvent> oldestFirst(shown.events.crbegin(), shown.events.crend());
    m_lockModel->restoreLeaseAlerts(oldestFirst);
    if (!m_player)
        m_session->resetDiagnosis(oldestFirst);
    const HistoryStore::Retention retention = m_history.retention();
    m_history = shown.history;
    m_history.setRetention(retention);
    emit historyChanged();
}

void ServerView::onModeChanged(WatchMode mode, const QString &detail)
{
    m_mode = mode;
    emit connectionModeChanged(mode);
    m_statusBar->showMode(mode, detail);
    if (m_banner && !m_player)
        m_banner->setState(mode, m_options.endpoint.address(), detail, m_lastDataMs);
    if (m_actions)
        m_actions->updateActions(); // write actions wait for a connection
    if (mode == WatchMode::Disconnected && !m_player && !m_authenticationAsked &&
        ConnectionBanner::isAuthenticationProblem(detail)) {
        m_authenticationAsked = true;
        emit authenticationNeeded(detail);
    }
}

void ServerView::onProgress(qint64 scanned, qint64 found, bool finished, qint64 approxTotalKeys)
{
    // The bar is for scans someone waits for: the first one and those asked for with Refresh.
    // The background rediscoveries of polling run silently (the status bar says polling).
    const bool foreground = !m_initialData || m_userScan;
    if (finished)
        m_userScan = false;
    m_statusBar->showProgress(!finished && foreground, scanned, found, approxTotalKeys);
    if (finished && !m_initialData) {
        // Let the reads queued by the scan land first.
        QTimer::singleShot(300, this, [this] {
            if (m_initialData)
                return;
            m_initialData = true;
            m_lockModel->setInitialReadDone(); // holders seen from now on are timed from their arrival
            // Nothing is pre-selected: a selection, the target of Force unlock…, is always the
            // operator's own.
            emit initialDataArrived();
        });
    }
}

void ServerView::onTopology(const SessionTopology &topology)
{
    const bool wasCluster = showsCluster(m_topology);
    m_topology = topology;
    if (!showsCluster(topology))
        return; // one server: the table, the status bar and the banner say all there is
    if (!wasCluster) {
        // A cluster: a node column in the table, a Cluster tab, the masters in the status bar.
        m_tabs->addClusterTab();
        m_lockView->showNodeColumn();
    }
    m_lockModel->setClusterNodes(topology.masters);
    m_tabs->clusterPanel()->setNodes(topology.masters);
    updateClusterLockCounts();
    m_statusBar->showMasters(m_tabs->clusterPanel()->liveMasters(), topology.masters.size());
}

void ServerView::updateClusterLockCounts()
{
    QHash<QString, int> counts;
    for (int r = 0; r < m_lockModel->rowCount(); ++r)
        ++counts[m_lockModel->nodeOf(m_lockModel->index(r, LockTableModel::NameColumn).data().toString())];
    m_tabs->clusterPanel()->setLockCounts(counts);
}

QHash<QString, LockSnapshot> ServerView::tableLocks() const
{
    QHash<QString, LockSnapshot> locks;
    for (int r = 0; r < m_lockModel->rowCount(); ++r) {
        const auto s = m_lockModel->index(r, 0).data(LockTableModel::SnapshotRole).value<LockSnapshot>();
        locks.insert(s.name, s);
    }
    return locks;
}

void ServerView::onFindings(const QVector<LockFinding> &findings)
{
    m_findingModel->setFindings(findings);
    QHash<QString, int> severity;
    for (const auto &f : findings)
        for (const auto &lock : f.locks.isEmpty() ? QStringList{f.lock} : f.locks)
            severity[lock] = qMax(severity.value(lock, -1), int(f.severity));
    m_lockModel->setSeverities(severity);
    m_tabs->showFindingCount(findings);
}

void ServerView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        followPalette();
}

void ServerView::followPalette()
{
    // Event and warning colours with enough contrast on a dark desktop theme too (the workshop's
    // projector mode sets the same through its dark palette).
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    m_eventModel->setOnDark(dark);
    m_lockModel->setOnDark(dark);
}

void ServerView::setActorNames(const ActorNames &names)
{
    m_lockModel->setActorNames(names);
    m_proxy->setActorNames(names);
    if (m_actions)
        m_actions->setActorNames(names);
    m_detail->setActorNames(names);
    m_eventModel->setActorNames(names);
    m_tabs->setActorNames(names);
    updateDetail();
}

} // namespace lockscope
