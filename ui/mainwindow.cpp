#include "mainwindow.h"

#include "charts/replaybar.h"
#include "common/screenfit.h"
#include "common/windowstatekeeper.h"
#include "dashboardmenubar.h"
#include "locks/bottomtabs.h"
#include "locks/redlockdialog.h"
#include "locks/serverstatusbar.h"

#include "recording/replayplayer.h"

#include <QDateTime>
#include <QLabel>
#include <QToolBar>

namespace lockscope
{

MainWindow::MainWindow(const LockSession::Options &options, QWidget *parent) : QMainWindow(parent)
{
    // Titles end with the application's name: Qt appends the display name to a title that does not
    // end with it, which made "LockScope — url — LockScope".
    setWindowTitle(
        tr("%1%2 — LockScope").arg(options.endpoint.toString(), options.readOnly ? tr(" (read-only)") : QString()));
    ScreenFit::apply(this, QSize(1360, 820)); // smaller on a 1280x720 or 1024x768 screen
    m_view = new ServerView(options, this);
    // The view's toolbar and status bar belong to the window's frame here (in a tab or the
    // workshop they stay inside the view).
    addToolBar(m_view->toolBar());
    setStatusBar(m_view->statusBar());
    setCentralWidget(m_view);
    auto *menus = new DashboardMenuBar(m_view, this);
    setMenuBar(menus);
    connect(menus, &DashboardMenuBar::connectRequested, this, &MainWindow::connectRequested);
    connect(menus, &DashboardMenuBar::redLockViewRequested, this, &MainWindow::openRedLockView);
    connect(m_view, &ServerView::connectRequested, this, &MainWindow::connectRequested);
    connect(m_view, &ServerView::authenticationNeeded, this, &MainWindow::authenticationNeeded);
    connect(m_view, &ServerView::initialDataArrived, this, &MainWindow::initialDataArrived);
}

MainWindow::~MainWindow() = default;

void MainWindow::rememberLayout(const QString &key)
{
    if (!findChild<WindowStateKeeper *>())
        new WindowStateKeeper(this, key);
}

void MainWindow::setConnectionTag(const QString &label, const QColor &color)
{
    const LockSession::Options &options = m_view->options();
    if (label.isEmpty() && !color.isValid() && !options.endpoint.tlsOptions().isInsecure())
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
        insertToolBar(m_view->toolBar(), bar);
        insertToolBarBreak(m_view->toolBar());
    }
    const QColor background = color.isValid() ? color : palette().color(QPalette::Mid);
    const QColor text = background.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
    m_connectionBand->setText(QStringLiteral("<b>%1</b>&nbsp;&nbsp;%2%3%4")
                                  .arg(label.toHtmlEscaped(), options.endpoint.toString().toHtmlEscaped(),
                                       options.readOnly ? tr("&nbsp;&nbsp;· read-only") : QString(),
                                       options.endpoint.tlsOptions().isInsecure()
                                           ? tr("&nbsp;&nbsp;· <b>TLS certificate not verified</b>")
                                           : QString()));
    m_connectionBand->setStyleSheet(QStringLiteral("background:%1; color:%2; padding:4px 10px; font-size:11pt;")
                                        .arg(background.name(), text.name()));
    m_connectionBand->setToolTip(tr("Connection '%1'. The colour tag is set in File > Connect…").arg(label));
    if (!label.isEmpty())
        setWindowTitle(tr("%1 — %2").arg(label, windowTitle()));
}

void MainWindow::attachReplay(ReplayPlayer *player)
{
    const Recording &rec = player->recording();
    setWindowTitle(tr("Replay of %1 (recorded from %2) — LockScope")
                       .arg(rec.header.value(QStringLiteral("server")).toString(),
                            QDateTime::fromMSecsSinceEpoch(rec.header.value(QStringLiteral("started_ms")).toInteger())
                                .toString(Qt::ISODate)));
    addToolBar(new ReplayBar(player, this));
    m_view->attachReplay(player);
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

void MainWindow::showProblems()
{
    m_view->bottomTabs()->showProblems();
}

bool MainWindow::showBottomTab(const QString &name)
{
    return m_view->bottomTabs()->showTab(name);
}

ClusterTopologyPanel *MainWindow::clusterPanel() const
{
    return m_view->bottomTabs()->clusterPanel();
}

TtlChart *MainWindow::ttlChart() const
{
    return m_view->bottomTabs()->ttlChart();
}

TimelineWidget *MainWindow::timeline() const
{
    return m_view->bottomTabs()->timeline();
}

ContentionView *MainWindow::contentionView() const
{
    return m_view->bottomTabs()->contentionView();
}

ClientsView *MainWindow::clientsView() const
{
    return m_view->bottomTabs()->clientsView();
}

} // namespace lockscope
