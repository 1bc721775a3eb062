#include "watchcommand.h"

#include "protocol/topologyevent.h"
#include "redis/redisreply.h"
#include "text/displaytext.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QJsonDocument>
#include <QTimer>

namespace lockscope
{

CliCommandDescriptor WatchCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<WatchCommand>(
        "watch", "watch [--pattern GLOB] [--holder ID] [--json] [--duration-ms N]",
        "Events as they happen (acquired, released, ...), in a cluster also failovers and slot moves.");
    d.description =
        QStringLiteral("Exit 2 when the server was never reached or is not reachable when --duration-ms ends.");
    d.details =
        QStringLiteral("Text: one line per event (`time  type  lock  holder  detail`); status lines on stderr. Ends "
                       "with `watch ended: N event(s) reported; M release(s) happened between two reads and were too "
                       "short to see`. The lease-safety events (`renewal_late`, `lease_lost`, `holder_returned`, "
                       "`lost_in_failover`, `token_regressed`) come too; every type: [events](events.md). Live with "
                       "keyspace notifications, otherwise polling within `--poll-budget`.");
    d.options = CliCommandDescriptor::words("pattern json duration-ms holder client-list-budget");
    d.examples = {QStringLiteral("watch --pattern 'orders:*' --json"),
                  QStringLiteral("watch --holder 8743c9c0 --duration-ms 60000")};
    return d;
}

bool WatchCommand::wantEvent(const LockEvent &e) const
{
    const LockFilter filter = holderFilter();
    if (filter.isEmpty() || (!e.holder.isEmpty() && filter.matchesField(e.holder)))
        return true;
    // An event without that holder (expired, a waiter queued) of a lock it holds or waits for.
    const LockSnapshot s = m_session->lock(e.lock);
    return !s.name.isEmpty() && filter.matches(s);
}

void WatchCommand::run()
{
    // An ACL that forbids LockScope's scripts (or SCAN) leaves nothing to watch: refused, exit 3,
    // as list, show and doctor do (the cause was just said on stderr), not "watching 0 locks".
    auto refused = [this](const QString &message) {
        if (m_finished || !RedisReply::isPermissionError(message))
            return;
        m_err << "lockscope-cli: watch stops: this user may not read the locks, so nothing would be seen\n";
        finish(Refused);
    };
    connect(m_session, &LockSession::errorOccurred, this, refused);
    connect(m_session, &LockSession::readFailed, this, refused);
    connect(m_session, &LockSession::eventsOccurred, this, [this](const QVector<LockEvent> &events) {
        for (const auto &e : events) {
            if (!wantEvent(e))
                continue;
            ++m_events;
            if (e.type == QLatin1String("coalesced"))
                m_coalesced += e.extra.value(QStringLiteral("count")).toInteger(1);
            if (m_json)
                m_out << QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact) << '\n';
            else
                m_out << QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("HH:mm:ss.zzz")) << "  "
                      << e.type.leftJustified(15) << DisplayText::escaped(e.lock) << "  "
                      << DisplayText::escaped(e.holder) << (e.holder.isEmpty() ? "" : "  ")
                      << DisplayText::escaped(e.detail) << '\n';
        }
        m_out.flush();
    });
    connect(m_session, &LockSession::modeChanged, this, [this](WatchMode mode, const QString &detail) {
        if (m_finished)
            return; // e.g. never reached: no "reconnecting" after the exit-2 message
        m_err << "lockscope-cli: " << watchModeName(mode) << ": " << detail << '\n';
        m_err.flush();
    });
    bool first = true;
    // Failovers and slot moves (a cluster), in the same stream and shape as lock events ("lock": null).
    connect(m_session, &LockSession::topologyEventsOccurred, this, [this](const QVector<TopologyEvent> &events) {
        for (const auto &e : events) {
            if (m_json)
                m_out << QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact) << '\n';
            else
                m_out << QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("HH:mm:ss.zzz")) << "  "
                      << e.type.leftJustified(15) << e.detail << '\n';
        }
        m_out.flush();
    });
    auto watching = [this, first]() mutable {
        if (!first)
            return;
        first = false;
        const qsizetype servers = m_session->serverModes().size();
        m_err << "lockscope-cli: watching " << m_session->locks().size() << " lock(s)"
              << (servers > 1 ? QStringLiteral(" on %1 masters").arg(servers) : QString()) << "; Ctrl-C to stop\n";
        m_err.flush();
    };
    connect(m_session, &LockSession::watchIdle, this, watching);
    // Ctrl-C / SIGTERM: onInterrupted() ends it (130 / 143).
    if (m_parser.isSet(QStringLiteral("duration-ms")))
        QTimer::singleShot(m_parser.value(QStringLiteral("duration-ms")).toInt(), this,
                           [this] { finish(connectedAtDurationEnd() ? Ok : ServerError); });
    m_session->start();
}

void WatchCommand::onFinishing()
{
    if (!m_everReady)
        return;
    // What the event stream could not show is said, not silently lost.
    m_err << "lockscope-cli: watch ended: " << m_events << " event(s) reported; ";
    if (m_coalesced > 0)
        m_err << m_coalesced << " release(s) happened between two reads and were too short to see "
              << "(\"coalesced\" events name the locks)\n";
    else
        m_err << "no release was too short to see\n";
}

} // namespace lockscope
