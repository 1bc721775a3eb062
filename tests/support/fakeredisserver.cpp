#include "fakeredisserver.h"

#include <QTcpSocket>

#include <hiredis/hiredis.h>

namespace lockscope::test
{

namespace
{
const char *kReaderProperty = "lockscopeFakeReader";

redisReader *readerOf(QTcpSocket *socket)
{
    return static_cast<redisReader *>(socket->property(kReaderProperty).value<void *>());
}
} // namespace

FakeRedisServer::FakeRedisServer(QObject *parent) : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FakeRedisServer::onNewConnection);
}

FakeRedisServer::~FakeRedisServer()
{
    m_server.close();
    for (QTcpSocket *s : std::as_const(m_sockets)) {
        s->disconnect(this);
        redisReaderFree(readerOf(s));
        s->abort();
        delete s;
    }
}

bool FakeRedisServer::start()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QString FakeRedisServer::url() const
{
    return QStringLiteral("redis://127.0.0.1:%1").arg(port());
}

int FakeRedisServer::count(const QByteArray &name) const
{
    int n = 0;
    for (const auto &argv : m_commands)
        if (!argv.isEmpty() && argv.first().compare(name, Qt::CaseInsensitive) == 0)
            ++n;
    return n;
}

int FakeRedisServer::openConnections() const
{
    return m_sockets.size();
}

void FakeRedisServer::sendToAll(const QByteArray &bytes)
{
    for (QTcpSocket *s : std::as_const(m_sockets))
        s->write(bytes);
}

void FakeRedisServer::dropAll()
{
    const auto sockets = m_sockets;
    for (QTcpSocket *s : sockets)
        s->abort();
}

QByteArray FakeRedisServer::bulk(const QByteArray &value)
{
    return '$' + QByteArray::number(value.size()) + "\r\n" + value + "\r\n";
}

QByteArray FakeRedisServer::array(const QList<QByteArray> &encodedElements)
{
    return '*' + QByteArray::number(encodedElements.size()) + "\r\n" + encodedElements.join();
}

void FakeRedisServer::onNewConnection()
{
    while (QTcpSocket *s = m_server.nextPendingConnection()) {
        ++m_accepted;
        m_sockets.append(s);
        s->setProperty(kReaderProperty, QVariant::fromValue<void *>(redisReaderCreate()));
        connect(s, &QTcpSocket::readyRead, this, [this, s] { onReadyRead(s); });
        connect(s, &QTcpSocket::disconnected, this, [this, s] {
            m_sockets.removeAll(s);
            redisReaderFree(readerOf(s));
            s->setProperty(kReaderProperty, QVariant());
            s->deleteLater();
        });
    }
}

void FakeRedisServer::onReadyRead(QTcpSocket *socket)
{
    redisReader *reader = readerOf(socket);
    if (!reader)
        return;
    const QByteArray data = socket->readAll();
    redisReaderFeed(reader, data.constData(), static_cast<size_t>(data.size()));
    for (;;) {
        void *raw = nullptr;
        if (redisReaderGetReply(reader, &raw) != REDIS_OK || !raw)
            return;
        const auto *reply = static_cast<redisReply *>(raw);
        QList<QByteArray> argv;
        if (reply->type == REDIS_REPLY_ARRAY)
            for (size_t i = 0; i < reply->elements; ++i)
                argv.append(QByteArray(reply->element[i]->str, static_cast<int>(reply->element[i]->len)));
        freeReplyObject(raw);
        m_commands.append(argv);
        const QByteArray name = argv.value(0).toUpper();
        QByteArray answer;
        // LockScope's handshake is AUTH, SELECT, CLIENT SETNAME, then PING as its barrier.
        const bool handshaking = m_answerHandshake && !socket->property("lockscopeHandshakeDone").toBool();
        if (handshaking && (name == "AUTH" || name == "SELECT" || name == "CLIENT" || name == "HELLO")) {
            answer = "+OK\r\n";
        } else if (handshaking && name == "PING") {
            answer = "+PONG\r\n";
            socket->setProperty("lockscopeHandshakeDone", true);
        } else if (m_responder) {
            answer = m_responder(argv);
        }
        if (!answer.isEmpty())
            socket->write(answer);
    }
}

} // namespace lockscope::test
