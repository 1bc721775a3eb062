#include "scanbudget.h"

#include <QtMath>

namespace lockscope
{

int ScanBudget::nextCount(int count, qint64 usedUs, qint64 budgetUs)
{
    // Aim at 80 % of the budget from the server's cost per visited key; at most double per step,
    // shrink at once when a step was too slow.
    const double perKeyUs = qMax(0.005, double(qMax<qint64>(1, usedUs)) / qMax(1, count));
    const double next = 0.8 * double(qMax<qint64>(1, budgetUs)) / perKeyUs;
    return qBound(kMinCount, int(qMin(next, 2.0 * count)), kMaxCount);
}

} // namespace lockscope
