#include "workshop/stageclockbadge.h"

namespace lockscope
{

StageClockBadge::StageClockBadge(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("workshopClock"));
    setTextFormat(Qt::RichText);
    setWordWrap(true); // at projector sizes the sentence is wider than a 1024 or 1280 px screen
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
    m_background = bg;
    m_foreground = fg;
    restyle();
}

void StageClockBadge::setPointSize(qreal pt)
{
    m_pt = pt;
    restyle();
}

void StageClockBadge::restyle()
{
    // The size goes into the style sheet: a widget with a style sheet takes its font from it.
    setStyleSheet(QStringLiteral("QLabel#workshopClock { background: %1; color: %2;%3 }")
                      .arg(m_background, m_foreground,
                           m_pt > 0 ? QStringLiteral(" font-size: %1pt;").arg(m_pt, 0, 'f', 1) : QString()));
}

} // namespace lockscope
