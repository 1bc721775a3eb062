#pragma once

#include "protocol/lockfinding.h"

#include "common/columntablemodel.h"
#include <QIcon>
#include <QVector>

namespace lockscope
{

/** The doctor's findings for the problems pane: severity, lock, title, suggested action; the
 *  tooltip carries the explanation and the evidence. Replaced as a whole on each update. */
class FindingModel : public ColumnTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, LockColumn, TitleColumn, ActionColumn, ColumnCount };
    enum Role { FindingRole = Qt::UserRole + 1 };

    explicit FindingModel(QObject *parent = nullptr);

    void setFindings(const QVector<LockFinding> &findings);
    const QVector<LockFinding> &findings() const { return m_findings; }
    int countAtLeast(LockFinding::Severity severity) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    static QIcon severityIcon(LockFinding::Severity severity);

private:
    QVector<LockFinding> m_findings;
};

} // namespace lockscope
