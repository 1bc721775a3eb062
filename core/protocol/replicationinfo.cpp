#include "protocol/replicationinfo.h"

#include <QList>

namespace lockscope
{

QJsonObject ReplicationInfo::Replica::toJson(qint64 masterOffset) const
{
    QJsonObject o{{QStringLiteral("replica"), address},
                  {QStringLiteral("state"), state},
                  {QStringLiteral("offset"), offset},
                  {QStringLiteral("lag_bytes"), masterOffset >= 0 && offset >= 0
                                                    ? qMax<qint64>(0, masterOffset - offset)
                                                    : QJsonValue(QJsonValue::Null)}};
    o.insert(QStringLiteral("lag_seconds"), lagS >= 0 ? QJsonValue(lagS) : QJsonValue(QJsonValue::Null));
    return o;
}

ReplicationInfo ReplicationInfo::parse(const QByteArray &text, qint64 readAtSteadyMs)
{
    ReplicationInfo info;
    info.readAtSteadyMs = readAtSteadyMs;
    for (QByteArray line : text.split('\n')) {
        line = line.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const int colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray key = line.left(colon);
        const QByteArray value = line.mid(colon + 1);
        if (key == "role") {
            info.role = QString::fromLatin1(value);
        } else if (key == "master_repl_offset") {
            bool ok = false;
            const qint64 v = value.toLongLong(&ok);
            if (ok)
                info.masterOffset = v;
        } else if (key.startsWith("slave") && key.size() > 5 && key.at(5) >= '0' && key.at(5) <= '9') {
            Replica r;
            QByteArray ip, port;
            for (const QByteArray &pair : value.split(',')) {
                const int eq = pair.indexOf('=');
                if (eq <= 0)
                    continue;
                const QByteArray k = pair.left(eq), v = pair.mid(eq + 1);
                if (k == "ip")
                    ip = v;
                else if (k == "port")
                    port = v;
                else if (k == "state")
                    r.state = QString::fromLatin1(v);
                else if (k == "offset")
                    r.offset = v.toLongLong();
                else if (k == "lag")
                    r.lagS = v.toLongLong();
            }
            r.address = QString::fromLatin1(ip + ':' + port);
            info.replicas << r;
        }
    }
    info.valid = !info.role.isEmpty() && info.masterOffset >= 0;
    return info;
}

} // namespace lockscope
