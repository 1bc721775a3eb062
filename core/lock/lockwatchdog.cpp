#include "lockwatchdog.h"
#include "redis/redisbytes.h"

#include "redis/hashslot.h"
#include "redis/redisconnection.h"

#include <QDateTime>
#include <QMap>

namespace lockscope
{

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
    if (!m_locks.contains(name)) {
        m_locks.insert(name, field);
        m_lastRenewedMs.insert(name, QDateTime::currentMSecsSinceEpoch()); // the acquire set the lease
    }
    if (!m_timer.isActive())
        m_timer.start(static_cast<int>(m_timeoutMs / 3));
}

void LockWatchdog::remove(const QString &name)
{
    m_locks.remove(name);
    m_lastRenewedMs.remove(name);
    m_atRisk.remove(name);
    if (m_locks.isEmpty())
        m_timer.stop();
}

QList<QStringList> LockWatchdog::batches() const
{
    QList<QStringList> out;
    auto chunked = [&out](const QStringList &names) {
        for (int start = 0; start < names.size(); start += kBatchSize)
            out << names.mid(start, kBatchSize);
    };
    if (!m_oneSlotPerBatch) {
        chunked(m_locks.keys());
        return out;
    }
    // RenewalTask in cluster mode: group by slot, then chunks of lockWatchdogBatchSize (§2.6).
    QMap<int, QStringList> bySlot;
    for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it)
        bySlot[HashSlot::of(RedisBytes::toBytes(it.key()))] << it.key();
    for (const QStringList &group : std::as_const(bySlot))
        chunked(group);
    return out;
}

void LockWatchdog::renewNow()
{
    if (!m_connection || m_locks.isEmpty())
        return;
    for (const QStringList &chunk : batches()) {
        QList<QByteArray> keys;
        QList<QByteArray> args{QByteArray::number(m_timeoutMs)};
        for (const auto &n : chunk) {
            keys << RedisBytes::toBytes(n);
            args << RedisBytes::toBytes(m_locks.value(n));
        }
        m_script.eval(m_connection, keys, args, this, [this, chunk](const RedisReply &r) { onReply(chunk, r); });
    }
}

void LockWatchdog::onReply(const QStringList &chunk, const RedisReply &r)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (r.isError() || !r.isArray()) {
        const QString error =
            r.isError() ? r.errorMessage() : QStringLiteral("unexpected reply %1").arg(r.debugString());
        QStringList risky;
        for (const QString &n : chunk) {
            if (!m_locks.contains(n))
                continue; // released meanwhile
            Risk &risk = m_atRisk[n];
            risk.error = error;
            risk.failedAtEpochMs = now;
            risk.lastRenewedEpochMs = m_lastRenewedMs.value(n);
            risky << n;
        }
        if (risky.isEmpty())
            return;
        emit renewalFailed(risky, error);
        emit errorOccurred(QStringLiteral("Watchdog renewal of %1 failed (retrying in %2 ms): %3. The hold is at risk: "
                                          "it expires if no renewal succeeds before its lease runs out.")
                               .arg(risky.join(QStringLiteral(", ")))
                               .arg(m_timeoutMs / 3)
                               .arg(error));
        return;
    }
    QStringList ok;
    QStringList back;
    for (int i = 0; i < chunk.size(); ++i) {
        const QString &n = chunk[i];
        if (r.at(i).toInteger() == 1) {
            if (!m_locks.contains(n))
                continue;
            ok << n;
            m_lastRenewedMs.insert(n, now);
            if (m_atRisk.remove(n))
                back << n;
        } else if (m_locks.contains(n)) {
            remove(n);
            emit lost(n);
        }
    }
    if (!ok.isEmpty())
        emit renewed(ok);
    if (!back.isEmpty())
        emit recovered(back);
}

} // namespace lockscope
