#include "act/writepermissions.h"

#include <QHash>

namespace lockscope
{

WritePermissions::WritePermissions(const QString &user, const QStringList &refused)
    : m_user(user), m_refused(refused), m_known(true)
{
}

QStringList WritePermissions::commandsOf(const QString &action)
{
    // What each write's scripts call (resources/scripts/*.lua), reduced to the write commands a
    // read-only user lacks; reads are checked by acl_probe.lua. Every script runs by EVALSHA.
    static const QHash<QString, QStringList> commands{
        {QStringLiteral("acquire"), {"evalsha", "hincrby", "pexpire"}},
        {QStringLiteral("renew"), {"evalsha", "pexpire"}},
        {QStringLiteral("release"), {"evalsha", "hincrby", "del", "publish"}},
        {QStringLiteral("force_unlock"), {"evalsha", "del", "publish"}},
        {QStringLiteral("set_ttl"), {"evalsha", "pexpire"}},
        {QStringLiteral("remove_waiter"), {"evalsha", "lrem", "zrem", "publish"}},
        {QStringLiteral("remove_reader"), {"evalsha", "hdel", "del"}},
        {QStringLiteral("wake"), {"evalsha", "lpop", "zrem", "publish"}},
        {QStringLiteral("enable_notifications"), {"config|set"}},
    };
    return commands.value(action);
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
