#include "lockwatchdog.h"

#include "redis/redisconnection.h"

namespace lockscope {

static constexpr int kBatchSize = 100; // lockWatchdogBatchSize default

LockWatchdog::LockWatchdog(RedisConnection *connection, qint64 timeoutMs, QObject *parent)
    : QObject(parent), m_connection(connection), m_script(RedisScript::fromResource(QStringLiteral("lock_renew"))),
      m_timeoutMs(timeoutMs)
{
    m_timer.setParent(this);
    connect(&m_timer, &QTimer::timeout, this, &LockWatchdog::renewNow);
}

void LockWatchdog::setTimeoutMs(qint64 ms)
{
    m_timeoutMs = qMax<qint64>(30, ms);
    if (m_timer.isActive())
        m_timer.start(static_cast<int>(m_timeoutMs / 3));
}

void LockWatchdog::add(const QString &name, const QString &field)
{
    if (!m_locks.contains(name))
        m_locks.insert(name, field);
    if (!m_timer.isActive())
        m_timer.start(static_cast<int>(m_timeoutMs / 3));
}

void LockWatchdog::remove(const QString &name)
{
    m_locks.remove(name);
    if (m_locks.isEmpty())
        m_timer.stop();
}

void LockWatchdog::renewNow()
{
    if (!m_connection || m_locks.isEmpty())
        return;
    const QStringList names = m_locks.keys();
    for (int start = 0; start < names.size(); start += kBatchSize) {
        const QStringList chunk = names.mid(start, kBatchSize);
        QList<QByteArray> keys;
        QList<QByteArray> args{QByteArray::number(m_timeoutMs)};
        for (const auto &n : chunk) {
            keys << n.toUtf8();
            args << m_locks.value(n).toUtf8();
        }
        m_script.eval(m_connection, keys, args, this, [this, chunk](const RedisReply &r) {
            if (r.isError()) {
                emit errorOccurred(QStringLiteral("watchdog renewal failed (retrying in %1 ms): %2")
                                       .arg(m_timeoutMs / 3)
                                       .arg(r.errorMessage()));
                return;
            }
            QStringList ok;
            for (int i = 0; i < chunk.size(); ++i) {
                if (r.at(i).toInteger() == 1) {
                    ok << chunk[i];
                } else if (m_locks.contains(chunk[i])) {
                    remove(chunk[i]);
                    emit lost(chunk[i]);
                }
            }
            if (!ok.isEmpty())
                emit renewed(ok);
        });
    }
}

} // namespace lockscope
