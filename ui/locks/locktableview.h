#pragma once

#include <QStringList>
#include <QTableView>

namespace lockscope
{

class LockFilterProxy;
class LockTableModel;
class TtlBarDelegate;

/**
 * The lock table of a ServerView: one row per lock through the view's filter proxy, sorted by
 * name, the TTL column drawn by a TtlBarDelegate, single-row selection, Tab leaving the table
 * (so Tab never changes the selected lock), the node column shown only in Redis Cluster mode. Selection by lock name
 * (the snapshot's name, not the displayed, possibly escaped text). GUI thread.
 */
class LockTableView : public QTableView
{
    Q_OBJECT
public:
    /** `proxy` filters and sorts `model` (neither owned). */
    LockTableView(LockTableModel *model, LockFilterProxy *proxy, QWidget *parent = nullptr);

    TtlBarDelegate *ttlDelegate() const { return m_ttlDelegate; }
    /** Empty when nothing is selected. */
    QString selectedLockName() const;
    /** Selects the row of `name` if the filter shows it. */
    void selectLock(const QString &name);
    /** No row selected and no current row (the selected lock went away). */
    void clearLockSelection();
    /** The names of the rows on screen (the first 100 from the top when the viewport has no height). */
    QStringList visibleLockNames() const;
    /** Redis Cluster mode: the node column, next to the name. */
    void showNodeColumn();

private:
    LockTableModel *m_model;
    LockFilterProxy *m_proxy;
    TtlBarDelegate *m_ttlDelegate = nullptr;
};

} // namespace lockscope
