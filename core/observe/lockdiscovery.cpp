#include "lockdiscovery.h"
#include "redis/redisbytes.h"

#include "locknames.h"

#include "redis/redisconnection.h"

namespace lockscope {

LockDiscovery::LockDiscovery(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection), m_script(RedisScript::fromResource(QStringLiteral("scan_step")))
{
}

void LockDiscovery::adapt(int count, qint64 usedUs)
{
    m_slowestStepUs = qMax(m_slowestStepUs, usedUs);
    if (m_budgetUs <= 0)
        return;
    m_count = nextScanCount(count, usedUs, m_budgetUs);
}

int LockDiscovery::nextScanCount(int count, qint64 usedUs, qint64 budgetUs)
{
    // Aim at 80 % of the budget from the server's cost per visited key; at most double per step,
    // shrink at once when a step was too slow.
    const double perKeyUs = qMax(0.005, double(qMax<qint64>(1, usedUs)) / qMax(1, count));
    const double next = 0.8 * double(qMax<qint64>(1, budgetUs)) / perKeyUs;
    return qBound(kMinCount, int(qMin(next, 2.0 * count)), kMaxCount);
}

QRegularExpression LockDiscovery::globToRegex(const QString &glob)
{
    QString re;
    re.reserve(glob.size() * 2 + 4);
    re += QLatin1Char('^');
    for (int i = 0; i < glob.size(); ++i) {
        const QChar c = glob.at(i);
        if (c == QLatin1Char('*')) {
            re += QStringLiteral(".*");
        } else if (c == QLatin1Char('?')) {
            re += QLatin1Char('.');
        } else if (c == QLatin1Char('\\') && i + 1 < glob.size()) {
            re += QRegularExpression::escape(glob.at(++i));
        } else if (c == QLatin1Char('[')) {
            const int end = glob.indexOf(QLatin1Char(']'), i + 1);
            if (end < 0) {
                re += QStringLiteral("\\[");
                continue;
            }
            QString cls = glob.mid(i + 1, end - i - 1);
            if (cls.startsWith(QLatin1Char('^')))
                cls.replace(0, 1, QStringLiteral("^"));
            cls.replace(QStringLiteral("\\"), QStringLiteral("\\\\"));
            re += QLatin1Char('[') + cls + QLatin1Char(']');
            i = end;
        } else {
            re += QRegularExpression::escape(QString(c));
        }
    }
    re += QLatin1Char('$');
    return QRegularExpression(re, QRegularExpression::DotMatchesEverythingOption);
}

void LockDiscovery::start(const QString &glob)
{
    m_glob = glob.isEmpty() ? QStringLiteral("*") : glob;
    m_regex = globToRegex(m_glob);
    m_cursor = "0";
    m_pass = 0;
    m_scanned = 0;
    m_candidates = 0;
    m_steps = 0;
    m_examined = 0;
    m_running = true;
    ++m_generation;
    step();
}

void LockDiscovery::cancel()
{
    m_running = false;
    ++m_generation;
}

void LockDiscovery::step()
{
    if (!m_connection || !m_running)
        return;
    const int generation = m_generation;
    // SCAN cursor MATCH glob COUNT n TYPE t, run by scan_step.lua between two TIMEs.
    const QList<QByteArray> args = m_pass == 0
                                       ? QList<QByteArray>{m_cursor, RedisBytes::toBytes(m_glob), QByteArray::number(m_count), "hash"}
                                       : QList<QByteArray>{m_cursor, "redisson_lock_queue:*", QByteArray::number(m_count), "list"};
    ++m_steps;
    const int count = m_count;
    m_script.eval(m_connection, {}, args, this, [this, generation, count](const RedisReply &r) {
        if (generation != m_generation)
            return; // cancelled or restarted meanwhile
        if (r.isError()) {
            m_running = false;
            const QString msg = r.errorMessage();
            emit failed(msg.contains(QLatin1String("syntax error"))
                            ? QStringLiteral("SCAN ... TYPE was refused (%1): LockScope needs Redis 6.0 or newer").arg(msg)
                            : QStringLiteral("SCAN failed: %1").arg(msg));
            return;
        }
        // A reply of another shape (a proxy or a fake server answering `:1`) ends the scan with an
        // error; its "cursor" is never sent back (issue 13.5: that looped 1.8M times a minute).
        RedisReply::ScanPage page;
        QString shapeError;
        const RedisReply &pageReply = r.isArray() && r.size() == 2 ? r.at(0) : r;
        if (!pageReply.toScanPage(&page, &shapeError)) {
            m_running = false;
            emit failed(QStringLiteral("%1: is this a Redis server?").arg(shapeError));
            return;
        }
        adapt(count, r.at(1).toInteger(-1));
        m_cursor = page.cursor;
        const QVector<QByteArray> &keys = page.items;
        QStringList names;
        names.reserve(keys.size());
        for (const auto &k : keys) {
            const QString key = RedisBytes::toText(k);
            if (m_pass == 0) {
                if (!LockNames::isTransientHelperKey(key))
                    names << key;
            } else {
                // The queue of `x` is also the queue of `{x}` (§14.4): both are candidates; the
                // snapshot tells whose it is, and the monitor lists only one of them.
                for (const QString &name : LockNames::withTwin(LockNames::lockNameFromCompanionKey(key)))
                    if (m_regex.match(RedisBytes::matchable(name)).hasMatch())
                        names << name;
            }
        }
        m_scanned += keys.size();
        if (m_pass == 0)
            m_examined += count; // SCAN visits about COUNT keys per step
        m_candidates += names.size();
        if (!names.isEmpty())
            emit candidatesFound(names);
        emit progress(m_pass == 0 && m_cursor != "0" ? m_examined : -1, m_candidates);
        if (m_cursor == "0") {
            if (m_pass == 0) {
                m_pass = 1;
            } else {
                m_running = false;
                emit finished(m_examined, m_candidates);
                return;
            }
        }
        step();
    });
}

} // namespace lockscope
