#include "watch/lockmonitor.h"
#include "redis/redisbytes.h"

#include "protocol/locknames.h"
#include "watch/lockdiscovery.h"
#include "watch/snapshotreader.h"

#include "redis/redisconnection.h"
#include "redis/redissubscriber.h"

#include <QDateTime>

#include <algorithm>
#include <memory>

namespace lockscope
{

static constexpr int kMaxNamesPerRead = 5000;
/** Dirty names that are read on as soon as a read ends, without the coalescing delay. */
static constexpr int kFlushAtOnceNames = 256;
/** How long an unlock message waits for the read that reports its release (then it goes alone). */
static constexpr int kMessageHoldMs = 500;
static constexpr int kLiveRefreshEveryTicks = 5;  // live mode: re-read all (<= kLiveRefreshMaxLocks) every 5 ticks
static constexpr int kLiveRefreshMaxLocks = 5000; // beyond this, live mode relies on notifications only
static constexpr int kNotLockCacheMax = 200000;

LockMonitor::LockMonitor(RedisConnection *connection, RedisSubscriber *subscriber, QObject *parent)
    : LockWatcher(parent), m_connection(connection), m_subscriber(subscriber)
{
    qRegisterMetaType<lockscope::LockSnapshot>();
    qRegisterMetaType<QVector<lockscope::LockSnapshot>>();
    qRegisterMetaType<lockscope::LockEvent>();
    qRegisterMetaType<QVector<lockscope::LockEvent>>();
    m_patternRegex = LockDiscovery::globToRegex(m_pattern);
    m_discovery = new LockDiscovery(connection, this);
    m_reader = new SnapshotReader(connection, this);
    m_reader->setBatchBudgetUs(kReadBudgetUs);
    m_reader->setMaxInFlight(kReadsInFlight);
    m_discovery->setStepBudgetUs(kScanBudgetUs);
    m_flushTimer.setParent(this);
    m_pollTimer.setParent(this);
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, &LockMonitor::flush);
    connect(&m_pollTimer, &QTimer::timeout, this, &LockMonitor::onPollTick);
    m_messageTimer.setParent(this);
    m_messageTimer.setSingleShot(true);
    connect(&m_messageTimer, &QTimer::timeout, this, &LockMonitor::flushPendingMessages);
    m_recheckTimer.setParent(this);
    connect(&m_recheckTimer, &QTimer::timeout, this, &LockMonitor::recheckNotifications);

    // Hashes the scan itself told apart from locks: remembered as such, as a snapshot read would
    // (a known lock among them is re-read: it changed).
    connect(m_discovery, &LockDiscovery::hashesNotLocksFound, this, [this](const QStringList &names) {
        for (const auto &n : names) {
            if (m_trackSeenInScan)
                m_seenInScan.insert(n);
            if (m_locks.contains(n)) {
                markDirty(n);
                continue;
            }
            if (m_oneShot)
                continue; // read once and done: nothing to skip later (160k such names at 1M keys)
            if (m_notLocks.size() >= kNotLockCacheMax)
                m_notLocks.clear();
            m_notLocks.insert(n);
        }
    });
    connect(m_discovery, &LockDiscovery::candidatesFound, this, [this](const QStringList &names, bool byCompanion) {
        for (const auto &n : names) {
            if (m_trackSeenInScan)
                m_seenInScan.insert(n);
            if (byCompanion) {
                // Its queue, timeout set or token exists: whatever its hash said, the script reads it.
                m_notLocks.remove(n);
                ++m_discoveryNewReads;
                markDirty(n);
                continue;
            }
            if (m_notLocks.contains(n))
                continue;
            // Polling: a rediscovery reads only the names it finds new; known locks are re-read by
            // the sweep already (re-reading every lock found took polling over its budget).
            if (m_pollDiscovery && m_locks.contains(n))
                continue;
            ++m_discoveryNewReads;
            markFoundHash(n);
        }
    });
    connect(m_discovery, &LockDiscovery::progress, this, [this](qint64 scanned, qint64) {
        // Visited keys of the first pass, capped by DBSIZE; the fair-queue pass reports it all.
        if (m_approxTotalKeys >= 0 && (scanned < 0 || scanned > m_approxTotalKeys))
            scanned = m_approxTotalKeys;
        emit discoveryProgress(qMax<qint64>(0, scanned), m_locks.size(), false, m_approxTotalKeys);
    });
    connect(m_discovery, &LockDiscovery::finished, this, [this](qint64 scanned, qint64) {
        // Known locks the scan did not return may be gone: confirm with a re-read.
        for (auto it = m_locks.cbegin(); m_trackSeenInScan && it != m_locks.cend(); ++it) {
            if (!m_seenInScan.contains(it.key())) {
                ++m_discoveryNewReads;
                markDirty(it.key());
            }
        }
        m_seenInScan.clear();
        // Charged to the poll budget of the next sweeps: its SCAN steps and, for polling's own
        // rediscovery, the reads it caused (the first pass reads everything: not a sweep's cost).
        m_rediscoveryCommands = m_discovery->steps() * kCommandsPerScanStep +
                                (m_pollDiscovery ? m_discoveryNewReads * kCommandsPerLockRead : 0);
        m_pollDiscovery = false;
        m_passScanned = m_approxTotalKeys >= 0 ? m_approxTotalKeys : scanned;
        m_passFoundReported = m_locks.size();
        m_passReadsPending = true;
        emit discoveryProgress(m_passScanned, m_locks.size(), true, m_approxTotalKeys);
        if (isIdle())
            becomeIdle();
    });
    connect(m_discovery, &LockDiscovery::failed, this, &LockMonitor::errorOccurred);
}

