#pragma once

#include <QToolBar>

namespace lockscope
{

class ReplayPlayer;

/**
 * The controls of a replay (`lockscope --replay FILE`): play / pause (Space), the speed
 * (0.25× to 16×), a scrub bar in 100 ms steps to jump to any instant of the recording, and the
 * position "m:ss / m:ss". Drives `player` (not owned, outlives the bar) and follows it. GUI thread.
 */
class ReplayBar : public QToolBar
{
    Q_OBJECT
public:
    explicit ReplayBar(ReplayPlayer *player, QWidget *parent = nullptr);
};

} // namespace lockscope
