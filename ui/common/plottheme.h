#pragma once

#include <QPalette>

class QCustomPlot;

namespace lockscope
{

/**
 * Colours a QCustomPlot from a QPalette (so the charts follow a dark theme
 * instead of staying white):
 * background from Base, axes, ticks and labels from Text, grid lines from Mid, the legend from
 * Base and Text. Series colours are left alone (they mean something: holder, TTL, warning).
 * HistoryChart applies it to every plot it registers and again on a palette change.
 */
class PlotTheme
{
public:
    static void apply(QCustomPlot *plot, const QPalette &palette);
};

} // namespace lockscope
