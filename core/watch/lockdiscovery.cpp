#include "watch/lockdiscovery.h"
#include "redis/redisbytes.h"

#include "protocol/locknames.h"

#include "redis/redisconnection.h"

namespace lockscope
{

LockDiscovery::LockDiscovery(RedisConnection *connection, QObject *parent)
    : QObject(parent), m_connection(connection), m_script(RedisScript::fromResource(QStringLiteral("scan_step")))
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
    for (Pass &p : m_passes) {
        p.cursor = "0";
        p.done = false;
        p.count = m_count;
    }
    m_scanned = 0;
    m_candidates = 0;
    m_steps = 0;
    m_examined = 0;
    m_running = true;
    m_joint = m_walkTogether;
    m_prefilterRun = m_prefilter;
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
    // Both passes share each call while both run (run one after the other, each step
    // waiting behind the snapshot reads, discovery took longer than reading what it found). Each
    // SCAN cursor MATCH glob COUNT n TYPE t is timed by scan_step.lua; the two share the budget.
    // While the server gives both passes the same next cursor, they walk together: the same
    // cursor and COUNT for both SCANs of a step, so the second walks the buckets the first has
    // just brought into the server's cache (1M keys: 1.1-1.2 s of SCAN for both walks instead of
    // 1.6-1.9 s walked apart). Redis 7.0 walks the same buckets for both (it filters MATCH and
    // TYPE after the walk) unless the first SCAN changed them: the TYPE filter looks every key up,
    // which may delete an expired one or move a resize on. So the companion pass goes first (its
    // MATCH looks up only `redisson_lock_*` keys). A server whose walk depends on the filter, or
    // a companion key expiring under the first SCAN, gives two cursors: each pass then goes on
    // from its own.
    const bool joint = m_joint && !m_passes[0].done && !m_passes[1].done;
    if (joint)
        m_passes[1] = m_passes[0];
    QList<QByteArray> args;
    QVector<int> sent;
    const int order[2] = {joint ? 1 : 0, joint ? 0 : 1};
    for (int i : order) {
        const Pass &p = m_passes[i];
        if (p.done)
            continue;
        sent << i;
        if (i == 0)
            args << p.cursor << RedisBytes::toBytes(m_glob) << QByteArray::number(p.count)
                 << (m_prefilterRun ? QByteArrayLiteral("lockhash") : QByteArrayLiteral("hash"));
        else
            args << p.cursor << "redisson_lock_*" << QByteArray::number(p.count) << "";
    }
    if (sent.isEmpty())
        return;
    m_steps += sent.size();
    const int count0 = m_passes[0].count;
    const int count1 = m_passes[1].count;
    RedisConnection *connection =
        m_scanConnection && m_scanConnection->isReady() ? m_scanConnection.data() : m_connection.data();
    auto onReply = [this, generation, sent, count0, count1, joint](const RedisReply &r) {
        if (generation != m_generation)
            return; // cancelled or restarted meanwhile
        if (r.isError()) {
            m_running = false;
            const QString msg = r.errorMessage();
            emit failed(
                msg.contains(QLatin1String("syntax error"))
                    ? QStringLiteral("SCAN ... TYPE was refused (%1): LockScope needs Redis 6.0 or newer").arg(msg)
                    : QStringLiteral("SCAN failed: %1").arg(msg));
            return;
        }
        // A reply of another shape (a proxy or a fake server answering `:1`) ends the scan with an
        // error; its "cursor" is never sent back (that looped 1.8M times a minute).
        // Three elements per SCAN (page, server µs, hashes left out) when the hash pass ran, else
        // the plain { page, µs } of a single SCAN (scan_step.lua).
        const int per = sent.size() > 1 || (sent.first() == 0 && m_prefilterRun) ? 3 : 2;
        const bool shaped = r.isArray() && r.size() == per * sent.size();
        const qint64 budgetEach = sent.size() > 1 ? m_budgetUs / 2 : m_budgetUs;
        QStringList names;
        QStringList byCompanion; // names derived from the companion keys of the second pass
        QStringList notLocks;
        qint64 jointUs = 0; // server time of both SCANs of a joint step
        for (int k = 0; k < sent.size(); ++k) {
            const int pass = sent[k];
            RedisReply::ScanPage page;
            QString shapeError;
            const RedisReply &pageReply = shaped ? r.at(per * k) : r;
            if (!pageReply.toScanPage(&page, &shapeError)) {
                m_running = false;
                emit failed(QStringLiteral("%1: is this a Redis server?").arg(shapeError));
                return;
            }
            Pass &p = m_passes[pass];
            const int count = pass == 0 ? count0 : count1;
            const qint64 usedUs = r.at(per * k + 1).toInteger(-1);
            m_slowestStepUs = qMax(m_slowestStepUs, usedUs);
            jointUs += qMax<qint64>(0, usedUs);
            if (m_budgetUs > 0)
                p.count = nextScanCount(count, usedUs, budgetEach);
            if (per == 3) {
                for (const RedisReply &d : r.at(per * k + 2).elements())
                    notLocks << RedisBytes::toText(d.toByteArray());
            }
            p.cursor = page.cursor;
            p.done = p.cursor == "0";
            for (const auto &k2 : page.items) {
                const QString key = RedisBytes::toText(k2);
                if (pass == 0) {
                    if (!LockNames::isTransientHelperKey(key))
                        names << key;
                } else {
                    // The queue, timeout set or token of `x` is also that of `{x}` (§14.4): both
                    // are candidates; the snapshot tells whose it is, and the monitor lists only
                    // one of them. Other `redisson_lock_*` keys name no lock.
                    for (const QString &name : LockNames::withTwin(LockNames::lockNameFromCompanionKey(key)))
                        if (m_regex.match(RedisBytes::matchable(name)).hasMatch())
                            byCompanion << name;
                }
            }
            m_scanned += page.items.size();
            if (pass == 0)
                m_examined += count; // SCAN visits about COUNT keys per step
        }
        if (joint) {
            if (m_passes[0].cursor != m_passes[1].cursor) {
                m_joint = false; // each pass goes on from its own cursor, with its own COUNT
            } else if (m_budgetUs > 0) {
                // One COUNT for both: the two SCANs of the step share the whole budget.
                m_passes[0].count = m_passes[1].count = nextScanCount(count0, jointUs, m_budgetUs);
            }
        }
        // The next step goes out before this one's names are handed on, so the server walks on
        // while the monitor takes them in: the walk, not the reads, sets the length of a big
        // discovery (at 1M keys the reads end with its last step).
        const bool allDone = m_passes[0].done && m_passes[1].done;
        if (!allDone)
            step();
        m_candidates += names.size() + byCompanion.size();
        if (!notLocks.isEmpty())
            emit hashesNotLocksFound(notLocks);
        if (!names.isEmpty())
            emit candidatesFound(names, false);
        if (!byCompanion.isEmpty())
            emit candidatesFound(byCompanion, true);
        emit progress(!m_passes[0].done ? m_examined : -1, m_candidates);
        if (allDone && generation == m_generation) {
            m_running = false;
            emit finished(m_examined, m_candidates);
        }
    };
    if (m_prefilterRun) {
        m_script.eval(connection, {}, args, this, onReply);
        return;
    }
    // Without the prefilter nothing needs Lua: TIME, SCAN, TIME[, SCAN, TIME] pipelined, which
    // Redis runs back to back (one read of the socket), so the TIMEs still time each SCAN on the
    // server. The script's own run (its call, the copy of each page into Lua and back) cost as
    // much Redis CPU again as a fifth of the SCANs. The replies are put into scan_step.lua's shape.
    QList<QList<QByteArray>> commands{{"TIME"}};
    for (int k = 0; k < sent.size(); ++k) {
        QList<QByteArray> scan{"SCAN", args.at(4 * k), "MATCH", args.at(4 * k + 1), "COUNT", args.at(4 * k + 2)};
        if (!args.at(4 * k + 3).isEmpty())
            scan << "TYPE" << args.at(4 * k + 3);
        commands << scan << QList<QByteArray>{"TIME"};
    }
    const int steps = int(sent.size());
    connection->pipeline(commands, this, [onReply, steps](const QVector<RedisReply> &replies) {
        for (const RedisReply &r : replies)
            if (r.isError())
                return onReply(r);
        if (replies.size() != 2 * steps + 1)
            return onReply(RedisReply::makeError(
                QStringLiteral("a pipeline of %1 commands got %2 replies").arg(2 * steps + 1).arg(replies.size())));
        auto micros = [](const RedisReply &t) { return t.at(0).toInteger() * 1000000 + t.at(1).toInteger(); };
        QVector<RedisReply> shaped;
        for (int k = 0; k < steps; ++k) {
            shaped << replies.at(2 * k + 1)
                   << RedisReply::makeInteger(micros(replies.at(2 * k + 2)) - micros(replies.at(2 * k)));
            if (steps > 1)
                shaped << RedisReply::makeArray({});
        }
        onReply(RedisReply::makeArray(shaped));
    });
}

} // namespace lockscope
