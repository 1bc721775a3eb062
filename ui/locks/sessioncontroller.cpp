#include "locks/sessioncontroller.h"

#include "diagnose/lockdoctor.h"

#include <QThread>

namespace lockscope
{

SessionController::SessionController(const LockSession::Options &options, QObject *parent) : QObject(parent)
{
    m_ioThread = new QThread(this);
    m_ioThread->setObjectName(QStringLiteral("redis-io"));
    LockSession::Options sessionOptions = options;
    sessionOptions.detectCluster = true;            // a Redis Cluster node: watch every master
    if (sessionOptions.commandConnection.isEmpty()) // the Problems tab's commands reach this server when pasted
        sessionOptions.commandConnection =
            QStringLiteral("--url ") + LockDoctor::shellQuoted(options.endpoint.toString());
    m_session = new LockSession(sessionOptions); // no parent: it moves to redis-io
    m_clientId = m_session->clientId();
    m_session->moveToThread(m_ioThread);
    connect(m_ioThread, &QThread::finished, m_session, &QObject::deleteLater);

    // Queued (the session is on redis-io): each arrives here on the GUI thread.
    connect(m_session, &LockSession::locksUpdated, this, &SessionController::locksUpdated);
    connect(m_session, &LockSession::eventsOccurred, this, &SessionController::eventsOccurred);
    connect(m_session, &LockSession::modeChanged, this, &SessionController::modeChanged);
    connect(m_session, &LockSession::discoveryProgress, this, &SessionController::discoveryProgress);
    connect(m_session, &LockSession::actionFinished, this, &SessionController::actionFinished);
    connect(m_session, &LockSession::findingsUpdated, this, &SessionController::findingsUpdated);
    connect(m_session, &LockSession::topologyChanged, this, &SessionController::topologyChanged);
    connect(m_session, &LockSession::topologyEventsOccurred, this, &SessionController::topologyEventsOccurred);
    connect(m_session, &LockSession::notificationsChecked, this, &SessionController::notificationsChecked);
    connect(m_session, &LockSession::writesChecked, this, &SessionController::writesChecked);
    connect(m_session, &LockSession::errorOccurred, this, &SessionController::errorOccurred);
    connect(m_session, &LockSession::clientsUpdated, this, [this](const QVector<ClientIdentity> &clients) {
        m_clients.clear();
        for (const auto &c : clients)
            m_clients.insert(c.clientId, c);
        emit clientsUpdated(clients);
    });
    connect(m_session, &LockSession::clientsIdentified, this, &SessionController::clientsIdentified);
    connect(m_session, &LockSession::noticeOccurred, this, &SessionController::noticeOccurred);
    m_ioThread->start();
}

SessionController::~SessionController()
{
    m_ioThread->quit();
    m_ioThread->wait(); // the session is deleted on redis-io as the thread finishes
}

template <typename F> void SessionController::post(F call)
{
    QMetaObject::invokeMethod(
        m_session, [session = m_session, call] { call(session); }, Qt::QueuedConnection);
}

QString SessionController::auditProblem() const
{
    return m_session->auditProblem();
}

void SessionController::start()
{
    post([](LockSession *s) { s->start(); });
}

void SessionController::stop()
{
    m_ioThread->quit(); // the session is deleted on redis-io as the thread finishes
}

void SessionController::refresh()
{
    post([](LockSession *s) { s->refresh(); });
}

void SessionController::cancelScan()
{
    post([](LockSession *s) { s->cancelScan(); });
}

void SessionController::enableNotifications()
{
    post([](LockSession *s) { s->enableNotifications(); });
}

void SessionController::setPriorityLocks(const QStringList &names)
{
    post([names](LockSession *s) { s->setPriorityLocks(names); });
}

void SessionController::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, AcquireKind kind)
{
    post([=](LockSession *s) { s->acquire(name, threadId, leaseMs, waitMs, kind); });
}

void SessionController::renew(const QString &name, qint64 threadId)
{
    post([=](LockSession *s) { s->renew(name, threadId); });
}

void SessionController::release(const QString &name, qint64 threadId)
{
    post([=](LockSession *s) { s->release(name, threadId); });
}

void SessionController::forceUnlock(const QString &name, const QString &confirmedState)
{
    post([=](LockSession *s) { s->forceUnlock(name, confirmedState); });
}

void SessionController::setTtl(const QString &name, qint64 ttlMs, const QString &confirmedState)
{
    post([=](LockSession *s) { s->setTtl(name, ttlMs, confirmedState); });
}

void SessionController::removeWaiter(const QString &name, const QString &field)
{
    post([=](LockSession *s) { s->removeWaiter(name, field, 0); });
}

void SessionController::removeReader(const QString &name, const QString &field)
{
    post([=](LockSession *s) { s->removeReader(name, field); });
}

void SessionController::wake(const QString &name)
{
    post([=](LockSession *s) { s->wake(name); });
}

void SessionController::identifyClients(const QStringList &clientIds, qint64 sampleMs)
{
    post([=](LockSession *s) { s->identifyClients(clientIds, sampleMs); });
}

void SessionController::resetDiagnosis(const QVector<LockEvent> &oldestFirst)
{
    post([=](LockSession *s) { s->resetDiagnosis(oldestFirst); });
}

void SessionController::setStageTime(std::shared_ptr<const StageTime> time)
{
    post([time](LockSession *s) { s->setStageTime(time); });
}

void SessionController::followServer(const QString &address, const QString &why, bool failover)
{
    post([=](LockSession *s) { s->followServer(address, why, failover); });
}

ClientIdentity SessionController::clientIdentity(const QString &clientId) const
{
    const auto it = m_clients.constFind(clientId);
    if (it != m_clients.cend())
        return it.value();
    ClientIdentity c;
    c.clientId = clientId;
    if (clientId == m_clientId) {
        c.evidence = ClientIdentity::Evidence::Self;
        c.state = ClientIdentity::State::Connected;
    }
    return c;
}

} // namespace lockscope
