#pragma once

#include <QSet>
#include <QString>
#include <QStringList>

namespace lockscope
{

/**
 * Which of LockScope's write actions the connection's ACL user may perform, from the commands
 * the server says it refuses that user (acl_write_probe.lua, Redis 7+: redis.acl_check_cmd).
 * A Redis script refused inside names no command, so this is asked before any write: the
 * dashboard disables an action its user cannot perform, and says which command to grant, before
 * the operator types a confirmation. Nothing known (old server, probe failed) = everything
 * allowed; Redis still has the last word and its refusal is reported as it is today.
 *
 * Actions are LockSession's write names: "acquire", "renew", "release", "force_unlock",
 * "set_ttl", "remove_waiter", "remove_reader", "wake", "enable_notifications".
 */
class WritePermissions
{
public:
    WritePermissions() = default;
    /** `refused`: lower-case command names as the probe returns them ("del", "config|set"). */
    WritePermissions(const QString &user, const QStringList &refused);

    /** True when the probe answered (the user is known). */
    bool known() const { return m_known; }
    /** The ACL user the probe ran as ("default" without AUTH user name). */
    QString user() const { return m_user; }
    /** The commands `action` calls that the user may not run, in the probe's order; empty when
     *  allowed or unknown. An unknown action needs nothing. */
    QStringList refusedFor(const QString &action) const;
    bool allows(const QString &action) const { return refusedFor(action).isEmpty(); }
    /** One sentence for a disabled action's tooltip: "Your ACL user 'viewer' may not run DEL,
     *  PUBLISH: grant with ACL SETUSER viewer +del +publish, or connect as a user that may write."
     *  Empty when allowed. */
    QString whyNot(const QString &action) const;
    /** Every command `action` may call, lower case, sorted ("evalsha", "del", "pubsub|numsub",
     *  "config|set", ...): derived from the Lua scripts it runs (scriptsOf(): each literal
     *  `redis.call('x'`/`redis.pcall('x'`, and the names on a `-- Calls too:` line for calls by a
     *  variable, as the publish verb), plus EVALSHA, which runs them. Reads too: a user refused
     *  GET fails a release half-way as surely as one refused SET (the unlock latch). */
    static QStringList commandsOf(const QString &action);
    /** The resources/scripts names `action` runs (every lock kind's); empty for
     *  enable_notifications (CONFIG SET, no script) and unknown actions. */
    static QStringList scriptsOf(const QString &action);
    /** Every action's commands, for the write probe (acl_write_probe.lua checks each). */
    static QStringList allCommands();
    /** The commands one Lua script's text calls (see commandsOf()). */
    static QStringList commandsCalledBy(const QByteArray &luaSource);

private:
    QString m_user;
    QStringList m_refused;
    bool m_known = false;
};

} // namespace lockscope
