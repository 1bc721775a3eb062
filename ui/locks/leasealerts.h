#pragma once

#include "common/actornames.h"

#include "protocol/lockevent.h"

#include <QColor>
#include <QHash>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * What the lease-safety events said about each lock, for the lock table's badge and tooltip and
 * the detail panel: a lease lost by a holder that stopped renewing (and whether it came back), a
 * lock lost in a failover, a fencing token that went down, a late watchdog renewal. Fed with the
 * session's (or a replay's) event batches, so it shows the same in both; no I/O. A value type.
 *
 * An alert shows for as long as the doctor keeps its finding (LeaseTracker::kKeepMs for the
 * losses, kLateKeepMs for a late renewal), counted on the clock of the events' times (epoch ms:
 * the wall clock live, the replay position in a replay). It is kept by lock name whether or not
 * the lock is still in the table: the lock usually comes back with the next holder.
 */
class LeaseAlerts
{
public:
    struct Alert {
        enum class Kind { LeaseLost, LostInFailover, TokenRegressed, RenewalLate };
        Kind kind = Kind::LeaseLost;
        QString lock;
        QString oldHolder;        ///< the holder that lost it (renewal_late: the late renewer)
        qint64 atMs = 0;          ///< epoch ms of the event
        qint64 lastRenewedMs = 0; ///< lease_lost: epoch ms of its last renewal
        qint64 silentMs = -1;     ///< lease_lost: how long its client had shown nothing
        qint64 leaseMs = 0;       ///< lease_lost, renewal_late: the lease the watchdog renews to
        qint64 renewals = 0;      ///< lease_lost: renewals seen before it stopped
        QString nextHolder;       ///< who took the lock after it was lost, empty = nobody yet
        qint64 nextFromMs = 0;    ///< when the next holder took it (start of the overlap risk)
        bool returned = false;    ///< lease_lost: the old holder's client was seen again
        qint64 returnedAtMs = 0;  ///< epoch ms it was seen again (end of the overlap window)
        QString returnedOn;       ///< the lock it was seen on
        QString returnedBy;       ///< the event type it was seen in (acquired, renewed, ...)
        qint64 overlapFromMs = 0; ///< holder_returned: both may have run between these two
        qint64 overlapToMs = 0;
        QString failover;       ///< lost_in_failover: which failover
        qint64 tokenBefore = 0; ///< token_regressed
        qint64 tokenAfter = 0;
        qint64 marginMs = -1; ///< renewal_late: TTL left when the renewal came
        qint64 expectedIntervalMs = 0;
        qint64 actualIntervalMs = 0;

        bool critical() const { return kind != Kind::RenewalLate; }
    };

    /** The event types this class reads, besides `acquired` (which names a next holder). */
    static bool isLeaseEvent(const QString &type);

    /** One batch, in order. Returns the locks whose alert changed. */
    QStringList apply(const QVector<LockEvent> &events);
    void clear() { m_alerts.clear(); }
    bool isEmpty() const { return m_alerts.isEmpty(); }
    bool contains(const QString &lock) const { return m_alerts.contains(lock); }
    /** Forgets alerts older than they are shown, as of `nowMs` (epoch). */
    void prune(qint64 nowMs);

    /**
     * The alert to show for `lock` at `nowMs` (epoch), nullptr for none: a loss (lease lost, lost
     * in failover, token down; the newest) before a late renewal, and a late renewal only while
     * its holder is among `currentHolders` (holder fields) and within kLateKeepMs.
     */
    const Alert *current(const QString &lock, qint64 nowMs, const QStringList &currentHolders) const;

    /** The badge's words: "lease lost", "lost in failover", "token went down", "late renewal". */
    static QString badgeText(const Alert &a);
    /** Badge fill (white text on it in both light and dark palettes): red for a loss, dark
     *  orange for a late renewal. */
    static QColor badgeColor(const Alert &a);
    /** The tooltip: who lost it, when, who holds it now, what it means (plain text, lines). */
    static QString tooltip(const Alert &a, const ActorNames &names = ActorNames());
    /** The detail panel's paragraph (rich text): as the tooltip, and that the old holder may still
     *  be running its critical section, with the overlap window once it came back. */
    static QString detailHtml(const Alert &a, const ActorNames &names = ActorNames());

private:
    QHash<QString, QVector<Alert>> m_alerts; ///< by lock, oldest first
};

} // namespace lockscope
