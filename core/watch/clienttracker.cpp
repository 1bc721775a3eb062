#include "watch/clienttracker.h"

#include "redis/monitorline.h"
#include "redis/redisconnection.h"

#include <QDateTime>
#include <QHostAddress>
#include <QHostInfo>
#include <QLoggingCategory>

namespace lockscope
{

// QT_LOGGING_RULES="lockscope.clients.debug=true": each correlation's candidates and each match
// (addresses and client names only: never a command's arguments).
Q_LOGGING_CATEGORY(lcClients, "lockscope.clients", QtWarningMsg)

namespace
{

qint64 nowEpochMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

/** Event types a client causes by sending a lock script itself. */
bool sentByHolder(const LockEvent &e)
{
    if (e.type == QLatin1String("acquired") || e.type == QLatin1String("reentered") ||
        e.type == QLatin1String("renewed") || e.type == QLatin1String("enqueued"))
        return true;
    // An unlock by its holder (latch seen), or a partial release (the count went down).
    return e.type == QLatin1String("released") &&
           e.extra.value(QStringLiteral("removal")).toString() != QLatin1String("unknown");
}

} // namespace

ClientTracker::ClientTracker(Servers servers, QObject *parent) : QObject(parent), m_servers(std::move(servers))
{
    qRegisterMetaType<lockscope::ClientIdentity>();
    m_clock.start();
    m_followTimer.setInterval(m_followMs);
    connect(&m_followTimer, &QTimer::timeout, this, &ClientTracker::follow);
}

ClientTracker::~ClientTracker()
{
    for (RedisConnection *c : std::as_const(m_sample.connections))
        c->close();
}

void ClientTracker::setFollowIntervalMs(int ms)
{
    m_followMs = ms;
    m_followTimer.setInterval(ms);
}

void ClientTracker::start()
{
    m_followTimer.start();
}

void ClientTracker::stop()
{
    m_followTimer.stop();
}

bool ClientTracker::isOwnConnection(const ClientListEntry &e)
{
    return e.name.startsWith(QLatin1String("lockscope")) || e.isReplicationLink();
}

ClientTracker::Known &ClientTracker::known(const QString &clientId)
{
    auto it = m_clients.find(clientId);
    if (it == m_clients.end()) {
        it = m_clients.insert(clientId, Known{});
        it->identity = firstIdentity(clientId);
    }
    return it.value();
}

ClientIdentity ClientTracker::firstIdentity(const QString &clientId) const
{
    ClientIdentity c;
    c.clientId = clientId;
    if (clientId == m_ownClientId && !clientId.isEmpty()) {
        c.evidence = ClientIdentity::Evidence::Self;
        c.state = ClientIdentity::State::Connected;
        c.name = QStringLiteral("lockscope");
        c.host = QStringLiteral("this LockScope");
    }
    return c;
}

ClientIdentity ClientTracker::identity(const QString &clientId) const
{
    const auto it = m_clients.constFind(clientId);
    return it != m_clients.cend() ? it->identity : firstIdentity(clientId);
}

bool ClientTracker::everyoneWantedKnown() const
{
    return !m_sample.wanted.isEmpty() &&
           std::all_of(m_sample.wanted.cbegin(), m_sample.wanted.cend(), [this](const QString &id) {
               return m_sample.found.contains(id) || !m_clients.value(id).connections.isEmpty();
           });
}

QVector<ClientIdentity> ClientTracker::identities() const
{
    QVector<ClientIdentity> out;
    out.reserve(m_clients.size());
    for (const Known &k : m_clients)
        out << k.identity;
    std::sort(out.begin(), out.end(),
              [](const ClientIdentity &a, const ClientIdentity &b) { return a.clientId < b.clientId; });
    return out;
}

void ClientTracker::noteUnavailable(const QString &message)
{
    if (!m_unavailable.isEmpty())
        return;
    m_unavailable = message;
    emit notice(message);
}

// --- Correlation ---------------------------------------------------------------------------

void ClientTracker::observeEvents(const QVector<LockEvent> &events)
{
    bool changed = false;
    for (const LockEvent &e : events) {
        if (e.holder.isEmpty() || e.lock.isEmpty() || !sentByHolder(e))
            continue;
        const QString clientId = ClientIdentity::clientIdOfField(e.holder);
        if (clientId.isEmpty() || clientId == m_ownClientId)
            continue;
        Known &k = known(clientId);
        k.identity.lastSeenMs = nowEpochMs();
        if (k.identity.state == ClientIdentity::State::Disconnected) {
            // It acts again: it is back (a reconnect LockScope did not see as one). Re-learn.
            k.identity.state = ClientIdentity::State::Unknown;
            k.identity.disconnectedAtMs = 0;
            changed = true;
        }
        if (m_budget <= 0 || !m_unavailable.isEmpty())
            continue;
        if (k.identity.evidence == ClientIdentity::Evidence::Monitor && !k.connections.isEmpty())
            continue;
        if (k.identity.eventsMatched >= kMatchedEnough && !k.connections.isEmpty())
            continue;
        correlateLater(m_servers.masterOf(e.lock), clientId);
    }
    if (changed)
        emit identitiesChanged();
}

void ClientTracker::correlateLater(const QString &master, const QString &clientId)
{
    Pending &p = m_pending[master];
    if (p.clientIds.isEmpty())
        p.firstAtSteadyMs = m_clock.elapsed();
    p.clientIds.insert(clientId);
    if (p.inFlight || (p.timer && p.timer->isActive()))
        return;
    const qint64 now = m_clock.elapsed();
    while (!p.callTimes.isEmpty() && now - p.callTimes.first() >= 1000)
        p.callTimes.removeFirst();
    // At most m_budget calls a second, and at most kClientListUsPerSecond of server time a second.
    const int byTime = p.lastCostUs > 0 ? int(std::max<qint64>(1, kClientListUsPerSecond / p.lastCostUs)) : m_budget;
    if (p.callTimes.size() < std::min(m_budget, byTime)) {
        runCorrelation(master);
        return;
    }
    if (!p.timer) {
        p.timer = new QTimer(this);
        p.timer->setSingleShot(true);
        connect(p.timer, &QTimer::timeout, this, [this, master] { runCorrelation(master); });
    }
    p.timer->start(int(std::max<qint64>(1, 1000 - (now - p.callTimes.first()))));
}

void ClientTracker::runCorrelation(const QString &master)
{
    Pending &p = m_pending[master];
    if (p.clientIds.isEmpty() || p.inFlight)
        return;
    // Waited so long that `idle=0` no longer points at the sender: drop them (the next event retries).
    if (m_clock.elapsed() - p.firstAtSteadyMs > 800) {
        p.clientIds.clear();
        return;
    }
    RedisConnection *conn = m_servers.connection(master);
    if (!conn || !conn->isReady()) {
        p.clientIds.clear();
        return;
    }
    const QSet<QString> ids = p.clientIds;
    p.clientIds.clear();
    p.inFlight = true;
    p.callTimes << m_clock.elapsed();
    ++m_clientListCalls;
    // TIME, CLIENT LIST, TIME run back to back: the server time of the list, which grows with the
    // connections it lists (about 0.7 ms at 1000).
    const QList<QList<QByteArray>> timed{{"TIME"}, {"CLIENT", "LIST", "TYPE", "normal"}, {"TIME"}};
    conn->pipeline(timed, this, [this, master, ids](const QVector<RedisReply> &replies) {
        m_pending[master].inFlight = false;
        const RedisReply r = replies.value(1, RedisReply::makeError(QStringLiteral("no reply"), true));
        if (!r.isError() && replies.size() == 3 && !replies[0].isError() && !replies[2].isError()) {
            auto micros = [](const RedisReply &t) { return t.at(0).toInteger() * 1000000 + t.at(1).toInteger(); };
            const qint64 us = micros(replies[2]) - micros(replies[0]);
            m_pending[master].lastCostUs = us;
            if (us > m_maxClientListUs && m_budget > 0) {
                m_budget = 0; // no more correlation on this session: every call would stall Redis this long
                emit notice(QStringLiteral("LockScope stopped matching lock events with CLIENT LIST on %1: one "
                                           "call took %2 ms of the server's time (it lists every connection), over "
                                           "its %3 ms limit. Holders are identified on demand only (a MONITOR "
                                           "sample: --identify-ms, or Identify in the Clients tab).")
                                .arg(master)
                                .arg(us / 1000.0, 0, 'f', 1)
                                .arg(m_maxClientListUs / 1000.0, 0, 'f', 1));
            }
        }
        if (r.isError()) {
            if (!r.isTransportError())
                noteUnavailable(QStringLiteral("LockScope cannot tell who holds a lock on %1: CLIENT LIST was refused "
                                               "(%2). Grant it with ACL SETUSER <user> +client|list.")
                                    .arg(master, r.errorMessage()));
            return;
        }
        absorbCandidates(master, ids, ClientListEntry::parse(r.toByteArray(), master));
        if (!m_pending[master].clientIds.isEmpty())
            correlateLater(master, *m_pending[master].clientIds.cbegin());
    });
}

void ClientTracker::absorbCandidates(const QString &master, const QSet<QString> &clientIds,
                                     const QVector<ClientListEntry> &list)
{
    // `idle` is whole seconds of the server's clock (a command at 10.99 s listed at 11.01 s shows
    // idle=1), and the event reached LockScope up to a read lag after the command.
    const qint64 maxIdleS = 1 + (m_eventLagMs + 999) / 1000;
    QHash<QString, ClientListEntry> candidates;
    for (const auto &e : list)
        if (e.idleS <= maxIdleS && e.ranScript() && !isOwnConnection(e))
            candidates.insert(connKey(master, e.id), e);
    // Each client id's track: the intersection of its events' candidates (a pool: a new track).
    for (const QString &id : clientIds) {
        Known &k = known(id);
        QHash<QString, ClientListEntry> now;
        for (auto c = candidates.cbegin(); c != candidates.cend(); ++c) {
            const QString owner = m_owner.value(c.key());
            if (owner.isEmpty() || owner == id)
                now.insert(c.key(), c.value());
        }
        qCDebug(lcClients) << "event of" << id << "candidates" << [&now] {
            QStringList a;
            for (const auto &e : now)
                a << e.address + QLatin1Char('/') + e.name;
            return a;
        }();
        if (now.isEmpty())
            continue;
        QHash<QString, ClientListEntry> narrowed;
        for (auto t = k.track.cbegin(); t != k.track.cend(); ++t)
            if (now.contains(t.key()))
                narrowed.insert(t.key(), now.value(t.key()));
        if (k.trackEvents == 0 || narrowed.isEmpty()) {
            k.track = now;
            k.trackEvents = 1;
        } else {
            k.track = narrowed;
            ++k.trackEvents;
        }
    }
    if (resolveTracks())
        emit identitiesChanged();
    if (m_sample.active)
        finishSample(); // ends the sample early when everyone asked about is known now
}

bool ClientTracker::resolveTracks()
{
    // A connection matched to one client id is no candidate of another: matching one may leave
    // another's track with one connection (a fixed-lease holder that sends nothing more is
    // identified once the others around it are). Repeat while that happens.
    bool changed = false;
    bool progress = true;
    while (progress) {
        progress = false;
        for (auto it = m_clients.begin(); it != m_clients.end(); ++it) {
            Known &k = it.value();
            if (k.track.isEmpty())
                continue;
            for (auto t = k.track.begin(); t != k.track.end();) {
                const QString owner = m_owner.value(t.key());
                if (!owner.isEmpty() && owner != it.key())
                    t = k.track.erase(t);
                else
                    ++t;
            }
            if (k.track.isEmpty()) {
                k.trackEvents = 0;
                continue;
            }
            if (k.track.size() != 1)
                continue;
            const ClientListEntry entry = k.track.cbegin().value();
            const int events = k.trackEvents;
            k.track.clear();
            k.trackEvents = 0;
            if (m_owner.value(connKey(entry.server, entry.id)) == it.key()) {
                k.identity.eventsMatched += events; // confirms what it had
            } else {
                attribute(it.key(), entry, ClientIdentity::Evidence::Correlated, {}, events);
                progress = true;
            }
            changed = true;
            if (progress)
                break; // m_clients may have grown: start over
        }
    }
    return changed;
}

void ClientTracker::attribute(const QString &clientId, const ClientListEntry &entry, ClientIdentity::Evidence evidence,
                              const QVector<ClientListEntry> &list, int matchedEvents)
{
    Known &k = known(clientId);
    const bool wasKnown = !k.connections.isEmpty() && k.identity.state == ClientIdentity::State::Connected;
    const QString key = connKey(entry.server, entry.id);
    const QString previous = m_owner.value(key);
    if (!previous.isEmpty() && previous != clientId && m_clients.contains(previous)) {
        // The connection was matched to another client id before: the newer evidence wins.
        Known &wrong = m_clients[previous];
        wrong.connections.remove(key);
        if (wrong.connections.isEmpty() && wrong.identity.state == ClientIdentity::State::Connected) {
            // That match was wrong and it has no other connection: it is not known any more.
            wrong.identity.state = ClientIdentity::State::Unknown;
            wrong.identity.evidence = ClientIdentity::Evidence::None;
            wrong.identity.eventsMatched = 0;
        }
        refreshIdentity(wrong);
    }
    qCDebug(lcClients) << "matched" << clientId << "to" << entry.address << entry.name
                       << ClientIdentity::evidenceName(evidence) << matchedEvents;
    m_owner.insert(key, clientId);
    k.connections.insert(key, entry);
    // Its pool: connections of the same host with the same client name (a name says which service).
    if (!entry.name.isEmpty())
        for (const auto &e : list)
            if (e.id != entry.id && e.name == entry.name && e.host() == entry.host() && !isOwnConnection(e) &&
                m_owner.value(connKey(e.server, e.id)).isEmpty()) {
                m_owner.insert(connKey(e.server, e.id), clientId);
                k.connections.insert(connKey(e.server, e.id), e);
            }
    if (evidence == ClientIdentity::Evidence::Monitor)
        k.identity.evidence = evidence;
    else if (k.identity.evidence == ClientIdentity::Evidence::None)
        k.identity.evidence = evidence;
    k.identity.eventsMatched += matchedEvents;
    k.goneSinceSteadyMs = -1;
    k.lastListedSteadyMs = m_clock.elapsed();
    k.identity.state = ClientIdentity::State::Connected;
    k.identity.disconnectedAtMs = 0;
    k.identity.lastSeenMs = nowEpochMs();
    refreshIdentity(k);
    if (!wasKnown)
        emit clientIdentified(k.identity);
}

void ClientTracker::refreshIdentity(Known &k)
{
    k.identity.connections.clear();
    for (const auto &c : std::as_const(k.connections))
        k.identity.connections << c;
    std::sort(k.identity.connections.begin(), k.identity.connections.end(),
              [](const ClientListEntry &a, const ClientListEntry &b) { return a.address < b.address; });
    if (k.identity.connections.isEmpty())
        return;
    const ClientListEntry &first = k.identity.connections.first();
    k.identity.host = first.host();
    k.identity.name.clear();
    for (const auto &c : std::as_const(k.identity.connections))
        if (!c.name.isEmpty()) {
            k.identity.name = c.name;
            break;
        }
    lookUpHostName(k.identity.host);
    k.identity.hostName = m_hostNames.value(k.identity.host);
}

void ClientTracker::lookUpHostName(const QString &host)
{
    if (host.isEmpty() || m_hostNames.contains(host) || QHostAddress(host).isNull())
        return;
    m_hostNames.insert(host, QString());
    // Asynchronous (Qt's lookup thread); a name that comes later than a second is not waited for
    // by anyone, it simply shows from then on.
    QHostInfo::lookupHost(host, this, [this, host](const QHostInfo &info) {
        if (info.error() != QHostInfo::NoError || info.hostName() == host)
            return;
        m_hostNames.insert(host, info.hostName());
        for (Known &k : m_clients)
            if (k.identity.host == host)
                k.identity.hostName = info.hostName();
        emit identitiesChanged();
    });
}

// --- Following -----------------------------------------------------------------------------

void ClientTracker::follow()
{
    QHash<QString, QStringList> idsByMaster;
    for (auto it = m_owner.cbegin(); it != m_owner.cend(); ++it) {
        const int hash = it.key().lastIndexOf(QLatin1Char('#'));
        idsByMaster[it.key().left(hash)] << it.key().mid(hash + 1);
    }
    for (auto it = idsByMaster.cbegin(); it != idsByMaster.cend(); ++it)
        followMaster(it.key(), it.value());
    checkGone();
}

void ClientTracker::followMaster(const QString &master, const QStringList &ids)
{
    if (m_followInFlight.contains(master) || ids.isEmpty())
        return;
    RedisConnection *conn = m_servers.connection(master);
    if (!conn || !conn->isReady())
        return;
    // Someone is in the grace of a disconnect on this master: the full list shows reconnects.
    bool wantFull = false;
    for (const Known &k : std::as_const(m_clients))
        if (k.goneSinceSteadyMs >= 0)
            wantFull = true;
    QList<QByteArray> argv{"CLIENT", "LIST"};
    if (wantFull) {
        argv << "TYPE"
             << "normal";
    } else {
        argv << "ID";
        for (const QString &id : ids.mid(0, 1000))
            argv << id.toLatin1();
    }
    m_followInFlight.insert(master);
    ++m_clientListCalls;
    conn->send(argv, this, [this, master, wantFull](const RedisReply &r) {
        m_followInFlight.remove(master);
        if (r.isError()) {
            if (!wantFull && !r.isTransportError() &&
                r.errorMessage().contains(QLatin1String("syntax"), Qt::CaseInsensitive)) {
                // Before Redis 6.2 (no CLIENT LIST ID): the full list.
                m_followInFlight.insert(master);
                m_servers.connection(master)->send({"CLIENT", "LIST"}, this, [this, master](const RedisReply &all) {
                    m_followInFlight.remove(master);
                    if (!all.isError())
                        absorbFollow(master, ClientListEntry::parse(all.toByteArray(), master), true);
                });
            }
            return;
        }
        absorbFollow(master, ClientListEntry::parse(r.toByteArray(), master), wantFull);
    });
}

void ClientTracker::absorbFollow(const QString &master, const QVector<ClientListEntry> &alive, bool fullList)
{
    QHash<QString, ClientListEntry> byKey;
    for (const auto &e : alive)
        byKey.insert(connKey(master, e.id), e);
    const qint64 now = m_clock.elapsed();
    bool changed = false;
    for (auto it = m_clients.begin(); it != m_clients.end(); ++it) {
        Known &k = it.value();
        if (k.identity.evidence == ClientIdentity::Evidence::Self)
            continue;
        bool hadHere = false;
        for (auto c = k.connections.begin(); c != k.connections.end();) {
            if (c->server != master) {
                ++c;
                continue;
            }
            hadHere = true;
            const auto found = byKey.constFind(c.key());
            if (found == byKey.cend()) {
                qCDebug(lcClients) << "connection closed:" << it.key() << c->address;
                k.identity.lastAddresses.removeAll(c->address);
                k.identity.lastAddresses << c->address;
                m_owner.remove(c.key());
                c = k.connections.erase(c);
                changed = true;
            } else {
                if (c->idleS != found->idleS || c->command != found->command)
                    changed = true;
                *c = *found;
                ++c;
            }
        }
        if (hadHere && !k.connections.isEmpty()) {
            k.lastListedSteadyMs = now;
            k.identity.lastSeenMs = nowEpochMs();
            k.goneSinceSteadyMs = -1;
        }
        if (k.connections.isEmpty() && k.identity.state == ClientIdentity::State::Connected &&
            k.goneSinceSteadyMs < 0 && hadHere) {
            k.goneSinceSteadyMs = now;
            changed = true;
        }
        // In grace: a connection opened since the last one closed, from its host (with its name,
        // if it has one), nobody else's and not LockScope's, is its reconnect.
        if (fullList && k.goneSinceSteadyMs >= 0) {
            const qint64 sinceS = (now - k.lastListedSteadyMs) / 1000 + 2;
            for (const auto &e : alive) {
                if (isOwnConnection(e) || e.host() != k.identity.host || e.ageS > sinceS ||
                    !m_owner.value(connKey(master, e.id)).isEmpty())
                    continue;
                if (!k.identity.name.isEmpty() && e.name != k.identity.name)
                    continue;
                qCDebug(lcClients) << "reconnected:" << it.key() << e.address << e.name;
                m_owner.insert(connKey(master, e.id), it.key());
                k.connections.insert(connKey(master, e.id), e);
                k.goneSinceSteadyMs = -1;
                k.lastListedSteadyMs = now;
                changed = true;
            }
        }
        refreshIdentity(k);
    }
    if (changed)
        emit identitiesChanged();
}

void ClientTracker::checkGone()
{
    const qint64 now = m_clock.elapsed();
    for (Known &k : m_clients) {
        if (k.goneSinceSteadyMs < 0 || now - k.goneSinceSteadyMs < m_graceMs || !k.connections.isEmpty())
            continue;
        qCDebug(lcClients) << "disconnected:" << k.identity.clientId << k.identity.lastAddresses;
        k.goneSinceSteadyMs = -1;
        k.identity.state = ClientIdentity::State::Disconnected;
        // When it was last seen with a connection, not when LockScope noticed: closer to the truth.
        k.identity.disconnectedAtMs = nowEpochMs() - (now - k.lastListedSteadyMs) / 2;
        k.identity.connections.clear();
        emit clientDisconnected(k.identity);
        emit identitiesChanged();
    }
}

// --- MONITOR sample --------------------------------------------------------------------------

void ClientTracker::identify(const QStringList &clientIds, qint64 sampleMs)
{
    if (m_sample.active)
        return;
    m_sample = Sample{};
    m_sample.active = true;
    m_sample.clock.start();
    for (const QString &id : clientIds)
        if (!id.isEmpty() && id != m_ownClientId) {
            m_sample.wanted.insert(id);
            known(id);
        }
    m_sample.timer = new QTimer(this);
    m_sample.timer->setSingleShot(true);
    connect(m_sample.timer, &QTimer::timeout, this, [this] {
        if (m_sample.active)
            finishSample();
    });
    m_sample.timer->start(int(std::max<qint64>(1, sampleMs)));
    if (everyoneWantedKnown()) {
        QTimer::singleShot(0, this, [this] { finishSample(); });
        return;
    }
    for (const QString &master : m_servers.masters()) {
        auto *conn = new RedisConnection(m_servers.endpoint(master), this);
        conn->setClientName("lockscope-identify");
        conn->setAutoReconnect(false);
        conn->setPushMode(true);
        // The stream is read and dropped line by line: a huge reply would be another client's
        // value, never anything LockScope needs.
        m_sample.connections << conn;
        connect(conn, &RedisConnection::ready, this, [conn] { conn->send({"MONITOR"}); });
        connect(conn, &RedisConnection::pushReceived, this, [this, master](const RedisReply &r) {
            if (!m_sample.active)
                return;
            if (r.isError()) {
                m_sample.refused = true;
                m_sample.refusal = r.isPermissionError() || r.errorMessage().contains(QLatin1String("NOPERM"))
                                       ? QStringLiteral("MONITOR is not allowed for this ACL user on %1 (%2)")
                                             .arg(master, r.errorMessage())
                                       : QStringLiteral("MONITOR failed on %1 (%2)").arg(master, r.errorMessage());
                for (RedisConnection *c : std::as_const(m_sample.connections))
                    if (c->endpoint().address() == master || m_sample.connections.size() == 1)
                        c->close(); // nothing runs on it: do not leave it open for the sample's length
                return;
            }
            const QByteArray line = r.toByteArray();
            if (line == "OK") {
                ++m_sample.started;
                return;
            }
            onMonitorLine(master, line);
        });
        conn->open();
    }
}

void ClientTracker::onMonitorLine(const QString &server, const QByteArray &line)
{
    if (!MonitorLine::mayBeScript(line))
        return;
    MonitorLine parsed;
    if (!MonitorLine::parse(line, &parsed) || parsed.address == QLatin1String("lua"))
        return;
    if (!parsed.command.startsWith("eval") && !parsed.command.startsWith("fcall"))
        return;
    for (const QByteArray &arg : std::as_const(parsed.args)) {
        if (arg.size() > 200 || !arg.contains(':'))
            continue;
        const QString clientId = ClientIdentity::clientIdOfField(QString::fromUtf8(arg));
        if (clientId.isEmpty() || clientId == m_ownClientId)
            continue;
        if (!m_sample.wanted.isEmpty() && !m_sample.wanted.contains(clientId))
            continue;
        if (!m_sample.found.contains(clientId))
            m_sample.found.insert(clientId, {server, parsed.address});
    }
    // `parsed` (another client's arguments) goes out of scope here: nothing of it is kept.
    finishSample(); // ends it once everyone asked about was seen
}

void ClientTracker::finishSample()
{
    if (!m_sample.active)
        return;
    const bool timeUp = !m_sample.timer->isActive();
    if (!timeUp && !everyoneWantedKnown())
        return;
    m_sample.active = false;
    m_sample.timer->stop();
    m_sample.timer->deleteLater();
    for (RedisConnection *c : std::as_const(m_sample.connections)) {
        c->close();
        c->deleteLater();
    }
    m_sample.connections.clear();
    const qint64 tookMs = m_sample.clock.elapsed();
    const QHash<QString, QPair<QString, QString>> found = m_sample.found;
    const QSet<QString> wanted = m_sample.wanted;
    const bool refused = m_sample.refused;
    const QString refusal = m_sample.refusal;
    auto report = [this, wanted, refused, refusal, tookMs, found] {
        int known = 0;
        for (const QString &id : wanted)
            if (!m_clients.value(id).connections.isEmpty())
                ++known;
        const QString counts =
            wanted.isEmpty()
                ? QStringLiteral("%1 client id(s) seen in %2 ms").arg(found.size()).arg(tookMs)
                : QStringLiteral("%1 of %2 client id(s) identified in %3 ms").arg(known).arg(wanted.size()).arg(tookMs);
        if (refused)
            emit identifyFinished(QStringLiteral("correlation"),
                                  QStringLiteral("%1: identified by matching lock events with CLIENT LIST instead; %2")
                                      .arg(refusal, counts));
        else
            emit identifyFinished(QStringLiteral("monitor"), counts);
        emit identitiesChanged();
    };
    if (found.isEmpty()) {
        report();
        return;
    }
    // The addresses seen: one CLIENT LIST per server gives their connections' details.
    QHash<QString, QHash<QString, QString>> byServer; // server -> address -> client id
    for (auto it = found.cbegin(); it != found.cend(); ++it)
        byServer[it->first].insert(it->second, it.key());
    auto remaining = std::make_shared<int>(int(byServer.size()));
    for (auto it = byServer.cbegin(); it != byServer.cend(); ++it) {
        const QString server = it.key();
        const QHash<QString, QString> addresses = it.value();
        RedisConnection *conn = m_servers.connection(server);
        auto done = [this, remaining, report] {
            if (--*remaining == 0)
                report();
        };
        if (!conn) {
            done();
            continue;
        }
        ++m_clientListCalls;
        conn->send({"CLIENT", "LIST"}, this, [this, server, addresses, done](const RedisReply &r) {
            if (!r.isError()) {
                const QVector<ClientListEntry> list = ClientListEntry::parse(r.toByteArray(), server);
                for (const auto &e : list) {
                    const QString id = addresses.value(e.address);
                    if (!id.isEmpty())
                        attribute(id, e, ClientIdentity::Evidence::Monitor, list, 0);
                }
            } else if (!r.isTransportError()) {
                noteUnavailable(QStringLiteral("CLIENT LIST was refused on %1 (%2): the addresses MONITOR saw cannot "
                                               "be matched with connections.")
                                    .arg(server, r.errorMessage()));
            }
            done();
        });
    }
}

} // namespace lockscope
