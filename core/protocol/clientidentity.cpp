#include "protocol/clientidentity.h"

#include "protocol/locknames.h"
#include "text/enumwords.h"

#include <QDateTime>
#include <QJsonArray>

namespace lockscope
{

namespace
{

const EnumWords<ClientIdentity::State> kStateWords{{ClientIdentity::State::Connected, "connected"},
                                                   {ClientIdentity::State::Disconnected, "disconnected"}};
const EnumWords<ClientIdentity::Evidence> kEvidenceWords{{ClientIdentity::Evidence::Correlated, "correlated"},
                                                         {ClientIdentity::Evidence::Monitor, "monitor"},
                                                         {ClientIdentity::Evidence::Self, "self"}};

} // namespace

qint64 ClientIdentity::idleS() const
{
    qint64 least = -1;
    for (const auto &c : connections)
        if (least < 0 || c.idleS < least)
            least = c.idleS;
    return least;
}

QString ClientIdentity::hostText() const
{
    if (host.isEmpty())
        return QStringLiteral("?");
    return hostName.isEmpty() ? host : QStringLiteral("%1 (%2)").arg(hostName, host);
}

QString ClientIdentity::summary() const
{
    const QString how = evidence == Evidence::Monitor ? QStringLiteral("seen sending its lock scripts (MONITOR)")
                        : evidence == Evidence::Correlated
                            ? QStringLiteral("matched by %1 lock event(s) with CLIENT LIST").arg(eventsMatched)
                        : evidence == Evidence::Self ? QStringLiteral("this LockScope")
                                                     : QString();
    const QString named = name.isEmpty() ? QString() : QStringLiteral(" ('%1')").arg(name);
    switch (state) {
    case State::Connected: {
        QStringList addrs;
        for (const auto &c : connections)
            addrs << c.address;
        const qint64 idle = idleS();
        // Redisson pings every pooled connection every 30 s (pingConnectionInterval): a client
        // whose connections all stay silent far longer is probably on a host that vanished without
        // closing its sockets; Redis drops them only after tcp-keepalive.
        const QString silent =
            idle >= kSilentS
                ? QStringLiteral(" (none of its connections sent anything, not even a ping, for %1 s: its host "
                                 "may be gone without closing them)")
                      .arg(idle)
                : QString();
        return QStringLiteral("connected from %1%2%3, %4%5")
            .arg(addrs.isEmpty() ? host : addrs.join(QStringLiteral(", ")), named,
                 idle > 0 ? QStringLiteral(", last command %1 s ago").arg(idle) : QString(), how, silent);
    }
    case State::Disconnected:
        return QStringLiteral("disconnected at %1 (was %2%3), %4")
            .arg(QDateTime::fromMSecsSinceEpoch(disconnectedAtMs).toString(QStringLiteral("HH:mm:ss")),
                 lastAddresses.join(QStringLiteral(", ")), named, how);
    case State::Unknown:
        break;
    }
    return evidence == Evidence::None ? QStringLiteral("not identified") : QStringLiteral("unknown, %1").arg(how);
}

QString ClientIdentity::stateName(State s)
{
    return kStateWords.word(s, "unknown");
}

QString ClientIdentity::evidenceName(Evidence e)
{
    return kEvidenceWords.word(e, "none");
}

ClientIdentity::State ClientIdentity::stateFromName(const QString &name)
{
    return kStateWords.value(name, State::Unknown);
}

ClientIdentity::Evidence ClientIdentity::evidenceFromName(const QString &name)
{
    return kEvidenceWords.value(name, Evidence::None);
}

QJsonObject ClientIdentity::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("client_id"), clientId);
    o.insert(QStringLiteral("state"), stateName(state));
    o.insert(QStringLiteral("evidence"), evidenceName(evidence));
    o.insert(QStringLiteral("events_matched"), eventsMatched);
    o.insert(QStringLiteral("host"), host.isEmpty() ? QJsonValue() : QJsonValue(host));
    o.insert(QStringLiteral("host_name"), hostName.isEmpty() ? QJsonValue() : QJsonValue(hostName));
    o.insert(QStringLiteral("name"), name.isEmpty() ? QJsonValue() : QJsonValue(name));
    QJsonArray conns;
    for (const auto &c : connections)
        conns << c.toJson();
    o.insert(QStringLiteral("connections"), conns);
    if (!lastAddresses.isEmpty())
        o.insert(QStringLiteral("last_addresses"), QJsonArray::fromStringList(lastAddresses));
    if (disconnectedAtMs > 0)
        o.insert(QStringLiteral("disconnected_at_ms"), disconnectedAtMs);
    if (lastSeenMs > 0)
        o.insert(QStringLiteral("last_seen_ms"), lastSeenMs);
    if (!connections.isEmpty())
        o.insert(QStringLiteral("idle_s"), idleS());
    o.insert(QStringLiteral("detail"), summary());
    return o;
}

ClientIdentity ClientIdentity::fromJson(const QJsonObject &o)
{
    ClientIdentity c;
    c.clientId = o.value(QStringLiteral("client_id")).toString();
    c.state = stateFromName(o.value(QStringLiteral("state")).toString());
    c.evidence = evidenceFromName(o.value(QStringLiteral("evidence")).toString());
    c.eventsMatched = o.value(QStringLiteral("events_matched")).toInt();
    c.host = o.value(QStringLiteral("host")).toString();
    c.hostName = o.value(QStringLiteral("host_name")).toString();
    c.name = o.value(QStringLiteral("name")).toString();
    for (const auto &v : o.value(QStringLiteral("connections")).toArray())
        c.connections << ClientListEntry::fromJson(v.toObject());
    for (const auto &v : o.value(QStringLiteral("last_addresses")).toArray())
        c.lastAddresses << v.toString();
    c.disconnectedAtMs = o.value(QStringLiteral("disconnected_at_ms")).toInteger();
    c.lastSeenMs = o.value(QStringLiteral("last_seen_ms")).toInteger();
    return c;
}

QString ClientIdentity::clientIdOfField(const QString &field)
{
    QString clientId, threadId;
    bool write = false;
    if (!LockNames::parseHolderField(field, &clientId, &threadId, &write))
        return {};
    return clientId;
}

void ClientIdentity::annotateLockJson(QJsonObject *lock, const std::function<ClientIdentity(const QString &)> &identity)
{
    for (const QString &key : {QStringLiteral("holders"), QStringLiteral("waiters")}) {
        QJsonArray entries = lock->value(key).toArray();
        if (entries.isEmpty())
            continue;
        for (int i = 0; i < entries.size(); ++i) {
            QJsonObject e = entries.at(i).toObject();
            QString id = e.value(QStringLiteral("client_id")).toString();
            if (id.isEmpty())
                id = clientIdOfField(e.value(QStringLiteral("field")).toString());
            if (id.isEmpty())
                continue;
            ClientIdentity c = identity(id);
            c.clientId = id;
            e.insert(QStringLiteral("client"), c.toJson());
            entries[i] = e;
        }
        lock->insert(key, entries);
    }
}

} // namespace lockscope
