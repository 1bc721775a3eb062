#include "stepexpectations.h"

#include "stageleasewatch.h"
#include "workshopcast.h"

#include "protocol/locknames.h"

#include <QJsonArray>

#include <algorithm>

namespace lockscope
{

void StepExpectations::check(const Scenario::Step &step, const StepOutcome &o, const WorkshopCast &cast,
                             StepReport *report)
{
    const QString name = step.lock;
    const QJsonObject after = StepReport::holdersOf(report->after, name);
    const WorkshopActor *a = cast.actor(step.actor);
    const QString field = a ? a->holderField() : QString();
    const WorkshopAction *action = WorkshopActions::find(step.action);
    const QString suffix = action ? action->holderSuffix : QString();
    bool ok = o.error.isEmpty();
    for (auto it = step.expect.begin(); it != step.expect.end(); ++it) {
        StepReport::Check c;
        c.name = it.key();
        c.expected = it.value();
        if (c.name == QLatin1String("result")) {
            c.actual = o.result;
        } else if (c.name == QLatin1String("holder")) {
            QStringList holders;
            for (auto h = after.begin(); h != after.end(); ++h) {
                const QString n = cast.actorOfField(h.key());
                if (!holders.contains(n))
                    holders.append(n);
            }
            holders.sort();
            c.actual = holders.isEmpty() ? QStringLiteral("none") : holders.join(QLatin1Char(','));
            c.held = it.value().toString() == QLatin1String("none") ? holders.isEmpty()
                                                                    : holders.contains(it.value().toString());
        } else if (c.name == QLatin1String("holdCount")) {
            c.actual = after.value(field + suffix).toDouble();
        } else if (c.name == QLatin1String("queue")) {
            QJsonArray q;
            for (const QString &w : StepReport::listOf(report->after, LockNames::fairQueueKey(name)))
                q.append(cast.actorOfField(w));
            c.actual = q;
        } else if (c.name == QLatin1String("token")) {
            c.actual = double(o.token);
        } else if (c.name == QLatin1String("tokenGreaterThan")) {
            const WorkshopActor *other = cast.actor(it.value().toString());
            const qint64 mine = a ? a->lastToken : -1;
            c.actual = QStringLiteral("%1 > %2").arg(mine).arg(other ? other->lastToken : -1);
            c.held = other && mine > other->lastToken && other->lastToken >= 0;
        } else if (c.name == QLatin1String("pttlAtLeastMs")) {
            c.actual = double(StepReport::pttlOf(report->after, name));
            c.held = StepReport::pttlOf(report->after, name) >= it.value().toInteger();
        } else if (c.name == QLatin1String("pttlAtMostMs")) {
            c.actual = double(StepReport::pttlOf(report->after, name));
            c.held = StepReport::pttlOf(report->after, name) <= it.value().toInteger();
        } else if (c.name == QLatin1String("woke")) {
            c.actual = QJsonArray::fromStringList(report->woke);
            QStringList want;
            for (const QJsonValue &v : it.value().toArray())
                want.append(v.toString());
            want.sort();
            c.held = want == report->woke;
        } else if (c.name == QLatin1String("mode")) {
            c.actual = StepReport::hashOf(report->after, name).value(QStringLiteral("mode")).toString();
        } else if (c.name == QLatin1String("deadlock")) {
            c.actual = o.deadlock;
        } else if (c.name == QLatin1String("exists")) {
            c.actual = report->after.contains(name);
        } else if (c.name == QLatin1String("granted")) {
            c.actual = double(o.granted);
        } else if (c.name == QLatin1String("events")) {
            // Every type listed was derived, and no lease-safety verdict came that was not listed
            // (so `[]` also says LockScope raised no false alarm).
            const QStringList seen = report->eventTypes();
            c.actual = QJsonArray::fromStringList(seen);
            QStringList want;
            for (const QJsonValue &v : it.value().toArray())
                want << v.toString();
            c.held = std::all_of(want.cbegin(), want.cend(), [&seen](const QString &t) { return seen.contains(t); }) &&
                     std::none_of(seen.cbegin(), seen.cend(), [&want](const QString &t) {
                         return StageLeaseWatch::safetyTypes().contains(t) && !want.contains(t);
                     });
        }
        static const QStringList custom{QStringLiteral("holder"),        QStringLiteral("tokenGreaterThan"),
                                        QStringLiteral("pttlAtLeastMs"), QStringLiteral("pttlAtMostMs"),
                                        QStringLiteral("woke"),          QStringLiteral("events")};
        if (!custom.contains(c.name))
            c.held = c.actual == c.expected;
        ok = ok && c.held;
        report->checks.append(c);
    }
    report->ok = ok;
}

} // namespace lockscope
