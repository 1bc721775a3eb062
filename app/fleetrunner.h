#pragma once

#include "export/fleettargets.h"

#include <QObject>
#include <QStringList>
#include <QTextStream>

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
 */
class FleetRunner : public QObject
{
    Q_OBJECT
public:
    static constexpr int kParallel = 4;
    /** Commands that take --targets. */
    static const QStringList kCommands;

    /** `arguments`: this process' arguments (the program first); `json`: --json given. */
    FleetRunner(const QStringList &arguments, bool json, QTextStream &out, QTextStream &err, QObject *parent = nullptr);
    /** Reads the files and starts; false with `*error` (a usage error: exit 1). */
    bool start(const QString &targetsPath, const QString &passwordPath, QString *error);

signals:
    void finished(int exitCode);

private:
    void startNext();
    void onFinished(int index, QProcess *process);
    /** The arguments of a child: ours without --targets, --password-file and --url. */
    QStringList childArguments(const QString &target) const;

    QStringList m_arguments;
    bool m_json;
    QTextStream &m_out;
    QTextStream &m_err;
    QVector<FleetTargets::Target> m_targets;
    QHash<QString, QString> m_passwords;
    int m_next = 0;
    int m_running = 0;
    int m_worst = 0;
    QStringList m_unreachable;
};

} // namespace lockscope
