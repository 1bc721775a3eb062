#include "scenario.h"

#include "workshopactions.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

#include <cmath>
#include <functional>

namespace lockscope
{

namespace
{

const QString kResourceDir = QStringLiteral(":/lockscope/scenarios");

/** 1-based line and column of byte `offset` in `text`. */
void lineColumn(const QByteArray &text, int offset, int *line, int *column)
{
    offset = qBound(0, offset, int(text.size()));
    const QByteArray before = text.left(offset);
    *line = int(before.count('\n')) + 1;
    const int lastNl = int(before.lastIndexOf('\n'));
    *column = offset - lastNl; // lastNl = -1 on the first line
}

/**
 * Lines where the steps start: the line of each `"action":` key, in order. The document has
 * already been parsed by QJsonDocument; this only locates steps for error messages. Returns an
 * empty list when the count does not match `stepCount` (then lines are reported as unknown).
 */
QVector<int> stepLines(const QByteArray &text, int stepCount)
{
    QVector<int> lines;
    static const QRegularExpression actionKey(QStringLiteral("(?<!\\\\)\"action\"\\s*:"));
    const QString s = QString::fromUtf8(text);
    auto it = actionKey.globalMatch(s);
    while (it.hasNext()) {
        const auto m = it.next();
        lines.append(int(QStringView(s).left(m.capturedStart()).count(QLatin1Char('\n'))) + 1);
    }
    if (lines.size() != stepCount)
        return {};
    return lines;
}

/** Whole numbers JSON carries exactly (|x| <= 2^53); beyond, the cast to qint64 is not even defined. */
constexpr double kMaxExactInteger = 9007199254740992.0;

bool isWholeNumber(const QJsonValue &v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && std::fabs(d) <= kMaxExactInteger && d == double(qint64(d));
}

/** A whole number in [min, max]. */
bool isWholeIn(const QJsonValue &v, qint64 min, qint64 max)
{
    return isWholeNumber(v) && v.toInteger() >= min && v.toInteger() <= max;
}

/** The value as it was written (compact JSON), for error messages. */
QString valueText(const QJsonValue &v)
{
    if (v.isDouble() && std::isfinite(v.toDouble()) && std::fabs(v.toDouble()) < 1e21 &&
        v.toDouble() == std::floor(v.toDouble()))
        return QString::number(v.toDouble(), 'f', 0);
    const QByteArray json = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(json.mid(1, json.size() - 2));
}

/** 1-based line and column of `offset` (UTF-16 units) in `text`. */
void lineColumnOf(const QString &text, qsizetype offset, int *line, int *column)
{
    offset = qBound<qsizetype>(0, offset, text.size());
    const QStringView before = QStringView(text).left(offset);
    *line = int(before.count(QLatin1Char('\n'))) + 1;
    *column = int(offset - before.lastIndexOf(QLatin1Char('\n'))); // lastIndexOf = -1 on the first line
}

/** Offsets (UTF-16 units) of the `"action":` keys, in order; empty unless there are `stepCount`. */
QVector<qsizetype> actionOffsets(const QString &text, int stepCount)
{
    QVector<qsizetype> offsets;
    static const QRegularExpression actionKey(QStringLiteral("(?<!\\\\)\"action\"\\s*:"));
    auto it = actionKey.globalMatch(text);
    while (it.hasNext())
        offsets.append(it.next().capturedStart());
    if (offsets.size() != stepCount)
        return {};
    return offsets;
}

/**
 * Offset of the value of the first `"key": value` at or after `from` whose value is bad (by
 * `isBad`), or -1. Values of the same key before it were checked already and passed, so the
 * first bad one is the one being reported. Only the literal after the colon is looked at.
 */
qsizetype badValueOffset(const QString &text, const QString &key, qsizetype from,
                         const std::function<bool(const QJsonValue &)> &isBad)
{
    const QRegularExpression keyRe(QStringLiteral("\"%1\"\\s*:\\s*").arg(QRegularExpression::escape(key)));
    static const QRegularExpression number(QStringLiteral("-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?"));
    auto it = keyRe.globalMatch(text, qMax<qsizetype>(0, from));
    while (it.hasNext()) {
        const qsizetype at = it.next().capturedEnd();
        const auto n =
            number.match(text, at, QRegularExpression::NormalMatch, QRegularExpression::AnchorAtOffsetMatchOption);
        // Not a number: a string, object, array, true, false or null, all bad for a number check.
        const QJsonValue value = n.hasMatch() ? QJsonValue(n.captured().toDouble()) : QJsonValue(text.mid(at, 1));
        if (isBad(value))
            return at;
    }
    return -1;
}

} // namespace

QStringList Scenario::actions()
{
    return WorkshopActions::names();
}

QStringList Scenario::expectations()
{
    return {QStringLiteral("result"),        QStringLiteral("holder"),       QStringLiteral("holdCount"),
            QStringLiteral("queue"),         QStringLiteral("token"),        QStringLiteral("tokenGreaterThan"),
            QStringLiteral("pttlAtLeastMs"), QStringLiteral("pttlAtMostMs"), QStringLiteral("woke"),
            QStringLiteral("mode"),          QStringLiteral("deadlock"),     QStringLiteral("exists"),
            QStringLiteral("granted"),       QStringLiteral("events")};
}

bool Scenario::parse(const QByteArray &json, Scenario *out, QString *error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        int line = 0, column = 0;
        lineColumn(json, pe.offset, &line, &column);
        *error = QStringLiteral("line %1, column %2: %3").arg(line).arg(column).arg(pe.errorString());
        return false;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("line 1, column 1: a scenario is a JSON object ({...}), not an array or a value");
        return false;
    }
    const QJsonObject o = doc.object();
    // Value errors name the line and column of the value (the first bad one of that key).
    const QString text = QString::fromUtf8(json);
    auto located = [&text](const QString &key, qsizetype from, const std::function<bool(const QJsonValue &)> &isBad,
                           const QString &prefix) {
        const qsizetype at = badValueOffset(text, key, from, isBad);
        if (at < 0)
            return prefix.isEmpty() ? QString() : prefix + QStringLiteral(": ");
        int line = 0, column = 0;
        lineColumnOf(text, at, &line, &column);
        return prefix.isEmpty() ? QStringLiteral("line %1, column %2: ").arg(line).arg(column)
                                : QStringLiteral("%1 (line %2, column %3): ").arg(prefix).arg(line).arg(column);
    };
    const auto notDuration = [](const QJsonValue &v) { return !isWholeIn(v, 0, kMaxDurationMs); };
    const QString durationRule = QStringLiteral("a whole number of ms from 0 to %1 (one hour)").arg(kMaxDurationMs);