LockMonitor::~LockMonitor() = default;

QString LockMonitor::modeName(Mode mode)
{
    return watchModeName(mode);
}

void LockMonitor::setPattern(const QString &glob)
{
    m_pattern = glob.isEmpty() ? QStringLiteral("*") : glob;
    m_patternRegex = LockDiscovery::globToRegex(m_pattern);
    m_matchAll = m_pattern == QLatin1String("*");
}

void LockMonitor::setPollIntervalMs(int ms)
{
    m_pollIntervalMs = qMax(50, ms);
    if (m_pollTimer.isActive())
        m_pollTimer.start(m_pollIntervalMs);
}

void LockMonitor::setScanConnection(RedisConnection *connection)
{
    m_scanConnection = connection;
    m_discovery->setScanConnection(connection);
}

bool LockMonitor::isDiscovering() const
{
    return m_discovery->isRunning();
}

void LockMonitor::becomeIdle()
{
    m_baselineDone = true;
    // The pass's reads have landed: the locks it found are known now. When that count differs
    // from the one reported as the pass ended (the names were still being read then), say it
    // again, so the progress line and the exporter's lockscope_scan_locks_found do not stay at
    // the count from before the reads (often 0).
    if (m_passReadsPending) {
        m_passReadsPending = false;
        if (m_locks.size() != m_passFoundReported)
            emit discoveryProgress(m_passScanned, m_locks.size(), true, m_approxTotalKeys);
    }
    emit idle();
}

bool LockMonitor::isIdle() const
{
    return !m_discovery->isRunning() && m_dirty.isEmpty() && !m_readInFlight;
}

void LockMonitor::start()
{
    if (m_started || !m_connection)
        return;
    m_started = true;
    connect(m_connection, &RedisConnection::ready, this, &LockMonitor::onReady);
    connect(m_connection, &RedisConnection::connectionLost, this, &LockMonitor::onConnectionLost);
    if (m_subscriber && !m_oneShot) {
        connect(m_subscriber, &RedisSubscriber::message, this, &LockMonitor::onMessage);
        // After a subscriber reconnect, messages may have been missed: re-read everything known.
        connect(m_subscriber, &RedisSubscriber::ready, this, [this] {
            for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it)
                markDirty(it.key());
            onSubscriberBack();
        });
        connect(m_subscriber, &RedisSubscriber::connectionLost, this, &LockMonitor::onSubscriberLost);
        m_subscriber->psubscribe("redisson_lock__channel:*");
        m_subscriber->psubscribe("redisson_rwlock:*");
    }
    setMode(Mode::Connecting, QStringLiteral("connecting to %1").arg(m_connection->endpoint().address()));
    if (m_notificationRecheckMs > 0)
        m_recheckTimer.start(m_notificationRecheckMs);
    if (m_connection->isReady())
        onReady();
    else
        m_connection->open();
}

void LockMonitor::setMode(Mode mode, const QString &detail)
{
    if (m_mode == mode && m_modeDetail == detail)
        return;
    m_mode = mode;
    m_modeDetail = detail;
    emit modeChanged(mode, detail);
}

void LockMonitor::onReady()
{
    if (m_scanConnection && m_scanConnection->state() == RedisConnection::State::Disconnected)
        m_scanConnection->open(); // steps go on the command connection until it is ready
    if (m_plainReads) {
        // Plain reads need no script for most locks: a user who may not run scripts would see a
        // partial picture (and lose every later re-read). Asked once per connection, up front.
        m_reader->probeScript(this, [this](const QString &error) {
            if (RedisReply::isPermissionError(error))
                emit errorOccurred(QStringLiteral("Reading lock snapshots failed: %1").arg(error));
        });
    }
    if (m_oneShot) {
        setMode(Mode::Polling, QStringLiteral("one pass: discovery, then one read of each lock"));
        rediscover();
        return;
    }
    if (m_notificationsRequested)
        enableNotifications(); // the operator asked for them; this may be another server now
    else
        checkNotifications();
    rediscover();
}

void LockMonitor::onConnectionLost(const QString &reason)
{
    m_pollTimer.stop();
    m_discovery->cancel();
    // The scan connection shares the network: a silent black hole leaves it "ready" with a step
    // that never returns, so it reconnects with the command connection.
    if (m_scanConnection && m_scanConnection->state() != RedisConnection::State::Disconnected)
        m_scanConnection->reconnectNow(reason);
    m_readInFlight = false;
    markStale();
    setMode(Mode::Disconnected, QStringLiteral("%1%2 Showing the last data read; reconnecting automatically.")
                                    .arg(reason, reason.endsWith(QLatin1Char('.')) ? QString() : QStringLiteral(".")));
}

