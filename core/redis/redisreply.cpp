#include "redisreply.h"

#include <hiredis/hiredis.h>

namespace lockscope {

RedisReply RedisReply::fromHiredis(const redisReply *reply)
{
    RedisReply r;
    if (!reply)
        return r;
    switch (reply->type) {
    case REDIS_REPLY_STRING:
        r.m_type = Type::String;
        r.m_text = QByteArray(reply->str, static_cast<int>(reply->len));
        break;
    case REDIS_REPLY_STATUS:
        r.m_type = Type::Status;
        r.m_text = QByteArray(reply->str, static_cast<int>(reply->len));
        break;
    case REDIS_REPLY_ERROR:
        r.m_type = Type::Error;
        r.m_text = QByteArray(reply->str, static_cast<int>(reply->len));
        break;
    case REDIS_REPLY_INTEGER:
        r.m_type = Type::Integer;
        r.m_integer = reply->integer;
        break;
    case REDIS_REPLY_ARRAY:
        r.m_type = Type::Array;
        r.m_elements.reserve(static_cast<int>(reply->elements));
        for (size_t i = 0; i < reply->elements; ++i)
            r.m_elements.append(fromHiredis(reply->element[i]));
        break;
    case REDIS_REPLY_NIL:
    default:
        r.m_type = Type::Nil;
        break;
    }
    return r;
}

RedisReply RedisReply::makeError(const QString &message, bool transport)
{
    RedisReply r;
    r.m_type = Type::Error;
    r.m_transport = transport;
    r.m_text = message.toUtf8();
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

} // namespace lockscope
