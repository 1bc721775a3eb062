#pragma once

#include <QPalette>

namespace lockscope
{

class ServerView;

/**
 * Workshop projector mode (a stage layout for a room, read from
 * the back row): the high-contrast dark
 * palette, and the lock views arranged so that at 1280x720 in projector fonts the lock table
 * shows name, holder, hold count, TTL and waiters without scrolling, the detail shows the holders
 * and the waiter queue with deadlines, and the event log keeps at least kEventRows readable rows.
 */
class WorkshopProjector
{
public:
    /** Event log rows the projector layout keeps visible (when the window is high enough). */
    static constexpr int kEventRows = 7;

    /** Dark background, white text, yellow selection; every role set (placeholder text, links,
     *  disabled text) so no widget is left dark on dark. */
    static QPalette palette();
    /**
     * Arranges `views` for the room (`projector`) or back to the dashboard layout: in projector
     * mode the table (as high as its rows, Kind and Node hidden, the columns sharing the width)
     * over the compact detail, which gets the height the event log leaves; the event log below
     * with kEventRows rows, its event colours for a dark background; the views' own status bar
     * hidden (the workshop's says where the server is). Call again when the window's size or the
     * number of locks changes.
     */
    static void arrange(ServerView *views, bool projector);
};

} // namespace lockscope
