#include "session/lockholds.h"

#include "lock/lockclient.h"
#include "lock/lockvariant.h"
#include "lock/lockvariantfactory.h"
#include "lock/lockwatchdog.h"
#include "protocol/lockkinds.h"

#include <QDateTime>
#include <QPointer>
#include <QTimer>

namespace lockscope
{

namespace
{
QString heldKey(const QString &name, qint64 threadId)
{
    return name + QLatin1Char('\n') + QString::number(threadId);
}
} // namespace

LockHolds::LockHolds(const QString &clientId, ClientLookup clientFor, WritePath write, QObject *parent)
    : QObject(parent), m_clientId(clientId), m_clientFor(std::move(clientFor)), m_write(std::move(write))
{
}

LockHolds::~LockHolds() = default;

void LockHolds::watch(LockClient *client)
{
    QPointer<LockClient> c(client);
    connect(
        client, &LockClient::watchdogRenewalFailed, this, [this, c](const QStringList &names, const QString &error) {
            if (!c)
                return;
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            const QHash<QString, LockWatchdog::Risk> risks = c->watchdog()->atRisk();
            QVector<LockEvent> events;
            for (const QString &name : names) {
                const qint64 lastRenewed = risks.value(name).lastRenewedEpochMs;
                LockEvent e;
                e.timeMs = now;
                e.lock = name;
                e.type = QStringLiteral("renewal_failed");
                e.holder = c->watchdog()->fieldOf(name);
                e.detail =
                    QStringLiteral("LockScope's watchdog could not renew its hold (%1): the hold is at risk and "
                                   "expires unless a renewal succeeds within the %2 ms lease (last renewed %3 ms ago)")
                        .arg(error)
                        .arg(c->watchdogTimeoutMs())
                        .arg(now - lastRenewed);
                e.extra = QJsonObject{{QStringLiteral("error"), error},
                                      {QStringLiteral("at_risk"), true},
                                      {QStringLiteral("last_renewed_ms"), lastRenewed},
                                      {QStringLiteral("lease_ms"), c->watchdogTimeoutMs()}};
                events << e;
                emit holdAtRisk(name, error, lastRenewed);
            }
            emit eventsOccurred(events);
            QString cause = error.trimmed();
            while (cause.endsWith(QLatin1Char('.')))
                cause.chop(1);
            emit errorOccurred(
                QStringLiteral("Watchdog renewal of %1 failed: %2. LockScope's hold is at risk: it expires "
                               "unless a renewal succeeds within %3 ms; retrying every %4 ms.")
                    .arg(names.join(QStringLiteral(", ")), cause)
                    .arg(c->watchdogTimeoutMs())
                    .arg(c->watchdogTimeoutMs() / 3));
        });
    connect(client, &LockClient::watchdogRecovered, this, [this, c](const QStringList &names) {
        QVector<LockEvent> events;
        for (const QString &name : names) {
            LockEvent e;
            e.timeMs = QDateTime::currentMSecsSinceEpoch();
            e.lock = name;
            e.type = QStringLiteral("renewal_recovered");
            e.holder = c ? c->watchdog()->fieldOf(name) : QString();
            e.detail = QStringLiteral("LockScope's watchdog renewed its hold again: no longer at risk");
            events << e;
            emit holdRecovered(name);
        }
        emit eventsOccurred(events);
    });
}

LockVariant *LockHolds::variantFor(const QString &name, AcquireKind kind)
{
    LockClient *c = m_clientFor(name);
    LockVariant *&v = m_variants[c][int(kind == AcquireKind::Auto ? AcquireKind::Lock : kind)];
    if (!v) {
        v = LockVariantFactory::create(kind, c, c);
        connect(v, &LockVariant::renewalStopped, this, [this](const QString &lock) {
            emit errorOccurred(
                QStringLiteral("Watchdog stopped renewing the read hold of %1: LockScope no longer holds it")
                    .arg(lock));
        });
        connect(v, &LockVariant::renewalFailed, this, [this](const QString &message) {
            emit errorOccurred(QStringLiteral("Read-lock renewal failed: %1").arg(message));
        });
    }
    return v;
}

AcquireKind LockHolds::ownHoldKind(const LockSnapshot &before, qint64 threadId) const
{
    if (before.exists && (before.rwMode == QLatin1String("read") || before.rwMode == QLatin1String("write"))) {
        // A read-write lock: the half whose holder field this thread holds (§4.1); the writer's
        // first (a writer may hold reads too, a downgrade), else the reader's.
        AcquireKind readHalf = AcquireKind::Read;
        for (const LockKindDescriptor &d : LockKinds::all()) {
            if (d.foundAs != LockKind::ReadWriteLock)
                continue;
            if (d.holderField == LockKindDescriptor::HolderField::ClientThreadWrite) {
                const QString writer = d.holderFieldOf(m_clientId, threadId);
                for (const auto &h : before.holders)
                    if (h.field == writer)
                        return d.kind;
            } else {
                readHalf = d.kind;
            }
        }
        return readHalf;
    }
    // The kind the hold was taken with (any registered kind but a read-write half, whose data is
    // gone), else what the data says.
    const AcquireKind known = m_heldKinds.value(heldKey(before.name, threadId), AcquireKind::Auto);
    const LockKindDescriptor *d = LockKinds::find(known);
    if (d && d->foundAs != LockKind::ReadWriteLock)
        return known;
    if (before.queueLength > 0 || before.timeoutSetSize > 0)
        return AcquireKind::Fair;
    return before.token >= 0 ? AcquireKind::Fenced : AcquireKind::Lock;
}

void LockHolds::acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, AcquireKind kind)
{
    const QJsonObject args{{QStringLiteral("thread_id"), threadId},
                           {QStringLiteral("lease_ms"), leaseMs},
                           {QStringLiteral("wait_ms"), waitMs},
                           {QStringLiteral("kind"), AcquirePlan::kindName(kind)}};
    m_write(
        QStringLiteral("acquire"), name, args,
        [this, name, threadId, leaseMs, waitMs, kind](const LockSnapshot &before, Done done) {
            if (before.name != name) {
                done(QStringLiteral("error"),
                     QStringLiteral("Acquire of %1 not attempted: it could not be re-read to tell its kind").arg(name));
                return;
            }
            AcquireKind requested = kind;
            // Re-entering a hold LockScope took itself: the same kind as the first acquire (a fair
            // lock with an empty queue reads as a plain one).
            const AcquireKind known = m_heldKinds.value(heldKey(name, threadId), AcquireKind::Auto);
            if (requested == AcquireKind::Auto && known != AcquireKind::Auto &&
                !AcquirePlan::decide(before, known).isRefused())
                requested = known;
            const AcquirePlan plan = AcquirePlan::decide(before, requested);
            if (plan.isRefused()) {
                done(QStringLiteral("refused"), QStringLiteral("Acquire refused: %1").arg(plan.refusal));
                return;
            }
            LockClient *client = m_clientFor(name);
            const AcquireKind taken = plan.kind;
            LockVariant *lock = variantFor(name, taken);
            const QString field = lock->holderField(threadId);
            auto call = [this, lock, name, threadId, leaseMs, waitMs](LockClient::AcquireCallback cb) {
                waitMs == 0 ? lock->tryAcquire(name, threadId, leaseMs, this, std::move(cb))
                            : lock->acquire(name, threadId, leaseMs, waitMs, this, std::move(cb));
            };
            const QString kindName = AcquirePlan::kindName(taken);
            call([this, name, threadId, field, taken, kindName, leaseMs, client, done](const AcquireResult &r) {
                if (!r.error.isEmpty()) {
                    done(QStringLiteral("error"),
                         QStringLiteral("Acquire of %1 (%2) failed: %3").arg(name, kindName, r.error));
                    return;
                }
                if (!r.acquired) {
                    const QString ttl = r.pttlMs == -1   ? QStringLiteral("no expiry")
                                        : r.pttlMs == -2 ? QStringLiteral("free, but another waiter is first in line")
                                                         : QStringLiteral("TTL %1 ms").arg(r.pttlMs);
                    done(
                        QStringLiteral("refused"),
                        QStringLiteral("%1 is held by someone else (%2): not acquired as %3").arg(name, ttl, kindName));
                    return;
                }
                m_heldKinds.insert(heldKey(name, threadId), taken);
                const QString lease =
                    leaseMs > 0 ? QStringLiteral("lease %1 ms").arg(leaseMs)
                                : QStringLiteral("watchdog renews every %1 ms").arg(client->watchdogTimeoutMs() / 3);
                // Only the fenced lock's acquire reports a token; every other kind leaves it at -1.
                const QString token = r.token >= 0 ? QStringLiteral(", fencing token %1").arg(r.token) : QString();
                emit acquired(name, field, kindName, r.token);
                done(QStringLiteral("done"),
                     QStringLiteral("Acquired %1 as %2 (%3 lock, %4%5)").arg(name, field, kindName, lease, token));
            });
        });
}

