#include "listcommand.h"

#include "locktable.h"

#include "text/displaytext.h"

#include <QCommandLineParser>
#include <QJsonDocument>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace lockscope
{

CliCommandDescriptor ListCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<ListCommand>(
        "list", "list [--pattern GLOB] [--holder ID] [--json] [--wide] [--identify-ms N]",
        "Every lock: holders, hold counts, TTL, waiters.");
    d.description =
        QStringLiteral("The table fits the terminal (COLUMNS); --wide shows all, with the HOST and NAME of each "
                       "holder's client when --identify-ms found them.");
    d.details =
        QStringLiteral("One discovery pass (SCAN) and one read per lock, then the answer. Columns: NAME, KIND, HOLDER "
                       "(client id:thread id), HOLDS, TTL, WAITING, PROBLEMS; `--wide` adds HOST and NAME. No cell is "
                       "wider than 200 characters (a longer name keeps its first 139 and last 60 characters around "
                       "`...`); `--json` keeps every name whole. With `--holder` the text says `N of M locks match` on "
                       "stderr.");
    d.options =
        CliCommandDescriptor::words("pattern json holder wide client-list-budget identify-ms targets password-file");
    d.examples = {QStringLiteral("--url redis://127.0.0.1:6379 list"),
                  QStringLiteral("list --pattern 'orders:*' --json"), QStringLiteral("list --wide --identify-ms 2000")};
    d.fleet = true;
    return d;
}

void ListCommand::writeJsonLines(const QVector<const LockSnapshot *> &locks)
{
    // One QJsonDocument per line, built by Qt's writer. Redis is done by now, so the lines of each
    // block are built on two threads (each snapshot is only read), then written in order.
    constexpr int kBlock = 4096;
    auto build = [&locks](int from, int to, QByteArray *out) {
        for (int i = from; i < to; ++i) {
            out->append(QJsonDocument(locks.at(i)->toJson()).toJson(QJsonDocument::Compact));
            out->append('\n');
        }
    };
    for (int begin = 0; begin < locks.size(); begin += kBlock) {
        const int end = qMin(int(locks.size()), begin + kBlock);
        const int mid = begin + (end - begin) / 2;
        QByteArray first;
        QByteArray second;
        if (end - begin >= 64) {
            std::thread helper(build, mid, end, &second);
            build(begin, mid, &first);
            helper.join();
        } else {
            build(begin, end, &first);
        }
        std::fwrite(first.constData(), 1, size_t(first.size()), stdout);
        std::fwrite(second.constData(), 1, size_t(second.size()), stdout);
    }
    std::fflush(stdout);
}

void ListCommand::print()
{
    const bool identified = identifies();
    {
        if (m_json && identified) {
            QVector<LockSnapshot> locks;
            m_session->forEachLock([&locks](const LockSnapshot &s) { locks << s; });
            std::sort(locks.begin(), locks.end(),
                      [](const LockSnapshot &a, const LockSnapshot &b) { return a.name < b.name; });
            const LockFilter filter = holderFilter();
            for (const auto &s : locks) {
                if (!filter.isEmpty() && !filter.matches(s))
                    continue;
                QJsonObject o = s.toJson();
                ClientIdentity::annotateLockJson(&o,
                                                 [this](const QString &id) { return m_session->clientIdentity(id); });
                m_out << QJsonDocument(o).toJson(QJsonDocument::Compact) << '\n';
            }
            finish(Ok);
            return;
        }
        if (m_json) {
            // 200k locks: no copy of the snapshots (not even a cluster's merged set), lines written
            // as bytes (not through QTextStream).
            const LockFilter filter = holderFilter();
            QVector<const LockSnapshot *> sorted;
            m_session->forEachLock([&sorted, &filter](const LockSnapshot &s) {
                if (filter.isEmpty() || filter.matches(s))
                    sorted << &s;
            });
            std::sort(sorted.begin(), sorted.end(),
                      [](const LockSnapshot *a, const LockSnapshot *b) { return a->name < b->name; });
            m_out.flush();
            writeJsonLines(sorted);
            finish(Ok);
            return;
        }
        QVector<LockSnapshot> locks;
        m_session->forEachLock([&locks](const LockSnapshot &s) { locks << s; });
        std::sort(locks.begin(), locks.end(),
                  [](const LockSnapshot &a, const LockSnapshot &b) { return a.name < b.name; });
        const qsizetype seen = locks.size();
        const LockFilter filter = holderFilter();
        if (!filter.isEmpty())
            locks.erase(std::remove_if(locks.begin(), locks.end(),
                                       [&filter](const LockSnapshot &s) { return !filter.matches(s); }),
                        locks.end());
        if (!filter.isEmpty())
            m_err << "lockscope-cli: " << locks.size() << " of " << seen << " locks match --holder "
                  << DisplayText::escaped(filter.holderText()) << '\n';
        const bool wide = m_parser.isSet(QStringLiteral("wide"));
        auto table = [this, wide, identified](const QVector<LockSnapshot> &shown) {
            if (wide || identified)
                m_out << LockTable::format(shown, LockSnapshot::steadyNowMs(), wide ? 0 : LockTable::terminalColumns(),
                                           [this](const QString &id) { return m_session->clientIdentity(id); });
            else
                m_out << LockTable::format(shown, LockSnapshot::steadyNowMs(), LockTable::terminalColumns());
            m_out << shown.size() << " lock(s) on " << m_session->options().endpoint.address()
                  << (m_session->serverModes().size() > 1
                          ? QStringLiteral(" and the other masters of its cluster (%1 in all)")
                                .arg(m_session->serverModes().size())
                          : QString())
                  << '\n';
            finish(Ok);
        };
        if (wide) // the REPLICATED column: what INFO replication can tell of locks this run did not see written
            m_session->judgeReplication(locks, table);
        else
            table(locks);
    }
}

} // namespace lockscope
