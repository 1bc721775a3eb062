#include "workshop/workshopstephtml.h"

#include "scenario/stageleasewatch.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace lockscope
{

namespace
{

QString jsonText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble());
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isNull() || v.isUndefined())
        return QStringLiteral("—");
    return QString::fromUtf8(QJsonDocument(v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject()))
                                 .toJson(QJsonDocument::Compact));
}
} // namespace

QString WorkshopStepHtml::html(const StepReport &r, const QHash<QString, QString> &names, bool projector,
                               qreal narrationPt, bool dark)
{
    const bool darkBackground = projector || dark;
    const QString size = narrationPt > 0 ? QStringLiteral("font-size:%1pt").arg(narrationPt, 0, 'f', 1)
                                         : QStringLiteral("font-size:large");
    auto t = [&names](const QString &s) { return StepReport::withActorNames(s, names).toHtmlEscaped(); };
    const QString changed = darkBackground ? QStringLiteral("#5a4a00") : QStringLiteral("#fff3b0");
    const QString added = darkBackground ? QStringLiteral("#004a20") : QStringLiteral("#d8f5d0");
    const QString removed = darkBackground ? QStringLiteral("#5a1010") : QStringLiteral("#f8d0d0");
    const QString code = darkBackground ? QStringLiteral("#1e1e1e") : QStringLiteral("#f4f4f4");
    const QString red =
        darkBackground ? QStringLiteral("#ff7b6b") : QStringLiteral("#c0392b"); // >= 4.5:1 on its background
    QString h;
    const QString who = r.actor.isEmpty() ? tr("time passes")
                                          : tr("<b>%1</b> <span style='color:gray'>(client %2, thread %3)</span>")
                                                .arg(r.actor.toHtmlEscaped(), r.clientId.left(8) + QStringLiteral("…"))
                                                .arg(r.threadId);
    // Projector fonts are large already: a smaller heading leaves the room for the branch and keys.
    const QString heading = projector ? QStringLiteral("h3") : QStringLiteral("h2");
    h += tr("<%4>Step %1 · %2: <code>%3</code></%4>").arg(r.index + 1).arg(who, r.call.toHtmlEscaped(), heading);
    // What the step means (or what did not hold), and errors: the narration's size.
    QString told;
    if (!r.error.isEmpty())
        told += tr("<p style='color:%2; %3'><b>Error:</b> %1</p>").arg(r.error.toHtmlEscaped(), red, size);
    if (!r.narration.isEmpty() && r.ok) {
        told += QStringLiteral("<p style='%2'>%1</p>").arg(r.narration.toHtmlEscaped(), size);
    } else if (!r.narration.isEmpty()) {
        // The scenario's text tells the branch it expected, not the one that ran: say so.
        told += tr("<p style='color:gray'><b>Expected:</b> <s>%1</s></p>").arg(r.narration.toHtmlEscaped());
        told += tr("<p style='color:%2; %3'><b>Did not hold:</b> %1</p>")
                    .arg(t(r.failedChecks().join(QStringLiteral("; "))), red, size);
    }
    if (projector)
        h += told;
    if (!r.branch.isEmpty())
        h += tr("<p><b>Script branch</b></p><p style='background:%1; font-family:monospace'>%2</p>")
                 .arg(code, t(r.branch));
    h += tr("<p><b>Result:</b> %1%2</p>")
             .arg(r.result.toHtmlEscaped(),
                  r.reply.isEmpty() ? QString()
                                    : tr(" &nbsp;<span style='color:gray'>(Redis answered %1)</span>").arg(t(r.reply)));
    if (!r.messageChannel.isEmpty())
        h += tr("<p><b>Message:</b> <code>PUBLISH %1 %2</code> → woke %3</p>")
                 .arg(t(r.messageChannel), r.messagePayload.toHtmlEscaped(),
                      r.woke.isEmpty() ? tr("<i>nobody</i>") : r.woke.join(QStringLiteral(", ")).toHtmlEscaped());
    else if (!r.woke.isEmpty())
        h += tr("<p><b>Woke:</b> %1</p>").arg(r.woke.join(QStringLiteral(", ")).toHtmlEscaped());
    for (const QString &f : r.findings)
        h += tr("<p><b>Doctor:</b> %1</p>").arg(t(f));
    // LockScope's lease-safety verdicts on the step (the dashboard's and `watch`'s): the alarms only,
    // the plain acquired/released events are in the keys below.
    for (const LockEvent &e : r.events)
        if (StageLeaseWatch::safetyTypes().contains(e.type))
            h += tr("<p style='color:%3'><b>LockScope: %1</b> %2</p>").arg(e.type.toHtmlEscaped(), t(e.detail), red);
    if (!projector)
        h += told;

    // Keys before and after, side by side; changed rows highlighted.
    QStringList keys = r.before.keys();
    for (const QString &k : r.after.keys())
        if (!keys.contains(k))
            keys << k;
    std::sort(keys.begin(), keys.end());
    h += tr("<p><b>Redis keys</b></p><table border='1' cellspacing='0' cellpadding='4' width='100%'>"
            "<tr><th>key</th><th>before</th><th>after</th></tr>");
    if (keys.isEmpty())
        h += tr("<tr><td colspan='3'><i>no keys</i></td></tr>");
    for (const QString &k : keys) {
        const bool inBefore = r.before.contains(k);
        const bool inAfter = r.after.contains(k);
        const QString before = inBefore ? t(StepReport::keyText(r.before.value(k))) : tr("<i>absent</i>");
        const QString after = inAfter ? t(StepReport::keyText(r.after.value(k))) : tr("<i>absent</i>");
        QString bg;
        if (!inBefore && inAfter)
            bg = added;
        else if (inBefore && !inAfter)
            bg = removed;
        else if (!(r.before.value(k) == r.after.value(k)))
            bg = changed;
        else {
            // Same content: highlight a TTL that was set, removed or pushed back, not one that
            // merely counted down while the step ran.
            const qint64 b = r.before.value(k).pttlMs;
            const qint64 a = r.after.value(k).pttlMs;
            if ((b < 0) != (a < 0) || a > b + 50)
                bg = changed;
        }
        h += QStringLiteral("<tr%1><td><code>%2</code></td><td><code>%3</code></td><td><code>%4</code></td></tr>")
                 .arg(bg.isEmpty() ? QString() : QStringLiteral(" style='background:%1'").arg(bg), t(k), before, after);
    }
    h += QStringLiteral("</table>");
    if (!r.checks.isEmpty()) {
        h += tr("<p><b>Expectations</b></p><ul>");
        for (const auto &c : r.checks)
            h += QStringLiteral("<li>%1 %2: expected %3, saw %4</li>")
                     .arg(c.held ? QStringLiteral("✓") : QStringLiteral("<span style='color:%1'>✗</span>").arg(red),
                          c.name.toHtmlEscaped(), t(jsonText(c.expected)), t(jsonText(c.actual)));
        h += QStringLiteral("</ul>");
    }
    return h;
}

} // namespace lockscope
