#include "mainwindow.h"
#include "clientsview.h"
#include "connectionbanner.h"
#include "lockfilterproxy.h"
#include "shortcutsdialog.h"
#include "windowstatekeeper.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "acquiredialog.h"
#include "contentionview.h"
#include "eventlogmodel.h"
#include "findingmodel.h"
#include "forceunlockdialog.h"
#include "lockdetailpanel.h"
#include "locktablemodel.h"
#include "timelinewidget.h"
#include "ttlbardelegate.h"
#include "ttlchart.h"

#include "clustertopologypanel.h"
#include "diagnose/lockdoctor.h"
#include "history/replayplayer.h"
#include "history/sessionrecorder.h"
#include "protocol/displaytext.h"
#include "redlockdialog.h"
#include "statuscolours.h"
#include "watch/lockdiscovery.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace lockscope
{

MainWindow::MainWindow(const LockSession::Options &options, QWidget *parent) : QMainWindow(parent), m_options(options)
{
    m_ioThread = new QThread(this);
    m_ioThread->setObjectName(QStringLiteral("redis-io"));
    LockSession::Options sessionOptions = options;
    sessionOptions.detectCluster = true;            // a Redis Cluster node: watch every master
    if (sessionOptions.commandConnection.isEmpty()) // the Problems tab's commands reach this server (issue 15.5)
        sessionOptions.commandConnection =
            QStringLiteral("--url ") + LockDoctor::shellQuoted(options.endpoint.toString());
    m_session = new LockSession(sessionOptions); // no parent: it moves to redis-io
    m_clientId = m_session->clientId();
    m_session->moveToThread(m_ioThread);
    connect(m_ioThread, &QThread::finished, m_session, &QObject::deleteLater);

    m_lockModel = new LockTableModel(this);
    m_lockModel->setOwnClientId(m_clientId);
    m_eventModel = new EventLogModel(this);
    m_findingModel = new FindingModel(this);
    buildUi();
    buildActions();
    buildCharts();
    buildClientsTab();

    connect(m_session, &LockSession::locksUpdated, this, &MainWindow::onLocksUpdated);
    connect(m_session, &LockSession::eventsOccurred, this, &MainWindow::onEvents);
    connect(m_session, &LockSession::modeChanged, this, &MainWindow::onModeChanged);
    connect(m_session, &LockSession::discoveryProgress, this, &MainWindow::onProgress);
    connect(m_session, &LockSession::actionFinished, this, &MainWindow::onActionFinished);
    connect(m_session, &LockSession::findingsUpdated, this, &MainWindow::onFindings);
    connect(m_session, &LockSession::clusterNodesChanged, this, &MainWindow::onClusterNodes);
    connect(m_session, &LockSession::topologyEventsOccurred, this, [this](const QVector<TopologyEvent> &events) {
        // Failovers and slot moves go to the event log (and the recording) like lock events.
        QVector<LockEvent> log;
        for (const auto &e : events)
            log << LockEvent{e.timeMs, QString(), e.type, QString(), e.detail};
        onEvents(log);
    });
    connect(m_session, &LockSession::notificationsChecked, this, [this](bool enabled, const QString &) {
        const bool offer = !enabled && !m_options.readOnly && !m_options.forcePolling;
        m_enableNotifications->setVisible(offer);
        m_enableNotificationsAction->setEnabled(offer);
    });
    connect(m_session, &LockSession::errorOccurred, this,
            [this](const QString &msg) { statusBar()->showMessage(msg, 10000); });

    m_animation.setInterval(50);
    connect(&m_animation, &QTimer::timeout, this, [this] {
        m_lockView->viewport()->update();
        m_detail->tick();
    });
    m_animation.start();
    m_ioThread->start();
}

void MainWindow::rememberLayout(const QString &key)
{
    if (!findChild<WindowStateKeeper *>())
        new WindowStateKeeper(this, key);
}

void MainWindow::stopSession()
{
    m_ioThread->quit(); // the session is deleted on redis-io as the thread finishes
}

MainWindow::~MainWindow()
{
    m_animation.stop();
    m_ioThread->quit();
    m_ioThread->wait(); // the session is deleted on redis-io as the thread finishes
}

void MainWindow::setConnectionTag(const QString &label, const QColor &color)
{
    if (label.isEmpty() && !color.isValid() && !m_options.endpoint.tlsOptions().isInsecure())
        return; // nothing to tell apart; an unverified TLS connection always gets the band
    if (!m_connectionBand) {
        auto *bar = new QToolBar(tr("Connection"), this);
        bar->setObjectName(QStringLiteral("connectionBand"));
        bar->setMovable(false);
        bar->setFloatable(false);
        bar->toggleViewAction()->setEnabled(false); // the band is not meant to be hidden
        m_connectionBand = new QLabel(bar);
        m_connectionBand->setObjectName(QStringLiteral("connectionBandLabel"));
        m_connectionBand->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        bar->addWidget(m_connectionBand);
        QToolBar *main = findChild<QToolBar *>(QStringLiteral("mainToolBar"));
        insertToolBar(main, bar);
        insertToolBarBreak(main);
    }
    const QColor background = color.isValid() ? color : palette().color(QPalette::Mid);
    const QColor text = background.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
    m_connectionBand->setText(QStringLiteral("<b>%1</b>&nbsp;&nbsp;%2%3%4")
                                  .arg(label.toHtmlEscaped(), m_options.endpoint.toString().toHtmlEscaped(),
                                       m_options.readOnly ? tr("&nbsp;&nbsp;· read-only") : QString(),
                                       m_options.endpoint.tlsOptions().isInsecure()
                                           ? tr("&nbsp;&nbsp;· <b>TLS certificate not verified</b>")
                                           : QString()));
    m_connectionBand->setStyleSheet(QStringLiteral("background:%1; color:%2; padding:4px 10px; font-size:11pt;")
                                        .arg(background.name(), text.name()));
    m_connectionBand->setToolTip(tr("Connection '%1'. The colour tag is set in File > Connect…").arg(label));
    if (!label.isEmpty())
        setWindowTitle(tr("%1 — %2").arg(label, windowTitle()));
}

void MainWindow::start()
{
    if (!m_player)
        QMetaObject::invokeMethod(m_session, &LockSession::start, Qt::QueuedConnection);
}

bool MainWindow::startRecording(const QString &path, QString *error)
{
    m_recorder = std::make_unique<SessionRecorder>();
    const QJsonObject header =
        SessionRecorder::header(m_options.endpoint.toString(), m_options.pattern,
                                QStringLiteral("lockscope %1").arg(QApplication::applicationVersion()));
    if (!m_recorder->open(path, header, error)) {
        m_recorder.reset();
        return false;
    }
    statusBar()->showMessage(tr("Recording to %1").arg(path), 5000);
    return true;
}

void MainWindow::attachReplay(ReplayPlayer *player)
{
    m_player = player;
    // Countdowns run on the replay clock: at the replay speed, frozen on pause, right after a seek.
    const auto replayClock = [player] { return player->clockMs(); };
    m_lockModel->setClock(replayClock);
    m_ttlDelegate->setClock(replayClock);
    m_detail->setClock(replayClock);
    for (QAction *a : {m_acquireAction, m_renewAction, m_releaseAction, m_forceUnlockAction,
                       m_enableNotificationsAction, m_refreshAction}) {
        a->setEnabled(false);
        a->setVisible(false);
    }
    m_enableNotifications->hide();
    const Recording &rec = player->recording();
    setWindowTitle(tr("LockScope — replay of %1 (recorded from %2)")
                       .arg(rec.header.value(QStringLiteral("server")).toString(),
                            QDateTime::fromMSecsSinceEpoch(rec.header.value(QStringLiteral("started_ms")).toInteger())
                                .toString(Qt::ISODate)));
    m_modeLabel->setText(QStringLiteral("<span style='color:#7b4f9d'>●</span> ") + tr("replay"));
    m_modeLabel->setToolTip(tr("Replaying a recording: nothing is read from or written to Redis"));
    m_serverLabel->setText(rec.header.value(QStringLiteral("server")).toString());

    auto *bar = addToolBar(tr("Replay"));
    bar->setObjectName(QStringLiteral("replayToolBar"));
    auto *play = bar->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Play"));
    play->setShortcut(QKeySequence(Qt::Key_Space));
    play->setToolTip(tr("Play / pause (Space)"));
    connect(play, &QAction::triggered, player, [player] { player->isPlaying() ? player->pause() : player->play(); });
    connect(player, &ReplayPlayer::playingChanged, play, [this, play](bool playing) {
        play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
        play->setText(playing ? tr("Pause") : tr("Play"));
    });
    auto *speed = new QComboBox(bar);
    for (double s : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0})
        speed->addItem(QStringLiteral("%1×").arg(s), s);
    speed->setCurrentIndex(qMax(0, speed->findData(player->speed())));
    speed->setToolTip(tr("Replay speed"));
    connect(speed, &QComboBox::currentIndexChanged, player,
            [player, speed] { player->setSpeed(speed->currentData().toDouble()); });
    bar->addWidget(speed);
    auto *scrub = new QSlider(Qt::Horizontal, bar);
    scrub->setObjectName(QStringLiteral("replayScrub"));
    scrub->setMinimumWidth(400);
    scrub->setRange(0, int((rec.endMs() - rec.startMs()) / 100)); // 100 ms steps
    scrub->setToolTip(tr("Drag to jump to any instant of the recording"));
    bar->addWidget(scrub);
    auto *clock = new QLabel(bar);
    bar->addWidget(clock);
    const qint64 start = rec.startMs();
    auto fmt = [](qint64 ms) {
        return QStringLiteral("%1:%2").arg(ms / 60000).arg((ms / 1000) % 60, 2, 10, QLatin1Char('0'));
    };
    const qint64 end = rec.endMs();
    connect(player, &ReplayPlayer::positionChanged, this, [scrub, clock, start, end, fmt](qint64 pos) {
        if (!scrub->isSliderDown()) {
            const QSignalBlocker block(scrub);
            scrub->setValue(int((pos - start) / 100));
        }
        clock->setText(QStringLiteral("  %1 / %2  ").arg(fmt(pos - start), fmt(end - start)));
    });
    connect(scrub, &QSlider::valueChanged, player, [player, start](int v) { player->seek(start + qint64(v) * 100); });
    connect(player, &ReplayPlayer::reset, this, [this] {
        m_tableBuffer.clear(); // batches from before the seek
        m_tableFlush.stop();
        m_lockModel->clear();
        m_eventModel->clear();
        m_history.clear();
        m_detail->setSnapshot(LockSnapshot());
        m_replayDoctor = std::make_unique<LockDoctor>(); // duration rules count from the seek
        QTimer::singleShot(0, this, &MainWindow::diagnoseReplay);
    });
    // The doctor's snapshot rules run on the replayed data too (the probes that ask Redis do not):
    // diagnosed on the replay clock, every 2 s of wall time as live.
    auto *doctorTimer = new QTimer(this);
    doctorTimer->setInterval(2000);
    connect(doctorTimer, &QTimer::timeout, this, &MainWindow::diagnoseReplay);
    doctorTimer->start();
    connect(player, &ReplayPlayer::locksUpdated, this, &MainWindow::onLocksUpdated);
    connect(player, &ReplayPlayer::eventsOccurred, this, &MainWindow::onEvents);
    if (!rec.warning.isEmpty())
        QTimer::singleShot(0, this,
                           [this, rec] { QMessageBox::warning(this, tr("Recording cut short"), rec.warning); });
    QTimer::singleShot(0, this, [this, player] {
        player->seek(player->recording().startMs());
        m_initialData = true;
        emit initialDataArrived();
    });
}

