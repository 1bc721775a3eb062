#include "clientscommand.h"

#include "locktable.h"

#include "text/displaytext.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>

namespace lockscope
{

CliCommandDescriptor ClientsCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<ClientsCommand>(
        "clients", "clients [--pattern GLOB] [--json] [--identify-ms N]",
        "Every Redisson client id holding or waiting for a lock: its connections, host and client name, "
        "whether it is connected, and its locks.");
    d.details =
        QStringLiteral("Each client's state (connected, disconnected, unknown) says how LockScope knows it (monitor, "
                       "correlated, none).");
    d.options = CliCommandDescriptor::words("pattern json client-list-budget identify-ms targets password-file");
    d.examples = {QStringLiteral("clients"), QStringLiteral("clients --json --identify-ms 2000")};
    d.fleet = true;
    return d;
}

namespace
{

struct ClientLocks {
    QJsonArray holds;
    QJsonArray waits;
    QStringList holdText;
    QStringList waitText;
};

/** Client id -> its holds and waits, over every lock read (sorted by client id). */
QMap<QString, ClientLocks> locksByClient(const QHash<QString, LockSnapshot> &locks)
{
    QMap<QString, ClientLocks> out;
    QStringList names = locks.keys();
    names.sort();
    for (const QString &name : std::as_const(names)) {
        const LockSnapshot &s = locks[name];
        for (const auto &h : s.holders) {
            if (h.clientId.isEmpty())
                continue;
            ClientLocks &c = out[h.clientId];
            c.holds << QJsonObject{{QStringLiteral("lock"), s.name},
                                   {QStringLiteral("field"), h.field},
                                   {QStringLiteral("thread_id"), h.threadId},
                                   {QStringLiteral("hold_count"), h.holdCount},
                                   {QStringLiteral("mode"), h.mode.isEmpty() ? QJsonValue() : QJsonValue(h.mode)}};
            c.holdText << QStringLiteral("%1 (thread %2, ×%3)").arg(s.name, h.threadId).arg(h.holdCount);
        }
        for (const auto &w : s.waiters) {
            const QString id = ClientIdentity::clientIdOfField(w.field);
            if (id.isEmpty())
                continue;
            ClientLocks &c = out[id];
            c.waits << QJsonObject{{QStringLiteral("lock"), s.name},
                                   {QStringLiteral("field"), w.field},
                                   {QStringLiteral("position"), w.position}};
            c.waitText << QStringLiteral("%1 (#%2)").arg(s.name).arg(w.position);
        }
    }
    return out;
}

} // namespace

QStringList ClientsCommand::clientIds() const
{
    return locksByClient(m_session->locks()).keys();
}

void ClientsCommand::print()
{
    const QMap<QString, ClientLocks> byClient = locksByClient(m_session->locks());
    QVector<QStringList> rows;
    rows << QStringList{QStringLiteral("CLIENT ID"), QStringLiteral("STATE"),       QStringLiteral("HOST"),
                        QStringLiteral("NAME"),      QStringLiteral("CONNECTIONS"), QStringLiteral("HOLDS"),
                        QStringLiteral("WAITS FOR")};
    for (auto it = byClient.cbegin(); it != byClient.cend(); ++it) {
        const ClientIdentity c = m_session->clientIdentity(it.key());
        if (m_json) {
            QJsonObject o = c.toJson();
            o.insert(QStringLiteral("holds"), it->holds);
            o.insert(QStringLiteral("waits"), it->waits);
            m_out << QJsonDocument(o).toJson(QJsonDocument::Compact) << '\n';
            continue;
        }
        QStringList addresses;
        for (const auto &conn : c.connections)
            addresses << conn.address;
        if (addresses.isEmpty() && !c.lastAddresses.isEmpty())
            addresses << QStringLiteral("was ") + c.lastAddresses.join(QLatin1Char(','));
        rows << QStringList{it.key(),
                            ClientIdentity::stateName(c.state) +
                                (c.evidence == ClientIdentity::Evidence::None
                                     ? QString()
                                     : QStringLiteral(" (%1)").arg(ClientIdentity::evidenceName(c.evidence))),
                            c.hostText(),
                            c.name.isEmpty() ? QStringLiteral("-") : c.name,
                            addresses.isEmpty() ? QStringLiteral("-") : addresses.join(QLatin1Char(',')),
                            it->holdText.isEmpty() ? QStringLiteral("-") : it->holdText.join(QStringLiteral(", ")),
                            it->waitText.isEmpty() ? QStringLiteral("-") : it->waitText.join(QStringLiteral(", "))};
    }
    if (!m_json) {
        for (auto &r : rows)
            for (auto &cell : r)
                cell = DisplayText::escaped(cell);
        m_out << LockTable::columns(rows);
        m_out << byClient.size() << " client id(s) hold or wait for a lock on "
              << m_session->options().endpoint.address() << '\n';
        if (!identifies() && !byClient.isEmpty())
            m_out << "--identify-ms 10000 finds their connections, hosts and client names.\n";
    }
    finish(Ok);
}

} // namespace lockscope
