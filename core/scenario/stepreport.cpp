#include "stepreport.h"

#include "redis/redisreply.h"

#include <QJsonArray>

namespace lockscope
{

namespace
{

QString argumentText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(qint64(v.toDouble()));
    return QString();
}

QString keyText(const StepReport::Key &k)
{
    QStringList parts;
    if (k.value.isObject()) {
        const QJsonObject o = k.value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            parts.append(it.key() + QLatin1Char('=') + argumentText(it.value()));
    } else if (k.value.isArray()) {
        for (const QJsonValue &v : k.value.toArray())
            parts.append(argumentText(v));
    } else {
        parts.append(argumentText(k.value));
    }
    const QString body = k.value.isArray() ? QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']')
                                           : parts.join(QStringLiteral(", "));
    const QString ttl = k.pttlMs < 0 ? QStringLiteral("no TTL") : QStringLiteral("PTTL %1 ms").arg(k.pttlMs);
    return QStringLiteral("(%1, %2) %3").arg(k.type, ttl, body);
}

QString replaceIds(QString text, const QHash<QString, QString> &actorOfClientId)
{
    for (auto it = actorOfClientId.begin(); it != actorOfClientId.end(); ++it)
        text.replace(it.key(), it.value());
    return text;
}

} // namespace

QString StepReport::keyText(const Key &key)
{
    return lockscope::keyText(key);
}

QString StepReport::withActorNames(const QString &text, const QHash<QString, QString> &actorOfClientId)
{
    return replaceIds(text, actorOfClientId);
}

QJsonObject StepReport::hashOf(const Keys &keys, const QString &name)
{
    const auto it = keys.constFind(name);
    if (it == keys.constEnd() || it->type != QLatin1String("hash"))
        return {};
    return it->value.toObject();
}

QStringList StepReport::listOf(const Keys &keys, const QString &name)
{
    QStringList l;
    for (const QJsonValue &v : keys.value(name).value.toArray())
        l.append(v.toString());
    return l;
}

qint64 StepReport::pttlOf(const Keys &keys, const QString &name)
{
    const auto it = keys.constFind(name);
    return it == keys.constEnd() ? -2 : it->pttlMs;
}

QJsonObject StepReport::holdersOf(const Keys &keys, const QString &name)
{
    QJsonObject h = hashOf(keys, name);
    h.remove(QStringLiteral("mode"));
    return h;
}

QString StepReport::fieldsText(const QJsonObject &holders)
{
    QStringList parts;
    for (auto it = holders.begin(); it != holders.end(); ++it)
        parts.append(QStringLiteral("%1 x%2").arg(it.key()).arg(qint64(it.value().toDouble())));
    return parts.isEmpty() ? QStringLiteral("nobody") : parts.join(QStringLiteral(", "));
}

StepReport::Keys StepReport::parseDump(const RedisReply &reply)
{
    Keys keys;
    if (!reply.isArray())
        return keys;
    for (int i = 0; i < reply.size(); ++i) {
        const RedisReply &e = reply.at(i);
        if (!e.isArray() || e.size() < 4)
            continue;
        Key k;
        k.type = QString::fromUtf8(e.at(1).toByteArray());
        k.pttlMs = e.at(2).toInteger();
        const RedisReply &v = e.at(3);
        if (k.type == QLatin1String("hash") || k.type == QLatin1String("zset")) {
            QJsonObject o;
            for (int j = 0; j + 1 < v.size(); j += 2) {
                const QByteArray val = v.at(j + 1).toByteArray();
                bool num = false;
                const qint64 n = val.toLongLong(&num);
                o.insert(QString::fromUtf8(v.at(j).toByteArray()),
                         num ? QJsonValue(double(n)) : QJsonValue(QString::fromUtf8(val)));
            }
            k.value = o;
        } else if (k.type == QLatin1String("string")) {
            k.value = v.size() > 0 ? QString::fromUtf8(v.at(0).toByteArray()) : QString();
        } else {
            QJsonArray a;
            for (int j = 0; j < v.size(); ++j)
                a.append(QString::fromUtf8(v.at(j).toByteArray()));
            k.value = a;
        }
        keys.insert(QString::fromUtf8(e.at(0).toByteArray()), k);
    }
    return keys;
}

