#include "redisreply.h"

#include <QRegularExpression>

namespace lockscope
{

bool RedisReply::isPermissionError(const QString &message)
{
    return message.contains(QLatin1String("NOPERM")) ||
           message.contains(QLatin1String("can't run this command or subcommand"));
}

QString RedisReply::explainPermissionError(const QString &serverMessage, const QString &aclUser,
                                           const QByteArray &command)
{
    if (!isPermissionError(serverMessage))
        return QString();
    const QString user = QStringLiteral("the ACL user '%1'").arg(aclUser);
    const QString sent = QString::fromUtf8(command).toUpper();
    const bool script = sent == QLatin1String("EVALSHA") || sent == QLatin1String("EVAL") ||
                        sent == QLatin1String("EVALSHA_RO") || sent == QLatin1String("EVAL_RO");
    // "NOPERM this user has no permissions to run the 'config|get' command"
    static const QRegularExpression runRx(QStringLiteral("permissions to run the '([^']+)' command"));
    const QRegularExpressionMatch m = runRx.match(serverMessage);
    QString what;
    if (m.hasMatch())
        what = script ? QStringLiteral("may not run '%1' (called by LockScope's Lua script, sent with %2)")
                            .arg(m.captured(1), sent)
                      : QStringLiteral("may not run '%1'").arg(m.captured(1));
    else if (serverMessage.contains(QLatin1String("can't run this command or subcommand")))
        what = QStringLiteral("may not run a command that LockScope's Lua script (sent with %1) calls: a write, "
                              "or a read the user lacks (such as TIME or PUBSUB NUMSUB)")
                   .arg(sent.isEmpty() ? QStringLiteral("EVALSHA") : sent);
    else if (serverMessage.contains(QLatin1String("keys")) || serverMessage.contains(QLatin1String(" key")))
        what = QStringLiteral("may not access the keys %1 uses")
                   .arg(sent.isEmpty() ? QStringLiteral("this command") : sent);
    else if (serverMessage.contains(QLatin1String("channel")))
        what = QStringLiteral("may not use the channels %1 names")
                   .arg(sent.isEmpty() ? QStringLiteral("this command") : sent);
    else
        what = QStringLiteral("may not run %1").arg(sent.isEmpty() ? QStringLiteral("this command") : sent);
    return QStringLiteral("%1 %2: %3").arg(user, what, serverMessage.trimmed());
}

RedisReply RedisReply::makeError(const QString &message, bool transport)
{
    RedisReply r;
    r.m_type = Type::Error;
    r.m_transport = transport;
    r.m_text = message.toUtf8();
    return r;
}

RedisReply RedisReply::makeUnsentError(const QString &message)
{
    RedisReply r = makeError(message, true);
    r.m_unsent = true;
    return r;
}

RedisReply RedisReply::makeInteger(qint64 value)
{
    RedisReply r;
    r.m_type = Type::Integer;
    r.m_integer = value;
    return r;
}

RedisReply RedisReply::makeString(const QByteArray &value)
{
    RedisReply r;
    r.m_type = Type::String;
    r.m_text = value;
    return r;
}

RedisReply RedisReply::makeArray(QVector<RedisReply> elements)
{
    RedisReply r;
    r.m_type = Type::Array;
    r.m_elements = std::move(elements);
    return r;
}

qint64 RedisReply::toInteger(qint64 fallback, bool *ok) const
{
    if (m_type == Type::Integer) {
        if (ok)
            *ok = true;
        return m_integer;
    }
    if (m_type == Type::String || m_type == Type::Status) {
        bool good = false;
        const qint64 v = m_text.toLongLong(&good);
        if (ok)
            *ok = good;
        return good ? v : fallback;
    }
    if (ok)
        *ok = false;
    return fallback;
}

QByteArray RedisReply::toByteArray() const
{
    switch (m_type) {
    case Type::String:
    case Type::Status:
    case Type::Error:
        return m_text;
    case Type::Integer:
        return QByteArray::number(m_integer);
    default:
        return {};
    }
}

const RedisReply &RedisReply::at(int i) const
{
    static const RedisReply nil;
    if (m_type != Type::Array || i < 0 || i >= m_elements.size())
        return nil;
    return m_elements[i];
}

QString RedisReply::debugString() const
{
    switch (m_type) {
    case Type::Nil:
        return QStringLiteral("(nil)");
    case Type::Integer:
        return QStringLiteral("(integer) %1").arg(m_integer);
    case Type::String:
        return QStringLiteral("\"%1\"").arg(QString::fromLatin1(m_text.toPercentEncoding(" :{}-_.*/")));
    case Type::Status:
        return QString::fromUtf8(m_text);
    case Type::Error:
        return QStringLiteral("(error) %1").arg(QString::fromUtf8(m_text));
    case Type::Array: {
        QStringList parts;
        for (const auto &e : m_elements)
            parts << e.debugString();
        return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
    }
    }
    return {};
}

QString RedisReply::typeName(Type type)
{
    switch (type) {
    case Type::Nil:
        return QStringLiteral("nil");
    case Type::Integer:
        return QStringLiteral("integer");
    case Type::String:
        return QStringLiteral("string");
    case Type::Status:
        return QStringLiteral("status");
    case Type::Error:
        return QStringLiteral("error");
    case Type::Array:
        return QStringLiteral("array");
    }
    return {};
}

QString RedisReply::shapeDescription() const
{
    switch (m_type) {
    case Type::Nil:
        return QStringLiteral("nil");
    case Type::Integer:
        return QStringLiteral("integer %1").arg(m_integer);
    case Type::Array:
        return QStringLiteral("an array of %1 element%2").arg(m_elements.size()).arg(m_elements.size() == 1 ? "" : "s");
    case Type::String:
    case Type::Status:
    case Type::Error: {
        QString sample = QString::fromLatin1(m_text.left(40).toPercentEncoding(" :{}-_.*/"));
        if (m_text.size() > 40)
            sample += QStringLiteral("...");
        return QStringLiteral("%1 \"%2\"").arg(typeName(m_type), sample);
    }
    }
    return {};
}

namespace
{
QString article(const QString &noun)
{
    return (noun.startsWith(u'a') || noun.startsWith(u'e') || noun.startsWith(u'i')) ? QStringLiteral("an ")
                                                                                     : QStringLiteral("a ");
}
} // namespace

QString RedisReply::shapeError(Type expected, const QString &what) const
{
    if (m_type == expected || (expected == Type::String && m_type == Type::Status))
        return {};
    if (m_type == Type::Error)
        return QStringLiteral("%1 failed: %2").arg(what, errorMessage());
    const QString noun = typeName(expected);
    return QStringLiteral("the reply to %1 was %2 where %3%4 was expected")
        .arg(what, shapeDescription(), article(noun), noun);
}

bool RedisReply::toScanPage(ScanPage *page, QString *error, const QString &what) const
{
    auto fail = [&](const QString &sentence) {
        if (error)
            *error = sentence;
        return false;
    };
    const QString expected = QStringLiteral("an array of 2 (cursor, keys)");
    if (m_type == Type::Error)
        return fail(QStringLiteral("%1 failed: %2").arg(what, errorMessage()));
    if (m_type != Type::Array || m_elements.size() != 2)
        return fail(
            QStringLiteral("the reply to %1 was %2 where %3 was expected").arg(what, shapeDescription(), expected));
    const RedisReply &cursor = m_elements.at(0);
    bool digits = cursor.isString() && !cursor.m_text.isEmpty() && cursor.m_text.size() <= 20;
    for (char c : cursor.m_text)
        digits = digits && c >= '0' && c <= '9';
    bool ok = false;
    if (digits)
        cursor.m_text.toULongLong(&ok);
    if (!ok)
        return fail(QStringLiteral("the reply to %1 has %2 as its cursor, not a number: the scan stops here")
                        .arg(what, cursor.shapeDescription()));
    const RedisReply &items = m_elements.at(1);
    if (!items.isArray())
        return fail(QStringLiteral("the reply to %1 has %2 where an array of keys was expected")
                        .arg(what, items.shapeDescription()));
    QVector<QByteArray> out;
    out.reserve(items.size());
    for (const RedisReply &item : items.m_elements) {
        if (!item.isString())
            return fail(QStringLiteral("the reply to %1 has %2 among its keys, where only strings are expected")
                            .arg(what, item.shapeDescription()));
        out.append(item.m_text);
    }
    if (page) {
        page->cursor = cursor.m_text;
        page->items = std::move(out);
    }
    return true;
}

} // namespace lockscope
