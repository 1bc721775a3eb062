#pragma once

#include "common/actornames.h"

#include "protocol/lockfilter.h"

#include <QSortFilterProxyModel>

namespace lockscope
{

class LockTableModel;

/**
 * The lock table's sorting and filtering (matching names only would leave an operator
 * who arrives with a client id from a stack trace with an empty table). What is typed
 * matches a lock when:
 *  - it is a Redis glob (`*`, `?`, `[`): the whole name matches it (as SCAN MATCH reads it);
 *  - else the name contains it, or it names a holder, reader or waiter as LockFilter's holder text
 *    does (a client id or a prefix of 4+ characters of it, `<clientId>:<threadId>`, a thread id).
 * The source model must be a LockTableModel (snapshots are read without a copy). The base
 * class's filterRegularExpression() is kept as the name part (the glob, or the word), for views
 * that filter by name only (the timeline).
 */
class LockFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit LockFilterProxy(LockTableModel *source, QObject *parent = nullptr);

    /** What the operator typed (trimmed); empty = every lock. */
    void setFilterText(const QString &text);
    QString filterText() const { return m_text; }

    /** Labels of client ids (or workshop actor names): typed text also matches part of the label
     *  of a holder's or waiter's client id ("billing" finds the locks of "billing-7f9c"). */
    void setActorNames(const ActorNames &names);

    /** Natural order of names, as people number things: runs of digits compare as numbers, so orders:2 comes
     *  before orders:10; otherwise by UTF-16 code unit, as before. */
    static bool naturalLess(const QString &a, const QString &b);

signals:
    /** setFilterText() changed the text (the event log follows it). */
    void filterTextChanged(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    LockTableModel *m_locks;
    QString m_text;
    bool m_isGlob = false;
    LockFilter m_nameGlob; ///< the glob (m_isGlob)
    LockFilter m_holder;   ///< the text as holder/waiter/thread (not m_isGlob)
    ActorNames m_names;
};

} // namespace lockscope
