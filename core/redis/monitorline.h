#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace lockscope
{

/**
 * One line of Redis's MONITOR stream: `<unix time> [<db> <client address>] "<command>" "<arg>" ...`,
 * each word quoted as Redis quotes it (sdscatrepr: \\ \" \n \r \t \a \b and \xHH). A command run
 * inside a Lua script shows `lua` as its address, a unix-socket client `unix:<path>`.
 *
 * A parsed line holds another client's arguments (values, passwords of AUTH are redacted by Redis
 * but a SET's value is not): callers keep only what they need (ClientTracker keeps the client ids
 * of lock scripts) and drop the rest at once.
 */
struct MonitorLine {
    QString address;        ///< "127.0.0.1:51234", "lua", "unix:/tmp/redis.sock"
    QByteArray command;     ///< lower case: "evalsha"
    QList<QByteArray> args; ///< the words after the command, unquoted

    /** Parses `line` (without its trailing CRLF); false when it is not a MONITOR command line
     *  (the initial "OK", a truncated or malformed line). */
    static bool parse(const QByteArray &line, MonitorLine *out);
    /** Whether `line` may be a script call (EVAL, EVALSHA, their _RO forms, FCALL): a cheap
     *  test on the raw line before parse(), so other commands are never unquoted. */
    static bool mayBeScript(const QByteArray &line);
};

} // namespace lockscope
