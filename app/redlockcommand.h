#pragma once

#include "connectionoptions.h"

#include "lock/multilock.h"
#include "redlock/redlockreader.h"

#include <QCommandLineOption>
#include <QList>
#include <QObject>
#include <QTextStream>
#include <QVector>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

class LockClient;
class RedisConnection;
class RedisSubscriber;

/**
 * `lockscope-cli redlock show|acquire NAME --servers URL1,URL2,...`: the RedLock / MultiLock
 * commands over N independent servers (protocol §5.3, §5.4), kept apart from CliCommand, whose commands
 * talk to one server (or one cluster) through a LockSession.
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
 *       be released. Acquire and release are recorded in the audit log (--audit-log).
 *
 * Every URL takes the shared connection options (--user, --ask-password, --tls-*). Each server
 * gets a connect timeout of 1000 ms and a command timeout of 2000 ms, so a stopped server is
 * reported, not waited for.
 */
class RedLockCommand : public QObject
{
    Q_OBJECT
public:
    /** --servers and --multi (the other options are LockScopeCli's: --json, --wait-ms, ...). */
    static QList<QCommandLineOption> options();

    /** `interrupted` tells when Ctrl-C / SIGTERM arrived (polled while holding). */
    RedLockCommand(const QCommandLineParser &parser, const ConnectionOptions &connection,
                   std::function<bool()> interrupted, QObject *parent = nullptr);
    ~RedLockCommand() override;

    /** Checks the arguments and starts `action` ("show" or "acquire") for lock `name`. Returns
     *  false with `*exitCode` set when it finished already (usage error, --read-only refusal). */
    bool start(const QString &action, const QString &name, int *exitCode);

signals:
    void finished(int exitCode);

private:
    void runShow();
    void runAcquire();
    void release(const MultiLockResult &acquired);
    void audit(const QString &action, const QJsonObject &args, const QJsonObject &result);
    void finish(int code);
    void fail(int code, const QString &message);
    /** "host:port, host:port" of every server. */
    QString serverList() const;

    const QCommandLineParser &m_parser;
    ConnectionOptions m_connection;
    std::function<bool()> m_interrupted;
    QString m_name;
    bool m_json = false;
    qint64 m_threadId = 1;
    QVector<RedisEndpoint> m_endpoints;
    QVector<RedisConnection *> m_connections;
    QVector<RedisSubscriber *> m_subscribers;
    QVector<LockClient *> m_clients;
    MultiLock *m_lock = nullptr;
    QTextStream m_out;
    QTextStream m_err;
    bool m_finished = false;
};

} // namespace lockscope
