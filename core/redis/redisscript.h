#pragma once

#include "redisconnection.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace lockscope
{

/**
 * A Lua script sent as EVALSHA with a fallback to EVAL on NOSCRIPT, as Redisson does with
 * `useScriptCache=true` (protocol §1.3).
 *
 * Scripts are LockScope's own files under resources/scripts/ (compiled in as Qt resources
 * `:/lockscope/scripts/<name>.lua`); each starts with a comment giving its KEYS, ARGV and replies.
 */
class RedisScript
{
public:
    RedisScript() = default;
    explicit RedisScript(const QByteArray &source);
    /** Loads `:/lockscope/scripts/<name>.lua`; aborts (qFatal) if the resource is missing, since
     *  that is a build error, not a runtime condition. */
    static RedisScript fromResource(const QString &name);

    const QByteArray &source() const { return m_source; }
    /** Lower-case hex SHA-1 of the source, as SCRIPT LOAD returns it. */
    const QByteArray &sha1() const { return m_sha1; }

    /** Runs the script: `callback` gets the script's reply, or the error (a Lua error is a
     *  server error reply: "ERR user_script:7: ..."). */
    void eval(RedisConnection *connection, const QList<QByteArray> &keys, const QList<QByteArray> &args,
              QObject *context, RedisConnection::ReplyCallback callback) const;

private:
    QByteArray m_source;
    QByteArray m_sha1;
};

} // namespace lockscope
