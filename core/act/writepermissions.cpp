#include "act/writepermissions.h"

#include <QFile>
#include <QHash>
#include <QRegularExpression>

namespace lockscope
{

WritePermissions::WritePermissions(const QString &user, const QStringList &refused)
    : m_user(user), m_refused(refused), m_known(true)
{
}

QStringList WritePermissions::scriptsOf(const QString &action)
{
    // Which scripts each write runs, for every lock kind (core/lock, core/act).
    static const QHash<QString, QStringList> scripts{
        {QStringLiteral("acquire"),
         {"lock_acquire", "fenced_acquire", "fair_acquire", "fair_try_acquire", "fair_acquire_failed",
          "rw_read_acquire", "rw_write_acquire"}},
        {QStringLiteral("renew"), {"lock_renew", "rw_read_renew"}},
        {QStringLiteral("release"), {"lock_unlock", "fair_unlock", "rw_read_unlock", "rw_write_unlock", "spin_unlock"}},
        {QStringLiteral("force_unlock"), {"force_unlock"}},
        {QStringLiteral("set_ttl"), {"repair_set_ttl"}},
        {QStringLiteral("remove_waiter"), {"repair_remove_waiter"}},
        {QStringLiteral("remove_reader"), {"repair_remove_reader"}},
        {QStringLiteral("wake"), {"repair_wake"}},
    };
    return scripts.value(action);
}

QStringList WritePermissions::commandsCalledBy(const QByteArray &luaSource)
{
    static const QRegularExpression call(
        QStringLiteral("redis\\.p?call\\(\\s*'([a-zA-Z]+)'(?:\\s*,\\s*'([a-zA-Z]+)')?"));
    static const QRegularExpression too(QStringLiteral("^-- Calls too: ([a-z| ]+)"),
                                        QRegularExpression::MultilineOption);
    const QString text = QString::fromUtf8(luaSource);
    QStringList out;
    for (auto it = call.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const QString name = m.captured(1).toLower();
        // Commands with subcommands are granted by subcommand (ACL SETUSER +pubsub|numsub).
        if (name == QLatin1String("pubsub") || name == QLatin1String("config")) {
            if (!m.captured(2).isEmpty()) // a subcommand by a variable: on the "Calls too" line
                out << name + QLatin1Char('|') + m.captured(2).toLower();
        } else
            out << name;
    }
    for (auto it = too.globalMatch(text); it.hasNext();)
        out += it.next().captured(1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    out.sort();
    out.removeDuplicates();
    return out;
}

namespace
{
/** Every action's commands (WritePermissions::commandsOf), derived once from the scripts. */
const QHash<QString, QStringList> &derivedCommands()
{
    static const QHash<QString, QStringList> derived = [] {
        QHash<QString, QStringList> out;
        for (const char *a :
             {"acquire", "renew", "release", "force_unlock", "set_ttl", "remove_waiter", "remove_reader", "wake"}) {
            const QString action = QString::fromLatin1(a);
            QStringList commands{QStringLiteral("evalsha")};
            for (const QString &script : WritePermissions::scriptsOf(action)) {
                QFile f(QStringLiteral(":/lockscope/scripts/%1.lua").arg(script));
                if (f.open(QIODevice::ReadOnly))
                    commands += WritePermissions::commandsCalledBy(f.readAll());
            }
            commands.sort();
            commands.removeDuplicates();
            out.insert(action, commands);
        }
        out.insert(QStringLiteral("enable_notifications"), {QStringLiteral("config|set")});
        return out;
    }();
    return derived;
}
} // namespace

QStringList WritePermissions::commandsOf(const QString &action)
{
    return derivedCommands().value(action);
}

QStringList WritePermissions::allCommands()
{
    QStringList out;
    for (const QStringList &commands : derivedCommands())
        out += commands;
    out.sort();
    out.removeDuplicates();
    return out;
}

QStringList WritePermissions::refusedFor(const QString &action) const
{
    QStringList out;
    const QStringList needed = commandsOf(action);
    for (const QString &c : m_refused)
        if (needed.contains(c))
            out << c;
    return out;
}

QString WritePermissions::whyNot(const QString &action) const
{
    const QStringList refused = refusedFor(action);
    if (refused.isEmpty())
        return {};
    QStringList upper;
    QStringList grants;
    for (const QString &c : refused) {
        upper << c.toUpper().replace(QLatin1Char('|'), QLatin1Char(' '));
        grants << QLatin1Char('+') + c;
    }
    return QStringLiteral("Your ACL user '%1' may not run %2: grant with ACL SETUSER %1 %3, or connect as a user "
                          "that may write")
        .arg(m_user, upper.join(QLatin1String(", ")), grants.join(QLatin1Char(' ')));
}

} // namespace lockscope
