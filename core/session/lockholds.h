#pragma once

#include "protocol/acquireplan.h"
#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <functional>

namespace lockscope
{

class LockClient;
class LockVariant;

/**
 * LockScope's own holds, for LockSession (split out of it by concern): acquire, renew
 * and release with the LockVariant of the lock's kind (protocol §14.1; made by
 * LockVariantFactory, one per lock client and kind), the kind each hold was taken with (so a
 * renewal or release uses the same one), and the watchdog reports of LockScope's lock clients.
 *
 * It writes nothing by itself: every action goes through the session's one audited write path
 * (`write`: read-only and audit checks, re-read, perform, audit record, actionFinished), and the
 * lock client of a name comes from the session (`clientFor`: the master serving it in a
 * cluster). Its signals are forwarded by the session as its own. See LockSession::acquire(),
 * renew() and release() for the rules.
 */
class LockHolds : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(const QString &outcome, const QString &message)>;
    using Perform = std::function<void(const LockSnapshot &before, Done done)>;
    using WritePath =
        std::function<void(const QString &action, const QString &name, const QJsonObject &args, Perform perform)>;
    using ClientLookup = std::function<LockClient *(const QString &name)>;

    LockHolds(const QString &clientId, ClientLookup clientFor, WritePath write, QObject *parent = nullptr);
    ~LockHolds() override;

    void acquire(const QString &name, qint64 threadId, qint64 leaseMs, qint64 waitMs, AcquireKind kind);
    void renew(const QString &name, qint64 threadId);
    void release(const QString &name, qint64 threadId);
    /**
     * A write of unknown outcome (its reply never came) was re-read after reconnecting: when it was
     * an acquire and `after` shows a hold of LockScope's that it did not know it had (a ghost: the
     * server ran the script after the connection was lost), reports it as acquired() and releases
     * it through the audited write path (on the next event-loop turn, after the acquire's own
     * outcome). Returns a sentence for the acquire's record, empty when nothing was found.
     */
    QString settleUnknown(const QString &action, const QString &name, const QJsonObject &args,
                          const LockSnapshot &after);
    /** Reports the watchdog failures and recoveries of one of LockScope's lock clients. */
    void watch(LockClient *client);

signals:
    /** See LockSession::acquired(). */
    void acquired(const QString &lock, const QString &field, const QString &kind, qint64 token);
    /** See LockSession::holdAtRisk() and holdRecovered(). */
    void holdAtRisk(const QString &lock, const QString &error, qint64 lastRenewedEpochMs);
    void holdRecovered(const QString &lock);
    /** `renewal_failed` / `renewal_recovered` events. */
    void eventsOccurred(const QVector<lockscope::LockEvent> &events);
    void errorOccurred(const QString &message);

private:
    /** The variant of `kind` on clientFor(name), made on first use (a child of that client);
     *  Auto gives the RLock's. */
    LockVariant *variantFor(const QString &name, AcquireKind kind);
    /** Which unlock/renewal fits LockScope's own hold of `threadId` on `before.name` (see
     *  release()): a read-write half by the holder field it writes (LockKindDescriptor), else the
     *  kind the hold was taken with, whichever registered kind that is, else what the data says. */
    AcquireKind ownHoldKind(const LockSnapshot &before, qint64 threadId) const;
    /** One audited write (`action`: "renew", "release") on LockScope's own hold of `threadId` on
     *  `name`: re-reads the lock, finishes "error" ("`verb` of NAME not attempted") when it cannot
     *  be re-read, else calls `perform` with ownHoldKind(). */
    void writeOwnHold(const QString &action, const QString &verb, const QString &name, qint64 threadId,
                      std::function<void(AcquireKind kind, Done done)> perform);

    QString m_clientId;
    ClientLookup m_clientFor;
    WritePath m_write;
    /** The variants made so far, by the LockClient they use and their AcquireKind. */
    QHash<LockClient *, QHash<int, LockVariant *>> m_variants;
    /** "name\nthreadId" -> the kind LockScope took its hold with (until fully released). */
    QHash<QString, AcquireKind> m_heldKinds;
};

} // namespace lockscope