void LockMonitor::checkNotifications()
{
    if (!m_connection)
        return;
    const QString address = m_connection->endpoint().address();
    m_connection->send({"CONFIG", "GET", "notify-keyspace-events"}, this, [this, address](const RedisReply &r) {
        QString why;
        bool on = false;
        if (r.isError()) {
            why = QStringLiteral("Cannot read notify-keyspace-events on %1 (%2): polling every %3 ms.")
                      .arg(address, r.errorMessage())
                      .arg(m_pollIntervalMs);
        } else {
            const QString flags = RedisBytes::toText(r.at(1).toByteArray());
            on = notificationFlagsSuffice(flags);
            if (!on)
                why = QStringLiteral("Keyspace notifications are off on %1 (notify-keyspace-events='%2'): "
                                     "polling every %3 ms. Enable them (needs K, g, h, x) for live updates.")
                          .arg(address, flags)
                          .arg(m_pollIntervalMs);
        }
        if (m_forcePolling && on) {
            on = false;
            why = QStringLiteral("Polling every %1 ms (requested).").arg(m_pollIntervalMs);
        }
        m_notificationsOn = on;
        emit notificationsChecked(on, why);
        if (on && m_subscriber && m_subscriberLost) {
            // Deaf: notifications are on, but the connection that hears them is down.
            m_notificationsOn = false;
            setMode(Mode::Polling,
                    QStringLiteral("The notification connection to %1 is down (%2): polling every %3 ms until it is "
                                   "back.")
                        .arg(address,
                             m_subscriberLostReason.isEmpty() ? QStringLiteral("connecting") : m_subscriberLostReason)
                        .arg(m_pollIntervalMs));
        } else if (on && m_subscriber) {
            m_keyspacePattern = QByteArray("__keyspace@") + QByteArray::number(m_connection->endpoint().db()) + "__:*";
            m_subscriber->psubscribe(m_keyspacePattern);
            setMode(Mode::Live, QStringLiteral("keyspace notifications from %1").arg(address));
        } else {
            if (!m_keyspacePattern.isEmpty() && m_subscriber)
                m_subscriber->punsubscribe(m_keyspacePattern);
            m_pollWhy = why;
            setMode(Mode::Polling, why);
        }
        m_pollTicks = 0;
        m_pollTimer.start(m_pollIntervalMs);
    });
}

bool LockMonitor::notificationFlagsSuffice(const QString &flags)
{
    const bool all = flags.contains(QLatin1Char('A'));
    return flags.contains(QLatin1Char('K')) &&
           (all ||
            (flags.contains(QLatin1Char('g')) && flags.contains(QLatin1Char('h')) && flags.contains(QLatin1Char('x'))));
}

void LockMonitor::setNotificationRecheckMs(int ms)
{
    m_notificationRecheckMs = qMax(0, ms);
    if (m_notificationRecheckMs == 0)
        m_recheckTimer.stop();
    else if (m_started)
        m_recheckTimer.start(m_notificationRecheckMs);
}

void LockMonitor::onSubscriberLost(const QString &reason)
{
    m_subscriberLost = true;
    m_subscriberLostReason = reason;
    if (m_mode != Mode::Live)
        return; // polling already, or disconnected: that says enough
    m_notificationsOn = false;
    setMode(Mode::Polling, QStringLiteral("The notification connection to %1 is down (%2): polling every %3 ms "
                                          "until it is back.")
                               .arg(m_connection ? m_connection->endpoint().address() : QString(), reason)
                               .arg(m_pollIntervalMs));
    m_pollTicks = 0;
    m_pollTimer.start(m_pollIntervalMs);
}

void LockMonitor::onSubscriberBack()
{
    if (!m_subscriberLost)
        return; // the first connect: checkNotifications() runs when the data connection is ready
    m_subscriberLost = false;
    m_subscriberLostReason.clear();
    if (!m_connection)
        return;
    if (!m_connection->isReady()) {
        // The network is back (the subscriber proves it): do not wait for the data connection's
        // backoff or a connect attempt that went into the void.
        if (m_connection->lostSinceEpochMs() != 0)
            m_connection->reconnectNow(QStringLiteral("the network to %1 is back (the subscriber reconnected)")
                                           .arg(m_connection->endpoint().address()));
        return; // onReady() checks the notifications and rediscovers
    }
    checkNotifications();
    rediscover();
}

void LockMonitor::recheckNotifications()
{
    if (!m_connection || !m_connection->isReady() || m_forcePolling || m_configUnreadable || m_recheckInFlight ||
        m_subscriberLost || (m_mode != Mode::Live && m_mode != Mode::Polling))
        return;
    m_recheckInFlight = true;
    m_connection->send({"CONFIG", "GET", "notify-keyspace-events"}, this, [this](const RedisReply &r) {
        m_recheckInFlight = false;
        if (r.isError()) {
            if (!r.isTransportError())
                m_configUnreadable = true; // CONFIG refused (ACL, managed Redis): nothing to re-check
            return;
        }
        const bool on = notificationFlagsSuffice(RedisBytes::toText(r.at(1).toByteArray()));
        if (on == m_notificationsOn || m_subscriberLost)
            return; // no change
        // Turned off or on mid-watch: switch mode (checkNotifications says why) and read again
        // everything, so what changed while nobody announced it is found.
        checkNotifications();
        rediscover();
    });
}

void LockMonitor::suspectNotifications()
{
    if (m_mode != Mode::Live || (m_sinceSuspicion.isValid() && m_sinceSuspicion.elapsed() < 1000))
        return;
    m_sinceSuspicion.start();
    recheckNotifications();
}

