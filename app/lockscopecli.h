#pragma once

#include "protocol/lockevent.h"
#include "protocol/lockfilter.h"
#include "protocol/locksnapshot.h"

#include <QCommandLineParser>
#include <QObject>
#include <QStringList>
#include <QTextStream>

#include <functional>

class QSocketNotifier;

namespace lockscope
{

class LockMonitor;
class LockSession;
class RedisServerProcess;
class ServeCommand;

/**
 * lockscope-cli: the dashboard's questions answered on a terminal, on `core` only.
 *
 *   lockscope-cli [--url URL | --demo] [--read-only] list [--pattern GLOB] [--holder ID] [--json] [--wide]
 *                 | show NAME [--holder ID] [--json] | watch [--pattern GLOB] [--holder ID] [--json] [--duration-ms N]
 *                 | acquire NAME [--kind lock|fair|read|write|fenced] [--lease-ms N] [--hold-ms N] [--wait-ms N]
 * [--thread-id N] | force-unlock NAME [--yes] | doctor [--json] [--observe-ms N] [--watchdog-threshold-ms N]
 * [--waiter-threshold-ms N] | set-ttl NAME --ttl-ms N | remove-waiter NAME FIELD | remove-reader NAME FIELD | wake NAME
 *                 | record --out FILE [--duration-ms N] | export RECORDING --csv [--out-dir DIR]
 *                 | redlock show|acquire NAME --servers URL1,URL2,... (see RedLockCommand)
 *                 | serve [--listen HOST:PORT] [--web-config FILE] [--group REGEX=NAME]... (see ServeCommand)
 *
 * Exit codes: 0 ok, 1 usage, 2 connection/server error, 3 refused (read-only, not confirmed,
 * lock absent, not acquired), 4 doctor found a problem of severity warning or worse.
 * Conventions (issue 15): `COMMAND --help`, "did you mean", options that do not belong to the
 * command refused, every number range-checked, LOCKSCOPE_URL when --url is not given, exit 2 when
 * the server was never reached or --duration-ms ends while disconnected.
 */
class LockScopeCli : public QObject
{
    Q_OBJECT
public:
    enum ExitCode { Ok = 0, Usage = 1, ServerError = 2, Refused = 3, ProblemsFound = 4 };

    explicit LockScopeCli(QObject *parent = nullptr);
    ~LockScopeCli() override;

    /** Parses `arguments` (argv incl. program name) and starts the command; returns false with
     *  the exit code in `*exitCode` if it finished already (usage errors, --help). */
    bool start(const QStringList &arguments, int *exitCode);

    /** Human table of locks (sorted by name), as `list` prints it. */
    static QString formatTable(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs);
    /** The same fitted to `maxColumns` characters a line (0 = no limit): client ids elided in the
     *  middle ("b983c153…9a1b:1"), at most two holders then "+N more", and the last columns cut
     *  with "…"; one line per lock. */
    static QString formatTable(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs, int maxColumns);
    /** Width of the terminal: COLUMNS, else the window size of stdout when it is a terminal, else 0. */
    static int terminalColumns();
    static QString formatTtl(qint64 ttlMs);
    /** 950, 9.5k, 412k, 1.0M: counts in progress lines. */

signals:
    void finished(int exitCode);

private:
    void finish(int code);
    /** --duration-ms ended: true when connected, else false after saying so on stderr (exit 2). */
    bool connectedAtDurationEnd();
    void fail(int code, const QString &message);
    /** SIGINT / SIGTERM through a self-pipe into the event loop (every command). */
    void installSignalHandlers();
    /** A signal arrived: unless a write is under way (it finishes and is audited first), run
     *  m_onInterrupt (e.g. release a hold) or finish at once; the exit code is 128 + signal. */
    void onInterrupted(int sig);
    void runList();
    /** `list --json`: one compact JSON object per lock and line, in the order given, to stdout. */
    void writeJsonLines(const QVector<const LockSnapshot *> &locks);
    void runShow();
    void runWatch();
    void runAcquire();
    void runForceUnlock();
    void runDoctor();
    void runRepair();
    void runRecord();
    /** Offline: a recording to CSV; returns the exit code. */
    int runExport();
    /** --yes, or a y/N (or typed-name) answer on a terminal; false (and finished) when refused. */
    bool confirm(const QString &question, const QString &typedAnswer);
    /** Finishes with the outcome of the session's next actionFinished; false (and finished with
     *  130 / 143) when a signal came before the write was sent: then send nothing. */
    bool awaitAction();
    void readOne(const QString &name, std::function<void(const LockSnapshot &)> then);
    /** --holder ID as a LockFilter (empty when not given). */
    LockFilter holderFilter() const;
    /** watch --holder: an event whose holder matches, or of a lock the holder holds or waits for. */
    bool wantEvent(const LockEvent &event) const;

    QCommandLineParser m_parser;
    QString m_command;
    QString m_name;
    qint64 m_watchEvents = 0;    ///< watch: events printed
    qint64 m_watchCoalesced = 0; ///< watch: releases too short to see (issue 13.11)
    QString m_nameTyped;         ///< the lock name as typed (m_name: with \xNN escapes undone)
    QString m_field;
    bool m_json = false;
    LockSession *m_session = nullptr;
    RedisServerProcess *m_demoServer = nullptr;
    ServeCommand *m_serve = nullptr; ///< `serve`: the exporter
    QTextStream m_out;
    QTextStream m_err;
    bool m_finished = false;
    bool m_everReady = false;                 ///< the server was reached once (else exit 2, not retry)
    bool m_durationEndedDisconnected = false; ///< --duration-ms ended while disconnected: exit 2
    QSocketNotifier *m_signalNotifier = nullptr;
    int m_signal = 0;                    ///< SIGINT or SIGTERM once received
    bool m_writeSent = false;            ///< a write was sent: wait for its (audited) result before exiting
    std::function<void()> m_onInterrupt; ///< command-specific first step on a signal; empty = exit now
};

} // namespace lockscope
