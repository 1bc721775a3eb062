#pragma once

#include "clicommand.h"
#include "clicommanddescriptor.h"
#include "connectionoptions.h"

#include "lock/multilock.h"
#include "redlock/redlocksession.h"

#include <QCommandLineOption>
#include <QList>
#include <QObject>
#include <QTextStream>
#include <QVector>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

/**
 * `lockscope-cli redlock show|acquire NAME --servers URL1,URL2,...`: the RedLock / MultiLock
 * commands over N independent servers (protocol §5.3, §5.4) through a RedLockSession (reads, and
 * writes on the audited path: the record is written before any server is touched, and a write
 * is refused when it cannot be).
 *
 *   redlock show NAME --servers ... [--json]
 *       each server's holder, hold count, TTL and state (held, free, not_a_lock, unreachable)
 *       and the quorum verdict (RedLockStatus). Nothing is written.
 *       Exit 0: a quorum (N/2+1) agrees on one holder; 3: no quorum (free or split);
 *       2: no quorum, and the unreachable servers could have made one (the verdict is unknown).
 *   redlock acquire NAME --servers ... [--wait-ms N] [--lease-ms N] [--hold-ms N] [--thread-id N]
 *                   [--multi] [--json]
 *       takes the RedLock (MultiLock with --multi: every server must grant it) with Redisson's
 *       rules, says which servers granted it, holds it (--hold-ms, or until Ctrl-C), releases it
 *       on every server. One client id for all components, so `show` finds one holder.
 *       Exit 0: acquired and released; 3: not acquired (held elsewhere) or refused (--read-only);
 *       2: not acquired and a server was unreachable or failed, or a granted component could not
 *       be released. Acquire and release are recorded in the audit log (--audit-log) before they
 *       are sent; an audit log that cannot take the record refuses them (exit 3, nothing sent).
 *
 * Every URL takes the shared connection options (--user, --ask-password, --tls-*). Each server
 * gets a connect timeout of 1000 ms and a command timeout of 2000 ms, so a stopped server is
 * reported, not waited for.
 */
class RedLockCommand : public CliCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();
    /** --servers and --multi (the other options are shared: --json, --wait-ms, ...). */
    static QList<QCommandLineOption> options();

    /** Its action (show or acquire) and lock name are the context's arguments (name, field). A
     *  signal is polled while holding (InterruptNotifier::received()); the release gets a second. */
    RedLockCommand(const Context &context, QObject *parent = nullptr);
    ~RedLockCommand() override;

    /** Checks the arguments and starts the action. Returns false with `*exitCode` set when it
     *  finished already (usage error, --read-only refusal). */
    bool begin(int *exitCode) override;

private:
    void runShow();
    void runAcquire();
    void release(const MultiLockResult &acquired);
    /** Says on stderr when a write's outcome could not be completed in the audit log. */
    void warnIfNotAudited(const QString &action, const RedLockSession::WriteResult &w);

    std::function<bool()> m_interrupted;
    QString m_name;
    qint64 m_threadId = 1;
    QVector<RedisEndpoint> m_endpoints;
    RedLockSession *m_session = nullptr; ///< reads and audited writes on every server
};

} // namespace lockscope
