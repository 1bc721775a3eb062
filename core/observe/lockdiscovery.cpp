#include "lockdiscovery.h"
#include "redis/redisbytes.h"

#include "locknames.h"

#include "redis/redisconnection.h"

#include <QElapsedTimer>

namespace lockscope {

LockDiscovery::LockDiscovery(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection)
{
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
    QList<QByteArray> argv{"SCAN", m_cursor, "MATCH"};
    if (m_pass == 0)
        argv << RedisBytes::toBytes(m_glob) << "COUNT" << QByteArray::number(m_count) << "TYPE" << "hash";
    else
        argv << "redisson_lock_queue:*" << "COUNT" << QByteArray::number(m_count) << "TYPE" << "list";
    ++m_steps;
    QElapsedTimer clock;
    clock.start();
    const int count = m_count;
    m_connection->send(argv, this, [this, generation, clock, count](const RedisReply &r) {
        if (generation != m_generation)
            return; // cancelled or restarted meanwhile
        if (m_budgetUs > 0) {
            // The round trip bounds the server's time from above: size the next step by it.
            const double perKeyUs = qMax(0.01, double(clock.nsecsElapsed()) / 1000.0 / count);
            const int next = int(0.5 * double(m_budgetUs) / perKeyUs);
            m_count = qBound(qMax(100, count / 2), next, qMin(4000, count * 2));
        }
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
        if (!r.toScanPage(&page, &shapeError)) {
            m_running = false;
            emit failed(QStringLiteral("%1: is this a Redis server?").arg(shapeError));
            return;
        }
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
