// The lock table never moves what the operator aims at: typing in the filter keeps the selected
// lock selected while it matches and selects nothing once it does not (never a neighbour), and
// rows are not re-sorted while the pointer is over them.

#include "common/uitheme.h"
#include "locks/locktablemodel.h"
#include "mainwindow.h"

#include "testsupport.h"

#include "demo/redisserverprocess.h"

#include <QAction>
#include <QApplication>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace lockscope;

class TestTableStability : public QObject
{
    Q_OBJECT
private slots:
    void filterNeverMovesTheSelection();
    void themesSwitchThePalette();
};

void TestTableStability::filterNeverMovesTheSelection()
{
    RedisServerProcess server;
    QString error;
    QVERIFY2(server.start(10000, &error), qPrintable(error));
    for (const char *name : {"orders:1", "orders:2", "billing:1"})
        QCOMPARE(lockscope::test::redisCli(server.port(), {QStringLiteral("HSET"), QString::fromLatin1(name),
                                                           QStringLiteral("8743c9c0-7421-469a-addb-44fb92259a1b:1"),
                                                           QStringLiteral("1")})
                     .exitCode,
                 0);
    LockSession::Options options;
    options.endpoint = server.endpoint();
    MainWindow window(options);
    window.resize(1280, 720);
    window.show();
    QSignalSpy ready(&window, &MainWindow::initialDataArrived);
    window.start();
    QVERIFY(ready.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(window.lockModel()->rowCount(), 3, 5000);
    QTableView *view = window.lockView();
    QLineEdit *filter = nullptr;
    for (QLineEdit *e : window.findChildren<QLineEdit *>())
        if (e->placeholderText().startsWith(QStringLiteral("Filter")))
            filter = e;
    QVERIFY(filter);
    auto selected = [view]() -> QString {
        const QModelIndexList rows = view->selectionModel()->selectedRows(LockTableModel::NameColumn);
        return rows.isEmpty() ? QString() : rows.first().data().toString();
    };
    // Select orders:2.
    for (int r = 0; r < view->model()->rowCount(); ++r)
        if (view->model()->index(r, LockTableModel::NameColumn).data().toString() == QLatin1String("orders:2"))
            view->selectRow(r);
    QCOMPARE(selected(), QStringLiteral("orders:2"));
    // A filter that still matches it keeps it; one that does not selects nothing, never a neighbour.
    filter->setText(QStringLiteral("orders"));
    QCOMPARE(selected(), QStringLiteral("orders:2"));
    filter->setText(QStringLiteral("orders:1"));
    QCOMPARE(view->model()->rowCount(), 1);
    QCOMPARE(selected(), QString());
    QVERIFY(!view->selectionModel()->currentIndex().isValid());
    filter->setText(QString());
    QCOMPARE(selected(), QString());

    // The pointer over the rows: no re-sorting until it leaves.
    auto *proxy = qobject_cast<QSortFilterProxyModel *>(view->model());
    QVERIFY(proxy);
    QEvent enter(QEvent::Enter);
    QCoreApplication::sendEvent(view->viewport(), &enter);
    QVERIFY(!proxy->dynamicSortFilter());
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(view->viewport(), &leave);
    QVERIFY(proxy->dynamicSortFilter());
}

void TestTableStability::themesSwitchThePalette()
{
    // View › Theme: dark and light palettes for the whole application, and back to the desktop's.
    UiTheme::use(UiTheme::Theme::Dark);
    QVERIFY(UiTheme::isDark());
    QVERIFY(QApplication::palette().color(QPalette::Base).lightnessF() < 0.5);
    UiTheme::use(UiTheme::Theme::Light);
    QVERIFY(!UiTheme::isDark());
    QCOMPARE(UiTheme::fromName(QStringLiteral("dark")), UiTheme::Theme::Dark);
    QCOMPARE(UiTheme::fromName(QStringLiteral("nonsense")), UiTheme::Theme::System);
    QMenu menu;
    UiTheme::addMenuActions(&menu);
    QCOMPARE(menu.actions().size(), 3);
    QVERIFY(menu.findChild<QAction *>(QStringLiteral("theme_dark")) ||
            menu.actions().at(2)->objectName() == QStringLiteral("theme_dark"));
    UiTheme::use(UiTheme::Theme::System);
}

QTEST_MAIN(TestTableStability)
#include "tst_tablestability.moc"