QString LockHolds::settleUnknown(const QString &action, const QString &name, const QJsonObject &args,
                                 const LockSnapshot &after)
{
    if (action != QLatin1String("acquire") || !after.exists)
        return QString();
    const qint64 threadId = args.value(QStringLiteral("thread_id")).toInteger();
    if (m_heldKinds.contains(heldKey(name, threadId)))
        return QString(); // a hold LockScope knows (a re-entry): released as usual
    const QString base = QStringLiteral("%1:%2").arg(m_clientId).arg(threadId);
    QString field;
    for (const LockHolder &h : after.holders)
        if (h.field == base || h.field.startsWith(base + QLatin1Char(':')))
            field = h.field;
    if (field.isEmpty())
        return QString();
    const AcquireKind kind = ownHoldKind(after, threadId);
    emit acquired(name, field, AcquirePlan::kindName(kind), kind == AcquireKind::Fenced ? after.token : -1);
    QTimer::singleShot(0, this, [this, name, threadId] { release(name, threadId); });
    return QStringLiteral("LockScope holds it after all (%1) but did not know it had: releasing that hold.").arg(field);
}

void LockHolds::writeOwnHold(const QString &action, const QString &verb, const QString &name, qint64 threadId,
                             std::function<void(AcquireKind kind, Done done)> perform)
{
    m_write(
        action, name, {{QStringLiteral("thread_id"), threadId}},
        [this, verb, name, threadId, perform](const LockSnapshot &before, Done done) {
            if (before.name != name) {
                done(
                    QStringLiteral("error"),
                    QStringLiteral("%1 of %2 not attempted: it could not be re-read to tell its kind").arg(verb, name));
                return;
            }
            perform(ownHoldKind(before, threadId), done);
        });
}

