#pragma once

#include "scenario/scenario.h"

#include "clicommand.h"
#include "clicommanddescriptor.h"

#include <QCommandLineOption>
#include <QList>
#include <QObject>
#include <QStringList>
#include <QTextStream>

class QCommandLineParser;

namespace lockscope
{

class RedisServerProcess;
class ScenarioRunner;

/**
 * `lockscope-cli workshop list | run NAME [--json] [--scenario-file FILE] [--pace-ms N]`: the text-mode twin of
 * the workshop (core/scenario), kept apart from LockScopeCli.
 *
 *   workshop list [--json]
 *       every shipped scenario: name and title (JSON: {"name", "title", "summary", "steps"}).
 *   workshop run NAME [--json] | workshop run --scenario-file FILE [--json]
 *       starts a private redis-server (as --demo does), runs every step one at a time with
 *       LockScope's Redisson-compatible clients and prints each step: actor, Redisson call,
 *       script branch, keys before/after with the changes, the unlock message and who it woke,
 *       the narration and the expectation checks (--json: one StepReport::toJson() per line,
 *       then {"scenario", "ok", "steps", "failed_steps"}).
 *       --pace-ms N: N ms of wall time between steps (0..Scenario::kMaxDurationMs, default 0), as a
 *       teacher would take; time on the workshop server stands still meanwhile (ScenarioRunner's
 *       stage clock), so the expectations hold for every N.
 *       Exit 0: every expectation held; 3: one did not; 1: usage error, unknown scenario or a
 *       malformed scenario file (the message gives the line and the reason); 2: redis-server
 *       could not be started or reached.
 */
class WorkshopCommand : public CliCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();
    /** --scenario-file, --pace-ms (the other options are shared: --json). */
    static QList<QCommandLineOption> options();

    using CliCommand::CliCommand;

    /** Starts its operands (the positional arguments after "workshop"). Returns false with
     *  `*exitCode` set when it finished already (list, usage errors, malformed files). A signal
     *  ends the run at once (its private redis-server stops with the process): 128 + signal. */
    bool begin(int *exitCode) override;

private:
    int list();
    void printHeader();
    void onFinished(bool held);

    Scenario m_scenario;
    RedisServerProcess *m_server = nullptr;
    ScenarioRunner *m_runner = nullptr;
};

} // namespace lockscope
