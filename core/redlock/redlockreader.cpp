#include "redlock/redlockreader.h"

#include "watch/snapshotreader.h"

#include "redis/redisconnection.h"

#include <QPointer>

#include <memory>

namespace lockscope
{

RedLockReader::RedLockReader(const QVector<Target> &targets, QObject *parent) : QObject(parent), m_targets(targets) {}

RedLockReader::~RedLockReader() = default;

void RedLockReader::setNames(const QStringList &names)
{
    if (names.size() != 1 && names.size() != m_targets.size())
        return;
    for (int i = 0; i < m_targets.size(); ++i)
        m_targets[i].name = names.size() == 1 ? names.first() : names.at(i);
}

void RedLockReader::setTimeoutsMs(int connectMs, int commandMs)
{
    m_connectTimeoutMs = connectMs;
    m_commandTimeoutMs = commandMs;
    for (RedisConnection *c : m_connections) {
        c->setConnectTimeoutMs(connectMs);
        c->setCommandTimeoutMs(commandMs);
    }
}

void RedLockReader::ensureConnections()
{
    while (m_connections.size() < m_targets.size()) {
        auto *c = new RedisConnection(m_targets.at(m_connections.size()).endpoint, this);
        c->setClientName("lockscope-redlock");
        c->setConnectTimeoutMs(m_connectTimeoutMs);
        c->setCommandTimeoutMs(m_commandTimeoutMs);
        m_connections << c;
        m_readers << new SnapshotReader(c, this);
    }
    for (RedisConnection *c : m_connections)
        c->open(); // no-op while connecting, ready or waiting to reconnect
}

void RedLockReader::refresh()
{
    read(nullptr, nullptr);
}

void RedLockReader::read(QObject *context, Callback callback)
{
    ensureConnections();
    const int n = static_cast<int>(m_targets.size());
    auto rows = std::make_shared<QVector<RedLockServerState>>(n);
    auto left = std::make_shared<int>(n);
    QPointer<QObject> ctx(context);
    const bool hasContext = context != nullptr;
    QPointer<RedLockReader> self(this);
    auto done = [self, rows, left, ctx, hasContext, callback] {
        if (--*left > 0)
            return;
        const RedLockStatus status = RedLockStatus::evaluate(*rows, LockSnapshot::steadyNowMs());
        if (callback && (!hasContext || ctx))
            callback(status);
        if (self)
            emit self->statusRead(status);
    };
    if (n == 0) {
        *left = 1;
        QMetaObject::invokeMethod(this, done, Qt::QueuedConnection);
        return;
    }
    for (int i = 0; i < n; ++i) {
        RedLockServerState &row = (*rows)[i];
        row.server = m_targets.at(i).endpoint.address();
        row.name = m_targets.at(i).name;
        m_readers.at(i)->read({row.name}, this,
                              [rows, i, done](const QVector<LockSnapshot> &snaps, const QString &error) {
                                  RedLockServerState &r = (*rows)[i];
                                  if (!error.isEmpty() || snaps.isEmpty()) {
                                      r.state = RedLockServerState::State::Unreachable;
                                      r.error = error.isEmpty() ? QStringLiteral("no reply") : error;
                                  } else {
                                      r.snapshot = snaps.first();
                                      if (r.snapshot.isLock && r.snapshot.isHeld()) {
                                          r.state = RedLockServerState::State::Held;
                                      } else if (!r.snapshot.isLock && (r.snapshot.exists || r.snapshot.pttlMs != -2)) {
                                          // a hash of other fields, or a key of another type (PTTL != -2)
                                          r.state = RedLockServerState::State::NotALock;
                                          r.error = QStringLiteral("'%1' exists but is not a Redisson lock (not a hash "
                                                                   "of <clientId>:<threadId> -> hold count)")
                                                        .arg(r.name);
                                      } else {
                                          r.state = RedLockServerState::State::Free;
                                      }
                                  }
                                  done();
                              });
    }
}

} // namespace lockscope
