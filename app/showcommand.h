#pragma once

#include "clicommand.h"

namespace lockscope
{

/**
 * `lockscope-cli show NAME [--holder ID] [--json]`: one lock in detail (kind, TTL, holders with
 * their hold TTLs, MultiLock values, waiters, fencing token, problems). Exit 3 when there is no
 * such lock, it is not a Redisson lock, or --holder neither holds nor waits for it.
 */
class ShowCommand : public CliCommand
{
    Q_OBJECT
public:
    using CliCommand::CliCommand;

protected:
    void run() override;
};

} // namespace lockscope