    Scenario s;
    s.name = o.value(QStringLiteral("name")).toString();
    s.title = o.value(QStringLiteral("title")).toString();
    s.summary = o.value(QStringLiteral("summary")).toString();
    s.lock = o.value(QStringLiteral("lock")).toString();
    const QJsonValue servers = o.value(QStringLiteral("servers"));
    if (!servers.isUndefined() && !isWholeIn(servers, 0, 9)) {
        *error = located(QStringLiteral("servers"), 0, [](const QJsonValue &v) { return !isWholeIn(v, 0, 9); }, {}) +
                 QStringLiteral("\"servers\" must be a whole number from 0 to 9 (independent servers for redlock "
                                "steps), not %1")
                     .arg(valueText(servers));
        return false;
    }
    s.servers = int(servers.toInteger(0));
    if (s.name.isEmpty()) {
        *error = QStringLiteral("the scenario has no \"name\" (a string such as \"reentrancy\")");
        return false;
    }
    if (s.title.isEmpty())
        s.title = s.name;

    const QJsonValue actorsValue = o.value(QStringLiteral("actors"));
    if (!actorsValue.isArray() || actorsValue.toArray().isEmpty()) {
        *error = QStringLiteral("\"actors\" must be a non-empty array of {\"name\": ..., \"threadId\": ...}");
        return false;
    }
    QSet<QString> actorNames;
    for (const QJsonValue &v : actorsValue.toArray()) {
        const QJsonObject a = v.toObject();
        Actor actor;
        actor.name = a.value(QStringLiteral("name")).toString();
        if (actor.name.isEmpty() || actorNames.contains(actor.name)) {
            *error = actor.name.isEmpty() ? QStringLiteral("every actor needs a \"name\"")
                                          : QStringLiteral("actor \"%1\" is declared twice").arg(actor.name);
            return false;
        }
        const QString id = a.value(QStringLiteral("clientId")).toString(QStringLiteral("auto"));
        actor.clientId = id == QLatin1String("auto") ? QString() : id;
        const QJsonValue thread = a.value(QStringLiteral("threadId"));
        const QJsonValue wd = a.value(QStringLiteral("watchdogTimeoutMs"));
        const auto badThread = [](const QJsonValue &v) { return !isWholeIn(v, 0, qint64(kMaxExactInteger)); };
        const auto badWatchdog = [](const QJsonValue &v) { return !isWholeIn(v, 1, kMaxDurationMs); };
        if (!thread.isUndefined() && badThread(thread)) {
            *error = located(QStringLiteral("threadId"), 0, badThread, {}) +
                     QStringLiteral("actor \"%1\": \"threadId\" must be a whole number from 0 to 2^53, not %2")
                         .arg(actor.name, valueText(thread));
            return false;
        }
        if (!wd.isUndefined() && badWatchdog(wd)) {
            *error = located(QStringLiteral("watchdogTimeoutMs"), 0, badWatchdog, {}) +
                     QStringLiteral("actor \"%1\": \"watchdogTimeoutMs\" must be a whole number of ms from 1 to %2 "
                                    "(one hour), not %3")
                         .arg(actor.name)
                         .arg(kMaxDurationMs)
                         .arg(valueText(wd));
            return false;
        }
        actor.threadId = thread.isUndefined() ? 1 : thread.toInteger();
        actor.watchdogTimeoutMs = wd.isUndefined() ? 3000 : wd.toInteger();
        actorNames.insert(actor.name);
        s.actors.append(actor);
    }