void LockMonitor::markStale()
{
    const qint64 asOf = m_connection && m_connection->lostSinceEpochMs() != 0 ? m_connection->lostSinceEpochMs()
                                                                              : QDateTime::currentMSecsSinceEpoch();
    QVector<LockSnapshot> changed;
    for (auto it = m_locks.begin(); it != m_locks.end(); ++it) {
        if (it.value().stale)
            continue;
        it.value().stale = true;
        it.value().staleAsOfMs = asOf;
        changed << it.value();
    }
    if (!changed.isEmpty())
        emit locksUpdated(changed, {});
}

void LockMonitor::enableNotifications()
{
    if (!m_connection)
        return;
    m_notificationsRequested = true;
    m_connection->send({"CONFIG", "GET", "notify-keyspace-events"}, this, [this](const RedisReply &r) {
        if (r.isError()) {
            emit errorOccurred(QStringLiteral("Cannot read notify-keyspace-events: %1").arg(r.errorMessage()));
            return;
        }
        const QString before = RedisBytes::toText(r.at(1).toByteArray());
        QString flags = before;
        for (const QChar c : {QLatin1Char('K'), QLatin1Char('g'), QLatin1Char('h'), QLatin1Char('x')}) {
            if (!flags.contains(c) && !(c != QLatin1Char('K') && flags.contains(QLatin1Char('A'))))
                flags += c;
        }
        if (flags == before) {
            checkNotifications(); // already on: nothing to write
            return;
        }
        m_connection->send({"CONFIG", "SET", "notify-keyspace-events", RedisBytes::toBytes(flags)}, this,
                           [this, flags](const RedisReply &set) {
                               if (set.isError()) {
                                   emit errorOccurred(
                                       QStringLiteral("CONFIG SET notify-keyspace-events %1 was refused: %2. "
                                                      "Staying in polling mode.")
                                           .arg(flags, set.errorMessage()));
                                   return;
                               }
                               checkNotifications();
                           });
    });
}

void LockMonitor::rediscover()
{
    m_seenInScan.clear();
    // One-shot: nothing known before the pass, nothing to confirm after it (200k names kept).
    m_trackSeenInScan = !m_oneShot || !m_locks.isEmpty();
    m_pollDiscovery = false;
    m_discoveryNewReads = 0;
    if (m_connection && m_connection->isReady()) {
        // The size of the whole database, for "scanned N of ~M keys" (O(1) on the server).
        m_connection->send({"DBSIZE"}, this, [this](const RedisReply &r) {
            if (!r.isError())
                m_approxTotalKeys = r.toInteger(-1);
        });
    }
    // The first pass leaves out, on the server, the hashes that cannot be locks; later
    // polling rediscoveries skip them by m_notLocks, without spending commands on them again.
    m_discovery->setPrefilterHashes(!m_plainReads && (!m_baselineDone || m_oneShot));
    m_discovery->start(m_pattern);
}

void LockMonitor::cancelDiscovery()
{
    if (!m_discovery->isRunning())
        return;
    m_discovery->cancel();
    m_seenInScan.clear();
    emit discoveryProgress(0, m_locks.size(), true, m_approxTotalKeys);
    if (isIdle())
        becomeIdle();
}

void LockMonitor::setClusterNode(std::function<bool(const QString &)> ownsName,
                                 std::function<void(const QString &, const QString &)> foreignName,
                                 SnapshotReader::RoutedSend routedSend)
{
    m_ownsName = std::move(ownsName);
    m_foreignName = std::move(foreignName);
    m_reader->setOneSlotPerBatch(true);
    m_reader->setRoutedSend(std::move(routedSend));
}

void LockMonitor::markDirty(const QString &name, const QString &hint)
{
    if (m_ownsName && !m_ownsName(name)) {
        // Another master serves it (cluster), yet it was seen here: a key of a slot this node
        // imports (resharding). The serving master's monitor reads it, following ASK.
        if (m_foreignName)
            m_foreignName(name, hint);
        return;
    }
    if (!m_dirtyPlain.isEmpty())
        m_dirtyPlain.remove(name); // whatever made it dirty again may need the script
    auto it = m_dirty.find(name);
    if (it == m_dirty.end()) {
        m_dirty.insert(name, hint);
        m_dirtyOrder.push_back(name);
    } else if (!hint.isEmpty() && it.value() != QLatin1String("expired")) {
        it.value() = hint;
    }
    scheduleFlush();
}

void LockMonitor::markFoundHash(const QString &name)
{
    // A plain read suits a hash with no companion key and no twin hash (§14.4). Companion keys
    // come as candidates of their own (LockDiscovery's second pass), which marks the name for the
    // script even after a plain read. Of twins `x` and `{x}`, the hash pass returns `{x}` when it
    // exists and matches the pattern: then both are read by the script. A name whose twin is
    // outside the pattern cannot be told so: the script reads it.
    // The twin's name is built only where it matters (a braced name, or a pattern it may miss):
    // 360k found hashes at 1M keys.
    const bool braced = name.startsWith(QLatin1Char('{'));
    const QString twin = braced || !m_matchAll ? LockNames::twinName(name) : QString();
    const bool twinVisible =
        twin.isEmpty() || m_matchAll || m_patternRegex.match(RedisBytes::matchable(twin)).hasMatch();
    if (!twin.isEmpty() && braced) {
        markDirty(name);
        markDirty(twin);
        return;
    }
    if (!m_plainReads || m_locks.contains(name) || !twinVisible) {
        markDirty(name);
        return;
    }
    if (m_ownsName && !m_ownsName(name)) {
        markDirty(name); // another master serves it (cluster): passed on there
        return;
    }
    if (m_dirty.contains(name))
        return; // dirty already, for a reason of its own
    m_dirty.insert(name, QString());
    m_dirtyOrder.push_back(name);
    m_dirtyPlain.insert(name);
    scheduleFlush();
}

