#pragma once

#include <QObject>
#include <QString>

class QMainWindow;
class QSettings;

namespace lockscope
{

/**
 * Remembers a window's layout in QSettings, so an operator's
 * arrangement survives a restart: geometry, the sizes of its named
 * splitters, and the column widths and sort column of its named table views, under
 * "windowState/<key>". Restores at construction, saves when the window closes. Column order and
 * hidden columns are not kept (a cluster window shows a node column others must not inherit).
 * Child of the window; GUI thread.
 */
class WindowStateKeeper : public QObject
{
    Q_OBJECT
public:
    /** `settings`: not owned, nullptr = the application's QSettings(). */
    WindowStateKeeper(QMainWindow *window, const QString &key, QSettings *settings = nullptr);

    void restore();
    void save();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QMainWindow *m_window;
    QString m_key;
    QSettings *m_settings;
};

} // namespace lockscope
