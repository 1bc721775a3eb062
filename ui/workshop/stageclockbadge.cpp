#include "workshop/stageclockbadge.h"

namespace lockscope
{

StageClockBadge::StageClockBadge(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("workshopClock"));
    setTextFormat(Qt::RichText);
    setContentsMargins(8, 3, 8, 3);
}

void StageClockBadge::show(bool timeRuns, bool held)
{
    QString text, bg, fg;
    if (timeRuns) {
        text = tr("<b>TIME RUNS</b> between steps: TTLs and waiters' deadlines count down in real time, as in "
                  "production (T: hold it)");
        bg = QStringLiteral("#2e7d32");
        fg = QStringLiteral("white");
    } else if (held) {
        text = tr("<b>TIME PAUSED</b>: TTLs and waiters' deadlines stand still on the workshop server until the next "
                  "step; take your time (T: let it run)");
        bg = QStringLiteral("#ffd200");
        fg = QStringLiteral("black");
    } else {
        text = tr("Time runs during a step only; between steps it stands still (T: let it run)");
        bg = QStringLiteral("#ffe98a");
        fg = QStringLiteral("black");
    }
    setText(text);
    setStyleSheet(QStringLiteral("QLabel#workshopClock { background: %1; color: %2; }").arg(bg, fg));
}

} // namespace lockscope
