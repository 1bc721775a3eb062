#include "localsentinel.h"

#include "testsupport.h"

#include "demo/redisserverprocess.h"

#include <QFile>
#include <QHash>
#include <QProcess>

#include <csignal>
#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace lockscope::test
{

namespace
{

/** A RESP2 flat key/value array (SENTINEL MASTER, one entry of SENTINEL REPLICAS) as a hash. */
QHash<QByteArray, QByteArray> fields(const RedisReply &r)
{
    QHash<QByteArray, QByteArray> out;
    for (int i = 0; i + 1 < r.size(); i += 2)
        out.insert(r.at(i).toByteArray(), r.at(i + 1).toByteArray());
    return out;
}

/** One command to the sentinel on `port` on a fresh connection (sentinels have no databases). */
RedisReply sentinelCmd(quint16 port, const QList<QByteArray> &argv)
{
    SyncClient c(RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), port), "lockscope-test-sentinel");
    if (!c.open(3000))
        return RedisReply::makeError(QStringLiteral("sentinel on %1 does not answer").arg(port), true);
    return c.cmd(argv, 3000);
}

} // namespace

LocalSentinel::LocalSentinel(const QString &masterName) : m_masterName(masterName) {}

LocalSentinel::~LocalSentinel()
{
    stop();
}

bool LocalSentinel::start(QString *error, int sentinels, int replicas, const QString &notifyFlags)
{
    stop();
    auto failWith = [error](const QString &e) {
        if (error)
            *error = e;
        return false;
    };
    const QStringList replication{QStringLiteral("--repl-diskless-sync-delay"), QStringLiteral("0")};
    auto master = std::make_unique<RedisServerProcess>();
    master->setNotifyKeyspaceEvents(notifyFlags);
    master->setExtraArguments(replication);
    QString e;
    if (!master->start(10000, &e))
        return failWith(QStringLiteral("master: %1").arg(e));
    const quint16 masterPort = master->port();
    m_servers.push_back(std::move(master));
    for (int i = 0; i < replicas; ++i) {
        auto replica = std::make_unique<RedisServerProcess>();
        replica->setNotifyKeyspaceEvents(notifyFlags);
        replica->setExtraArguments(replication + QStringList{QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"),
                                                             QString::number(masterPort)});
        if (!replica->start(10000, &e))
            return failWith(QStringLiteral("replica %1: %2").arg(i).arg(e));
        SyncClient c(replica->endpoint());
        if (!c.open() || !waitUntil(
                             [&] {
                                 return c.cmd({"INFO", "replication"}).toByteArray().contains("master_link_status:up");
                             },
                             20000))
            return failWith(QStringLiteral("the replica on %1 never synced with the master").arg(replica->port()));
        m_servers.push_back(std::move(replica));
    }

    const QString exe = RedisServerProcess::findExecutable();
    for (int i = 0; i < sentinels; ++i) {
        auto dir = std::make_unique<QTemporaryDir>();
        const quint16 port = RedisServerProcess::freePort();
        if (!dir->isValid() || port == 0)
            return failWith(QStringLiteral("cannot create a temporary directory or find a free port"));
        // Sentinel rewrites its configuration file (toolchain.md item 7): it must be writable.
        QFile conf(dir->filePath(QStringLiteral("sentinel.conf")));
        if (!conf.open(QIODevice::WriteOnly))
            return failWith(QStringLiteral("cannot write %1").arg(conf.fileName()));
        conf.write(QStringLiteral("port %1\nbind 127.0.0.1\ndaemonize no\ndir %2\nloglevel warning\n"
                                  "sentinel monitor %3 127.0.0.1 %4 2\n"
                                  "sentinel down-after-milliseconds %3 1000\n"
                                  "sentinel failover-timeout %3 3000\n"
                                  "sentinel parallel-syncs %3 1\n")
                       .arg(port)
                       .arg(dir->path(), m_masterName)
                       .arg(masterPort)
                       .toUtf8());
        conf.close();
        auto process = std::make_unique<QProcess>();
        process->setProcessChannelMode(QProcess::MergedChannels);
#ifdef Q_OS_LINUX
        process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
#endif
        process->start(exe, {conf.fileName(), QStringLiteral("--sentinel")});
        if (!process->waitForStarted(10000))
            return failWith(QStringLiteral("sentinel %1 did not start: %2").arg(i).arg(process->errorString()));
        m_sentinels.push_back(std::move(process));
        m_sentinelDirs.push_back(std::move(dir));
        m_sentinelPorts << port;
    }
    return waitReady(30000, error);
}