void MainWindow::buildUi()
{
    setWindowTitle(
        tr("LockScope — %1%2").arg(m_options.endpoint.toString(), m_options.readOnly ? tr(" (read-only)") : QString()));
    resize(1360, 820);

    m_proxy = new LockFilterProxy(m_lockModel, this);
    m_proxy->setSortRole(LockTableModel::SortRole);
    m_proxy->setFilterKeyColumn(LockTableModel::NameColumn);
    m_proxy->setDynamicSortFilter(true);

    m_lockView = new QTableView(this);
    m_lockView->setModel(m_proxy);
    m_ttlDelegate = new TtlBarDelegate(m_lockView);
    m_lockView->setItemDelegateForColumn(LockTableModel::TtlColumn, m_ttlDelegate);
    m_lockView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_lockView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_lockView->setSortingEnabled(true);
    m_lockView->sortByColumn(LockTableModel::NameColumn, Qt::AscendingOrder);
    m_lockView->setAlternatingRowColors(true);
    m_lockView->setColumnHidden(LockTableModel::NodeColumn, true); // shown in Redis Cluster mode
    m_lockView->verticalHeader()->hide();
    m_lockView->verticalHeader()->setDefaultSectionSize(28);
    m_lockView->horizontalHeader()->setStretchLastSection(true);
    m_lockView->setColumnWidth(LockTableModel::NameColumn, 140);
    m_lockView->setColumnWidth(LockTableModel::KindColumn, 150);
    m_lockView->setColumnWidth(LockTableModel::HolderColumn, 320);
    m_lockView->setColumnWidth(LockTableModel::HoldCountColumn, 80);
    m_lockView->setColumnWidth(LockTableModel::TtlColumn, 200);
    m_lockView->setColumnWidth(LockTableModel::WaitingColumn, 100);
    m_lockView->setContextMenuPolicy(Qt::CustomContextMenu);
    m_lockView->setWordWrap(false);
    // Issue 15.11: Tab leaves the table for the next pane (arrows move within it); Tab used to walk
    // cell by cell and change the selected lock, the force-unlock target.
    m_lockView->setTabKeyNavigation(false);
    m_lockView->setObjectName(QStringLiteral("lockTable"));
    m_lockView->setAccessibleName(tr("Locks"));

    m_detail = new LockDetailPanel(this);
    m_detail->setOwnClientId(m_clientId);

    m_eventView = new QTableView(this);
    m_eventView->setModel(m_eventModel);
    m_eventView->verticalHeader()->hide();
    m_eventView->verticalHeader()->setDefaultSectionSize(22);
    m_eventView->horizontalHeader()->setStretchLastSection(true);
    m_eventView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_eventView->setColumnWidth(EventLogModel::TimeColumn, 100);
    m_eventView->setColumnWidth(EventLogModel::LockColumn, 150);
    m_eventView->setColumnWidth(EventLogModel::TypeColumn, 120);
    m_eventView->setColumnWidth(EventLogModel::HolderColumn, 340);
    m_eventView->setTabKeyNavigation(false);
    m_eventView->setObjectName(QStringLiteral("eventTable"));
    m_eventView->setAccessibleName(tr("Event log"));
    m_detail->setAccessibleName(tr("Selected lock"));

    auto *top = new QSplitter(Qt::Horizontal, this);
    top->setObjectName(QStringLiteral("tableDetailSplitter"));
    top->addWidget(m_lockView);
    top->addWidget(m_detail);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 1);
    top->setSizes({980, 380});
    // The band over the table says what the table is when it is not live data (issue 15.1).
    m_banner = new ConnectionBanner(this);
    connect(m_banner, &ConnectionBanner::connectRequested, this, &MainWindow::connectRequested);
    auto *upper = new QWidget(this);
    auto *upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->setSpacing(2);
    upperLayout->addWidget(m_banner);
    upperLayout->addWidget(top, 1);
    auto *main = new QSplitter(Qt::Vertical, this);
    main->setObjectName(QStringLiteral("mainSplitter"));
    main->addWidget(upper);
    m_findingView = new QTableView(this);
    m_findingView->setModel(m_findingModel);
    m_findingView->verticalHeader()->hide();
    m_findingView->horizontalHeader()->setStretchLastSection(true);
    m_findingView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_findingView->setColumnWidth(FindingModel::SeverityColumn, 100);
    m_findingView->setColumnWidth(FindingModel::LockColumn, 150);
    m_findingView->setColumnWidth(FindingModel::TitleColumn, 520);
    m_findingView->setTabKeyNavigation(false);
    m_findingView->setObjectName(QStringLiteral("problemsTable"));
    m_findingView->setAccessibleName(tr("Problems"));
    m_findingView->setWordWrap(false);
    m_findingView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_findingView, &QAbstractItemView::activated, this, [this](const QModelIndex &idx) {
        selectLock(idx.data(FindingModel::FindingRole).value<LockFinding>().lock);
    });
    m_bottomTabs = new QTabWidget(this);
    m_bottomTabs->setAccessibleName(tr("Event log, problems, charts and clients"));
    m_bottomTabs->addTab(m_eventView, tr("Event log (newest first)"));
    m_bottomTabs->addTab(m_findingView, tr("Problems"));
    m_bottomTabs->setTabToolTip(1, tr("The stuck-lock doctor: no TTL, watchdogs held too long, dead waiters and "
                                      "readers, waiters without holder, deadlocks. Double-click to select the lock."));
    main->addWidget(m_bottomTabs);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 1);
    main->setSizes({560, 220});
    setCentralWidget(main);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter: lock name, glob, client id or thread  Ctrl+F"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(320);
    m_filter->setToolTip(tr("A Redis glob (* ? [abc]) matches whole lock names; any other text matches part of a "
                            "name, or a holder, reader or waiter by client id (or its first 4+ characters), "
                            "clientId:threadId or thread id"));
    m_filter->setAccessibleName(tr("Filter locks"));
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterText(text);
        updateCount();
    });

    m_modeLabel = new QLabel(this);
    m_serverLabel = new QLabel(m_options.endpoint.address(), this);
    m_serverLabel->setToolTip(tr("Redis server (credentials are never shown)"));
    m_countLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMinimumWidth(260);
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("scanning…"));
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancelScan = new QPushButton(tr("Stop scan"), this);
    m_cancelScan->setToolTip(tr("Stop scanning for locks (Esc). Locks found so far stay and are watched live"));
    m_cancelScan->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelScan->hide();
    connect(m_cancelScan, &QPushButton::clicked, this,
            [this] { QMetaObject::invokeMethod(m_session, &LockSession::cancelScan, Qt::QueuedConnection); });
    m_enableNotifications = new QPushButton(tr("Enable keyspace notifications"), this);
    m_enableNotifications->setToolTip(tr("Runs CONFIG SET notify-keyspace-events with K, g, h and x added, so "
                                         "LockScope sees changes live instead of polling"));
    m_enableNotifications->hide();
    connect(m_enableNotifications, &QPushButton::clicked, this, [this] {
        // A server-wide setting, for every client of this Redis: asked, then audited (issue 15.9).
        QMessageBox box(QMessageBox::Question, tr("Enable keyspace notifications"),
                        tr("Turn on keyspace notifications on %1?").arg(m_options.endpoint.address()),
                        QMessageBox::NoButton, this);
        box.setObjectName(QStringLiteral("enableNotificationsConfirm"));
        box.setInformativeText(
            tr("LockScope runs CONFIG SET notify-keyspace-events with K, g, h and x added. This changes the "
               "configuration of the whole server, for every client: each write to a hash, each expiry and each "
               "generic command (DEL, EXPIRE…) then also publishes an event, which costs Redis some CPU on busy "
               "servers. It is not saved to redis.conf: a restart undoes it. The change is recorded in the audit "
               "log."));
        QPushButton *enable = box.addButton(tr("Enable"), QMessageBox::AcceptRole);
        QPushButton *cancel = box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(cancel);
        box.exec();
        if (box.clickedButton() != enable)
            return;
        QMetaObject::invokeMethod(m_session, &LockSession::enableNotifications, Qt::QueuedConnection);
    });
    statusBar()->addWidget(m_modeLabel);
    statusBar()->addWidget(m_serverLabel);
    statusBar()->addWidget(m_countLabel);
    m_mastersLabel = new QLabel(this);
    m_mastersLabel->setToolTip(tr("Redis Cluster: masters LockScope reads from now, of those it watches. "
                                  "The Cluster tab shows each one"));
    m_mastersLabel->hide();
    statusBar()->addPermanentWidget(m_mastersLabel); // permanent: a temporary message must not hide it
    statusBar()->addPermanentWidget(m_enableNotifications);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelScan);
    if (m_options.readOnly) {
        auto *ro = new QLabel(tr(" READ-ONLY "), this);
        ro->setStyleSheet(QStringLiteral("background:#555; color:white; border-radius:3px; padding:1px 6px;"));
        ro->setToolTip(tr("Started with --read-only: LockScope writes nothing to Redis"));
        statusBar()->addPermanentWidget(ro);
    }
    onModeChanged(LockMonitor::Mode::Connecting, tr("connecting to %1").arg(m_options.endpoint.address()));
    updateCount();

    // Issue 12: polling re-reads what is on screen and selected every tick, the rest in turn.
    m_priorityTimer.setSingleShot(true);
    m_priorityTimer.setInterval(200);
    m_tableFlush.setSingleShot(true);
    m_tableFlush.setInterval(200);
    connect(&m_tableFlush, &QTimer::timeout, this, &MainWindow::flushTableBuffer);
    connect(&m_priorityTimer, &QTimer::timeout, this, &MainWindow::sendPriorityLocks);
    auto priorityChanged = [this] { m_priorityTimer.start(); };
    connect(m_lockView->verticalScrollBar(), &QScrollBar::valueChanged, this, priorityChanged);
    connect(m_lockView->selectionModel(), &QItemSelectionModel::selectionChanged, this, priorityChanged);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, priorityChanged);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, priorityChanged);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, priorityChanged);
    connect(m_lockView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateDetail();
        updateActions();
    });
}

