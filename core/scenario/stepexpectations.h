#pragma once

#include "scenario.h"
#include "stepreport.h"
#include "workshopactions.h"

namespace lockscope
{

class WorkshopCast;

/**
 * Checks a workshop step's expectations (Scenario::expectations(): result, holder, holdCount,
 * queue, token, tokenGreaterThan, pttlAtLeastMs, pttlAtMostMs, woke, mode, deadlock, exists,
 * granted) against what the step did: its outcome and the keys after it.
 */
class StepExpectations
{
public:
    /** Appends one StepReport::Check per expectation of `step` to `report->checks` and sets
     *  `report->ok` (false too when the step had an error). Holder fields are named by `cast`. */
    static void check(const Scenario::Step &step, const StepOutcome &outcome, const WorkshopCast &cast,
                      StepReport *report);
};

} // namespace lockscope