QVector<LockSnapshot> LockMonitor::takeLocks(const QStringList &names)
{
    QVector<LockSnapshot> out;
    const QSet<QString> gone(names.cbegin(), names.cend());
    for (const QString &name : names) {
        auto it = m_locks.find(name);
        if (it != m_locks.end()) {
            out << it.value();
            m_locks.erase(it);
        }
        m_dirty.remove(name);
        m_dirtyPlain.remove(name);
        m_forceUnlockExpected.remove(name);
        m_removals.remove(name);
    }
    m_dirtyOrder.erase(std::remove_if(m_dirtyOrder.begin(), m_dirtyOrder.end(),
                                      [&gone](const QString &n) { return gone.contains(n); }),
                       m_dirtyOrder.end());
    return out;
}

void LockMonitor::adoptLocks(const QVector<LockSnapshot> &locks)
{
    m_baselineDone = true;
    for (const LockSnapshot &s : locks)
        m_locks.insert(s.name, s);
    for (const LockSnapshot &s : locks)
        markDirty(s.name);
}

void LockMonitor::scheduleFlush()
{
    if (m_readInFlight || m_flushTimer.isActive() || m_dirty.isEmpty())
        return;
    m_flushTimer.start(m_coalesceMs);
}

void LockMonitor::flush()
{
    if (m_readInFlight || m_dirty.isEmpty() || !m_connection || !m_connection->isReady())
        return;
    QStringList names;
    QStringList plainNames; // read with plain commands (markFoundHash())
    QHash<QString, QString> hints;
    names.reserve(qMin(m_dirty.size(), kMaxNamesPerRead));
    while (!m_dirtyOrder.empty() && names.size() + plainNames.size() < kMaxNamesPerRead) {
        QString name = std::move(m_dirtyOrder.front());
        m_dirtyOrder.pop_front();
        const QString hint = m_dirty.take(name);
        if (!hint.isEmpty())
            hints.insert(name, hint);
        if (!m_dirtyPlain.isEmpty() && m_dirtyPlain.remove(name))
            plainNames << std::move(name);
        else
            names << std::move(name);
    }
    m_readInFlight = true;
    // Each batch is applied as it arrives, while the next one is at the server (applying
    // 5,000 snapshots at the end of a read, then waiting for the coalescing timer, left Redis idle
    // for a third of a big discovery).
    auto sharedHints = std::make_shared<const QHash<QString, QString>>(std::move(hints));
    m_reader->read(
        names, plainNames, this,
        [this](const QVector<LockSnapshot> &, const QString &error) {
            m_readInFlight = false;
            if (!error.isEmpty())
                emit errorOccurred(QStringLiteral("Reading lock snapshots failed: %1").arg(error));
            // A discovery, or a backlog of a batch or more, is read on at once; a few names wait
            // for the coalescing delay as before, so a stream of events gives few, fuller reads.
            if (!m_baselineDone || m_dirty.size() >= kFlushAtOnceNames)
                flush();
            else
                scheduleFlush();
            if (isIdle())
                becomeIdle();
        },
        [this, sharedHints](const QVector<LockSnapshot> &snapshots, const QString &) {
            applySnapshots(snapshots, *sharedHints);
        });
}

LockEvent::Removal LockMonitor::removalOf(const QString &name) const
{
    const auto it = m_removals.constFind(name);
    if (it != m_removals.cend())
        return it.value();
    if (m_replica)
        return LockEvent::Removal::Replica;
    return m_notificationsOn ? LockEvent::Removal::Unknown : LockEvent::Removal::Polling;
}

namespace
{

/** 1 when the events of one read (from `first` on) report a holder's full release (released to
 *  hold count 0, or force-unlocked), else 0: one unlock message's worth, however many holders. */
int reportedRemovals(const QVector<LockEvent> &events, int first, const QString &name)
{
    for (int i = first; i < events.size(); ++i) {
        const LockEvent &e = events[i];
        if (e.lock != name)
            continue;
        if (e.type == QLatin1String("force_unlocked") ||
            (e.type == QLatin1String("released") && e.detail.contains(QLatin1String("-> 0"))))
            return 1;
    }
    return 0;
}

} // namespace

void LockMonitor::accountRemovals(const QString &name, int reportedThisRead, QVector<LockEvent> *events)
{
    auto it = m_removalBalance.find(name);
    if (it == m_removalBalance.end()) {
        if (reportedThisRead > 0)
            m_removalBalance.insert(name, -reportedThisRead); // its `del` event may still be on its way
        return;
    }
    it.value() -= reportedThisRead;
    if (it.value() > 0) {
        // Removals of the hash that no read saw: each was a hold that began and ended (or a
        // hand-over) between two reads of this lock, otherwise silent.
        const int missed = it.value();
        m_coalescedTotal += missed;
        LockEvent e;
        e.timeMs = QDateTime::currentMSecsSinceEpoch();
        e.lock = name;
        e.type = QStringLiteral("coalesced");
        e.detail = missed == 1
                       ? QStringLiteral("1 release (and the hold before it) happened between two reads and was too "
                                        "short to see: its unlock message came, no read showed it")
                       : QStringLiteral("%1 releases (and the holds before them) happened between two reads and were "
                                        "too short to see: their unlock messages came, no read showed them")
                             .arg(missed);
        e.extra.insert(QStringLiteral("count"), missed);
        e.extra.insert(QStringLiteral("coalesced_total"), m_coalescedTotal);
        *events << e;
        it.value() = 0;
    }
    if (it.value() == 0)
        m_removalBalance.erase(it);
}

