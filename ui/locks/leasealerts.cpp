#include "locks/leasealerts.h"

#include "common/holderpalette.h"

#include "diagnose/leasetracker.h"
#include "text/displaytext.h"
#include "text/durationtext.h"

#include <QCoreApplication>
#include <QDateTime>

#include <algorithm>

namespace lockscope
{

namespace
{
QString tr(const char *text)
{
    return QCoreApplication::translate("lockscope::LeaseAlerts", text);
}

QString clockText(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(QStringLiteral("HH:mm:ss"));
}

QString who(const QString &field, const ActorNames &names)
{
    return names.label(field, DisplayText::escaped(field));
}

qint64 keepMs(const LeaseAlerts::Alert &a)
{
    return a.critical() ? LeaseTracker::kKeepMs : LeaseTracker::kLateKeepMs;
}

qint64 integer(const LockEvent &e, const char *key, qint64 fallback = 0)
{
    return e.extra.value(QLatin1String(key)).toInteger(fallback);
}

QString text(const LockEvent &e, const char *key)
{
    return e.extra.value(QLatin1String(key)).toString();
}
} // namespace

bool LeaseAlerts::isLeaseEvent(const QString &type)
{
    return type == QLatin1String("lease_lost") || type == QLatin1String("holder_returned") ||
           type == QLatin1String("lost_in_failover") || type == QLatin1String("token_regressed") ||
           type == QLatin1String("renewal_late");
}

QStringList LeaseAlerts::apply(const QVector<LockEvent> &events)
{
    QStringList changed;
    auto touched = [&changed](const QString &lock) {
        if (!changed.contains(lock))
            changed << lock;
    };
    for (const LockEvent &e : events) {
        if (e.lock.isEmpty())
            continue;
        if (e.type == QLatin1String("acquired")) {
            // The next holder of a lost lock: from now on both may run the critical section.
            auto it = m_alerts.find(e.lock);
            if (it == m_alerts.end())
                continue;
            const QString after = text(e, "after_lease_lost");
            for (Alert &a : *it) {
                const bool lost = a.kind == Alert::Kind::LeaseLost && !a.returned && a.oldHolder == after;
                const bool failedOver = a.kind == Alert::Kind::LostInFailover && a.oldHolder != e.holder;
                if ((lost || failedOver) && a.nextHolder.isEmpty() && e.timeMs >= a.atMs) {
                    a.nextHolder = e.holder;
                    a.nextFromMs = e.timeMs;
                    touched(e.lock);
                }
            }
            continue;
        }
        if (!isLeaseEvent(e.type))
            continue;
        QVector<Alert> &list = m_alerts[e.lock];
        if (e.type == QLatin1String("holder_returned")) {
            auto it = std::find_if(list.rbegin(), list.rend(), [&e](const Alert &a) {
                return a.kind == Alert::Kind::LeaseLost && a.oldHolder == e.holder;
            });
            if (it == list.rend()) { // its lease_lost is older than what we saw (a replay seeked past it)
                Alert a;
                a.kind = Alert::Kind::LeaseLost;
                a.lock = e.lock;
                a.oldHolder = e.holder;
                a.atMs = integer(e, "lost_at_ms", e.timeMs);
                list << a;
                it = list.rbegin();
            }
            it->returned = true;
            it->returnedAtMs = e.timeMs;
            it->returnedOn = text(e, "returned_on");
            it->returnedBy = text(e, "returned_by");
            if (!text(e, "next_holder").isEmpty()) {
                it->nextHolder = text(e, "next_holder");
                it->nextFromMs = integer(e, "overlap_from_ms", it->nextFromMs);
            }
            it->overlapFromMs = integer(e, "overlap_from_ms", it->atMs);
            it->overlapToMs = integer(e, "overlap_to_ms", e.timeMs);
            touched(e.lock);
            continue;
        }
        Alert a;
        a.lock = e.lock;
        a.oldHolder = e.holder;
        a.atMs = e.timeMs;
        if (e.type == QLatin1String("lease_lost")) {
            a.kind = Alert::Kind::LeaseLost;
            a.lastRenewedMs = integer(e, "last_renewed_ms");
            a.silentMs = integer(e, "silent_ms", -1);
            a.leaseMs = integer(e, "lease_ms");
            a.renewals = integer(e, "renewals");
            a.nextHolder = text(e, "next_holder");
            a.nextFromMs = a.nextHolder.isEmpty() ? 0 : integer(e, "overlap_from_ms", e.timeMs);
        } else if (e.type == QLatin1String("lost_in_failover")) {
            a.kind = Alert::Kind::LostInFailover;
            a.failover = text(e, "failover");
            a.nextHolder = text(e, "next_holder");
            a.nextFromMs = a.nextHolder.isEmpty() ? 0 : e.timeMs;
        } else if (e.type == QLatin1String("token_regressed")) {
            a.kind = Alert::Kind::TokenRegressed;
            a.tokenBefore = integer(e, "token_before");
            a.tokenAfter = integer(e, "token_after");
        } else {
            a.kind = Alert::Kind::RenewalLate;
            a.leaseMs = integer(e, "lease_ms");
            a.marginMs = integer(e, "margin_ms", -1);
            a.expectedIntervalMs = integer(e, "expected_interval_ms");
            a.actualIntervalMs = integer(e, "actual_interval_ms");
            // Only the latest late renewal of a lock matters for its badge.
            list.erase(std::remove_if(list.begin(), list.end(),
                                      [](const Alert &x) { return x.kind == Alert::Kind::RenewalLate; }),
                       list.end());
        }
        list << a;
        touched(e.lock);
    }
    return changed;
}

void LeaseAlerts::prune(qint64 nowMs)
{
    for (auto it = m_alerts.begin(); it != m_alerts.end();) {
        it->erase(std::remove_if(it->begin(), it->end(),
                                 [nowMs](const Alert &a) { return nowMs - a.atMs > keepMs(a) + 60000; }),
                  it->end());
        it = it->isEmpty() ? m_alerts.erase(it) : std::next(it);
    }
}

const LeaseAlerts::Alert *LeaseAlerts::current(const QString &lock, qint64 nowMs,
                                               const QStringList &currentHolders) const
{
    const auto it = m_alerts.constFind(lock);
    if (it == m_alerts.cend())
        return nullptr;
    const Alert *late = nullptr;
    for (auto a = it->crbegin(); a != it->crend(); ++a) {
        // A replay seeked back: an alert from after "now" is not shown yet.
        if (nowMs < a->atMs || nowMs - a->atMs > keepMs(*a))
            continue;
        if (a->critical())
            return &*a;
        if (!late && currentHolders.contains(a->oldHolder))
            late = &*a;
    }
    return late;
}

QString LeaseAlerts::badgeText(const Alert &a)
{
    switch (a.kind) {
    case Alert::Kind::LeaseLost:
        return a.returned ? tr("lease lost · holder back") : tr("lease lost");
    case Alert::Kind::LostInFailover:
        return tr("lost in failover");
    case Alert::Kind::TokenRegressed:
        return tr("token went down");
    case Alert::Kind::RenewalLate:
        return tr("late renewal");
    }
    return {};
}

QColor LeaseAlerts::badgeColor(const Alert &a)
{
    // White on these keeps a contrast of at least 4.5:1, on a light or a dark row alike.
    return a.critical() ? QColor(0xc0, 0x39, 0x2b) : QColor(0xa8, 0x4c, 0x00);
}

QString LeaseAlerts::tooltip(const Alert &a, const ActorNames &names)
{
    QStringList lines;
    switch (a.kind) {
    case Alert::Kind::LeaseLost: {
        QString line = tr("Lease lost at %1: %2 stopped renewing").arg(clockText(a.atMs), who(a.oldHolder, names));
        if (a.lastRenewedMs > 0)
            line += tr(" (last renewal %1").arg(clockText(a.lastRenewedMs)) +
                    (a.silentMs >= 0 ? tr(", silent for %1)").arg(DurationText::duration(a.silentMs))
                                     : QStringLiteral(")"));
        lines << line + QLatin1Char('.');
        lines << tr("Its client is stalled (GC pause, frozen host, network) or dead. If stalled, it may still be "
                    "running its critical section without the lock.");
        if (!a.nextHolder.isEmpty())
            lines << tr("Next holder: %1, since %2.").arg(who(a.nextHolder, names), clockText(a.nextFromMs));
        else
            lines << tr("Nobody has taken it since.");
        if (a.returned && !a.nextHolder.isEmpty())
            lines << tr("The old holder came back at %1 (%2 on %3): it was stalled, not dead. Both may have run "
                        "the critical section between %4 and %5.")
                         .arg(clockText(a.returnedAtMs), a.returnedBy, DisplayText::escaped(a.returnedOn),
                              clockText(a.overlapFromMs), clockText(a.overlapToMs));
        else if (a.returned)
            lines << tr("The old holder came back at %1 (%2 on %3): it was stalled, not dead, and may have gone on "
                        "with its critical section without the lock.")
                         .arg(clockText(a.returnedAtMs), a.returnedBy, DisplayText::escaped(a.returnedOn));
        break;
    }
    case Alert::Kind::LostInFailover:
        lines << tr("Lost in a failover at %1: %2 held it on the old master, and the new master does not have it "
                    "(no release was seen): replication had not carried it.")
                     .arg(clockText(a.atMs), who(a.oldHolder, names));
        if (!a.failover.isEmpty())
            lines << tr("Failover: %1.").arg(a.failover);
        lines << tr("%1 may still believe it holds the lock.").arg(who(a.oldHolder, names));
        if (!a.nextHolder.isEmpty())
            lines << tr("Next holder: %1, since %2.").arg(who(a.nextHolder, names), clockText(a.nextFromMs));
        lines << tr("RedLock, WAIT after acquiring, or a fenced lock guard against this.");
        break;
    case Alert::Kind::TokenRegressed:
        lines << tr("The fencing token went down at %1, from %2 to %3: its key lost writes (a failover, a restore "
                    "or a write by hand). A resource that checks tokens may accept a stale holder.")
                     .arg(clockText(a.atMs))
                     .arg(a.tokenBefore)
                     .arg(a.tokenAfter);
        break;
    case Alert::Kind::RenewalLate:
        lines << tr("Late renewal at %1 by %2: it came %3 after the previous one, where the watchdog renews every "
                    "%4 (lease/3), with only %5 of the %6 lease left.")
                     .arg(clockText(a.atMs), who(a.oldHolder, names), DurationText::duration(a.actualIntervalMs),
                          DurationText::duration(a.expectedIntervalMs), DurationText::ttl(a.marginMs),
                          DurationText::duration(a.leaseMs));
        lines << tr("The holder's process is struggling (GC pauses, CPU starvation, slow link to Redis): a "
                    "little more and the lease runs out while it still works.");
        break;
    }
    return lines.join(QLatin1Char('\n'));
}

QString LeaseAlerts::detailHtml(const Alert &a, const ActorNames &names)
{
    // Short holder labels ("b983c153…:1", as the timeline's): the paragraph fits a narrow panel;
    // the full fields are in the table's tooltip, the event log and the holders table.
    const auto b = [&names](const QString &field) {
        return QStringLiteral("<b>%1</b>")
            .arg(names.label(field, DisplayText::escaped(HolderPalette::shortLabel(field))).toHtmlEscaped());
    };
    QString html;
    switch (a.kind) {
    case Alert::Kind::LeaseLost:
        html = tr("<b>⚠ Lease lost</b> at %1: %2 stopped renewing").arg(clockText(a.atMs), b(a.oldHolder));
        if (a.lastRenewedMs > 0)
            html +=
                tr(" (last renewal %1").arg(clockText(a.lastRenewedMs)) +
                (a.silentMs >= 0 ? tr(", silent %1)").arg(DurationText::duration(a.silentMs)) : QStringLiteral(")"));
        html += QStringLiteral(". ");
        if (!a.returned)
            html += tr("It may be stalled, not dead: <b>the old holder may still be running its critical "
                       "section</b> without the lock.");
        if (!a.nextHolder.isEmpty())
            html += QLatin1Char(' ') + tr("Next holder: %1, since %2.").arg(b(a.nextHolder), clockText(a.nextFromMs));
        if (a.returned && !a.nextHolder.isEmpty())
            html += QLatin1Char(' ') +
                    tr("The old holder <b>came back</b> at %1 (%2 on %3): it was stalled, not dead. <b>Both may "
                       "have run the critical section between %4 and %5</b> (%6).")
                        .arg(clockText(a.returnedAtMs), a.returnedBy.toHtmlEscaped(),
                             DisplayText::escaped(a.returnedOn).toHtmlEscaped(), clockText(a.overlapFromMs),
                             clockText(a.overlapToMs),
                             DurationText::duration(qMax<qint64>(0, a.overlapToMs - a.overlapFromMs)));
        else if (a.returned)
            html += QLatin1Char(' ') +
                    tr("The old holder <b>came back</b> at %1 (%2 on %3): it was stalled, not dead, and <b>may have "
                       "gone on with its critical section without the lock</b>.")
                        .arg(clockText(a.returnedAtMs), a.returnedBy.toHtmlEscaped(),
                             DisplayText::escaped(a.returnedOn).toHtmlEscaped());
        break;
    case Alert::Kind::LostInFailover:
        html = tr("<b>⚠ Lost in a failover</b> at %1: %2 held it on the old master; the new master does not have "
                  "it and no release was seen. <b>%2 may still be running its critical section</b>, believing it "
                  "holds the lock.")
                   .arg(clockText(a.atMs), b(a.oldHolder));
        if (!a.nextHolder.isEmpty())
            html += QLatin1Char(' ') + tr("Next holder: %1, since %2.").arg(b(a.nextHolder), clockText(a.nextFromMs));
        html += QLatin1Char(' ') + tr("RedLock, WAIT after acquiring, or a fenced lock guard against this.");
        break;
    case Alert::Kind::TokenRegressed:
        html = tr("<b>⚠ Fencing token went down</b> at %1, from %2 to %3: a resource that checks tokens may "
                  "accept a stale holder.")
                   .arg(clockText(a.atMs))
                   .arg(a.tokenBefore)
                   .arg(a.tokenAfter);
        break;
    case Alert::Kind::RenewalLate:
        html = tr("<b>Late renewal</b> at %1 by %2: %3 after the previous one (every %4 expected), only %5 of the "
                  "%6 lease left.")
                   .arg(clockText(a.atMs), b(a.oldHolder), DurationText::duration(a.actualIntervalMs),
                        DurationText::duration(a.expectedIntervalMs), DurationText::ttl(a.marginMs),
                        DurationText::duration(a.leaseMs));
        break;
    }
    return html;
}

} // namespace lockscope
