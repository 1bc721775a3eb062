#include "common/windowstatekeeper.h"

#include <QEvent>
#include <QHeaderView>
#include <QMainWindow>
#include <QSettings>
#include <QSplitter>
#include <QTableView>

#include <memory>

namespace lockscope
{

namespace
{
/** The application's settings unless `given`. */
class SettingsRef
{
public:
    explicit SettingsRef(QSettings *given) : m_s(given)
    {
        if (!m_s) {
            m_own = std::make_unique<QSettings>();
            m_s = m_own.get();
        }
    }
    QSettings *operator->() const { return m_s; }

private:
    std::unique_ptr<QSettings> m_own;
    QSettings *m_s;
};
} // namespace

WindowStateKeeper::WindowStateKeeper(QMainWindow *window, const QString &key, QSettings *settings)
    : QObject(window), m_window(window), m_key(key), m_settings(settings)
{
    window->installEventFilter(this);
    restore();
}

void WindowStateKeeper::restore()
{
    SettingsRef s(m_settings);
    s->beginGroup(QStringLiteral("windowState/") + m_key);
    const QByteArray geometry = s->value(QStringLiteral("geometry")).toByteArray();
    if (!geometry.isEmpty()) {
        // The operator's own geometry wins over ScreenFit's first guess (which maximizes on a small
        // screen); restoreGeometry() maximizes again if it was saved so.
        m_window->setWindowState(m_window->windowState() & ~Qt::WindowMaximized);
        m_window->restoreGeometry(geometry);
    }
    for (QSplitter *split : m_window->findChildren<QSplitter *>()) {
        if (split->objectName().isEmpty())
            continue;
        const QByteArray state = s->value(QStringLiteral("splitter/") + split->objectName()).toByteArray();
        if (!state.isEmpty())
            split->restoreState(state);
    }
    for (QTableView *view : m_window->findChildren<QTableView *>()) {
        if (view->objectName().isEmpty() || !view->model())
            continue;
        const QString prefix = QStringLiteral("table/") + view->objectName() + QLatin1Char('/');
        const QStringList widths = s->value(prefix + QStringLiteral("widths")).toStringList();
        QHeaderView *header = view->horizontalHeader();
        for (int c = 0; c < widths.size() && c < header->count(); ++c) {
            const int w = widths[c].toInt();
            if (w > 0 && !header->isSectionHidden(c))
                header->resizeSection(c, w);
        }
        if (view->isSortingEnabled() && s->contains(prefix + QStringLiteral("sortColumn"))) {
            const int column = s->value(prefix + QStringLiteral("sortColumn")).toInt();
            if (column >= 0 && column < header->count())
                view->sortByColumn(column, Qt::SortOrder(s->value(prefix + QStringLiteral("sortOrder")).toInt()));
        }
    }
    s->endGroup();
}

void WindowStateKeeper::save()
{
    SettingsRef s(m_settings);
    s->beginGroup(QStringLiteral("windowState/") + m_key);
    s->setValue(QStringLiteral("geometry"), m_window->saveGeometry());
    for (QSplitter *split : m_window->findChildren<QSplitter *>())
        if (!split->objectName().isEmpty())
            s->setValue(QStringLiteral("splitter/") + split->objectName(), split->saveState());
    for (QTableView *view : m_window->findChildren<QTableView *>()) {
        if (view->objectName().isEmpty() || !view->model())
            continue;
        const QString prefix = QStringLiteral("table/") + view->objectName() + QLatin1Char('/');
        QHeaderView *header = view->horizontalHeader();
        QStringList widths;
        for (int c = 0; c < header->count(); ++c)
            widths << QString::number(header->isSectionHidden(c) ? 0 : header->sectionSize(c));
        s->setValue(prefix + QStringLiteral("widths"), widths);
        if (view->isSortingEnabled()) {
            s->setValue(prefix + QStringLiteral("sortColumn"), header->sortIndicatorSection());
            s->setValue(prefix + QStringLiteral("sortOrder"), int(header->sortIndicatorOrder()));
        }
    }
    s->endGroup();
    s->sync();
}

bool WindowStateKeeper::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window && event->type() == QEvent::Close)
        save();
    return QObject::eventFilter(watched, event);
}

} // namespace lockscope
