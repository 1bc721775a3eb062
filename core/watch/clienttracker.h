#pragma once

#include "endpoint/redisendpoint.h"
#include "protocol/clientidentity.h"
#include "protocol/lockevent.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>

namespace lockscope
{

class RedisConnection;

/**
 * Learns who a Redisson client id is and follows it until it is gone (ClientIdentity). Redisson
 * writes nothing but a random UUID into a lock, so this watches the server instead:
 *
 * - Correlation (continuous, cheap): each lock event a client causes by sending a script
 *   (acquired, reentered, renewed, a partial release, an unlock, enqueued) is followed at once by
 *   `CLIENT LIST TYPE normal` on the master of the lock, at most clientListBudget() calls per
 *   second per master (events in between share the next call; fewer calls when each one's
 *   measured server time would exceed kClientListUsPerSecond, none once a call takes over
 *   kMaxClientListUs). The candidates are the
 *   connections whose last command was a script (`cmd` eval/evalsha/fcall and their _ro forms) with
 *   `idle=0`, minus LockScope's own connections (client names starting "lockscope") and those
 *   already known to belong to another client id. `idle` counts whole seconds of the server's
 *   clock, so a connection qualifies with idle <= 1 (plus the read lag when polling), and on a
 *   busy server several do: the candidates of a client id's successive events are intersected
 *   (its track), and once one connection is left it is the client's (evidence `correlated`,
 *   events_matched says how many events it took). A connection matched to one client id leaves
 *   every other track, so a holder that sends nothing more after its acquire is identified once
 *   the clients around it are. An event whose candidates share none with the track starts a new
 *   track (a pool sends from another connection). Client ids already matched kMatchedEnough times
 *   are not correlated again (no CLIENT LIST for them).
 * - MONITOR sample (on demand, identify()): one MONITOR connection per master for at most
 *   `sampleMs`, stopped as soon as every client id asked about was seen. Of the stream only
 *   script calls are parsed (MonitorLine::mayBeScript), and of those only the arguments that are a
 *   holder field of a wanted client id (`<clientId>:<thread>`) are looked at: the client id and
 *   the sender's address are kept, nothing else (no other command, argument or value is held,
 *   logged or returned). A user without `+monitor` gets NOPERM, nothing runs, and the sample
 *   correlates instead for the same time (identifyFinished() says so).
 * - Following: every followIntervalMs() `CLIENT LIST ID <ids>` (Redis 6.2+; CLIENT LIST TYPE
 *   normal before) re-reads the known connections. Connections of the same host with the same
 *   client name as a known one are the same client (a pool). When every connection of a client
 *   has closed, a new connection from its host (and with its name, when it has one) opened since
 *   then is taken as its reconnect (a pool's churn is no death); if none comes within
 *   disconnectGraceMs() the client is disconnected: clientDisconnected(). A host that vanished
 *   without closing its sockets stays connected with `idle_s` growing until Redis's tcp-keepalive
 *   reaps them.
 *
 * Cluster: a client id's connections to every master are one identity (entries carry `server`).
 * CLIENT refused by the ACL: nothing is learnt, and notice() says why, once.
 * Lives on the session's thread; not thread-safe.
 *
 * Why clienttracker.cpp is long: identity (MONITOR samples, CLIENT LIST correlation) and liveness
 * (connections re-read every second) share one table of clients and one budget per master.
 */
class ClientTracker : public QObject
{
    Q_OBJECT
public:
    /** How the tracker reaches the servers (LockSession gives its topology). */
    struct Servers {
        std::function<QStringList()> masters;                               ///< master addresses now
        std::function<RedisConnection *(const QString &master)> connection; ///< a master's command connection
        std::function<RedisEndpoint(const QString &master)> endpoint;       ///< for MONITOR's own connections
        std::function<QString(const QString &lock)> masterOf;               ///< the master serving a lock
    };

    /** A client id matched this many times is not correlated again. */
    static constexpr int kMatchedEnough = 3;
    /** Server time correlation may spend on CLIENT LIST per master and second, µs: the calls a
     *  second are the budget or fewer, as each call's measured time allows. */
    static constexpr qint64 kClientListUsPerSecond = 2000;
    /** A CLIENT LIST that takes longer than this (µs of server time, ~3000 connections) stops
     *  correlation for the session, with a notice: each call would stall other clients that long. */
    static constexpr qint64 kMaxClientListUs = 2000;

    explicit ClientTracker(Servers servers, QObject *parent = nullptr);
    ~ClientTracker() override;

    /** LockScope's own Redisson client id: shown with evidence `self`, never correlated. */
    void setOwnClientId(const QString &clientId) { m_ownClientId = clientId; }
    /** CLIENT LIST calls per second per master for correlation (default 4; 0 turns correlation off). */
    void setClientListBudget(int perSecond) { m_budget = perSecond; }
    int clientListBudget() const { return m_budget; }
    void setFollowIntervalMs(int ms);
    int followIntervalMs() const { return m_followMs; }
    void setDisconnectGraceMs(int ms) { m_graceMs = ms; }
    /** The limit of one CLIENT LIST's server time, µs (kMaxClientListUs; tests lower it). */
    void setMaxClientListUs(qint64 us) { m_maxClientListUs = us; }
    /** How late after a client's command its lock event may reach the tracker, ms: 50 live, the
     *  poll interval when polling (LockSession sets it with the watch mode). */
    void setEventLagMs(qint64 ms) { m_eventLagMs = ms; }
    int disconnectGraceMs() const { return m_graceMs; }

