#pragma once

#include "sessioncommand.h"

#include <QString>

namespace lockscope
{

/**
 * The base of the commands that make one confirmed write through the session's audited path
 * (force-unlock, and the repairs set-ttl, remove-waiter, remove-reader and wake): each shows what
 * it will change, asks (confirm()) unless --yes, sends the write, and finishes with its audited
 * outcome (awaitAction()). Refused under --read-only and without a writable audit log (writes()).
 */
class ConfirmedWriteCommand : public SessionCommand
{
    Q_OBJECT
public:
    using SessionCommand::SessionCommand;

    bool writes() const override { return true; }

protected:
    /** --yes, or a y/N (or typed-name) answer on a terminal; false (and finished) when refused. */
    bool confirm(const QString &question, const QString &typedAnswer);
    /** Finishes with the outcome of the session's next actionFinished; false (and finished with
     *  130 / 143) when a signal came before the write was sent: then send nothing. */
    bool awaitAction();
};

} // namespace lockscope
