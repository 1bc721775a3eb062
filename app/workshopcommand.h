#pragma once

#include "workshop/scenario.h"

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
 * the workshop (core/workshop), kept apart from LockScopeCli.
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
class WorkshopCommand : public QObject
{
    Q_OBJECT
public:
    /** --scenario-file, --pace-ms (the other options are LockScopeCli's: --json). */
    static QList<QCommandLineOption> options();

    WorkshopCommand(const QCommandLineParser &parser, QObject *parent = nullptr);
    ~WorkshopCommand() override;

    /** Starts `args` (the positional arguments after "workshop"). Returns false with `*exitCode`
     *  set when it finished already (list, usage errors, malformed files). */
    bool start(const QStringList &args, int *exitCode);

signals:
    void finished(int exitCode);

private:
    int list();
    void printHeader();
    void onFinished(bool held);

    const QCommandLineParser &m_parser;
    bool m_json = false;
    Scenario m_scenario;
    RedisServerProcess *m_server = nullptr;
    ScenarioRunner *m_runner = nullptr;
    QTextStream m_out;
    QTextStream m_err;
};

} // namespace lockscope
