#pragma once

#include "sessioncommand.h"

#include <QStringList>

namespace lockscope
{

/**
 * The base of the commands that answer from one discovery pass (list, clients): once every lock
 * is read (watchIdle), with --identify-ms the clients of clientIds() are identified first
 * (identifyThen), then print() writes the answer and finishes. Exit 2 when the server cannot be
 * read.
 */
class ListingCommand : public SessionCommand
{
    Q_OBJECT
public:
    using SessionCommand::SessionCommand;

    /** One pass, unless --identify-ms (correlation needs the lock events of a live watch). */
    bool oneShot() const override;

protected:
    void run() override;
    /** The client ids --identify-ms identifies, from the locks read: the holders' (by default). */
    virtual QStringList clientIds() const;
    /** Prints what was read and finishes. */
    virtual void print() = 0;
};

} // namespace lockscope
