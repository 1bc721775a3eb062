#pragma once

#include "scenario/stepreport.h"

#include <QCoreApplication>
#include <QHash>
#include <QString>

namespace lockscope
{

/**
 * The workshop stage's account of one step (WorkshopWindow), as HTML for a QTextBrowser: who
 * acted and the call in Redisson terms, the script branch, the result and the raw reply, the
 * unlock message and whom it woke, doctor findings, the narration (or, when an expectation did
 * not hold, the expected text struck through and what did not hold), the Redis keys before and
 * after side by side (added, removed and changed rows highlighted) and the expectations.
 */
class WorkshopStepHtml
{
    Q_DECLARE_TR_FUNCTIONS(WorkshopStepHtml)
public:
    /** `names`: client id -> actor name (client ids in texts are shown as names); `projector`:
     *  the dark projector palette's highlight colours, and the narration right under the call
     *  (a room reads it without scrolling); `narrationPt`: the narration's and the warnings'
     *  size in pt (0 = "large"); `dark`: a dark palette without projector mode (the dark theme),
     *  which needs the same dark highlight colours (light text on a light box was unreadable). */
    static QString html(const StepReport &report, const QHash<QString, QString> &names, bool projector,
                        qreal narrationPt = 0, bool dark = false);
};

} // namespace lockscope
