#include "charts/seriesdownsampler.h"

#include <algorithm>
#include <cmath>

namespace lockscope
{

QVector<QCPGraphData> SeriesDownsampler::minMax(const QVector<QCPGraphData> &data, double fromKey, double toKey,
                                                int buckets)
{
    buckets = std::max(1, buckets);
    const auto keyLess = [](const QCPGraphData &d, double k) { return d.key < k; };
    const auto first = std::lower_bound(data.cbegin(), data.cend(), fromKey, keyLess);
    const auto keyGreater = [](double k, const QCPGraphData &d) { return k < d.key; };
    const auto last = std::upper_bound(first, data.cend(), toKey, keyGreater); // one past the range
    const int from = int(first - data.cbegin());
    const int to = int(last - data.cbegin());

    QVector<QCPGraphData> out;
    if (from > 0)
        out << data.at(from - 1); // the neighbour on the left
    if (to - from <= 4 * buckets) {
        for (int i = from; i < to; ++i)
            out << data.at(i);
    } else {
        const double span = std::max(toKey - fromKey, 1e-12);
        int i = from;
        QVector<int> keep;
        while (i < to) {
            const int bucket = std::min(buckets - 1, int((data.at(i).key - fromKey) / span * buckets));
            int j = i;
            int lo = -1;
            int hi = -1;
            int gap = -1;
            for (; j < to && std::min(buckets - 1, int((data.at(j).key - fromKey) / span * buckets)) == bucket; ++j) {
                const double v = data.at(j).value;
                if (std::isnan(v)) {
                    if (gap < 0)
                        gap = j;
                    continue;
                }
                if (lo < 0 || v < data.at(lo).value)
                    lo = j;
                if (hi < 0 || v > data.at(hi).value)
                    hi = j;
            }
            keep = {i, j - 1};
            for (int k : {lo, hi, gap})
                if (k >= 0)
                    keep << k;
            std::sort(keep.begin(), keep.end());
            keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
            for (int k : keep)
                out << data.at(k);
            i = j;
        }
    }
    if (to < data.size())
        out << data.at(to); // the neighbour on the right
    return out;
}

} // namespace lockscope
