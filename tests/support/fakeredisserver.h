#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QTcpServer>

#include <functional>

class QTcpSocket;

namespace lockscope::test
{

/**
 * A loopback TCP server that speaks just enough RESP to be a hostile or broken "Redis": every
 * command a client sends (decoded with hiredis' reader, not by hand) is handed to a responder,
 * whose bytes are written back verbatim, so a test can answer with anything: a reply of the
 * wrong type, a bulk header announcing 1.5 GB, an array header of 2^31, garbage, nothing.
 *
 * By default the handshake commands LockScope sends (AUTH, SELECT, CLIENT, PING, HELLO) get
 * "+OK"/"+PONG" so the connection becomes ready; setAnswerHandshake(false) hands them to the
 * responder too. A responder returning an empty array of bytes sends nothing (a server that
 * stays silent). Single-threaded: lives on the test's thread and runs from its event loop.
 *
 *     FakeRedisServer fake;
 *     fake.setResponder([](const QList<QByteArray> &) { return QByteArray(":1\r\n"); });
 *     QVERIFY(fake.start());
 *     RedisConnection conn(fake.endpoint());
 */
class FakeRedisServer : public QObject
{
    Q_OBJECT
public:
    using Responder = std::function<QByteArray(const QList<QByteArray> &argv)>;

    explicit FakeRedisServer(QObject *parent = nullptr);
    ~FakeRedisServer() override;

    /** Listens on 127.0.0.1 on a free port. */
    bool start();
    quint16 port() const { return m_server.serverPort(); }
    /** "redis://127.0.0.1:PORT". */
    QString url() const;

    void setResponder(Responder responder) { m_responder = std::move(responder); }
    void setAnswerHandshake(bool on) { m_answerHandshake = on; }

    /** Commands received so far, over all connections, in order. */
    const QList<QList<QByteArray>> &commands() const { return m_commands; }
    /** How many commands whose name (argv[0], case-insensitive) is `name` were received. */
    int count(const QByteArray &name) const;
    /** Connections accepted so far, and still open. */
    int accepted() const { return m_accepted; }
    int openConnections() const;
    /** Writes `bytes` to every open connection (e.g. the rest of a trickled reply). */
    void sendToAll(const QByteArray &bytes);
    /** Aborts every open connection (RST). */
    void dropAll();

    /** Helpers for responders: RESP encodings of simple values. */
    static QByteArray bulk(const QByteArray &value);
    static QByteArray array(const QList<QByteArray> &encodedElements);

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket *socket);

    QTcpServer m_server;
    Responder m_responder;
    bool m_answerHandshake = true;
    QList<QList<QByteArray>> m_commands;
    QList<QTcpSocket *> m_sockets;
    int m_accepted = 0;
};

} // namespace lockscope::test