void MainWindow::buildActions()
{
    const bool writable = !m_options.readOnly;
    m_refreshAction = new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Refresh"), this);
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    m_refreshAction->setToolTip(tr("Scan for locks again (F5)"));
    connect(m_refreshAction, &QAction::triggered, this, [this] {
        m_userScan = true;
        QMetaObject::invokeMethod(m_session, &LockSession::refresh, Qt::QueuedConnection);
    });

    m_acquireAction = new QAction(style()->standardIcon(QStyle::SP_DialogApplyButton), tr("&Acquire…"), this);
    m_acquireAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_N));
    m_acquireAction->setToolTip(tr("Take a lock as LockScope's own Redisson client (Ctrl+N)"));
    connect(m_acquireAction, &QAction::triggered, this, &MainWindow::acquire);
    m_renewAction = new QAction(tr("Re&new"), this);
    m_renewAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_renewAction->setToolTip(tr("Reset the TTL of a lock LockScope holds (Ctrl+R)"));
    connect(m_renewAction, &QAction::triggered, this, &MainWindow::renew);
    m_releaseAction = new QAction(tr("Re&lease"), this);
    m_releaseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_releaseAction->setToolTip(tr("Unlock once a lock LockScope holds; waiters are told on full release (Ctrl+L)"));
    connect(m_releaseAction, &QAction::triggered, this, &MainWindow::release);
    m_forceUnlockAction = new QAction(style()->standardIcon(QStyle::SP_MessageBoxCritical), tr("&Force unlock…"), this);
    m_forceUnlockAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Delete));
    m_forceUnlockAction->setToolTip(tr("Delete any lock and wake its waiters, after a confirmation (Ctrl+Shift+Del)"));
    connect(m_forceUnlockAction, &QAction::triggered, this, &MainWindow::forceUnlock);
    m_enableNotificationsAction = new QAction(tr("Enable keyspace &notifications"), this);
    m_enableNotificationsAction->setEnabled(false);
    connect(m_enableNotificationsAction, &QAction::triggered, m_enableNotifications, &QPushButton::click);
    auto *findAction = new QAction(tr("&Filter"), this);
    findAction->setShortcut(QKeySequence::Find);
    connect(findAction, &QAction::triggered, this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    addAction(findAction);

    for (QAction *a :
         {m_acquireAction, m_renewAction, m_releaseAction, m_forceUnlockAction, m_enableNotificationsAction})
        a->setVisible(writable);

    // Harmless actions on the left; the destructive one alone on the far right (never next to Refresh).
    auto *tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(m_refreshAction);
    tb->addWidget(m_filter);
    if (writable) {
        tb->addSeparator();
        tb->addAction(m_acquireAction);
        tb->addAction(m_renewAction);
        tb->addAction(m_releaseAction);
        auto *spacer = new QWidget(tb);
        spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
        tb->addWidget(spacer);
        tb->addAction(m_forceUnlockAction);
    }

    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *connectAction = file->addAction(tr("&Connect…"), this, &MainWindow::connectRequested);
    connectAction->setShortcut(QKeySequence::Open);
    connectAction->setToolTip(tr("Open another connection (saved profiles, recent connections) in a new window"));
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_refreshAction);
    view->addAction(findAction);
    view->addAction(m_enableNotificationsAction);
    view->addSeparator();
    QAction *redlock = view->addAction(tr("&RedLock view…"), this, &MainWindow::openRedLockView);
    redlock->setShortcut(QKeySequence(tr("Ctrl+Shift+R")));
    redlock->setToolTip(tr("One lock name on several independent servers: each server's holder and TTL, and "
                           "whether a quorum (N/2 + 1) agrees"));
    if (writable) {
        QMenu *lock = menuBar()->addMenu(tr("&Lock"));
        lock->addAction(m_acquireAction);
        lock->addAction(m_renewAction);
        lock->addAction(m_releaseAction);
        lock->addSeparator();
        lock->addAction(m_forceUnlockAction);
    }
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        ShortcutsDialog dialog(ShortcutsDialog::actionsWithShortcuts(this), this);
        dialog.exec();
    });
    keys->setShortcut(QKeySequence::HelpContents);
    keys->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    help->addAction(tr("&About LockScope"), this, [this] {
        QMessageBox::about(this, tr("About LockScope"),
                           tr("<b>LockScope %1</b><br>See and act on Redisson distributed locks in Redis.<br>"
                              "Your client id in this session: <code>%2</code><br>GPL-3.0-or-later.")
                               .arg(QApplication::applicationVersion(), m_clientId));
    });

    connect(m_findingView, &QWidget::customContextMenuRequested, this, [this, writable](const QPoint &pos) {
        const QModelIndex idx = m_findingView->indexAt(pos);
        if (!idx.isValid())
            return;
        const LockFinding f = idx.data(FindingModel::FindingRole).value<LockFinding>();
        QMenu menu(this);
        menu.addAction(tr("Select %1").arg(f.lock), this, [this, f] { selectLock(f.lock); });
        menu.addAction(tr("Copy as JSON"), this, [f] {
            QApplication::clipboard()->setText(
                QString::fromUtf8(QJsonDocument(f.toJson()).toJson(QJsonDocument::Indented)));
        });
        if (writable && f.code == QLatin1String("waiters_without_holder") && !m_lockModel->snapshot(f.lock))
            menu.addAction(tr("Wake the waiting clients…"), this, [this, f] { wakeRepair(f.lock); });
        menu.exec(m_findingView->viewport()->mapToGlobal(pos));
    });
    connect(m_lockView, &QWidget::customContextMenuRequested, this, [this, writable](const QPoint &pos) {
        QMenu menu(this);
        const QString name = selectedLockName();
        if (!name.isEmpty())
            menu.addAction(tr("Copy lock name"), this, [name] { QApplication::clipboard()->setText(name); });
        if (writable) {
            menu.addAction(m_acquireAction);
            menu.addAction(m_renewAction);
            menu.addAction(m_releaseAction);
            const LockSnapshot *s = m_lockModel->snapshot(name);
            if (s) {
                QMenu *repair = menu.addMenu(tr("Repair"));
                QAction *ttl = repair->addAction(tr("Set a TTL…"), this, &MainWindow::setTtlRepair);
                ttl->setEnabled(s->exists && s->pttlMs == -1);
                ttl->setToolTip(tr("Lets the holder finish, but a dead holder no longer blocks the lock forever"));
                QAction *waiter = repair->addAction(tr("Remove a waiter…"), this, &MainWindow::removeWaiterRepair);
                waiter->setEnabled(!s->waiters.isEmpty() || !s->timeoutSet.isEmpty());
                QAction *reader = repair->addAction(tr("Remove a dead reader…"), this, &MainWindow::removeReaderRepair);
                reader->setEnabled(s->kind == LockKind::ReadWriteLock);
                repair->setToolTipsVisible(true);
            }
            menu.addSeparator();
            menu.addAction(m_forceUnlockAction);
        }
        menu.exec(m_lockView->viewport()->mapToGlobal(pos));
    });
    updateActions();
}

