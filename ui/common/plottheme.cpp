#include "common/plottheme.h"

#include <qcustomplot.h>

namespace lockscope
{

void PlotTheme::apply(QCustomPlot *plot, const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor grid = palette.color(QPalette::Mid);
    QColor subGrid = grid;
    subGrid.setAlpha(90);
    plot->setBackground(base);
    for (QCPAxisRect *rect : plot->axisRects()) {
        rect->setBackground(base);
        for (QCPAxis *axis : rect->axes()) {
            axis->setBasePen(QPen(text, 1));
            axis->setTickPen(QPen(text, 1));
            axis->setSubTickPen(QPen(text, 1));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
    }
    if (plot->legend) {
        QColor legendBack = base;
        legendBack.setAlpha(215);
        plot->legend->setBrush(legendBack);
        plot->legend->setBorderPen(QPen(grid));
        plot->legend->setTextColor(text);
    }
    // Every title, nested layouts too (the contention chart's are in a grid of their own: they
    // stayed dark on the dark theme).
    for (QCPLayoutElement *element : plot->plotLayout()->elements(true))
        if (auto *title = qobject_cast<QCPTextElement *>(element))
            title->setTextColor(text);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lockscope
