#pragma once

#include <QtGlobal>

namespace lockscope
{

/**
 * Sizing of SCAN steps by the server time they took (no command of LockScope may block
 * Redis for more than about 1 ms). Used by LockDiscovery (lock names) and DoctorProbe (unlock
 * latches), each step timed inside resources/scripts/scan_step.lua.
 */
class ScanBudget
{
public:
    static constexpr int kMinCount = 20;
    static constexpr int kMaxCount = 20000;

    /** The COUNT of the step after one of `count` that took the server `usedUs` (µs), for a step
     *  budget of `budgetUs` (µs): 80 % of the budget at the measured cost per visited key, at
     *  most double `count` and shrinking at once, between kMinCount and kMaxCount. */
    static int nextCount(int count, qint64 usedUs, qint64 budgetUs);
};

} // namespace lockscope
