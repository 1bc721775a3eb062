#include "locktable.h"

#include "text/displaytext.h"
#include "text/durationtext.h"

#include <QStringList>

#include <sys/ioctl.h>
#include <unistd.h>

namespace lockscope
{

QString LockTable::format(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs)
{
    return format(locks, nowSteadyMs, 0);
}

int LockTable::terminalColumns()
{
    bool ok = false;
    const int columns = qEnvironmentVariableIntValue("COLUMNS", &ok);
    if (ok && columns > 0)
        return columns;
    struct winsize ws = {};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

namespace
{

/** "b983c153-7421-469a-addb-44fb92259a1b:1" -> "b983c153…9a1b:1": the first 8 characters (what
 *  people quote) and the last 4 of a long client id, the thread id whole. */
QString elidedField(const QString &field)
{
    const qsizetype colon = field.lastIndexOf(QLatin1Char(':'));
    const QString client = colon >= 0 ? field.left(colon) : field;
    if (client.size() <= 16)
        return field;
    return client.left(8) + QStringLiteral("…") + client.right(4) + (colon >= 0 ? field.mid(colon) : QString());
}

/** The widest a cell gets, --wide or not: one lock with a 1 MiB name must not make every row of
 *  the table 1 MiB wide. Longer cells keep their start and end ("orders:eu-west…:shard-17"). */
constexpr int kMaxCell = 200;

QString elidedMiddle(const QString &text)
{
    if (text.size() <= kMaxCell)
        return text;
    constexpr int kEnd = 60;
    return text.left(kMaxCell - kEnd - 1) + QStringLiteral("…") + text.right(kEnd);
}

QString cut(const QString &text, int width)
{
    return text.size() <= width ? text : text.left(qMax(0, width - 1)) + QStringLiteral("…");
}

} // namespace

QString LockTable::format(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs, int maxColumns)
{
    return format(locks, nowSteadyMs, maxColumns, nullptr);
}

QString LockTable::format(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs, int maxColumns,
                          const std::function<ClientIdentity(const QString &clientId)> &identity)
{
    const bool fit = maxColumns > 0;
    QVector<QStringList> rows;
    rows << QStringList{
        QStringLiteral("NAME"),    QStringLiteral("KIND"), QStringLiteral("HOLDER (client id:thread id)"),
        QStringLiteral("HOLDS"),   QStringLiteral("TTL"),  QStringLiteral("WAITING"),
        QStringLiteral("PROBLEMS")};
    if (identity) {
        rows.first().insert(4, QStringLiteral("HOST"));
        rows.first().insert(5, QStringLiteral("NAME"));
        rows.first().insert(7, QStringLiteral("REPLICATED"));
    }
    for (const auto &s : locks) {
        QStringList holders;
        QStringList counts;
        for (const auto &h : s.holders) {
            if (fit && holders.size() == 1 && s.holders.size() > 2) {
                holders << QStringLiteral("+%1 more").arg(s.holders.size() - 1);
                counts << QStringLiteral("…");
                break;
            }
            holders << (fit ? elidedField(h.field) : h.field) +
                           (h.mode.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(h.mode));
            counts << QString::number(h.holdCount);
        }
        if (s.sampled) { // too big to read whole: say how many, list none
            holders = QStringList{s.holderSummary()};
            counts.clear();
        }
        const QString waiting = s.kind == LockKind::FairLock ? QStringLiteral("%1 queued").arg(s.queueLength)
                                                             : QStringLiteral("%1 client(s)").arg(s.subscribers);
        const QString kind =
            s.token >= 0 ? QStringLiteral("%1 (token %2)").arg(lockKindName(s.kind)).arg(s.token) : s.kindDisplay();
        QStringList problems = s.problems;
        if (fit) // the row names the lock already
            for (QString &p : problems)
                if (p.startsWith(s.name + QLatin1Char(' ')))
                    p = p.mid(s.name.size() + 1);
        if (!s.nameNote().isEmpty())
            problems.prepend(QStringLiteral("name: ") + s.nameNote());
        rows << QStringList{s.name,
                            kind,
                            holders.isEmpty() ? QStringLiteral("(free)") : holders.join(QLatin1Char(' ')),
                            counts.join(QLatin1Char(' ')),
                            DurationText::ttl(s.remainingTtlMs(nowSteadyMs), DurationText::Style::Seconds),
                            waiting,
                            problems.join(QStringLiteral("; "))};
        if (identity) {
            QStringList hosts;
            QStringList names;
            for (const auto &h : s.holders) {
                const ClientIdentity c = identity(h.clientId);
                hosts << (c.state == ClientIdentity::State::Disconnected ? QStringLiteral("(gone) ") + c.hostText()
                                                                         : c.hostText());
                names << (c.name.isEmpty() ? QStringLiteral("-") : c.name);
            }
            rows.last().insert(4, hosts.isEmpty() ? QStringLiteral("-") : hosts.join(QLatin1Char(' ')));
            rows.last().insert(5, names.isEmpty() ? QStringLiteral("-") : names.join(QLatin1Char(' ')));
            // Whether a replica has it (LockSession::judgeReplication): a failover now would lose it if not.
            const QString replicated = !s.isHeld() ? QStringLiteral("-")
                                       : s.replication == LockSnapshot::Replication::Replicated
                                           ? QStringLiteral("yes (%1)").arg(s.replicatedOn.size())
                                       : s.replication == LockSnapshot::Replication::NotReplicated
                                           ? QStringLiteral("NO (%1 s)").arg(s.exposedMs / 1000.0, 0, 'f', 1)
                                           : QStringLiteral("?");
            rows.last().insert(7, replicated);
        }
    }
    for (auto &r : rows) // names and fields are whatever clients wrote: no raw control characters
        for (auto &cell : r)
            cell = elidedMiddle(DisplayText::escaped(cell));
    QVector<int> widths = columnWidths(rows);
    if (fit) {
        // Too wide: first the holder column gives way (down to 24), then the last column is cut.
        const int last = int(widths.size()) - 1;
        int fixed = 0;
        for (int i = 0; i < last; ++i)
            fixed += widths[i] + 2;
        constexpr int kMinLast = 12;
        if (fixed + kMinLast > maxColumns && widths[2] > 24) {
            widths[2] = qMax(24, widths[2] - (fixed + kMinLast - maxColumns));
            for (int r = 1; r < rows.size(); ++r)
                rows[r][2] = cut(rows[r][2], widths[2]);
            fixed = 0;
            for (int i = 0; i < last; ++i)
                fixed += widths[i] + 2;
        }
        for (auto &r : rows)
            r[last] = cut(r[last], qMax(kMinLast, maxColumns - fixed));
    }
    return columns(rows, widths);
}

QVector<int> LockTable::columnWidths(const QVector<QStringList> &rows)
{
    QVector<int> widths(rows.isEmpty() ? 0 : rows.first().size(), 0);
    for (const auto &r : rows)
        for (int i = 0; i + 1 < r.size() && i < widths.size(); ++i)
            widths[i] = qMax(widths[i], int(r[i].size()));
    return widths;
}

QString LockTable::columns(const QVector<QStringList> &rows, const QVector<int> &widths)
{
    QString out;
    for (const auto &r : rows) {
        QString line;
        for (int i = 0; i < r.size(); ++i)
            line += i + 1 < r.size() ? r[i].leftJustified(widths.value(i) + 2) : r[i];
        out += line.trimmed() + QLatin1Char('\n');
    }
    return out;
}

} // namespace lockscope
