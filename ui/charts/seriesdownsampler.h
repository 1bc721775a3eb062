#pragma once

#include <QVector>

#include <qcustomplot.h>

namespace lockscope
{

/**
 * Bounds the points a chart hands to QCustomPlot, whatever the length of the history: the keys in
 * [fromKey, toKey] are cut into `buckets` equal buckets (one per pixel column is the intent) and
 * each bucket keeps at most its first, lowest, highest and last point, in their original order,
 * plus its first NaN (a gap stays a gap). So a saw-tooth keeps its peaks and troughs, a step line
 * its steps, and the output never exceeds 5 points per bucket plus the two neighbours just outside
 * the range (so lines enter and leave the visible area instead of stopping at its edge).
 */
class SeriesDownsampler
{
public:
    /** `data` must be sorted by key (equal keys keep their order: vertical jumps). `buckets` < 1
     *  is treated as 1. Returns the input range unchanged when it is already small enough. */
    static QVector<QCPGraphData> minMax(const QVector<QCPGraphData> &data, double fromKey, double toKey, int buckets);
};

} // namespace lockscope
