#include "sentinelresolver.h"

#include "redisconnection.h"
#include "redisreply.h"
#include "redissubscriber.h"

namespace lockscope
{

namespace
{

const QByteArray kSwitchMaster = "+switch-master";

/** The sentence RedisConnection gives (or the server's own words) when a sentinel has no
 *  password set for its default user but we sent one. */
bool isNoPasswordConfigured(const QString &message)
{
    return message.contains(QLatin1String("without any password configured")) ||
           message.contains(QLatin1String("has no password set for the default user"));
}

} // namespace

SentinelResolver::SentinelResolver(const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent), m_endpoint(endpoint), m_sentinels(endpoint.sentinels())
{
    m_watchRetry.setParent(this);
    m_watchRetry.setSingleShot(true);
    m_watchRetry.setInterval(500);
    connect(&m_watchRetry, &QTimer::timeout, this, &SentinelResolver::watchNext);
}

SentinelResolver::~SentinelResolver() = default;

void SentinelResolver::setTimeoutsMs(int connectMs, int commandMs)
{
    m_connectTimeoutMs = qMax(1, connectMs);
    m_commandTimeoutMs = qMax(1, commandMs);
}

QString SentinelResolver::watchedSentinel() const
{
    if (!m_subscriber || !m_subscriber->isReady())
        return QString();
    return m_subscriber->connection()->endpoint().address();
}

RedisConnection *SentinelResolver::connectionTo(int index)
{
    RedisEndpoint ep = m_sentinels.at(index);
    const QString address = ep.address();
    if (RedisConnection *c = m_connections.value(address))
        return c;
    if (m_withoutAuth.value(address)) {
        ep.setUsername(QString());
        ep.setPassword(QString());
    }
    auto *c = new RedisConnection(ep, this);
    c->setClientName("lockscope-sentinel");
    c->setAutoReconnect(false); // asked again at the next resolve(), or the next sentinel is asked
    c->setConnectTimeoutMs(m_connectTimeoutMs);
    c->setCommandTimeoutMs(m_commandTimeoutMs);
    m_connections.insert(address, c);
    return c;
}

void SentinelResolver::resolve(QObject *context, Callback done)
{
    m_waiters.append(Waiter{context, context != nullptr, std::move(done)});
    if (m_resolving)
        return;
    m_resolving = true;
    m_asking = 0;
    m_answers.clear();
    m_unknownName = 0;
    askNext();
}

void SentinelResolver::askNext()
{
    const QString name = masterName();
    if (m_asking >= m_sentinels.size()) {
        QStringList asked;
        for (const auto &s : m_sentinels)
            asked << s.address();
        if (m_unknownName == m_sentinels.size())
            finish(RedisEndpoint(),
                   QStringLiteral("no sentinel knows a master named '%1' (asked %2): check the name after '#' in the "
                                  "URL; SENTINEL MASTERS on a sentinel lists the names it monitors")
                       .arg(name, asked.join(QStringLiteral(", "))),
                   true, QString());
        else
            finish(RedisEndpoint(),
                   QStringLiteral("no sentinel could name the master '%1': %2")
                       .arg(name, m_answers.join(QStringLiteral("; "))),
                   false, QString());
        return;
    }
    const QString address = m_sentinels.at(m_asking).address();
    RedisConnection *c = connectionTo(m_asking);
    c->open();
    c->send(
        {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", name.toUtf8()}, this, [this, address, c, name](const RedisReply &r) {
            if (r.isError()) {
                QString message = r.errorMessage();
                if (!m_withoutAuth.value(address) && isNoPasswordConfigured(message)) {
                    // This sentinel has no password of its own: ask it again without credentials.
                    m_withoutAuth.insert(address, true);
                    m_connections.remove(address);
                    c->deleteLater();
                    askNext();
                    return;
                }
                if (message.contains(QLatin1String("unknown command"), Qt::CaseInsensitive))
                    message +=
                        QStringLiteral(" (is it a sentinel? A redis-sentinel:// URL lists sentinels, usually on port "
                                       "26379, not Redis servers)");
                m_answers << QStringLiteral("%1: %2").arg(address, message);
                ++m_asking;
                askNext();
                return;
            }
            if (r.isNil()) {
                ++m_unknownName;
                m_answers << QStringLiteral("%1 does not know a master named '%2'").arg(address, name);
                ++m_asking;
                askNext();
                return;
            }
            bool ok = false;
            const int port = r.isArray() && r.size() >= 2 ? r.at(1).toByteArray().toInt(&ok) : 0;
            const QString host = r.isArray() && r.size() >= 2 ? QString::fromUtf8(r.at(0).toByteArray()) : QString();
            if (!ok || host.isEmpty() || port <= 0 || port > 65535) {
                m_answers << QStringLiteral("%1 gave no usable address").arg(address);
                ++m_asking;
                askNext();
                return;
            }
            if (m_asking > 0)
                m_sentinels.move(m_asking, 0); // it answered: ask it first next time
            finish(m_endpoint.masterAt(host, quint16(port)), QString(), false, address);
        });
}

void SentinelResolver::finish(const RedisEndpoint &master, const QString &error, bool retrySlowly,
                              const QString &sentinel)
{
    m_resolving = false;
    const QList<Waiter> waiters = std::move(m_waiters);
    m_waiters.clear();
    QPointer<SentinelResolver> self(this);
    for (const auto &w : waiters) {
        if (w.done && (!w.hasContext || w.context))
            w.done(master, error, retrySlowly);
        if (!self)
            return;
    }
    if (master.isValid())
        adopt(master, QStringLiteral("sentinel %1 now names it").arg(sentinel));
}

void SentinelResolver::adopt(const RedisEndpoint &master, const QString &how)
{
    if (!m_current.isValid()) {
        m_current = master;
        return;
    }
    if (m_current.address() == master.address())
        return;
    const RedisEndpoint old = m_current;
    m_current = master;
    emit masterChanged(old, master, how);
}

void SentinelResolver::startWatching()
{
    if (m_watch)
        return;
    m_watch = true;
    m_watchIndex = -1;
    watchNext();
}

void SentinelResolver::stop()
{
    m_watch = false;
    m_watchRetry.stop();
    if (m_subscriber) {
        m_subscriber->disconnect(this);
        m_subscriber->close();
        m_subscriber->deleteLater();
        m_subscriber = nullptr;
    }
    for (RedisConnection *c : std::as_const(m_connections))
        c->close();
}

void SentinelResolver::watchNext()
{
    if (!m_watch || m_sentinels.isEmpty())
        return;
    if (m_subscriber) {
        m_subscriber->disconnect(this);
        m_subscriber->close();
        m_subscriber->deleteLater();
        m_subscriber = nullptr;
    }
    m_watchIndex = (m_watchIndex + 1) % m_sentinels.size();
    RedisEndpoint ep = m_sentinels.at(m_watchIndex);
    const QString address = ep.address();
    if (m_withoutAuth.value(address)) {
        ep.setUsername(QString());
        ep.setPassword(QString());
    }
    m_subscriber = new RedisSubscriber(ep, this);
    RedisConnection *c = m_subscriber->connection();
    c->setClientName("lockscope-sentinel-sub");
    c->setAutoReconnect(false); // a lost sentinel: move on to the next one (m_watchRetry)
    c->setConnectTimeoutMs(m_connectTimeoutMs);
    connect(m_subscriber, &RedisSubscriber::message, this,
            [this, address](const QByteArray &channel, const QByteArray &payload, const QByteArray &) {
                if (channel == kSwitchMaster)
                    onSwitchMessage(payload, address);
            });
    connect(m_subscriber, &RedisSubscriber::subscribed, this, [this, address](const QByteArray &channel) {
        if (channel != kSwitchMaster)
            return;
        emit watching(address);
        resolve(this, nullptr); // a switch may have happened while nobody listened
    });
    connect(m_subscriber, &RedisSubscriber::connectionLost, this, [this, address](const QString &reason) {
        if (isNoPasswordConfigured(reason))
            m_withoutAuth.insert(address, true);
        if (!m_watchRetry.isActive())
            m_watchRetry.start();
    });
    m_subscriber->subscribe(kSwitchMaster);
    m_subscriber->open();
}

void SentinelResolver::onSwitchMessage(const QByteArray &payload, const QString &sentinel)
{
    // "+switch-master <master name> <old ip> <old port> <new ip> <new port>" (Redis Sentinel docs).
    const QList<QByteArray> parts = payload.split(' ');
    if (parts.size() < 5 || QString::fromUtf8(parts.at(0)) != masterName())
        return;
    bool ok = false;
    const int port = parts.at(4).toInt(&ok);
    if (!ok || port <= 0 || port > 65535)
        return;
    adopt(m_endpoint.masterAt(QString::fromUtf8(parts.at(3)), quint16(port)),
          QStringLiteral("+switch-master from sentinel %1").arg(sentinel));
}

} // namespace lockscope
