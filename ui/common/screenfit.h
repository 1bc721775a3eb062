#pragma once

#include <QSize>

class QWidget;

namespace lockscope
{

/**
 * The first size of a top-level window, fitted to the screen it opens on: `preferred` (the size
 * its content is laid out for) bounded by that screen's available geometry (without panels and
 * docks) less room for the window frame, and centred there. A screen smaller than `minimum` in
 * either direction gets the window maximized instead, so its toolbar, status bar and side panels
 * are on screen at 1024×768 or 1280×720 rather than cut off.
 */
class ScreenFit
{
public:
    /** Room left for the window manager's frame and title bar (px). */
    static constexpr int kFrameMargin = 48;

    /** Resizes and places `window` (before its first show). `preferred` <= 0 in a direction: the
     *  screen's available size there. */
    static void apply(QWidget *window, QSize preferred, QSize minimum = QSize(1100, 700));
    /** The size apply() gives on a screen whose available geometry is `available`. */
    static QSize fitted(QSize preferred, QSize available);
};

} // namespace lockscope
