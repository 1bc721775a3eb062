#pragma once

#include <QDialog>
#include <QList>

class QAction;
class QTableWidget;

namespace lockscope
{

/**
 * Help > Keyboard shortcuts, so keyboard users can find them: every shortcut of a window, generated from its actions
 * (so a new action with a shortcut is listed without editing this dialog), then the keys that are
 * not actions (Tab between panes, arrows in the table, Enter and Escape in confirmations).
 * Hidden actions (read-only mode) are left out.
 */
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);

    /** The rows shown: "what" and "keys" (tests). */
    QList<QPair<QString, QString>> rows() const;

    /** The actions of `window` and its children that have a shortcut, once each, visible ones only. */
    static QList<QAction *> actionsWithShortcuts(QWidget *window);

private:
    QTableWidget *m_table = nullptr;
};

} // namespace lockscope
