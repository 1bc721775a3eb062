#include "redis/clientlistentry.h"

namespace lockscope
{

QString ClientListEntry::host() const
{
    if (address.startsWith(QLatin1Char('['))) {
        const int end = address.indexOf(QLatin1Char(']'));
        return end > 0 ? address.mid(1, end - 1) : address;
    }
    const int colon = address.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return address;
    // An IPv6 address without brackets (Redis prints "::1:6379"): the last colon still ends the IP.
    return address.left(colon);
}

bool ClientListEntry::ranScript() const
{
    return command == QLatin1String("evalsha") || command == QLatin1String("eval") ||
           command == QLatin1String("evalsha_ro") || command == QLatin1String("eval_ro") ||
           command == QLatin1String("fcall") || command == QLatin1String("fcall_ro");
}

bool ClientListEntry::isReplicationLink() const
{
    return flags.contains(QLatin1Char('S')) || flags.contains(QLatin1Char('M'));
}

QJsonObject ClientListEntry::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), id);
    o.insert(QStringLiteral("address"), address);
    if (!localAddress.isEmpty())
        o.insert(QStringLiteral("local_address"), localAddress);
    o.insert(QStringLiteral("name"), name);
    if (!user.isEmpty())
        o.insert(QStringLiteral("user"), user);
    o.insert(QStringLiteral("age_s"), ageS);
    o.insert(QStringLiteral("idle_s"), idleS);
    o.insert(QStringLiteral("last_command"), command);
    if (!libName.isEmpty())
        o.insert(QStringLiteral("lib_name"), libName);
    if (!libVersion.isEmpty())
        o.insert(QStringLiteral("lib_version"), libVersion);
    if (!server.isEmpty())
        o.insert(QStringLiteral("server"), server);
    return o;
}

ClientListEntry ClientListEntry::fromJson(const QJsonObject &o)
{
    ClientListEntry e;
    e.id = o.value(QStringLiteral("id")).toInteger(-1);
    e.address = o.value(QStringLiteral("address")).toString();
    e.localAddress = o.value(QStringLiteral("local_address")).toString();
    e.name = o.value(QStringLiteral("name")).toString();
    e.user = o.value(QStringLiteral("user")).toString();
    e.ageS = o.value(QStringLiteral("age_s")).toInteger();
    e.idleS = o.value(QStringLiteral("idle_s")).toInteger();
    e.command = o.value(QStringLiteral("last_command")).toString();
    e.libName = o.value(QStringLiteral("lib_name")).toString();
    e.libVersion = o.value(QStringLiteral("lib_version")).toString();
    e.server = o.value(QStringLiteral("server")).toString();
    return e;
}

namespace
{

/** The CLIENT LIST fields read, by their word in a line ("addr=..."); the others are skipped. */
const std::pair<const char *, QString ClientListEntry::*> kTextFields[] = {
    {"addr", &ClientListEntry::address},     {"laddr", &ClientListEntry::localAddress},
    {"name", &ClientListEntry::name},        {"user", &ClientListEntry::user},
    {"cmd", &ClientListEntry::command},      {"flags", &ClientListEntry::flags},
    {"lib-name", &ClientListEntry::libName}, {"lib-ver", &ClientListEntry::libVersion}};
const std::pair<const char *, qint64 ClientListEntry::*> kNumberFields[] = {
    {"id", &ClientListEntry::id},
    {"age", &ClientListEntry::ageS},
    {"idle", &ClientListEntry::idleS},
    {"ssub", &ClientListEntry::shardSubscriptions}};

} // namespace

QVector<ClientListEntry> ClientListEntry::parse(const QByteArray &text, const QString &server)
{
    QVector<ClientListEntry> out;
    for (const QByteArray &line : text.split('\n')) {
        ClientListEntry e;
        e.server = server;
        for (const QByteArray &pair : line.trimmed().split(' ')) {
            const int eq = pair.indexOf('=');
            if (eq <= 0)
                continue;
            const QByteArray key = pair.left(eq);
            const QByteArray value = pair.mid(eq + 1);
            for (const auto &[word, member] : kTextFields) {
                if (key == word)
                    e.*member = QString::fromUtf8(value);
            }
            for (const auto &[word, member] : kNumberFields) {
                if (key == word)
                    e.*member = value.toLongLong();
            }
        }
        if (e.id >= 0)
            out << e;
    }
    return out;
}

} // namespace lockscope
