#pragma once

#include <QLabel>

namespace lockscope
{

/**
 * The workshop's stage clock banner (object name "workshopClock"): "TIME PAUSED" (yellow) while
 * time stands still on the workshop server between steps, "TIME RUNS" (green) when the teacher
 * lets it run, and a quieter line before the first step.
 */
class StageClockBadge : public QLabel
{
    Q_OBJECT
public:
    explicit StageClockBadge(QWidget *parent = nullptr);
    /** `timeRuns`: "Let time run" is on; `held`: time stands still on the server now. */
    void show(bool timeRuns, bool held);
    /** The band's text size (pt; 0 = the window's): the workshop keeps it at the narration's. */
    void setPointSize(qreal pt);

private:
    void restyle();
    qreal m_pt = 0;
    QString m_background, m_foreground;
};

} // namespace lockscope
