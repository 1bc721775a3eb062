#pragma once

#include "clicommanddescriptor.h"
#include "sessioncommand.h"

namespace lockscope
{

/**
 * `lockscope-cli show NAME [--holder ID] [--json]`: one lock in detail (kind, TTL, holders with
 * their hold TTLs, MultiLock values, waiters, fencing token, problems). Exit 3 when there is no
 * such lock, it is not a Redisson lock, or --holder neither holds nor waits for it.
 * With --identify-ms N it first finds out who the holders and waiters are (LockSession::identifyClients:
 * a MONITOR sample, or without +monitor the lock's events matched with CLIENT LIST), at most N ms,
 * then reads the lock again and prints it with each client's connections, host and name
 * (`holders[].client`, `waiters[].client` in JSON).
 */
class ShowCommand : public SessionCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using SessionCommand::SessionCommand;

    /** --identify-ms: watch this one lock (its events are what correlation matches). */
    bool prepare(LockSession::Options *options, int *exitCode) override;

protected:
    void run() override;

private:
    /** Prints `s` (text or JSON), each holder and waiter with what is known of its client. */
    void print(const LockSnapshot &s);
    /** print() once LockSession::judgeReplication has said whether a replica has `s`. */
    void printJudged(const LockSnapshot &s);
};

} // namespace lockscope
