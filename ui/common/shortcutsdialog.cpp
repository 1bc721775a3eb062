#include "common/shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace lockscope
{

namespace
{
QString plainText(const QAction *a)
{
    QString text = a->text();
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    if (text.endsWith(QStringLiteral("…")))
        text.chop(1);
    return text;
}
} // namespace

QList<QAction *> ShortcutsDialog::actionsWithShortcuts(QWidget *window)
{
    QList<QAction *> out;
    QSet<QAction *> seen;
    QList<QAction *> all = window->actions();
    all += window->findChildren<QAction *>();
    for (QAction *a : all) {
        if (seen.contains(a) || a->shortcuts().isEmpty() || !a->isVisible() || a->text().isEmpty())
            continue;
        seen.insert(a);
        out << a;
    }
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Keyboard shortcuts"));
    QList<QPair<QString, QString>> rows;
    for (const QAction *a : actions) {
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        rows << qMakePair(plainText(a), keys.join(tr(" or ")));
    }
    std::sort(rows.begin(), rows.end());
    // Keys that are not actions.
    rows << qMakePair(tr("Next pane: lock table, detail, bottom tabs (Shift+Tab: back)"), tr("Tab"))
         << qMakePair(tr("Previous or next lock in the table"), tr("Up, Down, Page Up, Page Down"))
         << qMakePair(tr("Confirm a force unlock (only when the typed name matches)"), tr("Enter"))
         << qMakePair(tr("Cancel a dialog or a running scan"), tr("Esc"))
         << qMakePair(tr("Edit the label of a client id (Clients tab)"), tr("F2"));
    m_table = new QTableWidget(rows.size(), 2, this);
    m_table->setAccessibleName(tr("Keyboard shortcuts"));
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setTabKeyNavigation(false);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    for (int i = 0; i < rows.size(); ++i) {
        m_table->setItem(i, 0, new QTableWidgetItem(rows[i].first));
        m_table->setItem(i, 1, new QTableWidgetItem(rows[i].second));
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(560, 460);
}

QList<QPair<QString, QString>> ShortcutsDialog::rows() const
{
    QList<QPair<QString, QString>> out;
    for (int i = 0; i < m_table->rowCount(); ++i)
        out << qMakePair(m_table->item(i, 0)->text(), m_table->item(i, 1)->text());
    return out;
}

} // namespace lockscope
