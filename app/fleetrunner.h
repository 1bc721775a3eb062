#pragma once

#include "clicommand.h"

#include "metrics/fleettargets.h"

#include <QHash>
#include <QStringList>

class QProcess;

namespace lockscope
{

/**
 * `lockscope-cli list|doctor|clients --targets FILE [--password-file FILE]`: the same command
 * against every target of a file_sd targets file (FleetTargets), at most kParallel at once, each
 * as a child lockscope-cli with `--url TARGET` (its password in the child's LOCKSCOPE_PASSWORD,
 * never on a command line). Text rows are prefixed with the target, JSON lines get a "target"
 * member; a target that could not be reached is said at the end. The exit code is the worst
 * outcome: 1 usage, then 2 (a target unreachable), 4 (a finding), 3 (refused), 0.
 * LockScopeCli runs it instead of the command for a command whose descriptor says `fleet`.
 */
class FleetRunner : public CliCommand
{
    Q_OBJECT
public:
    static constexpr int kParallel = 4;

    /** Runs the command of `context` with this process' arguments (QCoreApplication::arguments()). */
    FleetRunner(const Context &context, QObject *parent = nullptr);
    /** Reads --targets and --password-file and starts; false with `*exitCode` 1 when they cannot be used. */
    bool begin(int *exitCode) override;

private:
    void startNext();
    void onFinished(int index, QProcess *process);
    /** The arguments of a child: ours without --targets, --password-file and --url. */
    QStringList childArguments(const QString &target) const;

    QStringList m_arguments;
    QVector<FleetTargets::Target> m_targets;
    QHash<QString, QString> m_passwords;
    int m_next = 0;
    int m_running = 0;
    int m_worst = 0;
    QStringList m_unreachable;
};

} // namespace lockscope