    const QJsonValue stepsValue = o.value(QStringLiteral("steps"));
    if (!stepsValue.isArray() || stepsValue.toArray().isEmpty()) {
        *error = QStringLiteral("\"steps\" must be a non-empty array of {\"actor\": ..., \"action\": ...}");
        return false;
    }
    const QJsonArray steps = stepsValue.toArray();
    const QVector<int> lines = stepLines(json, int(steps.size()));
    const QVector<qsizetype> offsets = actionOffsets(text, int(steps.size()));
    const QStringList known = actions();
    const QStringList knownExpect = expectations();
    for (int i = 0; i < steps.size(); ++i) {
        Step st;
        st.index = i;
        st.line = lines.isEmpty() ? 0 : lines.at(i);
        auto fail = [&](const QString &why) {
            *error = st.line > 0 ? QStringLiteral("step %1 (line %2): %3").arg(i + 1).arg(st.line).arg(why)
                                 : QStringLiteral("step %1: %2").arg(i + 1).arg(why);
            return false;
        };
        if (!steps.at(i).isObject())
            return fail(QStringLiteral("a step is an object {\"actor\": ..., \"action\": ...}"));
        const QJsonObject so = steps.at(i).toObject();
        st.action = so.value(QStringLiteral("action")).toString();
        st.actor = so.value(QStringLiteral("actor")).toString();
        st.lock = so.value(QStringLiteral("lock")).toString(s.lock);
        st.narration = so.value(QStringLiteral("narration")).toString();
        if (st.action.isEmpty())
            return fail(QStringLiteral("the step has no \"action\" (one of %1)").arg(known.join(QStringLiteral(", "))));
        if (!known.contains(st.action))
            return fail(
                QStringLiteral("unknown action \"%1\" (known: %2)").arg(st.action, known.join(QStringLiteral(", "))));
        const WorkshopAction *action = WorkshopActions::find(st.action);
        if (st.actor.isEmpty() && action->needsActor)
            return fail(QStringLiteral("action \"%1\" needs an \"actor\"").arg(st.action));
        if (!st.actor.isEmpty() && !actorNames.contains(st.actor))
            return fail(QStringLiteral("unknown actor \"%1\" (declared: %2)")
                            .arg(st.actor, QStringList(actorNames.values()).join(QStringLiteral(", "))));
        if (st.lock.isEmpty() && action->needsLock)
            return fail(QStringLiteral("no lock name: give the step a \"lock\" or the scenario a default \"lock\""));
        // Where this step's keys can start: after the previous step's "action" (its own keys that
        // follow it were valid, or it would have been reported).
        const qsizetype stepFrom = i > 0 && !offsets.isEmpty() ? offsets.at(i - 1) : 0;
        const QString stepPrefix = QStringLiteral("step %1").arg(i + 1);
        auto failValue = [&](const QString &key, const std::function<bool(const QJsonValue &)> &isBad,
                             const QString &why) {
            *error = located(key, stepFrom, isBad, stepPrefix) + why;
            return false;
        };
        for (const char *key : {"leaseMs", "waitMs", "ms"}) {
            const QJsonValue v = so.value(QLatin1String(key));
            if (!v.isUndefined() && notDuration(v))
                return failValue(
                    QLatin1String(key), notDuration,
                    QStringLiteral("\"%1\" must be %2, not %3").arg(QLatin1String(key), durationRule, valueText(v)));
        }
        const QJsonValue serverValue = so.value(QStringLiteral("server"));
        const auto badServer = [&s](const QJsonValue &v) { return !isWholeIn(v, 1, qMax(1, s.servers)); };
        if (!serverValue.isUndefined() && s.servers > 0 && badServer(serverValue))
            return failValue(QStringLiteral("server"), badServer,
                             QStringLiteral("\"server\" must be a whole number from 1 to %1, not %2")
                                 .arg(s.servers)
                                 .arg(valueText(serverValue)));
        st.leaseMs = so.value(QStringLiteral("leaseMs")).toInteger(-1);
        st.waitMs = so.value(QStringLiteral("waitMs")).toInteger(-1);
        st.ms = so.value(QStringLiteral("ms")).toInteger(-1);
        st.server = int(so.value(QStringLiteral("server")).toInteger(0));
        if (const QString missing = action->validate ? action->validate(st, s) : QString(); !missing.isEmpty())
            return fail(missing); // what this action needs beyond the common keys
        for (const QJsonValue &l : so.value(QStringLiteral("locks")).toArray())
            st.locks.append(l.toString());
        const QJsonValue expect = so.value(QStringLiteral("expect"));
        if (!expect.isUndefined() && !expect.isObject())
            return fail(QStringLiteral("\"expect\" must be an object such as {\"result\": \"acquired\"}"));
        st.expect = expect.toObject();
        for (auto it = st.expect.begin(); it != st.expect.end(); ++it) {
            if (!knownExpect.contains(it.key()))
                return fail(QStringLiteral("unknown expectation \"%1\" (known: %2)")
                                .arg(it.key(), knownExpect.join(QStringLiteral(", "))));
            if (it.key() == QLatin1String("holder") && it.value().toString() != QLatin1String("none") &&
                !actorNames.contains(it.value().toString()))
                return fail(QStringLiteral("expected holder \"%1\" is not an actor").arg(it.value().toString()));
            if (it.key() == QLatin1String("tokenGreaterThan") && !actorNames.contains(it.value().toString()))
                return fail(
                    QStringLiteral("tokenGreaterThan names \"%1\", which is not an actor").arg(it.value().toString()));
            static const QStringList counts{QStringLiteral("holdCount"), QStringLiteral("token"),
                                            QStringLiteral("pttlAtLeastMs"), QStringLiteral("pttlAtMostMs"),
                                            QStringLiteral("granted")};
            const auto badCount = [](const QJsonValue &v) { return !isWholeIn(v, 0, qint64(kMaxExactInteger)); };
            if (counts.contains(it.key()) && badCount(it.value()))
                return failValue(it.key(), badCount,
                                 QStringLiteral("expectation \"%1\" must be a whole number >= 0, not %2")
                                     .arg(it.key(), valueText(it.value())));
            if (it.key() == QLatin1String("events")) {
                const QJsonArray types = it.value().toArray();
                if (!it.value().isArray() ||
                    std::any_of(types.begin(), types.end(), [](const QJsonValue &v) { return !v.isString(); }))
                    return fail(QStringLiteral("\"events\" must be a list of event types such as [\"lease_lost\"]"));
            }
            if (it.key() == QLatin1String("queue") || it.key() == QLatin1String("woke")) {
                for (const QJsonValue &n : it.value().toArray())
                    if (!actorNames.contains(n.toString()))
                        return fail(
                            QStringLiteral("\"%1\" names \"%2\", which is not an actor").arg(it.key(), n.toString()));
            }
        }
        s.steps.append(st);
    }
    *out = s;
    return true;
}

