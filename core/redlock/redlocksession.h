#pragma once

#include "act/auditlog.h"
#include "endpoint/redisendpoint.h"
#include "lock/multilock.h"
#include "redlock/redlockstatus.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QVector>

#include <functional>
#include <memory>

namespace lockscope
{

class LockClient;
class RedLockReader;
class RedisConnection;
class RedisSubscriber;

/**
 * A session over N independent servers for one RedLock / MultiLock (Redisson's RedissonRedLock
 * and RedissonMultiLock, protocol §5.3, §5.4): reads every component (RedLockReader, the quorum
 * verdict) and acquires / releases through the same audited path as LockSession's writes. The
 * CLI (`redlock show|acquire`) and the dashboard's RedLock view use it; nothing outside
 * core/session holds its connections or clients.
 *
 * Writes: refused, before any server is touched (no connection is even opened), in read-only
 * mode or when the audit log cannot take the record; otherwise the record is written and
 * flushed first with the result "sending" (AuditLog::reserve), then the write is sent, then the
 * record is completed in place with its outcome:
 *  - "done": acquired (a quorum, or every server for MultiLock) / released everywhere granted;
 *  - "refused": not acquired because servers answered that another holder has it;
 *  - "unknown": a server failed to answer (transport error, timeout): the script may have run
 *    there. The servers are read again and the record keeps what they showed ("after").
 * An audit record that could not be completed is reported (WriteResult::auditError), never
 * silently dropped: the "sending" line stays in the log.
 *
 * Asynchronous: callbacks run on this object's thread, not at all when `context` was destroyed.
 */
class RedLockSession : public QObject
{
    Q_OBJECT
public:
    struct Options {
        QVector<RedisEndpoint> servers; ///< the independent servers, in component order
        QString name;                   ///< the lock name (the same on every server)
        bool multi = false;             ///< MultiLock rules (all servers) instead of RedLock's quorum
        bool readOnly = false;          ///< every write refused (nothing sent)
        QString auditLogPath;           ///< empty = AuditLog::defaultPath()
        int connectTimeoutMs = 1000;
        int commandTimeoutMs = 2000;
    };
    /** What a write did. `outcome`: "done", "refused", "unknown" (see the class comment). */
    struct WriteResult {
        QString outcome;
        QString message;        ///< why it was refused or unknown (empty when done)
        MultiLockResult result; ///< per server, as MultiLock reported it (empty when refused before)
        bool sent = false;      ///< false: refused before any server was touched
        QString auditError;     ///< the record could not be completed (the "sending" line stays)
    };
    using WriteCallback = std::function<void(const WriteResult &)>;

    explicit RedLockSession(const Options &options, QObject *parent = nullptr);
    ~RedLockSession() override;

    const Options &options() const { return m_options; }
    /** "host:port, host:port, ...". */
    QString serverList() const;
    /** The Redisson client id every component client uses (one holder field on every server). */
    QString clientId() const { return m_clientId; }
    /** "<clientId>:<threadId>". */
    QString holderField(qint64 threadId) const;
    /** The watchdog timeout of the component clients, ms (Redisson's lockWatchdogTimeout,
     *  30000; renewed every third of it): the lease of an acquire with leaseMs <= 0. */
    static qint64 watchdogTimeoutMs();
    /** Why the audit log cannot take a record (file system only), empty when it can. */
    QString auditProblem() const;

    /** Reads every server once (RedLockReader::read): the verdict, each server's row. */
    void read(QObject *context, std::function<void(const RedLockStatus &)> callback);
    /** Changes the lock name read (and written) from now on. */
    void setName(const QString &name);

    /** Redisson tryLock(waitMs, leaseMs) of the RedLock / MultiLock (MultiLock::acquire), audited
     *  as "redlock_acquire". `leaseMs` <= 0 = watchdog; `waitMs` >= 0. */
    void acquire(qint64 threadId, qint64 leaseMs, qint64 waitMs, QObject *context, WriteCallback callback);
    /** Unlocks every component (MultiLock::unlock), audited as "redlock_release". */
    void release(qint64 threadId, QObject *context, WriteCallback callback);

signals:
    /** After every read (also those of acquire/release settling an unknown outcome). */
    void statusRead(const lockscope::RedLockStatus &status);

public slots:
    /** read() without a callback, for a view that listens to statusRead(). */
    void refresh();

private:
    /** The audited path of acquire() and release(): reserves the record (refused: nothing sent),
     *  opens the clients, `send`s, and completes the record with `outcomeOf` the result
     *  (`anyError`: a server did not answer). */
    void write(const QString &action, const QJsonObject &args, QObject *context, WriteCallback callback,
               std::function<void(MultiLock::Callback)> send,
               std::function<QString(const MultiLockResult &, bool anyError)> outcomeOf);
    /** Reserves the record, or says why not (then nothing may be sent). */
    std::shared_ptr<AuditLog::Reservation> reserve(const QString &action, const QJsonObject &args, QString *error);
    QJsonObject record(const QString &action, const QJsonObject &args, const QString &result,
                       const QString &message) const;
    void ensureClients();
    /** Completes `reservation` with `r`, after a re-read when the outcome is unknown. */
    void complete(const QString &action, const QJsonObject &args, std::shared_ptr<AuditLog::Reservation> reservation,
                  WriteResult r, QPointer<QObject> context, WriteCallback callback);

    Options m_options;
    QString m_clientId;
    AuditLog m_audit;
    RedLockReader *m_reader = nullptr;
    QVector<RedisConnection *> m_connections;
    QVector<RedisSubscriber *> m_subscribers;
    QVector<LockClient *> m_clients;
    MultiLock *m_lock = nullptr;
};

} // namespace lockscope
