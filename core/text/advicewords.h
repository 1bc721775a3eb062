#pragma once

#include "endpoint/frontendwords.h"

#include <QString>

namespace lockscope
{

/**
 * How the front end names what the user can choose, for the advice at the end of core's
 * sentences (core names no command-line flag). Core asks for a choice (a lock kind, the
 * wait of a fair-lock waiter) and gets the front end's words for it: lockscope-cli installs its
 * flags ("--kind fair", "pass --wait-ms"); the dashboard keeps the defaults, which name the
 * choice as its dialogs do ("\"fair\"", "give the waiter's wait"). Set once at start-up, before
 * any session exists (not synchronised).
 */
class AdviceWords
{
public:
    enum class Choice {
        LockKind,   ///< `value` is AcquirePlan::kindName(): default "\"fair\"", CLI "--kind fair"
        WaiterWait, ///< a verb phrase: default "give the waiter's wait", CLI "pass --wait-ms"
    };
    using Namer = FrontEndWords<Choice>::Namer;

    /** Replaces the words (an empty function restores the defaults). */
    static void setNamer(Namer namer) { FrontEndWords<Choice>::setNamer(std::move(namer)); }
    /** The front end's words for `choice`. */
    static QString name(Choice choice, const QString &value = QString())
    {
        return FrontEndWords<Choice>::name(choice, value, &defaultName);
    }
    /** The dashboard's words (the defaults). */
    static QString defaultName(Choice choice, const QString &value);
};

} // namespace lockscope
