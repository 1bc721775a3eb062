#include "showcommand.h"

#include "protocol/locknames.h"
#include "text/displaytext.h"

#include <QCommandLineParser>
#include <QJsonDocument>

namespace lockscope
{

CliCommandDescriptor ShowCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<ShowCommand>(
        "show", "show NAME [--holder ID] [--json] [--identify-ms N]",
        "One lock in detail, with what is known of each holder's and waiter's client (connections, host, "
        "client name, connected or not).");
    d.details =
        QStringLiteral("Holders, the waiter queue with deadlines, readers and unlock-channel subscribers. Exit 3 when "
                       "the lock does not exist.");
    d.operands = {QString::fromLatin1(CliCommandDescriptor::kLockName)};
    d.options = CliCommandDescriptor::words("json holder client-list-budget identify-ms");
    d.examples = {QStringLiteral("show orders:42"), QStringLiteral("show orders:42 --json --identify-ms 2000")};
    return d;
}

namespace
{

/** `name` as a Redis glob that matches only itself. */
QString exactGlob(const QString &name)
{
    QString out;
    for (const QChar c : name) {
        if (c == QLatin1Char('*') || c == QLatin1Char('?') || c == QLatin1Char('[') || c == QLatin1Char(']') ||
            c == QLatin1Char('\\'))
            out += QLatin1Char('\\');
        out += c;
    }
    return out;
}

} // namespace

bool ShowCommand::prepare(LockSession::Options *options, int *)
{
    if (identifies())
        options->pattern = exactGlob(m_name);
    return true;
}

void ShowCommand::run()
{
    const bool identify = identifies();
    if (identify)
        m_session->start(); // the lock's events: what correlation matches when MONITOR is not allowed
    else
        m_session->openConnection();
    readOne(m_name, [this, identify](const LockSnapshot &s) {
        if (!holderFilter().matches(s)) {
            fail(Refused,
                 QStringLiteral("%1 is not held by and not waited for by --holder %2 (holders: %3)")
                     .arg(DisplayText::escaped(s.name), DisplayText::escaped(holderFilter().holderText()),
                          s.holders.isEmpty() ? QStringLiteral("none") : DisplayText::escaped(s.holderSummary())));
            return;
        }
        if (!identify) {
            printJudged(s);
            return;
        }
        QStringList ids;
        for (const auto &h : s.holders)
            ids << h.clientId;
        for (const auto &w : s.waiters)
            ids << ClientIdentity::clientIdOfField(w.field);
        ids.removeAll(QString());
        ids.removeDuplicates();
        identifyThen(ids, [this] { readOne(m_name, [this](const LockSnapshot &again) { printJudged(again); }); });
    });
}

void ShowCommand::printJudged(const LockSnapshot &s)
{
    // Whether a replica has it: what INFO replication can tell of a lock this run did not see written.
    m_session->judgeReplication({s}, [this](const QVector<LockSnapshot> &judged) { print(judged.first()); });
}

