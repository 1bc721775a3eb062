#pragma once

#include "scenario/scenario.h"
#include "scenario/stepreport.h"

#include <QListWidget>

namespace lockscope
{

/**
 * The workshop stage's list of a scenario's steps (object name "workshopSteps"), one row per
 * step: "✓ 1. A lock orders" when it ran and its expectations held, "✗" (red) when one did not,
 * "▶" (bold) for the step Step would run next, "·" for the others.
 */
class WorkshopStepList : public QListWidget
{
    Q_OBJECT
public:
    explicit WorkshopStepList(QWidget *parent = nullptr);
    /** Lists `steps` with the marks of `reports` (the steps run, in this timeline); `next` is the
     *  index of the next step (-1 at the end). Selects the last step run, without emitting
     *  currentRowChanged. `onDark`: the projector palette (a lighter red). */
    void showSteps(const QVector<Scenario::Step> &steps, const QVector<StepReport> &reports, int next, bool onDark);
};

} // namespace lockscope