QStringList StepReport::changes(const Keys &before, const Keys &after)
{
    QStringList lines;
    for (auto it = before.begin(); it != before.end(); ++it) {
        if (!after.contains(it.key()))
            lines.append(QStringLiteral("- %1 %2").arg(it.key(), keyText(it.value())));
    }
    for (auto it = after.begin(); it != after.end(); ++it) {
        const auto old = before.constFind(it.key());
        if (old == before.constEnd()) {
            lines.append(QStringLiteral("+ %1 %2").arg(it.key(), keyText(it.value())));
            continue;
        }
        QStringList what;
        if (old->type != it->type) {
            what.append(QStringLiteral("type %1 -> %2").arg(old->type, it->type));
        } else if (it->value.isObject()) {
            const QJsonObject a = old->value.toObject(), b = it->value.toObject();
            for (auto f = a.begin(); f != a.end(); ++f) {
                if (!b.contains(f.key()))
                    what.append(QStringLiteral("%1 %2 -> (gone)").arg(f.key(), argumentText(f.value())));
                else if (b.value(f.key()) != f.value())
                    what.append(QStringLiteral("%1 %2 -> %3")
                                    .arg(f.key(), argumentText(f.value()), argumentText(b.value(f.key()))));
            }
            for (auto f = b.begin(); f != b.end(); ++f)
                if (!a.contains(f.key()))
                    what.append(QStringLiteral("%1 (new) = %2").arg(f.key(), argumentText(f.value())));
        } else if (old->value != it->value) {
            what.append(QStringLiteral("%1 -> %2").arg(keyText(*old), keyText(*it)));
        }
        // PTTL only counts as a change when it was set again (it went up) or removed/added.
        if ((old->pttlMs < 0) != (it->pttlMs < 0) || it->pttlMs > old->pttlMs)
            what.append(QStringLiteral("PTTL %1 -> %2 ms").arg(old->pttlMs).arg(it->pttlMs));
        if (!what.isEmpty())
            lines.append(QStringLiteral("~ %1: %2").arg(it.key(), what.join(QStringLiteral("; "))));
    }
    return lines;
}

static QJsonObject keysJson(const StepReport::Keys &keys)
{
    QJsonObject o;
    for (auto it = keys.begin(); it != keys.end(); ++it)
        o.insert(it.key(), QJsonObject{{QStringLiteral("type"), it->type},
                                       {QStringLiteral("pttl_ms"), double(it->pttlMs)},
                                       {QStringLiteral("value"), it->value}});
    return o;
}

QJsonObject StepReport::toJson() const
{
    QJsonArray checksJson;
    for (const Check &c : checks)
        checksJson.append(QJsonObject{{QStringLiteral("name"), c.name},
                                      {QStringLiteral("expected"), c.expected},
                                      {QStringLiteral("actual"), c.actual},
                                      {QStringLiteral("held"), c.held}});
    QJsonObject o{
        {QStringLiteral("index"), index},
        {QStringLiteral("line"), line},
        {QStringLiteral("actor"), actor},
        {QStringLiteral("client_id"), clientId},
        {QStringLiteral("thread_id"), double(threadId)},
        {QStringLiteral("action"), action},
        {QStringLiteral("call"), call},
        {QStringLiteral("lock"), lock},
        {QStringLiteral("branch"), branch},
        {QStringLiteral("result"), result},
        {QStringLiteral("reply"), reply},
        {QStringLiteral("narration"), narration},
        {QStringLiteral("woke"), QJsonArray::fromStringList(woke)},
        {QStringLiteral("keys_before"), keysJson(before)},
        {QStringLiteral("keys_after"), keysJson(after)},
        {QStringLiteral("changes"), QJsonArray::fromStringList(changes(before, after))},
        {QStringLiteral("checks"), checksJson},
        {QStringLiteral("ok"), ok},
        {QStringLiteral("started_us"), double(startedUs)},
        {QStringLiteral("finished_us"), double(finishedUs)},
    };
    if (token >= 0)
        o.insert(QStringLiteral("token"), double(token));
    if (!messageChannel.isEmpty())
        o.insert(QStringLiteral("message"),
                 QJsonObject{{QStringLiteral("channel"), messageChannel}, {QStringLiteral("payload"), messagePayload}});
    if (!findings.isEmpty())
        o.insert(QStringLiteral("findings"), QJsonArray::fromStringList(findings));
    QJsonArray eventsJson;
    for (const LockEvent &e : events)
        eventsJson.append(e.toJson());
    o.insert(QStringLiteral("events"), eventsJson);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    if (!ok)
        o.insert(QStringLiteral("did_not_hold"), QJsonArray::fromStringList(failedChecks()));
    return o;
}