void ShowCommand::print(const LockSnapshot &s)
{
    if (m_json) {
        QJsonObject o = s.toJson();
        ClientIdentity::annotateLockJson(&o, [this](const QString &id) { return m_session->clientIdentity(id); });
        m_out << QJsonDocument(o).toJson(QJsonDocument::Compact) << '\n';
    } else {
        m_out << "Lock:        " << DisplayText::escaped(s.name) << " ("
              << (!s.kindCertain && s.kind == LockKind::Lock ? QStringLiteral("lock (fair or plain)")
                                                             : lockKindLabel(s.kind))
              << ")\n";
        if (!s.kindCertain)
            m_out << "Kind:        fair or plain: " << s.kindNote << '\n';
        if (!s.nameNote().isEmpty())
            m_out << "Name:        " << s.nameNote() << '\n';
        if (s.migratingSlot >= 0)
            m_out << "Slot:        " << s.migratingSlot
                  << " is being migrated (resharding): read key by key where each key lives, not in one "
                     "atomic step\n";
        m_out << "TTL:         " << ttlText(s.pttlMs) << '\n';
        m_out << "Server time: " << s.serverTimeMs << " ms since epoch\n";
        if (s.holders.isEmpty())
            m_out << "Holders:     none (free)\n";
        for (const auto &v : s.multiLockValues)
            m_out << "Value:       field " << v.fieldId << "  client " << v.clientId << "  thread " << v.threadId
                  << "  hold count " << v.holdCount << "  expires " << v.expireEpochMs << " ms since epoch ("
                  << (v.expireEpochMs < 0 ? QStringLiteral("no expiry field")
                      : v.isLive(s.serverTimeMs)
                          ? QStringLiteral("in %1").arg(ttlText(v.expireEpochMs - s.serverTimeMs))
                          : QStringLiteral("expired"))
                  << ")\n";
        for (const auto &h : s.holders) {
            QStringList ttls;
            for (qint64 t : h.holdTtlsMs)
                ttls << (t == -2 ? QStringLiteral("gone") : ttlText(t));
            m_out << "Holder:      client " << DisplayText::escaped(h.clientId) << "  thread "
                  << DisplayText::escaped(h.threadId) << "  hold count " << h.holdCount
                  << (h.mode.isEmpty() ? QString() : QStringLiteral("  mode ") + h.mode)
                  << (ttls.isEmpty() ? QString() : QStringLiteral("  hold TTLs ") + ttls.join(QLatin1Char(' ')))
                  << '\n';
            m_out << "  Client:    " << DisplayText::escaped(m_session->clientIdentity(h.clientId).summary()) << '\n';
        }
        m_out << "Waiting:     " << s.subscribers << " client(s) subscribed to "
              << DisplayText::escaped(s.kind == LockKind::ReadWriteLock ? LockNames::readWriteChannel(s.name)
                                                                        : LockNames::unlockChannel(s.name))
              << '\n';
        for (const auto &w : s.waiters)
            m_out << "Queued #" << w.position << ":   " << DisplayText::escaped(w.field) << "  deadline "
                  << (!w.deadlineRaw.isEmpty() ? QStringLiteral("'%1' (not an epoch-ms time)").arg(w.deadlineRaw)
                      : w.deadlineEpochMs < 0  ? QStringLiteral("?")
                      // A deadline in the past is no countdown: say how long ago it passed.
                      : w.deadlineEpochMs < s.serverTimeMs
                          ? QStringLiteral("passed %1 ago").arg(ttlText(s.serverTimeMs - w.deadlineEpochMs))
                          : QStringLiteral("in ") + ttlText(w.deadlineEpochMs - s.serverTimeMs))
                  << '\n';
        if (!identifies() && s.isHeld())
            m_out << "Who:         --identify-ms 10000 finds each holder's connection, host and client name\n";
        if (s.token >= 0)
            m_out << "Token:       " << s.token << '\n';
        if (s.isHeld())
            m_out << "Replicated:  "
                  << (s.replication == LockSnapshot::Replication::Replicated
                          ? QStringLiteral("yes, on %1").arg(s.replicatedOn.join(QLatin1String(", ")))
                      : s.replication == LockSnapshot::Replication::NotReplicated
                          ? QStringLiteral("NO: a failover now would lose this lock (%1)").arg(s.replicationNote)
                      : s.replicationNote.isEmpty() ? QStringLiteral("unknown")
                                                    : QStringLiteral("unknown: ") + s.replicationNote)
                  << '\n';
        for (const auto &p : s.problems)
            m_out << "Problem:     " << DisplayText::escaped(p) << '\n';
        for (const auto &a : s.anomalies)
            m_out << "Not Redisson-like: " << DisplayText::escaped(a) << '\n';
    }
    finish(Ok);
}

} // namespace lockscope
