#include "locks/findingmodel.h"

#include <QApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QStyle>

namespace lockscope
{

namespace
{
/** Evidence values above this (2001-09-09 in epoch ms) are times, not durations. */
constexpr qint64 kEpochMsFloor = 1000000000000;
} // namespace

FindingModel::FindingModel(QObject *parent)
    : ColumnTableModel({tr("Severity"), tr("Lock"), tr("Problem"), tr("What to do")}, parent)
{
}

QIcon FindingModel::severityIcon(LockFinding::Severity severity)
{
    QStyle *style = QApplication::style();
    switch (severity) {
    case LockFinding::Severity::Critical:
        return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case LockFinding::Severity::Warning:
        return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case LockFinding::Severity::Info:
        return style->standardIcon(QStyle::SP_MessageBoxInformation);
    }
    return {};
}

void FindingModel::setFindings(const QVector<LockFinding> &findings)
{
    if (findings == m_findings)
        return;
    beginResetModel();
    m_findings = findings;
    endResetModel();
}

int FindingModel::countAtLeast(LockFinding::Severity severity) const
{
    int n = 0;
    for (const auto &f : m_findings)
        n += int(f.severity) >= int(severity) ? 1 : 0;
    return n;
}

int FindingModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_findings.size();
}
QVariant FindingModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_findings.size())
        return {};
    const LockFinding &f = m_findings[index.row()];
    switch (role) {
    case FindingRole:
        return QVariant::fromValue(f);
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return LockFinding::severityName(f.severity);
        case LockColumn:
            return f.locks.size() > 1 ? f.locks.join(QStringLiteral(", ")) : f.lock;
        case TitleColumn:
            return f.title;
        case ActionColumn:
            return f.action;
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == SeverityColumn)
            return severityIcon(f.severity);
        break;
    case Qt::ToolTipRole: {
        // Evidence times are epoch ms (lost_at_ms, last_renewed_ms, frees_at_ms): also as clock times.
        QStringList times;
        for (auto it = f.evidence.constBegin(); it != f.evidence.constEnd(); ++it)
            if (it.key().endsWith(QLatin1String("_ms")) && it.value().toInteger() > kEpochMsFloor)
                times << QStringLiteral("%1 %2").arg(
                    it.key().chopped(3),
                    QDateTime::fromMSecsSinceEpoch(it.value().toInteger()).toString(QStringLiteral("HH:mm:ss")));
        return QStringLiteral("<b>%1</b><p>%2</p><p><i>Evidence:</i> <code>%3</code>%5</p><p><i>What to do:</i> %4</p>")
            .arg(f.title.toHtmlEscaped(), f.explanation.toHtmlEscaped(),
                 QString::fromUtf8(QJsonDocument(f.evidence).toJson(QJsonDocument::Compact)).toHtmlEscaped(),
                 f.action.toHtmlEscaped(),
                 times.isEmpty() ? QString()
                                 : QStringLiteral("<br><i>Times:</i> ") + times.join(QStringLiteral(" · ")));
    }
    }
    return {};
}

} // namespace lockscope
