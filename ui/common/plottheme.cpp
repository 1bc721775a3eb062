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
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(text);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lockscope