void LockMonitor::applySnapshots(const QVector<LockSnapshot> &snapshots, const QHash<QString, QString> &hints)
{
    QVector<LockSnapshot> changed;
    QStringList removed;
    QVector<LockEvent> events;
    for (const auto &read : snapshots) {
        LockSnapshot s = read;
        if (m_discount && s.subscribers > 0 && s.exists) // watchers follow held locks only
            s.subscribers = std::max<qint64>(0, s.subscribers - m_discount(s.name));
        auto it = m_locks.find(s.name);
        const bool known = it != m_locks.end();
        const QString hint = hints.value(s.name);
        if (known && m_lastDeletedLock == s.name && !m_removalDeferred.contains(s.name)) {
            // Read right after its `del`: the latch write of the same script may still be on its
            // way on the subscriber connection. Read it once more before calling it forced.
            m_removalDeferred.insert(s.name);
            markDirty(s.name, hint);
            continue;
        }
        m_removalDeferred.remove(s.name);
        const int eventsBefore = int(events.size());
        if (!known && m_ownsName && !m_ownsName(s.name))
            continue; // cluster: handed over to another master's monitor while being read
        if (!m_matchAll && !m_patternRegex.match(RedisBytes::matchable(s.name)).hasMatch()) {
            // Outside the pattern (setPattern() changed it): no longer watched, no events.
            if (known) {
                m_locks.erase(it);
                removed << s.name;
            }
            continue;
        }
        if (s.isLock && !s.nameCertain()) {
            // §14.4: neither `x` nor `{x}` has a hash and both read alike from the keys they
            // share. List only one: the one listed already, else the plain name `x`.
            const bool braced = s.name.contains(QLatin1Char('{'));
            const bool twinListed = m_locks.contains(s.twinName);
            if (twinListed ? (!known || braced) : (braced && !known))
                s.isLock = false;
        }
        // A fair lock whose queue emptied reads like a plain one; once this
        // session saw its queue or timeout set, it is known to be fair.
        if (s.isLock && s.kind == LockKind::FairLock) {
            m_seenFair.insert(s.name);
        } else if (s.isLock && s.kind == LockKind::Lock && !s.kindCertain && m_seenFair.contains(s.name)) {
            s.kind = LockKind::FairLock;
            s.kindCertain = true;
            s.kindNote = QStringLiteral("fair: LockScope saw its waiter queue or timeout set earlier in this session");
        }
        if (!s.isLock) {
            // Remembered for later discoveries and keyspace events; a one-shot pass has neither
            // (160k session hashes at 1M keys would be kept for nothing).
            if (s.exists && !m_oneShot)
                m_notLocks.insert(s.name);
            if (m_notLocks.size() > kNotLockCacheMax)
                m_notLocks.clear();
            if (known) {
                LockSnapshot gone = s;
                gone.holders.clear();
                gone.waiters.clear();
                const int goneFrom = int(events.size());
                events +=
                    LockEvent::diff(&it.value(), gone, hint, m_forceUnlockExpected.remove(s.name), removalOf(s.name));
                // The server's clock at the read that found it gone (LeaseTracker tells a jump of
                // that clock from a holder that stopped; it takes these keys off again).
                for (int i = goneFrom; i < events.size(); ++i) {
                    events[i].extra.insert(QStringLiteral("read_server_ms"), gone.serverTimeMs);
                    events[i].extra.insert(QStringLiteral("read_steady_ms"), gone.readAtSteadyMs);
                }
                m_removals.remove(s.name);
                m_locks.erase(it);
                removed << s.name;
            }
            accountRemovals(s.name, reportedRemovals(events, eventsBefore, s.name), &events);
            insertPendingMessages(s.name, eventsBefore, &events);
            continue;
        }
        // Locks found by the first discovery were there before we looked: no "acquired" events.
        if (known || m_baselineDone || !hint.isEmpty())
            events += LockEvent::diff(known ? &it.value() : nullptr, s, hint, m_forceUnlockExpected.remove(s.name),
                                      removalOf(s.name));
        // The delete evidence is used up once a holder was reported gone (or the lock is).
        for (int i = eventsBefore; i < events.size(); ++i)
            if (events[i].extra.contains(QStringLiteral("removal")))
                m_removals.remove(s.name);
        accountRemovals(s.name, reportedRemovals(events, eventsBefore, s.name), &events);
        insertPendingMessages(s.name, eventsBefore, &events);
        m_locks.insert(s.name, s);
        changed << s;
    }
    if (!changed.isEmpty() || !removed.isEmpty())
        emit locksUpdated(changed, removed);
    if (!events.isEmpty()) {
        // A change found by a refresh that no keyspace event announced: are notifications off?
        if (m_mode == Mode::Live && std::any_of(events.cbegin(), events.cend(), [&hints](const LockEvent &e) {
                return !hints.contains(e.lock) && e.type != QLatin1String("unlock_message");
            }))
            suspectNotifications();
        emit eventsOccurred(events);
    }
}

