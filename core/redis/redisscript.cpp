#include "redisscript.h"

#include <QCryptographicHash>
#include <QFile>

namespace lockscope
{

RedisScript::RedisScript(const QByteArray &source)
    : m_source(source), m_sha1(QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex())
{
}

RedisScript RedisScript::fromResource(const QString &name)
{
    QFile f(QStringLiteral(":/lockscope/scripts/%1.lua").arg(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("Lua script resource %s is missing from the build", qPrintable(f.fileName()));
    return RedisScript(f.readAll());
}

void RedisScript::eval(RedisConnection *connection, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                       QObject *context, RedisConnection::ReplyCallback callback) const
{
    QList<QByteArray> tail;
    tail.reserve(keys.size() + args.size() + 1);
    tail << QByteArray::number(keys.size());
    tail << keys << args;
    QList<QByteArray> evalsha{"EVALSHA", m_sha1};
    evalsha << tail;
    const QByteArray source = m_source;
    QPointer<RedisConnection> conn(connection);
    connection->send(evalsha, context, [conn, source, tail, context, callback](const RedisReply &r) {
        if (r.isError() && r.toByteArray().startsWith("NOSCRIPT") && conn) {
            QList<QByteArray> evalArgs{"EVAL", source};
            evalArgs << tail;
            conn->send(evalArgs, context, callback);
            return;
        }
        if (callback)
            callback(r);
    });
}

} // namespace lockscope
