#pragma once

#include "redis/redisendpoint.h"

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace lockscope {

/**
 * A private `redis-server` on a free loopback port, with its own temporary directory and no
 * persistence (`--save "" --appendonly no`). Used by the demo, the tests and the benchmark.
 * Stopped (and its directory removed) by stop() or the destructor, so nothing outlives us.
 */
class RedisServerProcess : public QObject
{
    Q_OBJECT
public:
    explicit RedisServerProcess(QObject *parent = nullptr);
    ~RedisServerProcess() override;

    /** Value for `--notify-keyspace-events` ("" = off). Default "KA" (all keyspace events). */
    void setNotifyKeyspaceEvents(const QString &flags) { m_notify = flags; }
    void setExtraArguments(const QStringList &args) { m_extra = args; }

    /**
     * Starts the server and waits (blocking, up to `timeoutMs`) until it answers PING.
     * Returns false with `*error` set when redis-server is missing or does not come up;
     * retries with another port if the chosen one was taken meanwhile.
     */
    bool start(int timeoutMs = 10000, QString *error = nullptr);
    void stop();
    bool isRunning() const;

    quint16 port() const { return m_port; }
    qint64 pid() const;
    QString url() const;
    RedisEndpoint endpoint() const;
    QString directory() const;

    /** Path of redis-server from PATH (also /usr/bin, /usr/sbin), empty when not installed. */
    static QString findExecutable();
    /** A loopback TCP port that was free a moment ago. */
    static quint16 freePort();

private:
    bool waitForPing(int timeoutMs);

    QString m_notify = QStringLiteral("KA");
    QStringList m_extra;
    std::unique_ptr<QTemporaryDir> m_dir;
    QProcess m_process;
    quint16 m_port = 0;
};

} // namespace lockscope
