#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTextStream>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

class ConnectionOptions;

/**
 * The base of every lockscope-cli command: exit codes, stdout / stderr, the one way to end
 * (finish(): once, streams flushed, finished() emitted) and SIGINT / SIGTERM / SIGHUP
 * (interrupt(): 128 + signal; a write under way finishes first, a command's onInterrupt step
 * such as releasing a hold gets a second). LockScopeCli makes a command with its descriptor's
 * factory (CliCommandDescriptor), connects finished() and interrupt(), and calls begin().
 *
 * Commands on one server (or one cluster) derive from SessionCommand, which sets up the
 * LockSession; the others (redlock: its own servers, workshop: a private redis-server, export: a
 * file, the fleet runner: child processes) derive from this class directly.
 */
class CliCommand : public QObject
{
    Q_OBJECT
public:
    enum ExitCode { Ok = 0, Usage = 1, ServerError = 2, Refused = 3, ProblemsFound = 4 };

    /** The positional arguments after the command, as LockScopeCli read them. */
    struct Arguments {
        QString command;   ///< "list", "set-ttl", ...
        QString name;      ///< the first operand (a lock name: \xNN escapes undone, RedisBytes::fromDisplayed)
        QString nameTyped; ///< the first operand as typed
        QString field;     ///< the second operand (escapes undone): remove-waiter's field, redlock's lock name
    };

    /** What LockScopeCli gives every command. */
    struct Context {
        const QCommandLineParser &parser;
        const ConnectionOptions &connection; ///< --url, --tls-*, --user, --ask-password
        Arguments arguments;
        QStringList operands; ///< every positional argument after the command, as typed
    };

    CliCommand(const Context &context, QObject *parent = nullptr);
    ~CliCommand() override;

    /** Starts the command. False with `*exitCode` when it finished already (a usage error, a
     *  refusal before anything was sent, a command done at once); true when finished() follows. */
    virtual bool begin(int *exitCode) = 0;
    /** True when the process may end without destroying what the command read (a one-shot read
     *  that wrote nothing and holds no file open for writing). */
    virtual bool mayLeaveWithoutTeardown() const { return false; }

    /** SIGINT / SIGTERM / SIGHUP arrived (`sig`): unless a write is under way (it finishes and is
     *  audited first), run the command's onInterrupt step (e.g. release a hold) or finish at once;
     *  the exit code is 128 + signal. */
    void interrupt(int sig);

    /** A TTL or duration as lockscope-cli prints it: "12.3 s", "no expiry", "-"
     *  (DurationText::Style::Seconds). */
    static QString ttlText(qint64 ms);

signals:
    void finished(int exitCode);

protected:
    /** SIGHUP: true when the command takes it as a request (serve --targets: re-read the
     *  targets) rather than an end (the default: exit 129). */
    virtual bool onHangup() { return false; }
    /** Called once by finish() before stderr is flushed (watch: its summary). */
    virtual void onFinishing() {}
    /** The exit code fail() ends with (SessionCommand: an ACL refusal is 3, "never reached" 2). */
    virtual int failureCode(int code, const QString &message) const;

    /** Ends the command with `code`, once: flushes stdout, onFinishing(), flushes stderr, finished(). */
    void finish(int code);
    /** Says `message` on stderr (names shown as LockScope displays them) and finishes. */
    void fail(int code, const QString &message);
    /** A usage error before the command started: says `message` and where the help is; false
     *  with `*exitCode` = Usage. */
    bool usage(const QString &message, int *exitCode);

    const QCommandLineParser &m_parser;
    const ConnectionOptions &m_connection;
    const Arguments m_args;
    const QStringList m_operands;
    bool m_json = false;
    QTextStream m_out;
    QTextStream m_err;
    bool m_finished = false;
    int m_signal = 0;                    ///< SIGINT or SIGTERM once received
    bool m_writeSent = false;            ///< a write was sent: wait for its (audited) result before exiting
    std::function<void()> m_onInterrupt; ///< command-specific first step on a signal; empty = exit now
};

} // namespace lockscope