bool Scenario::load(const QString &path, Scenario *out, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot read the scenario file: %2").arg(path, f.errorString());
        return false;
    }
    QString why;
    if (!parse(f.readAll(), out, &why)) {
        *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    return true;
}

QStringList Scenario::builtInNames()
{
    QStringList names;
    const QStringList files = QDir(kResourceDir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString &f : files)
        names.append(QFileInfo(f).completeBaseName());
    return names;
}

bool Scenario::loadBuiltIn(const QString &name, Scenario *out, QString *error)
{
    if (!builtInNames().contains(name)) {
        *error = QStringLiteral("no scenario named \"%1\" (shipped: %2)")
                     .arg(name, builtInNames().join(QStringLiteral(", ")));
        return false;
    }
    return load(kResourceDir + QLatin1Char('/') + name + QStringLiteral(".json"), out, error);
}

QStringList Scenario::lockNames() const
{
    QStringList names;
    for (const Step &st : steps) {
        const WorkshopAction *action = WorkshopActions::find(st.action);
        if (!st.lock.isEmpty() && !names.contains(st.lock) && (!action || action->usesLock))
            names.append(st.lock);
    }
    return names;
}

const Scenario::Actor *Scenario::actor(const QString &name) const
{
    for (const Actor &a : actors)
        if (a.name == name)
            return &a;
    return nullptr;
}

} // namespace lockscope
