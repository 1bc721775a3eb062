#pragma once

#include "clicommand.h"

#include "protocol/lockfilter.h"
#include "protocol/locksnapshot.h"
#include "session/locksession.h"

#include <QString>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

/**
 * The base of lockscope-cli's commands that talk to one server (or one cluster) through a
 * LockSession: begin() resolves the server (--demo, else --url / LOCKSCOPE_URL) and the session
 * options (SessionOptions), then the session set-up (read-only and audit-log checks, connection
 * loss, discovery progress, --enable-notifications, cluster detection), and the helpers several
 * commands use (read one lock, --holder, --identify-ms; confirming a write and awaiting its outcome
 * are ConfirmedWriteCommand's). Exit codes, streams, finish() and signals are CliCommand's.
 *
 * A command overrides run() (called once the session is prepared) and says what it is:
 * writes(), oneShot(), connectionLoss().
 */
class SessionCommand : public CliCommand
{
    Q_OBJECT
public:
    SessionCommand(const Context &context, QObject *parent = nullptr);
    ~SessionCommand() override;

    /** The server, prepare(), then start() (after 1.5 s with --demo, so that its simulated
     *  clients hold their locks first). */
    bool begin(int *exitCode) override;
    /** A one-shot read (list, doctor): nothing written, no file held open for writing, so the
     *  process may end without freeing 200k snapshots (half a second after the answer). */
    bool mayLeaveWithoutTeardown() const override { return oneShot() && !writes(); }

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

protected:
    /** What a lost connection does: fail with exit 2 (default), reconnect when the server was
     *  reached once (watch, acquire), or keep going whatever happens (serve). */
    enum class ConnectionLoss { Fail, ReconnectOnceReached, KeepServing };
    virtual ConnectionLoss connectionLoss() const { return ConnectionLoss::Fail; }
    /** The command itself; the session exists and is prepared. */
    virtual void run() = 0;
    /** --duration-ms ended: true when connected, else false after saying so on stderr (exit 2). */
    bool connectedAtDurationEnd();
    /** Reads one lock; fails with exit 3 when it is absent or not a Redisson lock. */
    void readOne(const QString &name, std::function<void(const LockSnapshot &)> then);
    /** --holder ID as a LockFilter (empty when not given). */
    LockFilter holderFilter() const;
    /** --identify-ms was given (show, list, clients). */
    bool identifies() const;
    /** Finds out who `clientIds` are (LockSession::identifyClients for --identify-ms), says how on
     *  stderr when it ends, then `then`. */
    void identifyThen(const QStringList &clientIds, std::function<void()> then);

    /** ACL refusals (NOPERM) become 3, a refusal from a server never reached 2. */
    int failureCode(int code, const QString &message) const override;

    QString m_name; ///< the lock name; readOne() may fall back to the name as typed
    LockSession *m_session = nullptr;
    bool m_everReady = false;                 ///< the server was reached once (else exit 2, not retry)
    bool m_durationEndedDisconnected = false; ///< --duration-ms ended while disconnected: exit 2
};

} // namespace lockscope