void LockHolds::renew(const QString &name, qint64 threadId)
{
    writeOwnHold(
        QStringLiteral("renew"), QStringLiteral("Renew"), name, threadId,
        [this, name, threadId](AcquireKind kind, Done done) {
            auto result = [this, name, done](bool ok, const QString &error) {
                if (!error.isEmpty())
                    done(QStringLiteral("error"), QStringLiteral("Renew of %1 failed: %2").arg(name, error));
                else if (ok)
                    done(QStringLiteral("done"),
                         QStringLiteral("Renewed %1 to %2 ms").arg(name).arg(m_clientFor(name)->watchdogTimeoutMs()));
                else
                    done(QStringLiteral("refused"),
                         QStringLiteral("%1 is not held by LockScope: nothing renewed").arg(name));
            };
            variantFor(name, kind)->renew(name, threadId, 0, this, result);
        });
}

void LockHolds::release(const QString &name, qint64 threadId)
{
    writeOwnHold(
        QStringLiteral("release"), QStringLiteral("Release"), name, threadId,
        [this, name, threadId](AcquireKind kind, Done done) {
            const QString kindName = AcquirePlan::kindName(kind);
            auto result = [this, name, threadId, kindName, done](const UnlockResult &r) {
                switch (r.status) {
                case UnlockResult::Status::Released:
                    m_heldKinds.remove(heldKey(name, threadId));
                    done(QStringLiteral("done"), QStringLiteral("Released %1 (%2 unlock)").arg(name, kindName));
                    break;
                case UnlockResult::Status::StillHeld:
                    done(QStringLiteral("done"),
                         QStringLiteral("Released one hold of %1 (%2 unlock); still held").arg(name, kindName));
                    break;
                case UnlockResult::Status::NotHeld:
                    m_heldKinds.remove(heldKey(name, threadId));
                    done(QStringLiteral("refused"), QStringLiteral("Release of %1 refused: %2").arg(name, r.error));
                    break;
                case UnlockResult::Status::Error:
                    done(QStringLiteral("error"), QStringLiteral("Release of %1 failed: %2").arg(name, r.error));
                    break;
                }
            };
            variantFor(name, kind)->unlock(name, threadId, this, result);
        });
}

} // namespace lockscope