LockMonitor::PollPlan LockMonitor::pollPlan(int locks, int priorityLocks, int budget, int pollIntervalMs,
                                            qint64 rediscoveryCommands)
{
    PollPlan plan;
    const int perTick = qMax(1, int(qint64(budget) * pollIntervalMs / 1000 / kCommandsPerLockRead));
    plan.priorityReads = qMin(priorityLocks, locks);
    const int others = locks - plan.priorityReads;
    // A sweep of T ticks reads s others per tick and ends with a rediscovery of O commands:
    // (p + s) * 9 * T + O <= perTick * 9 * T with T = others / s gives
    // s <= (perTick - p) / (1 + O / (9 * others)).
    const double overheadShare =
        others > 0 ? double(qMax<qint64>(0, rediscoveryCommands)) / (double(kCommandsPerLockRead) * others) : 0.0;
    const int affordable = int(double(perTick - plan.priorityReads) / (1.0 + overheadShare));
    plan.sweepReads = qMin(others, qMax(affordable, qMax(1, perTick / 10)));
    const qint64 ticks = plan.sweepReads > 0 ? qint64(others + plan.sweepReads - 1) / plan.sweepReads : 1;
    plan.sweepMs = ticks * pollIntervalMs;
    const double commands = double(plan.priorityReads + plan.sweepReads) * kCommandsPerLockRead * double(ticks) +
                            double(qMax<qint64>(0, rediscoveryCommands));
    plan.commandsPerSecond = int(commands * 1000.0 / double(qMax<qint64>(1, plan.sweepMs)));
    return plan;
}

void LockMonitor::setPriorityLocks(const QStringList &names)
{
    m_priority = QSet<QString>(names.cbegin(), names.cend());
}

static QString compact(qint64 n)
{
    return n < 10000 ? QString::number(n) : QStringLiteral("%1k").arg(n / 1000);
}

void LockMonitor::onPollTick()
{
    ++m_pollTicks;
    if (m_mode == Mode::Polling) {
        // What is shown first, every tick; the rest in turn within the budget.
        int priority = 0;
        for (const QString &name : std::as_const(m_priority)) {
            if (m_locks.contains(name)) {
                markDirty(name);
                ++priority;
            }
        }
        const PollPlan plan = pollPlan(int(m_locks.size()), priority, m_pollBudget, m_pollIntervalMs,
                                       qMax<qint64>(0, m_rediscoveryCommands));
        // One rediscovery per full sweep, at most every 5 ticks (as before): new locks appear.
        if (m_sweep.empty() && !m_discovery->isRunning() && m_pollTicks - m_lastDiscoveryTick >= 5) {
            m_lastDiscoveryTick = m_pollTicks;
            rediscover();
            m_pollDiscovery = true;
        }
        for (int n = 0; n < plan.sweepReads;) {
            if (m_sweep.empty()) {
                for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it)
                    m_sweep.push_back(it.key());
                if (m_sweep.empty())
                    break;
            }
            const QString name = std::move(m_sweep.front());
            m_sweep.pop_front();
            if (!m_locks.contains(name) || m_priority.contains(name))
                continue;
            markDirty(name);
            ++n;
        }
        const qint64 sweepS = (plan.sweepMs + 999) / 1000;
        setMode(Mode::Polling,
                QStringLiteral("%1 polling: %2 locks, all re-read every %3 s, visible ones every %4 s, ~%5 commands/s "
                               "(budget %6/s)")
                    .arg(m_pollWhy, compact(m_locks.size()))
                    .arg(sweepS)
                    .arg(qMax(1, m_pollIntervalMs / 1000))
                    .arg(compact(plan.commandsPerSecond))
                    .arg(m_pollBudget));
    } else if (m_mode == Mode::Live && m_pollTicks % kLiveRefreshEveryTicks == 0 &&
               m_locks.size() <= kLiveRefreshMaxLocks) {
        // Subscriber counts change without keyspace events: refresh them now and then.
        for (auto it = m_locks.cbegin(); it != m_locks.cend(); ++it)
            markDirty(it.key());
    }
}

