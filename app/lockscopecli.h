#pragma once

#include "connectionoptions.h"

#include <QCommandLineParser>
#include <QObject>
#include <QStringList>
#include <QTextStream>

namespace lockscope
{

class CliCommand;
class InterruptNotifier;

/**
 * lockscope-cli: the dashboard's questions answered on a terminal, on `core` only. This class is
 * the dispatcher: it parses the command line (CliOptions: help, "did you mean", options that do
 * not apply, ranges), resolves the server (--url, LOCKSCOPE_URL or --demo) and the session
 * options (SessionOptions), and hands over to the command its descriptor in CliCommandTable
 * makes (one registration per command), or to FleetRunner for a fleet command with --targets.
 *
 * Every command is a CliCommand (exit codes, SIGINT / SIGTERM, the one finish()); those on one
 * server derive from SessionCommand (session set-up).
 * Exit codes (CliCommand::ExitCode): 0 ok, 1 usage, 2 connection/server error, 3 refused
 * (read-only, not confirmed, lock absent, not acquired), 4 doctor found a problem of severity
 * warning or worse; 130 / 143 after SIGINT / SIGTERM.
 */
class LockScopeCli : public QObject
{
    Q_OBJECT
public:
    explicit LockScopeCli(QObject *parent = nullptr);
    ~LockScopeCli() override;

    /** Parses `arguments` (argv incl. program name) and starts the command; returns false with
     *  the exit code in `*exitCode` if it finished already (usage errors, --help). */
    bool start(const QStringList &arguments, int *exitCode);
    /** True when the command that ran was a one-shot read (list, doctor): it wrote nothing
     *  to Redis and holds no file open for writing, so the process may end without destroying
     *  what it read (freeing 200k snapshots took half a second after the answer). */
    bool mayLeaveWithoutTeardown() const { return m_readOnlyOneShot; }

signals:
    /** The command finished (CliCommand::finished, once). */
    void finished(int exitCode);

private:
    QCommandLineParser m_parser;
    const ConnectionOptions m_connection; ///< --url, --tls-*, --user, --ask-password
    QTextStream m_out;
    QTextStream m_err;
    InterruptNotifier *m_interrupts = nullptr;
    bool m_readOnlyOneShot = false;
};

} // namespace lockscope