void LocalSentinel::stop()
{
    for (auto &p : m_sentinels) {
        if (p->state() != QProcess::NotRunning) {
            p->kill();
            p->waitForFinished(3000);
        }
    }
    m_sentinels.clear();
    m_sentinelDirs.clear();
    m_sentinelPorts.clear();
    for (auto &s : m_servers)
        s->stop();
    m_servers.clear();
}

QString LocalSentinel::url() const
{
    QStringList nodes;
    for (quint16 p : m_sentinelPorts)
        nodes << QStringLiteral("127.0.0.1:%1").arg(p);
    return QStringLiteral("redis-sentinel://%1#%2").arg(nodes.join(QLatin1Char(',')), m_masterName);
}

int LocalSentinel::firstLiveSentinel() const
{
    for (size_t i = 0; i < m_sentinels.size(); ++i)
        if (m_sentinels[i]->state() == QProcess::Running)
            return int(i);
    return 0;
}

void LocalSentinel::killSentinel(int index)
{
    QProcess *p = m_sentinels.at(size_t(index)).get();
    if (p->state() == QProcess::NotRunning)
        return;
    p->kill();
    p->waitForFinished(3000);
}

quint16 LocalSentinel::masterPort(int index) const
{
    if (index < 0)
        index = firstLiveSentinel();
    const RedisReply r =
        sentinelCmd(m_sentinelPorts.value(index), {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", m_masterName.toUtf8()});
    return r.isArray() && r.size() == 2 ? quint16(r.at(1).toByteArray().toUInt()) : 0;
}

QList<quint16> LocalSentinel::serverPorts() const
{
    QList<quint16> out;
    for (const auto &s : m_servers)
        out << s->port();
    return out;
}

RedisServerProcess *LocalSentinel::server(quint16 port) const
{
    for (const auto &s : m_servers)
        if (s->port() == port)
            return s.get();
    return nullptr;
}

bool LocalSentinel::waitReady(int timeoutMs, QString *error)
{
    QString why;
    const bool ok = waitUntil(
        [&] {
            const quint16 master = masterPort();
            for (int i = 0; i < m_sentinelPorts.size(); ++i) {
                if (m_sentinels.at(size_t(i))->state() != QProcess::Running)
                    continue;
                const quint16 port = m_sentinelPorts.at(i);
                if (masterPort(i) != master) {
                    why = QStringLiteral("the sentinels do not agree on the master yet");
                    return false;
                }
                const auto m = fields(sentinelCmd(port, {"SENTINEL", "MASTER", m_masterName.toUtf8()}));
                if (m.value("flags") != "master" ||
                    m.value("num-other-sentinels").toInt() != m_sentinelPorts.size() - 1) {
                    why = QStringLiteral("sentinel %1: flags %2, %3 other sentinel(s)")
                              .arg(port)
                              .arg(QString::fromUtf8(m.value("flags")),
                                   QString::fromUtf8(m.value("num-other-sentinels")));
                    return false;
                }
                const RedisReply replicas = sentinelCmd(port, {"SENTINEL", "REPLICAS", m_masterName.toUtf8()});
                bool good = false;
                for (int r = 0; r < replicas.size(); ++r) {
                    const auto f = fields(replicas.at(r));
                    if (f.value("flags") == "slave" && f.value("master-link-status") == "ok")
                        good = true;
                }
                if (!good) {
                    why = QStringLiteral("sentinel %1 knows no replica with a working link yet").arg(port);
                    return false;
                }
            }
            return true;
        },
        timeoutMs);
    if (!ok && error)
        *error = QStringLiteral("the Sentinel set-up did not become ready: %1").arg(why);
    return ok;
}

bool LocalSentinel::forceFailover(QString *error, int index)
{
    const RedisReply r = sentinelCmd(m_sentinelPorts.value(index), {"SENTINEL", "FAILOVER", m_masterName.toUtf8()});
    if (r.isError()) {
        if (error)
            *error = QStringLiteral("SENTINEL FAILOVER: %1").arg(r.errorMessage());
        return false;
    }
    return true;
}

bool LocalSentinel::killMaster(QString *error)
{
    RedisServerProcess *s = server(masterPort());
    if (!s || s->pid() <= 0) {
        if (error)
            *error = QStringLiteral("no running master to kill");
        return false;
    }
    ::kill(pid_t(s->pid()), SIGKILL);
    return true;
}

quint16 LocalSentinel::waitNewMaster(quint16 oldPort, int timeoutMs) const
{
    quint16 now = 0;
    waitUntil(
        [&] {
            now = masterPort();
            return now != 0 && now != oldPort;
        },
        timeoutMs);
    return now != oldPort ? now : 0;
}

} // namespace lockscope::test
