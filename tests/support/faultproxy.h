#pragma once

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QTcpServer>

class QTcpSocket;
class QTimer;

namespace lockscope::test
{

/**
 * A loopback TCP proxy between LockScope and a real redis-server that can misbehave like a
 * network does: pass bytes through, black-hole them (both directions stop, the sockets stay open,
 * no FIN, no RST: a NAT or firewall that lost its state), delay every chunk, or trickle bytes a
 * few at a time. The mode applies at once to every connection, new and existing; bytes held
 * while black-holed are dropped, as a lost network would. cutAll() sends RSTs instead.
 *
 *     FaultProxy proxy(QHostAddress::LocalHost, redis.port());
 *     QVERIFY(proxy.start());
 *     RedisEndpoint::parse(proxy.url()) ...
 *     proxy.setMode(FaultProxy::Mode::BlackHole);   // the network goes away silently
 *     proxy.setMode(FaultProxy::Mode::Pass);        // and comes back
 *
 * Single-threaded: lives on the test's thread and runs from its event loop.
 */
class FaultProxy : public QObject
{
    Q_OBJECT
public:
    enum class Mode {
        Pass,        ///< forward everything at once
        BlackHole,   ///< drop everything, keep the connections open
        Delay,       ///< forward every chunk after delayMs()
        Trickle,     ///< forward trickleBytes() bytes every trickleIntervalMs()
        DropReplies, ///< forward the client's bytes to the server, drop the server's replies (a reply lost)
    };

    FaultProxy(const QHostAddress &upstreamHost, quint16 upstreamPort, QObject *parent = nullptr);
    ~FaultProxy() override;

    /** Listens on 127.0.0.1 on a free port. */
    bool start();
    quint16 port() const { return m_server.serverPort(); }
    /** "redis://127.0.0.1:PORT" (the proxy's own port). */
    QString url() const;

    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    void setDelayMs(int ms) { m_delayMs = ms; }
    int delayMs() const { return m_delayMs; }
    void setTrickle(int bytes, int intervalMs);
    int trickleBytes() const { return m_trickleBytes; }
    int trickleIntervalMs() const { return m_trickleIntervalMs; }

    /** Refuse (close at once) new connections while on; existing ones are untouched. */
    void setRefuseNew(bool on) { m_refuseNew = on; }
    /** Aborts every proxied connection, both sides (RST). */
    void cutAll();
    /** Proxied connections accepted so far, and open now. */
    int accepted() const { return m_accepted; }
    int openConnections() const { return m_links.size(); }
    /** Bytes forwarded so far, client to server and server to client. */
    qint64 bytesUp() const { return m_bytesUp; }
    qint64 bytesDown() const { return m_bytesDown; }

private:
    struct Link;
    void onNewConnection();
    void pump(Link *link);
    void closeLink(Link *link);

    QTcpServer m_server;
    QHostAddress m_upstreamHost;
    quint16 m_upstreamPort;
    Mode m_mode = Mode::Pass;
    int m_delayMs = 200;
    int m_trickleBytes = 1;
    int m_trickleIntervalMs = 10;
    bool m_refuseNew = false;
    QList<Link *> m_links;
    QTimer *m_trickleTimer = nullptr;
    int m_accepted = 0;
    qint64 m_bytesUp = 0;
    qint64 m_bytesDown = 0;
};

} // namespace lockscope::test
