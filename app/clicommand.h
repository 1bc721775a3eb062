#pragma once

#include "protocol/lockfilter.h"
#include "protocol/locksnapshot.h"
#include "session/locksession.h"

#include <QObject>
#include <QString>
#include <QTextStream>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

/**
 * The shared base of lockscope-cli's commands that talk to one server (or one cluster) through a
 * LockSession: exit codes, stdout / stderr, the session set-up (read-only and audit-log checks,
 * connection loss, discovery progress, --enable-notifications, cluster detection), SIGINT /
 * SIGTERM (interrupt(): 130 / 143, a write under way finishes and is audited first) and the
 * helpers several commands use (read one lock, confirm, await a write's outcome, --holder).
 *
 * A command overrides run() (called once the session is prepared) and says what it is:
 * writes(), oneShot(), connectionLoss(). LockScopeCli parses the command line and creates it.
 */
class CliCommand : public QObject
{
    Q_OBJECT
public:
    enum ExitCode { Ok = 0, Usage = 1, ServerError = 2, Refused = 3, ProblemsFound = 4 };

    /** The positional arguments after the command, as LockScopeCli read them. */
    struct Arguments {
        QString command;   ///< "list", "set-ttl", ...
        QString name;      ///< the lock name (\xNN escapes undone, RedisBytes::fromDisplayed)
        QString nameTyped; ///< the lock name as typed
        QString field;     ///< remove-waiter / remove-reader: the field (escapes undone)
    };

    CliCommand(const QCommandLineParser &parser, const Arguments &arguments, QObject *parent = nullptr);
    ~CliCommand() override;

    /** Writes to Redis: refused under --read-only, and only with a writable audit log. */
    virtual bool writes() const { return false; }
    /** One discovery pass, one read per lock (LockSession::Options::oneShot). */
    virtual bool oneShot() const { return false; }
    /** Checks that need no server, before the session exists (serve binds its socket); false
     *  with `*exitCode` after saying why on stderr. May change `options` (serve: read-only). */
    virtual bool prepare(LockSession::Options *options, int *exitCode);

    /** Creates the session on `options` and, after `delayMs`, prepares it (cluster detection)
     *  and calls run(). False with `*exitCode` when refused before anything was sent (a write
     *  under --read-only, an audit log that cannot be written). */
    bool start(const LockSession::Options &options, int delayMs, int *exitCode);

    /** SIGINT / SIGTERM arrived (`sig`): unless a write is under way (it finishes and is audited
     *  first), run the command's onInterrupt step (e.g. release a hold) or finish at once; the
     *  exit code is 128 + signal. */
    void interrupt(int sig);

    /** A TTL or duration as lockscope-cli prints it: "12.3 s", "no expiry", "-"
     *  (DurationText::Style::Seconds). */
    static QString ttlText(qint64 ms);

signals:
    void finished(int exitCode);

protected:
    /** What a lost connection does: fail with exit 2 (default), reconnect when the server was
     *  reached once (watch, acquire), or keep going whatever happens (serve). */
    enum class ConnectionLoss { Fail, ReconnectOnceReached, KeepServing };
    virtual ConnectionLoss connectionLoss() const { return ConnectionLoss::Fail; }
    /** SIGHUP: true when the command takes it as a request (serve --targets: re-read the
     *  targets) rather than an end (the default: exit 129). */
    virtual bool onHangup() { return false; }
    /** The command itself; the session exists and is prepared. */
    virtual void run() = 0;
    /** Called once by finish() before stderr is flushed (watch: its summary). */
    virtual void onFinishing() {}

    void finish(int code);
    /** Says `message` on stderr and finishes; ACL refusals become 3, "never reached" 2. */
    void fail(int code, const QString &message);
    /** --duration-ms ended: true when connected, else false after saying so on stderr (exit 2). */
    bool connectedAtDurationEnd();
    /** Reads one lock; fails with exit 3 when it is absent or not a Redisson lock. */
    void readOne(const QString &name, std::function<void(const LockSnapshot &)> then);
    /** --yes, or a y/N (or typed-name) answer on a terminal; false (and finished) when refused. */
    bool confirm(const QString &question, const QString &typedAnswer);
    /** Finishes with the outcome of the session's next actionFinished; false (and finished with
     *  130 / 143) when a signal came before the write was sent: then send nothing. */
    bool awaitAction();
    /** --holder ID as a LockFilter (empty when not given). */
    LockFilter holderFilter() const;
    /** --identify-ms was given (show, list, clients). */
    bool identifies() const;
    /** Finds out who `clientIds` are (LockSession::identifyClients for --identify-ms), says how on
     *  stderr when it ends, then `then`. */
    void identifyThen(const QStringList &clientIds, std::function<void()> then);

    const QCommandLineParser &m_parser;
    const Arguments m_args;
    QString m_name; ///< the lock name; readOne() may fall back to the name as typed
    bool m_json = false;
    LockSession *m_session = nullptr;
    QTextStream m_out;
    QTextStream m_err;
    bool m_finished = false;
    bool m_everReady = false;                 ///< the server was reached once (else exit 2, not retry)
    bool m_durationEndedDisconnected = false; ///< --duration-ms ended while disconnected: exit 2
    int m_signal = 0;                         ///< SIGINT or SIGTERM once received
    bool m_writeSent = false;                 ///< a write was sent: wait for its (audited) result before exiting
    std::function<void()> m_onInterrupt;      ///< command-specific first step on a signal; empty = exit now
};

} // namespace lockscope
