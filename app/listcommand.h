#pragma once

#include "clicommand.h"
#include "lockjsonlines.h"

#include <QVector>

#include <memory>

namespace lockscope
{

/**
 * `lockscope-cli list [--pattern GLOB] [--holder ID] [--json] [--wide]`: every lock after one
 * discovery pass (a cluster: every master), sorted by name, as a table fitted to the terminal
 * (LockTable) or one JSON object per line. Exit 0, or 2 when the server cannot be read.
 */
class ListCommand : public CliCommand
{
    Q_OBJECT
public:
    using CliCommand::CliCommand;

    bool oneShot() const override { return true; }

protected:
    void run() override;

private:
    /** `--json`: the lines, built ahead from each batch the watcher reads (LockJsonLines). */
    std::unique_ptr<LockJsonLines> m_lines;
};

} // namespace lockscope
