#pragma once

#include <QByteArray>
#include <QString>
#include <QVector>

namespace lockscope
{

struct RespReplyBuilder;

/**
 * A decoded RESP2 reply as a plain value type (copyable, thread-agnostic).
 *
 * Built by hiredis' reader, through RespDecoder's object functions; LockScope never parses RESP
 * itself.
 * Errors are values: a server error reply ("-ERR ...") and a transport failure (timeout, connection
 * lost) both have type Error, with the message in `text`. `isTransportError()` tells them apart.
 */
class RedisReply
{
public:
    enum class Type { Nil, Integer, String, Status, Error, Array };

    RedisReply() = default;

    static RedisReply makeError(const QString &message, bool transport = false);
    /** A transport error for a command that was never written to the server (not connected, or
     *  still queued when the connection failed): it cannot have run (wasNeverSent()). */
    static RedisReply makeUnsentError(const QString &message);
    static RedisReply makeInteger(qint64 value);
    static RedisReply makeString(const QByteArray &value);
    static RedisReply makeArray(QVector<RedisReply> elements);

    Type type() const { return m_type; }
    bool isNil() const { return m_type == Type::Nil; }
    bool isError() const { return m_type == Type::Error; }
    /** True when the error was made by LockScope (timeout, disconnect), not sent by the server. */
    bool isTransportError() const { return m_type == Type::Error && m_transport; }
    /** A transport error of a command that never reached the server (makeUnsentError()). Any other
     *  transport error (a timeout, a connection lost after the command was written) leaves it
     *  unknown whether the server ran it. */
    bool wasNeverSent() const { return isTransportError() && m_unsent; }
    bool isInteger() const { return m_type == Type::Integer; }
    bool isString() const { return m_type == Type::String || m_type == Type::Status; }
    bool isArray() const { return m_type == Type::Array; }

    /** Integer value; for a String reply holding a decimal number, its value; otherwise `fallback`. */
    qint64 toInteger(qint64 fallback = 0, bool *ok = nullptr) const;
    /** Bytes of a String/Status/Error reply, decimal text of an Integer; empty for Nil and Array. */
    QByteArray toByteArray() const;
    /** Error text for Error replies (e.g. "NOSCRIPT No matching script..."), empty otherwise. */
    QString errorMessage() const { return isError() ? QString::fromUtf8(m_text) : QString(); }

    /** True for a server error that an ACL refused (see isPermissionError(const QString &)). */
    bool isPermissionError() const { return isError() && !m_transport && isPermissionError(errorMessage()); }
    /**
     * True when `message` (a server error, or a sentence that quotes one) says that the ACL user
     * may not run a command or touch a key or channel: `NOPERM ...`, or, inside a Lua script,
     * Redis 7's "The user executing the script can't run this command or subcommand". Used to
     * tell a refusal (the CLI's exit code 3) from a failure.
     */
    static bool isPermissionError(const QString &message);
    /**
     * The sentence LockScope shows for a permission error of `aclUser` running `command` (what was
     * sent, e.g. "EVALSHA"): "the ACL user 'viewer' may not run 'set': NOPERM ...". The server's
     * text is kept at the end (so isPermissionError() still holds). Empty when `serverMessage`
     * is not a permission error.
     */
    static QString explainPermissionError(const QString &serverMessage, const QString &aclUser,
                                          const QByteArray &command);

    const QVector<RedisReply> &elements() const { return m_elements; }
    int size() const { return m_elements.size(); }
    /** Element i of an Array reply, or a Nil reply when out of range or not an array. */
    const RedisReply &at(int i) const;

    /** Short human-readable rendering for logs and test failures (binary shown escaped). */
    QString debugString() const;

    // --- Shape checks: a server that is not Redis (or a proxy in between) may answer anything.
    // Callers check the shape they need before using a reply, and stop (with the sentence these
    // return) instead of acting on a default value: a loop fed an integer where it expected a
    // cursor must end, not restart from cursor 0 forever.

    /** "nil", "integer", "string", "status", "error", "array". */
    static QString typeName(Type type);
    /** The type and a short, bounded sample of the value: "integer 1", "array of 3 elements",
     *  "string \"abc\"" (at most 40 bytes of it, escaped). For error messages. */
    QString shapeDescription() const;
    /**
     * Empty when this reply is of type `expected` (String also accepts Status), else a sentence:
     * "the reply to SCAN was integer 1 where an array was expected". `what` names the command.
     * An Error reply gives its own message (a server error is not a shape error).
     */
    QString shapeError(Type expected, const QString &what) const;

    /** One page of a SCAN, HSCAN, SSCAN or ZSCAN reply. */
    struct ScanPage {
        QByteArray cursor;         ///< the next cursor, decimal digits; "0" on the last page
        QVector<QByteArray> items; ///< keys (SCAN, SSCAN) or field, value pairs (HSCAN, ZSCAN)
        bool isLast() const { return cursor == "0"; }
    };
    /**
     * Reads a *SCAN reply: an array of 2 whose first element is the cursor (a bulk string of 1
     * to 20 decimal digits, an unsigned 64-bit number) and whose second is an array of strings.
     * False, with `error` set ("the reply to SCAN was integer 1 where an array of 2 (cursor,
     * keys) was expected"), for any other shape: the caller must end the scan with that error,
     * never send the cursor back.
     */
    bool toScanPage(ScanPage *page, QString *error, const QString &what = QStringLiteral("SCAN")) const;

private:
    friend struct RespReplyBuilder; // builds replies in place as hiredis parses (respdecoder.cpp)

    Type m_type = Type::Nil;
    bool m_transport = false;
    bool m_unsent = false;
    qint64 m_integer = 0;
    QByteArray m_text;
    QVector<RedisReply> m_elements;
};

} // namespace lockscope
