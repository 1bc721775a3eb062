#include "faultproxy.h"

#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

namespace lockscope::test
{

/** One proxied connection: the client's socket, ours to the server, and bytes not yet forwarded. */
struct FaultProxy::Link {
    QTcpSocket *client = nullptr;
    QTcpSocket *server = nullptr;
    QByteArray toServer;
    QByteArray toClient;
};

FaultProxy::FaultProxy(const QHostAddress &upstreamHost, quint16 upstreamPort, QObject *parent)
    : QObject(parent), m_upstreamHost(upstreamHost), m_upstreamPort(upstreamPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FaultProxy::onNewConnection);
    m_trickleTimer = new QTimer(this);
    connect(m_trickleTimer, &QTimer::timeout, this, [this] {
        const auto links = m_links;
        for (Link *l : links)
            pump(l);
    });
}

FaultProxy::~FaultProxy()
{
    m_server.close();
    const auto links = m_links;
    for (Link *l : links)
        closeLink(l);
}

bool FaultProxy::start()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QString FaultProxy::url() const
{
    return QStringLiteral("redis://127.0.0.1:%1").arg(port());
}

void FaultProxy::setMode(Mode mode)
{
    m_mode = mode;
    if (mode == Mode::BlackHole) {
        for (Link *l : std::as_const(m_links)) {
            l->toServer.clear();
            l->toClient.clear();
        }
    }
    if (mode == Mode::Trickle)
        m_trickleTimer->start(m_trickleIntervalMs);
    else
        m_trickleTimer->stop();
    const auto links = m_links;
    for (Link *l : links)
        pump(l);
}

void FaultProxy::setTrickle(int bytes, int intervalMs)
{
    m_trickleBytes = qMax(1, bytes);
    m_trickleIntervalMs = qMax(1, intervalMs);
    if (m_trickleTimer->isActive())
        m_trickleTimer->start(m_trickleIntervalMs);
}

void FaultProxy::cutAll()
{
    const auto links = m_links;
    for (Link *l : links)
        closeLink(l);
}

void FaultProxy::onNewConnection()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        if (m_refuseNew) {
            client->abort();
            client->deleteLater();
            continue;
        }
        ++m_accepted;
        auto *link = new Link;
        link->client = client;
        link->server = new QTcpSocket(this);
        m_links.append(link);
        auto read = [this, link](QTcpSocket *from, QByteArray &into, qint64 &counter) {
            const QByteArray data = from->readAll();
            if (m_mode == Mode::BlackHole || (m_mode == Mode::DropReplies && from == link->server))
                return; // lost on the way
            into.append(data);
            counter += data.size();
            if (m_mode == Mode::Delay) {
                QPointer<FaultProxy> self(this);
                QTimer::singleShot(m_delayMs, this, [self, link] {
                    if (self && self->m_links.contains(link))
                        self->pump(link);
                });
                return;
            }
            pump(link);
        };
        connect(client, &QTcpSocket::readyRead, this, [=, this] { read(link->client, link->toServer, m_bytesUp); });
        connect(link->server, &QTcpSocket::readyRead, this,
                [=, this] { read(link->server, link->toClient, m_bytesDown); });
        connect(link->server, &QTcpSocket::connected, this, [this, link] { pump(link); });
        // A side that closes takes the other with it (unless black-holed: then nobody hears of it).
        connect(client, &QTcpSocket::disconnected, this, [this, link] {
            if (m_mode != Mode::BlackHole)
                closeLink(link);
        });
        connect(link->server, &QTcpSocket::disconnected, this, [this, link] {
            if (m_mode != Mode::BlackHole)
                closeLink(link);
        });
        connect(link->server, &QTcpSocket::errorOccurred, this, [this, link](QAbstractSocket::SocketError e) {
            if (e != QAbstractSocket::RemoteHostClosedError && m_mode != Mode::BlackHole)
                closeLink(link);
        });
        link->server->connectToHost(m_upstreamHost, m_upstreamPort);
    }
}

void FaultProxy::pump(Link *link)
{
    if (m_mode == Mode::BlackHole)
        return;
    auto forward = [this](QByteArray &pending, QTcpSocket *to) {
        if (pending.isEmpty() || to->state() != QAbstractSocket::ConnectedState)
            return;
        const qsizetype n = m_mode == Mode::Trickle ? qMin<qsizetype>(m_trickleBytes, pending.size()) : pending.size();
        to->write(pending.left(n));
        pending.remove(0, n);
    };
    // In Trickle mode only the timer moves bytes (a few per tick).
    if (m_mode == Mode::Trickle && sender() != m_trickleTimer)
        return;
    forward(link->toServer, link->server);
    forward(link->toClient, link->client);
}

void FaultProxy::closeLink(Link *link)
{
    if (!m_links.removeOne(link))
        return;
    for (QTcpSocket *s : {link->client, link->server}) {
        s->disconnect(this);
        s->abort();
        s->deleteLater();
    }
    delete link;
}

} // namespace lockscope::test