namespace
{
QString checkValueText(const QJsonValue &v)
{
    if (v.isArray()) {
        QStringList s;
        for (const QJsonValue &e : v.toArray())
            s.append(argumentText(e));
        return QLatin1Char('[') + s.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return argumentText(v);
}
} // namespace

QStringList StepReport::failedChecks() const
{
    QStringList out;
    for (const Check &c : checks)
        if (!c.held)
            out.append(QStringLiteral("%1: expected %2, saw %3")
                           .arg(c.name, checkValueText(c.expected), checkValueText(c.actual)));
    if (!error.isEmpty())
        out.append(QStringLiteral("error: %1").arg(error));
    return out;
}

QString StepReport::narrationText() const
{
    if (narration.isEmpty() || ok)
        return narration;
    const QStringList failed = failedChecks();
    return QStringLiteral("expected: %1 — did not hold: %2")
        .arg(narration, failed.isEmpty() ? QStringLiteral("the step failed") : failed.join(QStringLiteral("; ")));
}

QStringList StepReport::eventTypes() const
{
    QStringList out;
    for (const LockEvent &e : events)
        out << e.type;
    return out;
}

QString StepReport::toText(const QHash<QString, QString> &actorOfClientId) const
{
    QStringList out;
    const QString who = actor.isEmpty()
                            ? QStringLiteral("(time)")
                            : QStringLiteral("%1 (client %2, thread %3)").arg(actor, clientId).arg(threadId);
    out.append(QStringLiteral("step %1  %2: %3").arg(index + 1).arg(who, call));
    if (!branch.isEmpty())
        out.append(QStringLiteral("  script:  %1").arg(replaceIds(branch, actorOfClientId)));
    out.append(QStringLiteral("  result:  %1%2")
                   .arg(result, reply.isEmpty() ? QString() : QStringLiteral(" (reply %1)").arg(reply)));
    if (!messageChannel.isEmpty())
        out.append(QStringLiteral("  message: PUBLISH %1 %2 -> woke %3")
                       .arg(replaceIds(messageChannel, actorOfClientId), messagePayload,
                            woke.isEmpty() ? QStringLiteral("nobody") : woke.join(QStringLiteral(", "))));
    else if (!woke.isEmpty())
        out.append(QStringLiteral("  woke:    %1").arg(woke.join(QStringLiteral(", "))));
    for (const QString &f : findings)
        out.append(QStringLiteral("  doctor:  %1").arg(replaceIds(f, actorOfClientId)));
    for (const LockEvent &e : events)
        out.append(
            QStringLiteral("  LockScope: %1%2%3: %4")
                .arg(e.type, e.lock.isEmpty() ? QString() : QStringLiteral(" ") + e.lock,
                     e.holder.isEmpty() ? QString() : QStringLiteral(" ") + replaceIds(e.holder, actorOfClientId),
                     replaceIds(e.detail, actorOfClientId)));
    auto keysLines = [&](const Keys &keys) {
        QStringList l;
        for (auto it = keys.begin(); it != keys.end(); ++it)
            l.append(QStringLiteral("    %1 %2")
                         .arg(replaceIds(it.key(), actorOfClientId), replaceIds(keyText(*it), actorOfClientId)));
        return l.isEmpty() ? QStringList{QStringLiteral("    (no keys)")} : l;
    };
    out.append(QStringLiteral("  keys before:"));
    out += keysLines(before);
    out.append(QStringLiteral("  keys after:"));
    out += keysLines(after);
    const QStringList ch = changes(before, after);
    if (!ch.isEmpty()) {
        out.append(QStringLiteral("  changed:"));
        for (const QString &c : ch)
            out.append(QStringLiteral("    %1").arg(replaceIds(c, actorOfClientId)));
    }
    if (!narration.isEmpty() && ok) {
        out.append(QStringLiteral("  why:     %1").arg(narration));
    } else if (!narration.isEmpty()) {
        // The narration tells the branch the scenario expected, which is not the one that ran.
        out.append(QStringLiteral("  expected: %1").arg(narration));
        out.append(QStringLiteral("  did not hold: %1")
                       .arg(replaceIds(failedChecks().join(QStringLiteral("; ")), actorOfClientId)));
    }
    for (const Check &c : checks) {
        auto j = [](const QJsonValue &v) { return checkValueText(v); };
        out.append(
            QStringLiteral("  expect:  %1 = %2 %3 (saw %4)")
                .arg(c.name, j(c.expected), c.held ? QStringLiteral("OK") : QStringLiteral("FAILED"), j(c.actual)));
    }
    if (!error.isEmpty())
        out.append(QStringLiteral("  error:   %1").arg(error));
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace lockscope