void LockMonitor::onMessage(const QByteArray &channelBytes, const QByteArray &payload, const QByteArray &pattern)
{
    const QString channel = RedisBytes::toText(channelBytes);
    if (!m_keyspacePattern.isEmpty() && pattern == m_keyspacePattern) {
        m_sinceKeyspaceEvent.start();
        const int colon = channel.indexOf(QLatin1String("__:"));
        if (colon < 0)
            return;
        const QString key = channel.mid(colon + 3);
        const QString op = RedisBytes::toText(payload);
        if (key.startsWith(QLatin1String("redisson_unlock_latch:"))) {
            // SET ... PX gives `set` (flag $) and `expire` (flag g); the client's follow-up DEL is not a write.
            if (op == QLatin1String("set") || op == QLatin1String("expire")) {
                m_latchWritesSeen = true;
                if (!m_lastDeletedLock.isEmpty() &&
                    key.startsWith(LockNames::unlockLatchKey(m_lastDeletedLock, QString())))
                    m_removals.insert(m_lastDeletedLock, LockEvent::Removal::Unlock);
                m_lastDeletedLock.clear();
            }
            return;
        }
        m_lastDeletedLock.clear();
        QString name = LockNames::lockNameFromCompanionKey(key);
        if (name.isEmpty())
            name = LockNames::lockNameFromReadTimeoutKey(key); // a read hold's timeout key (§4.1)
        // A derived key of `x` is also one of `{x}` (§14.4): re-read both; the snapshot tells
        // whose it is (the other one then reads as no lock).
        QStringList names = LockNames::withTwin(name);
        if (name.isEmpty()) {
            if (LockNames::isTransientHelperKey(key))
                return; // unlock latches
            names = QStringList{key};
        }
        for (const QString &n : std::as_const(names)) {
            if (!m_patternRegex.match(RedisBytes::matchable(n)).hasMatch())
                continue;
            if (m_notLocks.contains(n)) {
                if (op != QLatin1String("del") && op != QLatin1String("expired"))
                    continue;
                m_notLocks.remove(n);
            }
            // Only hash, generic and expiry events concern locks; list/zset ops matter for fair companions.
            markDirty(n, op);
        }
        if (op == QLatin1String("del") && name.isEmpty() && m_locks.contains(key)) {
            m_lastDeletedLock = key; // a release if its latch write comes next
            m_removals.insert(key, m_replica           ? LockEvent::Removal::Replica
                                   : m_latchWritesSeen ? LockEvent::Removal::Forced
                                                       : LockEvent::Removal::NoLatchSeen);
        }
        return;
    }
    QString waiter;
    QString name = LockNames::lockNameFromUnlockChannel(channel, &waiter);
    if (name.isEmpty())
        name = LockNames::lockNameFromReadWriteChannel(channel);
    if (name.isEmpty())
        return;
    name = ownerOf(LockNames::withTwin(name)); // `x` or `{x}`: the channel is both's (§14.4)
    if (!m_patternRegex.match(RedisBytes::matchable(name)).hasMatch())
        return;
    if (m_ownsName && !m_ownsName(name))
        return; // cluster: PUBLISH reaches every node; the owner's monitor reports it
    // An unlock comes with keyspace events (the hash's del or hincrby) just before its message:
    // none for 2 s while live means the notifications may have been turned off (deaf while "live").
    if (m_mode == Mode::Live && (!m_sinceKeyspaceEvent.isValid() || m_sinceKeyspaceEvent.elapsed() > 2000))
        suspectNotifications();
    // Short holds: an unlock message "0" on a lock's own channel is one release of the whole lock
    // (RLock/fenced unlock, forceUnlock); a read must account for each (accountRemovals).
    if (waiter.isEmpty() && payload == "0" && channel.startsWith(QLatin1String("redisson_lock__channel:"))) {
        if (++m_removalBalance[name] == 0)
            m_removalBalance.remove(name);
        if (m_removalBalance.size() > kNotLockCacheMax)
            m_removalBalance.clear(); // a flood of messages for locks never read: start over
    }
    LockEvent e;
    e.timeMs = QDateTime::currentMSecsSinceEpoch();
    e.lock = name;
    e.type = QStringLiteral("unlock_message");
    e.holder = waiter;
    if (!waiter.isEmpty())
        e.detail = QStringLiteral("message %1 to head waiter %2").arg(RedisBytes::toText(payload), waiter);
    else if (payload == "1")
        e.detail = QStringLiteral("message 1 on %1: every waiting thread wakes up").arg(channel);
    else
        e.detail = QStringLiteral("message %1 on %2: one waiting thread per client wakes up")
                       .arg(RedisBytes::toText(payload), channel);
    // Held until the read this message causes: the release it announces is reported first
    // (the message came out before the `released` it follows).
    m_pendingMessages[name] << e;
    if (!m_messageTimer.isActive())
        m_messageTimer.start(kMessageHoldMs);
    for (const QString &n : LockNames::withTwin(name))
        markDirty(n);
}

void LockMonitor::insertPendingMessages(const QString &name, int first, QVector<LockEvent> *events)
{
    const auto pending = m_pendingMessages.find(name);
    if (pending == m_pendingMessages.end())
        return;
    // After the holders this read found gone, before whoever acquired since (causal order).
    int at = first;
    while (at < events->size() && LockEvent::causalRank(events->at(at).type) == 0)
        ++at;
    for (const LockEvent &m : std::as_const(*pending))
        events->insert(at++, m);
    m_pendingMessages.erase(pending);
}

void LockMonitor::flushPendingMessages()
{
    if (m_pendingMessages.isEmpty())
        return;
    QVector<LockEvent> events;
    for (const auto &list : std::as_const(m_pendingMessages))
        events += list;
    m_pendingMessages.clear();
    std::stable_sort(events.begin(), events.end(),
                     [](const LockEvent &a, const LockEvent &b) { return a.timeMs < b.timeMs; });
    emit eventsOccurred(events);
}

QString LockMonitor::ownerOf(const QStringList &candidates) const
{
    // The lock whose hash exists, as last read; else the one listed; else the plain name.
    for (const QString &n : candidates) {
        const auto it = m_locks.constFind(n);
        if (it != m_locks.cend() && it.value().exists)
            return n;
    }
    for (const QString &n : candidates)
        if (m_locks.contains(n))
            return n;
    return candidates.value(0);
}

} // namespace lockscope
