#include "listcommand.h"

#include "locktable.h"

#include "protocol/displaytext.h"
#include "watch/lockwatcher.h"

#include <QCommandLineParser>

#include <algorithm>

namespace lockscope
{

void ListCommand::run()
{
    LockWatcher *watcher = m_session->watcher();
    auto listed = [this, watcher] {
        if (m_finished)
            return;
        if (m_json) {
            // 200k locks: no copy of the snapshots, lines written as bytes (not through QTextStream).
            const QHash<QString, LockSnapshot> all = watcher->locks(); // shared, not copied
            const LockFilter filter = holderFilter();
            QVector<const LockSnapshot *> sorted;
            sorted.reserve(all.size());
            for (auto it = all.cbegin(); it != all.cend(); ++it)
                if (filter.isEmpty() || filter.matches(it.value()))
                    sorted << &it.value();
            std::sort(sorted.begin(), sorted.end(),
                      [](const LockSnapshot *a, const LockSnapshot *b) { return a->name < b->name; });
            m_out.flush();
            m_lines->write(sorted);
            m_lines.reset();
            finish(Ok);
            return;
        }
        QVector<LockSnapshot> locks = watcher->locks().values().toVector();
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
        m_out << LockTable::format(locks, LockSnapshot::steadyNowMs(),
                                   m_parser.isSet(QStringLiteral("wide")) ? 0 : LockTable::terminalColumns());
        m_out << locks.size() << " lock(s) on " << m_session->options().endpoint.address()
              << (watcher->serverModes().size() > 1
                      ? QStringLiteral(" and the other masters of its cluster (%1 in all)")
                            .arg(watcher->serverModes().size())
                      : QString())
              << '\n';
        finish(Ok);
    };
    if (m_json) {
        // One object per line, in name order, at the end; most lines are built while the read
        // still goes on (a big list spent as much CPU on its JSON as on the read).
        m_lines = std::make_unique<LockJsonLines>();
        connect(watcher, &LockWatcher::locksUpdated, this,
                [this](const QVector<LockSnapshot> &changed, const QStringList &) {
                    if (m_lines)
                        m_lines->add(changed);
                });
    }
    connect(watcher, &LockWatcher::idle, this, listed);
    connect(watcher, &LockWatcher::errorOccurred, this, [this](const QString &msg) { fail(ServerError, msg); });
    m_session->start();
}

} // namespace lockscope