    /** Starts following known clients (a timer every followIntervalMs()). */
    void start();
    void stop();

    /** Lock events of the watcher: those a client caused are correlated with CLIENT LIST. */
    void observeEvents(const QVector<LockEvent> &events);
    /**
     * A bounded MONITOR sample on every master for `clientIds` (empty: every holder field seen),
     * ending after `sampleMs` or as soon as every one of them is identified (by the sample or by
     * correlation meanwhile); identifyFinished() then. A call while one runs is ignored.
     */
    void identify(const QStringList &clientIds, qint64 sampleMs);

    /** What is known of `clientId` (state unknown, evidence none when nothing). */
    ClientIdentity identity(const QString &clientId) const;
    /** Every client id known (seen in an event, identified or asked about). */
    QVector<ClientIdentity> identities() const;
    /** CLIENT LIST calls sent so far (tests, the bench). */
    qint64 clientListCalls() const { return m_clientListCalls; }

signals:
    void identitiesChanged();
    /** A client id's connections are known for the first time (or again after it was gone). */
    void clientIdentified(const lockscope::ClientIdentity &identity);
    /** Every connection of an identified client closed and none came back within the grace. */
    void clientDisconnected(const lockscope::ClientIdentity &identity);
    /** identify() ended: `method` "monitor" or "correlation"; `note` a sentence (what was found,
     *  or why MONITOR did not run). */
    void identifyFinished(const QString &method, const QString &note);
    /** A sentence worth showing once (CLIENT or MONITOR refused). */
    void notice(const QString &message);

private:
    struct Known {
        ClientIdentity identity;
        QHash<QString, ClientListEntry> connections; ///< by connKey()
        qint64 goneSinceSteadyMs = -1;               ///< all connections closed, in grace
        qint64 lastListedSteadyMs = 0;
        QHash<QString, ClientListEntry> track; ///< by connKey: its recent events' candidates, intersected
        int trackEvents = 0;                   ///< events intersected into `track`
    };
    struct Pending {
        QSet<QString> clientIds;
        qint64 firstAtSteadyMs = 0;
        bool inFlight = false;
        QTimer *timer = nullptr;
        QVector<qint64> callTimes; ///< steady ms of the calls of the last second
        qint64 lastCostUs = 0;     ///< server time of the last CLIENT LIST (TIME before and after)
    };
    struct Sample {
        bool active = false;
        QSet<QString> wanted;
        QHash<QString, QPair<QString, QString>> found; ///< clientId -> (server, address)
        QVector<RedisConnection *> connections;
        QTimer *timer = nullptr;
        QElapsedTimer clock;
        bool refused = false;
        QString refusal;
        int started = 0;
    };

    static QString connKey(const QString &server, qint64 id) { return server + QLatin1Char('#') + QString::number(id); }
    static bool isOwnConnection(const ClientListEntry &e);
    void correlateLater(const QString &master, const QString &clientId);
    void runCorrelation(const QString &master);
    void absorbCandidates(const QString &master, const QSet<QString> &clientIds, const QVector<ClientListEntry> &list);
    /** Makes `entry` a connection of `clientId` (and its siblings: same host and client name). */
    void attribute(const QString &clientId, const ClientListEntry &entry, ClientIdentity::Evidence evidence,
                   const QVector<ClientListEntry> &list, int matchedEvents);
    /** Removes matched connections from the other tracks and matches tracks of one connection;
     *  true when something changed. */
    bool resolveTracks();
    void follow();
    void followMaster(const QString &master, const QStringList &ids);
    void absorbFollow(const QString &master, const QVector<ClientListEntry> &alive, bool fullList);
    void checkGone();
    void refreshIdentity(Known &k);
    void lookUpHostName(const QString &host);
    void onMonitorLine(const QString &server, const QByteArray &line);
    void finishSample();
    void noteUnavailable(const QString &message);
    Known &known(const QString &clientId);
    /** What is known of a client id before anything was learnt (LockScope's own: `self`). */
    ClientIdentity firstIdentity(const QString &clientId) const;
    /** Every client id identify() asked about is seen by the sample or has connections known. */
    bool everyoneWantedKnown() const;

    Servers m_servers;
    QString m_ownClientId;
    int m_budget = 4;
    int m_followMs = 1000;
    int m_graceMs = 1500;
    qint64 m_maxClientListUs = kMaxClientListUs;
    qint64 m_eventLagMs = 50;
    QTimer m_followTimer{this}; // a child: it moves with the tracker to the redis-io thread
    QElapsedTimer m_clock;
    QHash<QString, Known> m_clients;
    QHash<QString, QString> m_owner;     ///< connKey -> client id
    QHash<QString, Pending> m_pending;   ///< by master
    QHash<QString, QString> m_hostNames; ///< ip -> reverse DNS name ("" while asked or none)
    QSet<QString> m_followInFlight;      ///< masters whose follow read is under way
    Sample m_sample;
    QString m_unavailable;
    qint64 m_clientListCalls = 0;
};

} // namespace lockscope
