#include "workshop/workshopsteplist.h"

#include <QHash>

namespace lockscope
{

WorkshopStepList::WorkshopStepList(QWidget *parent) : QListWidget(parent)
{
    setObjectName(QStringLiteral("workshopSteps"));
    setToolTip(tr("The scenario's steps: ✓ its expectations held, ✗ broken, ▶ next. Click a run step to see it "
                  "again, double-click it to go back to before it"));
}

void WorkshopStepList::showSteps(const QVector<Scenario::Step> &steps, const QVector<StepReport> &reports, int next,
                                 bool onDark)
{
    QSignalBlocker block(this);
    clear();
    QHash<int, bool> done;
    for (const StepReport &r : reports)
        done.insert(r.index, r.ok);
    for (const Scenario::Step &s : steps) {
        const QString mark = done.contains(s.index) ? (done.value(s.index) ? QStringLiteral("✓") : QStringLiteral("✗"))
                             : s.index == next      ? QStringLiteral("▶")
                                                    : QStringLiteral("·");
        auto *item = new QListWidgetItem(QStringLiteral("%1 %2. %3 %4 %5")
                                             .arg(mark)
                                             .arg(s.index + 1)
                                             .arg(s.actor.isEmpty() ? tr("(time)") : s.actor, s.action, s.lock),
                                         this);
        if (done.contains(s.index) && !done.value(s.index))
            item->setForeground(onDark ? QColor(0xff, 0x7b, 0x6b) : QColor(0xc0, 0x39, 0x2b));
        if (s.index == next) {
            QFont bold = font();
            bold.setBold(true);
            item->setFont(bold);
        }
    }
    if (!reports.isEmpty())
        setCurrentRow(reports.last().index);
}

} // namespace lockscope
