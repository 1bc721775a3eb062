#include "servertabswindow.h"

#include "common/screenfit.h"
#include "common/statuscolours.h"
#include "dashboardmenubar.h"
#include "locks/redlockdialog.h"
#include "locks/serverview.h"
#include "mainwindow.h"

#include <QAction>
#include <QLayout>
#include <QPainter>
#include <QPixmap>
#include <QTabWidget>

namespace lockscope
{

namespace
{
QIcon stateDot(WatchMode mode)
{
    const QColor color = StatusColours::mode(mode);
    QPixmap p(12, 12);
    p.fill(Qt::transparent);
    QPainter painter(&p);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawEllipse(1, 1, 10, 10);
    return QIcon(p);
}
} // namespace

ServerTabsWindow::ServerTabsWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Several servers — LockScope"));
    ScreenFit::apply(this, QSize(1400, 860));
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("serverTabs"));
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setDocumentMode(true);
    setCentralWidget(m_tabs);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int i) {
        QWidget *w = m_tabs->widget(i);
        m_tabs->removeTab(i);
        delete w; // stops its session and closes its connections
        if (m_tabs->count() == 0)
            close();
    });
    auto *next = new QAction(this);
    next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Tab));
    connect(next, &QAction::triggered, this,
            [this] { m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % qMax(1, m_tabs->count())); });
    auto *prev = new QAction(this);
    prev->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab));
    connect(prev, &QAction::triggered, this, [this] {
        m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % qMax(1, m_tabs->count()));
    });
    auto *closeTab = new QAction(this);
    closeTab->setShortcut(QKeySequence(tr("Ctrl+W")));
    connect(closeTab, &QAction::triggered, this, [this] {
        if (m_tabs->count() > 0)
            emit m_tabs->tabCloseRequested(m_tabs->currentIndex());
    });
    addActions({next, prev, closeTab});
}

ServerView *ServerTabsWindow::addServer(const LockSession::Options &options, const QString &label)
{
    auto *window = new ServerView(options);
    // Each tab keeps the dashboard's menus (File, View, Lock, Help) over its toolbar.
    auto *menus = new DashboardMenuBar(window, window);
    window->layout()->setMenuBar(menus);
    connect(menus, &DashboardMenuBar::redLockViewRequested, this, [this] {
        if (!m_redLock) {
            m_redLock = new RedLockDialog(this);
            m_redLock->setAttribute(Qt::WA_DeleteOnClose, false);
        }
        m_redLock->show();
        m_redLock->raise();
    });
    const int i =
        m_tabs->addTab(window, stateDot(WatchMode::Connecting), label.isEmpty() ? options.endpoint.address() : label);
    m_tabs->setTabToolTip(
        i, tr("%1%2").arg(options.endpoint.toString(), options.readOnly ? tr(" (read-only)") : QString()));
    connect(window, &ServerView::connectionModeChanged, this,
            [this, window](WatchMode mode) { updateTab(window, mode); });
    window->start();
    return window;
}

void ServerTabsWindow::updateTab(ServerView *window, WatchMode mode)
{
    const int i = m_tabs->indexOf(window);
    if (i >= 0)
        m_tabs->setTabIcon(i, stateDot(mode));
}

int ServerTabsWindow::count() const
{
    return m_tabs->count();
}

ServerView *ServerTabsWindow::server(int index) const
{
    return qobject_cast<ServerView *>(m_tabs->widget(index));
}

} // namespace lockscope
