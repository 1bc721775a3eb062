#include "workshop/workshopprojector.h"

#include "locks/eventlogmodel.h"
#include "locks/lockdetailpanel.h"
#include "locks/locktablemodel.h"
#include "locks/serverstatusbar.h"
#include "locks/serverview.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>

namespace lockscope
{

namespace
{

int rowHeight(const QTableView *v)
{
    return qMax(v->verticalHeader()->defaultSectionSize(), v->fontMetrics().height() + 8);
}

} // namespace

QPalette WorkshopProjector::palette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::WindowText, Qt::white);
    p.setColor(QPalette::Base, Qt::black);
    p.setColor(QPalette::AlternateBase, QColor(0x22, 0x22, 0x22));
    p.setColor(QPalette::Text, Qt::white);
    p.setColor(QPalette::Button, QColor(0x30, 0x30, 0x30));
    p.setColor(QPalette::ButtonText, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0xff, 0xd2, 0x00));
    p.setColor(QPalette::HighlightedText, Qt::black);
    p.setColor(QPalette::ToolTipBase, Qt::black);
    p.setColor(QPalette::ToolTipText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0xb0, 0xb0, 0xb0)); // the filter's hint was black on black
    p.setColor(QPalette::BrightText, QColor(0xff, 0xd2, 0x00));
    p.setColor(QPalette::Link, QColor(0x7f, 0xc8, 0xff));
    p.setColor(QPalette::Light, QColor(0x60, 0x60, 0x60));
    p.setColor(QPalette::Midlight, QColor(0x48, 0x48, 0x48));
    p.setColor(QPalette::Mid, QColor(0x38, 0x38, 0x38));
    p.setColor(QPalette::Dark, QColor(0x20, 0x20, 0x20));
    p.setColor(QPalette::Shadow, Qt::black);
    for (QPalette::ColorRole r : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, QColor(0x90, 0x90, 0x90));
    return p;
}

void WorkshopProjector::arrange(ServerView *views, bool projector)
{
    QTableView *table = views->lockView();
    table->setColumnHidden(LockTableModel::KindColumn, projector);
    table->setColumnHidden(LockTableModel::NodeColumn, true);
    // Projector: the visible columns share the table's width (headers elide), so none is ever
    // scrolled off; the detail leaves out the raw keys (the stage shows them, before and after).
    table->horizontalHeader()->setSectionResizeMode(projector ? QHeaderView::Stretch : QHeaderView::Interactive);
    table->horizontalHeader()->setTextElideMode(Qt::ElideRight);
    views->detailPanel()->setCompact(projector);
    views->eventModel()->setOnDark(projector);
    views->lockModel()->setOnDark(projector);
    views->statusBar()->setVisible(!projector);
    // Every table and its headers in the room's font. Set before the window was first shown
    // (--projector at launch), the headers kept the platform's header font (9 pt offscreen).
    for (QTableView *v : views->findChildren<QTableView *>()) {
        const QFont f = projector ? views->font() : QFont(); // QFont(): inherit again
        v->setFont(f);
        v->horizontalHeader()->setFont(f);
        v->verticalHeader()->setFont(f);
    }

    QTableView *log = nullptr;
    for (QTableView *v : views->findChildren<QTableView *>())
        if (v->objectName() == QLatin1String("eventTable")) // its model is the filter over eventModel()
            log = v;
    if (log) {
        for (int c = 0; c < EventLogModel::DetailColumn; ++c)
            log->resizeColumnToContents(c);
        // Holders are actor names here: the header is the widest thing in that column.
        log->setColumnWidth(EventLogModel::HolderColumn,
                            log->horizontalHeader()->fontMetrics().horizontalAdvance(
                                QCoreApplication::translate("lockscope::EventLogModel", "Holder / waiter")) +
                                24);
    }

    auto *top = qobject_cast<QSplitter *>(table->parentWidget());
    if (!top)
        return;
    top->setOrientation(projector ? Qt::Vertical : Qt::Horizontal);
    if (!projector) {
        top->setSizes({980, 380});
        return;
    }
    // Not shown yet (--projector at launch): the splitters have no height to share, and sizes
    // computed from it would collapse the table. The window arranges again once shown.
    if (!views->isVisible())
        return;
    // The event log keeps kEventRows rows; above it the table as high as its rows (1-3) and the
    // compact detail (holders, waiter queue with deadlines) the rest.
    const int rows = qBound(1, table->model() ? table->model()->rowCount() : 1, 3);
    const int tableHeight =
        table->horizontalHeader()->sizeHint().height() + rows * rowHeight(table) + 2 * table->frameWidth() + 4;
    auto *central = views->mainSplitter();
    if (!central || central->count() < 2) {
        top->setSizes({tableHeight, top->height() - tableHeight});
        return;
    }
    int logHeight = 0;
    if (log) {
        const auto *tabs = qobject_cast<QTabWidget *>(central->widget(1));
        logHeight = (tabs ? tabs->tabBar()->sizeHint().height() : 0) + log->horizontalHeader()->sizeHint().height() +
                    kEventRows * log->verticalHeader()->defaultSectionSize() + 2 * log->frameWidth() + 8;
    }
    const int topHeight = qMax(0, central->height() - logHeight - central->handleWidth());
    central->setSizes({topHeight, logHeight});
    top->setSizes({tableHeight, qMax(0, topHeight - tableHeight - top->handleWidth())});
}

} // namespace lockscope