void MainWindow::showProblems()
{
    m_bottomTabs->setCurrentWidget(m_findingView);
}

bool MainWindow::showBottomTab(const QString &name)
{
    for (int i = 0; i < m_bottomTabs->count(); ++i) {
        if (!name.isEmpty() && m_bottomTabs->tabText(i).startsWith(name, Qt::CaseInsensitive)) {
            m_bottomTabs->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

void MainWindow::buildCharts()
{
    // They draw m_history and follow the selected lock; each redraws at most a few times a second
    // (HistoryChart coalesces historyChanged into frames), and only while its tab is shown. In a
    // replay, "now" is the replay position.
    m_ttlChart = new TtlChart(this);
    m_timeline = new TimelineWidget(this);
    m_contention = new ContentionView(this);
    m_timeline->setFilterModel(m_proxy); // lanes follow the table's filter
    const auto clock = [this] { return m_player ? m_player->positionMs() : QDateTime::currentMSecsSinceEpoch(); };
    for (HistoryChart *chart : std::initializer_list<HistoryChart *>{m_ttlChart, m_timeline, m_contention}) {
        chart->setHistory(&m_history);
        chart->setClock(clock);
        connect(this, &MainWindow::historyChanged, chart, &HistoryChart::historyUpdated);
        connect(chart, &HistoryChart::lockActivated, this, &MainWindow::selectLock);
    }
    m_bottomTabs->setTabToolTip(m_bottomTabs->addTab(m_ttlChart, tr("TTL chart")),
                                tr("TTL of the selected lock over time: a watchdog's saw-tooth, acquire/renew/release "
                                   "markers, and a warning when an expected renewal does not come"));
    m_bottomTabs->setTabToolTip(m_bottomTabs->addTab(m_timeline, tr("Timeline")),
                                tr("One lane per lock: who held it when (one colour per holder) and who waited; "
                                   "wheel to zoom, drag to pan, hover for the state at that instant"));
    m_bottomTabs->setTabToolTip(m_bottomTabs->addTab(m_contention, tr("Contention")),
                                tr("Held locks and waiters over time, hold and wait time histograms, longest held and "
                                   "most contended locks"));
    connect(m_lockView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QString name = selectedLockName();
        if (name.isEmpty())
            return; // a lock that expired leaves the table: keep charting it (its end is the interesting part)
        for (HistoryChart *chart : std::initializer_list<HistoryChart *>{m_ttlChart, m_timeline, m_contention})
            chart->setLock(name);
    });
    // Charts need room: the first time one is opened, give the bottom pane at least 45 % of the height.
    connect(m_bottomTabs, &QTabWidget::currentChanged, this, [this, grown = false](int) mutable {
        if (grown || !qobject_cast<HistoryChart *>(m_bottomTabs->currentWidget()))
            return;
        grown = true;
        QTimer::singleShot(0, this, [this] {
            auto *split = qobject_cast<QSplitter *>(m_bottomTabs->parentWidget());
            const QList<int> sizes = split ? split->sizes() : QList<int>();
            const int total = sizes.size() == 2 ? sizes.at(0) + sizes.at(1) : 0;
            if (total > 0 && sizes.at(1) < total * 45 / 100)
                split->setSizes({total - total * 45 / 100, total * 45 / 100});
        });
    });
}

void MainWindow::buildClientsTab()
{
    // Issue 15.4: who holds and waits for what, per client id, with the operator's labels.
    m_clients = new ClientsView(
        m_lockModel, ClientLabels::connectionKey(m_options.endpoint.address(), m_options.endpoint.db()), nullptr, this);
    m_bottomTabs->setTabToolTip(m_bottomTabs->addTab(m_clients, tr("Clients")),
                                tr("Each client id with what it holds and waits for; labels you give ids are shown "
                                   "everywhere"));
    connect(m_clients, &ClientsView::labelsChanged, this, &MainWindow::setActorNames);
    connect(m_clients, &ClientsView::showLocksOf, this, [this](const QString &clientId) {
        m_filter->setText(clientId);
        m_lockView->setFocus();
    });
    if (m_clients->hasLabels())
        setActorNames(m_clients->actorNames());
}

void MainWindow::sendPriorityLocks()
{
    QStringList names;
    const int top = qMax(0, m_lockView->rowAt(0));
    int bottom = m_lockView->rowAt(m_lockView->viewport()->height() - 1);
    if (bottom < 0)
        bottom = qMin(m_proxy->rowCount() - 1, top + 100);
    for (int r = top; r <= bottom && r < m_proxy->rowCount(); ++r)
        names << m_proxy->index(r, LockTableModel::NameColumn).data(Qt::DisplayRole).toString();
    const QString selected = selectedLockName();
    if (!selected.isEmpty() && !names.contains(selected))
        names << selected;
    if (names == m_priorityNames)
        return;
    m_priorityNames = names;
    QMetaObject::invokeMethod(
        m_session, [session = m_session, names] { session->setPriorityLocks(names); }, Qt::QueuedConnection);
}

QString MainWindow::selectedLockName() const
{
    const QModelIndexList rows = m_lockView->selectionModel()->selectedRows(LockTableModel::NameColumn);
    // The snapshot's name, not the displayed text: a name that is not UTF-8 is displayed escaped.
    return rows.isEmpty() ? QString() : rows.first().data(LockTableModel::SnapshotRole).value<LockSnapshot>().name;
}

void MainWindow::selectLock(const QString &name)
{
    const int row = m_lockModel->rowOf(name);
    if (row < 0)
        return;
    const QModelIndex idx = m_proxy->mapFromSource(m_lockModel->index(row, 0));
    if (idx.isValid())
        m_lockView->selectRow(idx.row());
}

qint64 MainWindow::ownThreadOfSelected() const
{
    const LockSnapshot *s = m_lockModel->snapshot(selectedLockName());
    if (!s)
        return -1;
    for (const auto &h : s->holders) {
        if (h.clientId == m_clientId)
            return h.threadId.toLongLong();
    }
    return -1;
}

void MainWindow::updateActions()
{
    if (m_player || !m_acquireAction)
        return; // a replay writes nothing: its actions stay off; before buildActions(): none yet
    const QString name = selectedLockName();
    // Writes need a server that answers (issue 15.1: they stayed enabled after it died).
    const bool connected = m_mode == LockMonitor::Mode::Live || m_mode == LockMonitor::Mode::Polling;
    const bool own = ownThreadOfSelected() >= 0;
    m_renewAction->setEnabled(connected && own);
    m_releaseAction->setEnabled(connected && own);
    m_forceUnlockAction->setEnabled(connected && !name.isEmpty());
    m_acquireAction->setEnabled(connected);
    const QString offline = tr("Not connected: LockScope writes to Redis only while it can reach it");
    for (QAction *a : {m_acquireAction, m_forceUnlockAction})
        a->setStatusTip(connected ? QString() : offline);
    m_renewAction->setStatusTip(own ? QString() : tr("Only locks LockScope itself holds can be renewed"));
}

void MainWindow::updateDetail()
{
    const LockSnapshot *s = m_lockModel->snapshot(selectedLockName());
    m_detail->setSnapshot(s ? *s : LockSnapshot());
}

void MainWindow::updateCount()
{
    const int total = m_lockModel->rowCount();
    const int shown = m_proxy->rowCount();
    m_countLabel->setText(shown == total
                              ? tr("%n lock(s)", nullptr, total)
                              : tr("%1 of %2 locks match \"%3\"").arg(shown).arg(total).arg(m_proxy->filterText()));
}

void MainWindow::onLocksUpdated(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    const qint64 now = m_player ? m_player->positionMs() : QDateTime::currentMSecsSinceEpoch();
    if (!m_player && (!changed.isEmpty() || !removed.isEmpty()))
        m_lastDataMs = QDateTime::currentMSecsSinceEpoch();
    if (m_recorder)
        m_recorder->recordLocks(changed, removed, now);
    // Removals before changes, as LockTableModel::applyBatch applies a batch.
    for (const auto &name : removed)
        m_history.addRemoval(name, now);
    for (const auto &s : changed)
        m_history.addSnapshot(s, now);
    if (m_replayDoctor) {
        for (const auto &name : removed)
            m_replayDoctor->forget(name);
        for (const auto &s : changed)
            m_replayDoctor->observe(s);
    }
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

void MainWindow::flushTableBuffer()
{
    if (m_tableBuffer.isEmpty())
        return;
    QVector<LockSnapshot> changed;
    QStringList removed;
    m_tableBuffer.take(&changed, &removed);
    applyToTable(changed, removed);
#ifdef __GLIBC__
    // A big merged batch leaves megabytes of freed snapshot copies in malloc's free lists; give
    // them back so the resident size follows what is kept (issue 12: flat memory).
    if (changed.size() + removed.size() >= LockTableModel::kBulkInsertRows)
        QTimer::singleShot(0, this, [] { malloc_trim(0); });
#endif
}

void MainWindow::applyToTable(const QVector<LockSnapshot> &changed, const QStringList &removed)
{
    const QString selected = selectedLockName();
    m_lockModel->applyBatch(changed, removed);
    if (!selected.isEmpty() && selectedLockName().isEmpty() && !removed.contains(selected))
        selectLock(selected); // a bulk insert resets the model, which drops the selection
    if (!selected.isEmpty() && removed.contains(selected)) {
        // Issue 15.3: the selection goes with its lock (released, expired, force-unlocked). The
        // view would move it to the next row, whose Force unlock… would then be one click away
        // while the operator still reads the first lock.
        m_lockView->selectionModel()->clearSelection();
        m_lockView->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::Clear);
        const QString said = m_outcome.lastSentence(selected); // the outcome of an action on it stays readable
        statusBar()->showMessage(
            said.isEmpty() ? tr("%1 is no longer held (released, expired or force-unlocked): nothing is selected")
                                 .arg(DisplayText::escaped(selected))
                           : QStringLiteral("✔ ") + said + tr("; nothing is selected"),
            said.isEmpty() ? 10000 : 30000);
        updateDetail();
    }
    updateCount();
    if (m_clusterPanel && !m_clusterCountsPending) { // per-master lock counts, at most 4 times a second
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
    updateActions();
}

void MainWindow::onEvents(const QVector<LockEvent> &events)
{
    m_eventModel->append(events);
    m_history.addEvents(events);
    if (m_recorder)
        m_recorder->recordEvents(events);
    emit historyChanged();
}

void MainWindow::onModeChanged(LockMonitor::Mode mode, const QString &detail)
{
    m_mode = mode;
    emit connectionModeChanged(mode);
    m_modeLabel->setText(QStringLiteral("<span style='color:%1'>●</span> %2")
                             .arg(StatusColours::mode(mode).name(), LockMonitor::modeName(mode)));
    m_modeLabel->setToolTip(detail);
    if (mode == LockMonitor::Mode::Disconnected || mode == LockMonitor::Mode::Polling)
        statusBar()->showMessage(detail, 15000);
    if (m_banner && !m_player)
        m_banner->setState(mode, m_options.endpoint.address(), detail, m_lastDataMs);
    updateActions(); // write actions wait for a connection
    if (mode == LockMonitor::Mode::Disconnected && !m_player && !m_authenticationAsked &&
        ConnectionBanner::isAuthenticationProblem(detail)) {
        m_authenticationAsked = true;
        emit authenticationNeeded(detail);
    }
}

void MainWindow::onProgress(qint64 scanned, qint64 found, bool finished, qint64 approxTotalKeys)
{
    // The bar is for scans someone waits for: the first one and those asked for with Refresh.
    // The background rediscoveries of polling run silently (the status bar says polling).
    const bool foreground = !m_initialData || m_userScan;
    if (finished)
        m_userScan = false;
    m_progress->setVisible(!finished && foreground);
    m_cancelScan->setVisible(!finished && foreground);
    if (approxTotalKeys > 0) {
        // Scaled to thousands: QProgressBar takes ints, keyspaces reach billions.
        m_progress->setRange(0, int(qMin<qint64>(approxTotalKeys / 1000 + 1, std::numeric_limits<int>::max())));
        m_progress->setValue(int(qMin<qint64>(scanned, approxTotalKeys) / 1000));
        m_progress->setFormat(tr("scanned %1 of ~%2 keys, %3 locks")
                                  .arg(DisplayText::compactCount(qMin(scanned, approxTotalKeys)),
                                       DisplayText::compactCount(approxTotalKeys), DisplayText::compactCount(found)));
    } else {
        m_progress->setRange(0, 0); // total unknown (DBSIZE refused): a busy bar with the counts
        m_progress->setFormat(
            tr("scanned %1 keys, %2 locks")
                .arg(DisplayText::compactCount(qMax<qint64>(0, scanned)), DisplayText::compactCount(found)));
    }
    m_progress->setToolTip(tr("SCAN in steps sized to stay under a millisecond each; Esc stops it"));
    if (finished && !m_initialData) {
        // Let the reads queued by the scan land first.
        QTimer::singleShot(300, this, [this] {
            if (m_initialData)
                return;
            m_initialData = true;
            m_lockModel->setInitialReadDone(); // holders seen from now on are timed from their arrival
            // Nothing is pre-selected (issue 15.3): a selection is always the operator's own.
            emit initialDataArrived();
        });
    }
}

void MainWindow::onActionFinished(const QString &action, const QString &lock, bool ok, const QString &message,
                                  const QString &outcome)
{
    // What happened, to whom (issue 15.3): "orders:42 was force-unlocked (…); 1 waiter woken".
    const QString said = m_outcome.sentence(action, lock, ok, outcome, message);
    statusBar()->showMessage((ok ? QStringLiteral("✔ ") : QStringLiteral("✖ ")) + said, 30000);
    if (!ok && action == QLatin1String("force_unlock"))
        QMessageBox::warning(this, tr("Force unlock"), message);
}

void MainWindow::onClusterNodes(const QVector<ClusterNodeStatus> &nodes)
{
    if (!m_clusterPanel) {
        // Cluster mode: a node column in the table, a Cluster tab, the masters in the status bar.
        m_clusterPanel = new ClusterTopologyPanel(this);
        m_bottomTabs->setTabToolTip(m_bottomTabs->addTab(m_clusterPanel, tr("Cluster")),
                                    tr("Redis Cluster: masters, replicas, hash slot ranges and how LockScope reads "
                                       "each master"));
        m_lockView->setColumnHidden(LockTableModel::NodeColumn, false);
        // Next to the name: which master serves the lock matters before who holds it there.
        QHeaderView *header = m_lockView->horizontalHeader();
        header->moveSection(header->visualIndex(LockTableModel::NodeColumn), 1);
        m_lockView->setColumnWidth(LockTableModel::NodeColumn, 190);
        m_lockView->setColumnWidth(
            LockTableModel::HolderColumn,
            qMin(m_lockView->columnWidth(LockTableModel::HolderColumn), 300)); // keep the TTL in view
    }
    m_lockModel->setClusterNodes(nodes);
    m_clusterPanel->setNodes(nodes);
    updateClusterLockCounts();
    const int live = m_clusterPanel->liveMasters();
    const bool allLive = live == nodes.size();
    m_mastersLabel->setText(
        QStringLiteral("<span style='color:%1'>●</span> ")
            .arg(StatusColours::mode(allLive ? LockMonitor::Mode::Live : LockMonitor::Mode::Disconnected).name()) +
        tr("%1 of %2 masters live").arg(live).arg(nodes.size()));
    if (m_mastersLabel->isHidden())
        m_mastersLabel->show();
}

void MainWindow::updateClusterLockCounts()
{
    if (!m_clusterPanel)
        return;
    QHash<QString, int> counts;
    for (int r = 0; r < m_lockModel->rowCount(); ++r)
        ++counts[m_lockModel->nodeOf(m_lockModel->index(r, LockTableModel::NameColumn).data().toString())];
    m_clusterPanel->setLockCounts(counts);
}

RedLockDialog *MainWindow::openRedLockView()
{
    if (!m_redLockDialog) {
        m_redLockDialog = new RedLockDialog(this);
        m_redLockDialog->setAttribute(Qt::WA_DeleteOnClose, false);
    }
    m_redLockDialog->show();
    m_redLockDialog->raise();
    return m_redLockDialog;
}

void MainWindow::diagnoseReplay()
{
    if (!m_replayDoctor || !m_player)
        return;
    QHash<QString, LockSnapshot> locks;
    for (int r = 0; r < m_lockModel->rowCount(); ++r) {
        const auto s = m_lockModel->index(r, 0).data(LockTableModel::SnapshotRole).value<LockSnapshot>();
        locks.insert(s.name, s);
    }
    onFindings(m_replayDoctor->diagnose(locks, m_player->clockMs()));
}

void MainWindow::onFindings(const QVector<LockFinding> &findings)
{
    m_findingModel->setFindings(findings);
    QHash<QString, int> severity;
    for (const auto &f : findings)
        for (const auto &lock : f.locks.isEmpty() ? QStringList{f.lock} : f.locks)
            severity[lock] = qMax(severity.value(lock, -1), int(f.severity));
    m_lockModel->setSeverities(severity);
    const int serious = m_findingModel->countAtLeast(LockFinding::Severity::Warning);
    m_bottomTabs->setTabText(1, serious > 0 ? tr("Problems (%1)").arg(serious) : tr("Problems"));
    m_bottomTabs->setTabIcon(
        1,
        serious > 0 ? FindingModel::severityIcon(LockFinding::Severity(LockDoctor::worstSeverity(findings))) : QIcon());
}

bool MainWindow::auditLogWritable()
{
    // Every write is recorded first (LockSession refuses it otherwise): say so before the operator
    // confirms anything. A file-system check only, no Redis.
    const QString problem = m_session ? m_session->auditProblem() : QString();
    if (problem.isEmpty())
        return true;
    QMessageBox::critical(this, tr("Audit log not writable"),
                          tr("LockScope records every write in its audit log before it acts, and %1.\n\n"
                             "Nothing was sent to Redis. Make the file writable, or start LockScope with "
                             "--audit-log PATH.")
                              .arg(problem));
    return false;
}

bool MainWindow::confirmRepair(const QString &title, const QString &text)
{
    if (!auditLogWritable())
        return false;
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Cancel, this);
    QPushButton *go = box.addButton(tr("Repair"), QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.setInformativeText(tr("Done only if the lock is still as shown; recorded in the audit log."));
    box.exec();
    return box.clickedButton() == go;
}

void MainWindow::setTtlRepair()
{
    const LockSnapshot *s = m_lockModel->snapshot(selectedLockName());
    if (!s)
        return;
    bool ok = false;
    const int ttl = QInputDialog::getInt(
        this, tr("Set a TTL"),
        tr("%1 has no TTL. Give it one of (ms); its holder can still renew or release it:").arg(s->name), 30000, 1000,
        24 * 3600 * 1000, 1000, &ok);
    if (!ok || !confirmRepair(tr("Set a TTL"),
                              tr("Set a TTL of %1 ms on %2 (held by %3)?").arg(ttl).arg(s->name, s->holderSummary())))
        return;
    const QString name = s->name;
    const QString confirmed = s->stateFingerprint();
    QMetaObject::invokeMethod(
        m_session, [session = m_session, name, ttl, confirmed] { session->setTtl(name, ttl, confirmed); },
        Qt::QueuedConnection);
}

void MainWindow::removeWaiterRepair()
{
    const LockSnapshot *s = m_lockModel->snapshot(selectedLockName());
    if (!s)
        return;
    QStringList fields;
    for (const auto &w : s->waiters)
        fields << w.field;
    for (const auto &t : s->timeoutSet)
        if (!fields.contains(t.first))
            fields << t.first;
    bool ok = false;
    const QString field = QInputDialog::getItem(
        this, tr("Remove a waiter"), tr("Waiter to remove from the queue and timeout set of %1:").arg(s->name), fields,
        0, false, &ok);
    if (!ok || !confirmRepair(
                   tr("Remove a waiter"),
                   tr("Remove %1 from %2? Waiters behind it move up, as when a waiter gives up.").arg(field, s->name)))
        return;
    const QString name = s->name;
    QMetaObject::invokeMethod(
        m_session, [session = m_session, name, field] { session->removeWaiter(name, field, 0); }, Qt::QueuedConnection);
}

void MainWindow::removeReaderRepair()
{
    const LockSnapshot *s = m_lockModel->snapshot(selectedLockName());
    if (!s)
        return;
    QStringList dead;
    for (const auto &h : s->holders)
        if (h.mode == QLatin1String("read") && h.holdTtlsMs.contains(-2))
            dead << h.field;
    if (dead.isEmpty()) {
        QMessageBox::information(this, tr("Remove a dead reader"),
                                 tr("%1 has no reader whose rwlock_timeout keys are gone.").arg(s->name));
        return;
    }
    bool ok = false;
    const QString field = QInputDialog::getItem(this, tr("Remove a dead reader"), tr("Dead reader of %1:").arg(s->name),
                                                dead, 0, false, &ok);
    if (!ok ||
        !confirmRepair(tr("Remove a dead reader"), tr("Remove the read holds of %1 from %2?").arg(field, s->name)))
        return;
    const QString name = s->name;
    QMetaObject::invokeMethod(
        m_session, [session = m_session, name, field] { session->removeReader(name, field); }, Qt::QueuedConnection);
}

void MainWindow::wakeRepair(const QString &name)
{
    if (!confirmRepair(tr("Wake waiters"),
                       tr("Publish the unlock message of %1 so the clients waiting for it retry?").arg(name)))
        return;
    QMetaObject::invokeMethod(
        m_session, [session = m_session, name] { session->wake(name); }, Qt::QueuedConnection);
}

void MainWindow::acquire()
{
    if (!auditLogWritable())
        return;
    // The dialog offers the kinds the dashboard's data allows; the session checks again on a
    // fresh read just before it writes (and refuses if the lock changed kind meanwhile).
    AcquireDialog dialog(
        selectedLockName(),
        [this](const QString &name) -> std::optional<LockSnapshot> {
            const LockSnapshot *s = m_lockModel->snapshot(name);
            return s ? std::optional<LockSnapshot>(*s) : std::nullopt;
        },
        this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString name = dialog.lockName();
    const qint64 thread = dialog.threadId();
    const qint64 lease = dialog.leaseMs();
    const qint64 wait = dialog.waitMs();
    const AcquireKind kind = dialog.kind();
    QMetaObject::invokeMethod(
        m_session, [s = m_session, name, thread, lease, wait, kind] { s->acquire(name, thread, lease, wait, kind); },
        Qt::QueuedConnection);
}

void MainWindow::renew()
{
    const QString name = selectedLockName();
    const qint64 thread = ownThreadOfSelected();
    if (thread < 0)
        return;
    QMetaObject::invokeMethod(
        m_session, [s = m_session, name, thread] { s->renew(name, thread); }, Qt::QueuedConnection);
}

void MainWindow::release()
{
    const QString name = selectedLockName();
    const qint64 thread = ownThreadOfSelected();
    if (thread < 0)
        return;
    QMetaObject::invokeMethod(
        m_session, [s = m_session, name, thread] { s->release(name, thread); }, Qt::QueuedConnection);
}

void MainWindow::forceUnlock()
{
    const LockSnapshot *s = m_lockModel->snapshot(selectedLockName());
    if (!s || !auditLogWritable())
        return;
    ForceUnlockDialog dialog(*s, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString name = s->name;
    const QString confirmed = s->stateFingerprint(); // what the operator saw and confirmed
    m_outcome.expect(QStringLiteral("force_unlock"), *s);
    QMetaObject::invokeMethod(
        m_session, [session = m_session, name, confirmed] { session->forceUnlock(name, confirmed); },
        Qt::QueuedConnection);
}

void MainWindow::setActorNames(const ActorNames &names)
{
    m_lockModel->setActorNames(names);
    m_proxy->setActorNames(names);
    m_outcome.setActorNames(names);
    m_detail->setActorNames(names);
    m_eventModel->setActorNames(names);
    m_timeline->setActorNames(names);
    m_ttlChart->setActorNames(names);
    updateDetail();
}

} // namespace lockscope
