#include "scenario.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSet>

namespace lockscope {

namespace {

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

bool isWholeNumber(const QJsonValue &v)
{
    return v.isDouble() && v.toDouble() == double(qint64(v.toDouble()));
}

} // namespace

QStringList Scenario::actions()
{
    return {QStringLiteral("lock"),       QStringLiteral("tryLock"),     QStringLiteral("unlock"),
            QStringLiteral("renew"),      QStringLiteral("forceUnlock"), QStringLiteral("fairLock"),
            QStringLiteral("fairUnlock"), QStringLiteral("readLock"),    QStringLiteral("readUnlock"),
            QStringLiteral("writeLock"),  QStringLiteral("writeUnlock"), QStringLiteral("fencedLock"),
            QStringLiteral("fencedWrite"), QStringLiteral("dropSubscription"), QStringLiteral("pause"),
            QStringLiteral("expireWait"), QStringLiteral("doctor"), QStringLiteral("redlock"),
            QStringLiteral("redlockUnlock"), QStringLiteral("stopServer")};
}

QStringList Scenario::expectations()
{
    return {QStringLiteral("result"),        QStringLiteral("holder"),       QStringLiteral("holdCount"),
            QStringLiteral("queue"),         QStringLiteral("token"),        QStringLiteral("tokenGreaterThan"),
            QStringLiteral("pttlAtLeastMs"), QStringLiteral("pttlAtMostMs"), QStringLiteral("woke"),
            QStringLiteral("mode"),          QStringLiteral("deadlock"),     QStringLiteral("exists"),
            QStringLiteral("granted")};
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
    Scenario s;
    s.name = o.value(QStringLiteral("name")).toString();
    s.title = o.value(QStringLiteral("title")).toString();
    s.summary = o.value(QStringLiteral("summary")).toString();
    s.lock = o.value(QStringLiteral("lock")).toString();
    const QJsonValue servers = o.value(QStringLiteral("servers"));
    if (!servers.isUndefined() && (!isWholeNumber(servers) || servers.toInteger() < 0 || servers.toInteger() > 9)) {
        *error = QStringLiteral("\"servers\" must be a whole number from 0 to 9 (independent servers for redlock steps)");
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
        if ((!thread.isUndefined() && !isWholeNumber(thread)) || (!wd.isUndefined() && (!isWholeNumber(wd) || wd.toInteger() <= 0))) {
            *error = QStringLiteral("actor \"%1\": \"threadId\" and \"watchdogTimeoutMs\" must be whole numbers "
                                    "(watchdogTimeoutMs > 0)").arg(actor.name);
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
    const QStringList known = actions();
    const QStringList knownExpect = expectations();
    static const QStringList actionless{QStringLiteral("pause"), QStringLiteral("doctor"), QStringLiteral("stopServer")};
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
            return fail(QStringLiteral("unknown action \"%1\" (known: %2)").arg(st.action, known.join(QStringLiteral(", "))));
        if (st.actor.isEmpty() && !actionless.contains(st.action))
            return fail(QStringLiteral("action \"%1\" needs an \"actor\"").arg(st.action));
        if (!st.actor.isEmpty() && !actorNames.contains(st.actor))
            return fail(QStringLiteral("unknown actor \"%1\" (declared: %2)")
                            .arg(st.actor, QStringList(actorNames.values()).join(QStringLiteral(", "))));
        if (st.lock.isEmpty() && st.action != QLatin1String("pause") && st.action != QLatin1String("doctor")
            && st.action != QLatin1String("stopServer"))
            return fail(QStringLiteral("no lock name: give the step a \"lock\" or the scenario a default \"lock\""));
        for (const char *key : {"leaseMs", "waitMs", "ms"}) {
            const QJsonValue v = so.value(QLatin1String(key));
            if (!v.isUndefined() && (!isWholeNumber(v) || v.toInteger() < 0))
                return fail(QStringLiteral("\"%1\" must be a whole number of ms >= 0").arg(QLatin1String(key)));
        }
        st.leaseMs = so.value(QStringLiteral("leaseMs")).toInteger(-1);
        st.waitMs = so.value(QStringLiteral("waitMs")).toInteger(-1);
        st.ms = so.value(QStringLiteral("ms")).toInteger(-1);
        if (st.action == QLatin1String("pause") && st.ms < 0)
            return fail(QStringLiteral("\"pause\" needs \"ms\" (how long time passes)"));
        if ((st.action == QLatin1String("redlock") || st.action == QLatin1String("redlockUnlock")
             || st.action == QLatin1String("stopServer")) && s.servers <= 0)
            return fail(QStringLiteral("\"%1\" needs the scenario's \"servers\" (how many independent servers)").arg(st.action));
        st.server = int(so.value(QStringLiteral("server")).toInteger(0));
        if (st.action == QLatin1String("stopServer") && (st.server < 1 || st.server > s.servers))
            return fail(QStringLiteral("\"stopServer\" needs \"server\" from 1 to %1").arg(s.servers));
        if (st.action == QLatin1String("tryLock") && st.waitMs < 0)
            return fail(QStringLiteral("\"tryLock\" needs \"waitMs\" (Redisson's waitTime)"));
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
                return fail(QStringLiteral("tokenGreaterThan names \"%1\", which is not an actor").arg(it.value().toString()));
            if (it.key() == QLatin1String("queue") || it.key() == QLatin1String("woke")) {
                for (const QJsonValue &n : it.value().toArray())
                    if (!actorNames.contains(n.toString()))
                        return fail(QStringLiteral("\"%1\" names \"%2\", which is not an actor").arg(it.key(), n.toString()));
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
        *error = QStringLiteral("no scenario named \"%1\" (shipped: %2)").arg(name, builtInNames().join(QStringLiteral(", ")));
        return false;
    }
    return load(kResourceDir + QLatin1Char('/') + name + QStringLiteral(".json"), out, error);
}

QStringList Scenario::lockNames() const
{
    QStringList names;
    for (const Step &st : steps) {
        if (!st.lock.isEmpty() && !names.contains(st.lock) && st.action != QLatin1String("pause"))
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
