#include "workshopcommand.h"

#include "demo/redisserverprocess.h"
#include "scenario/scenariorunner.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace lockscope
{

CliCommandDescriptor WorkshopCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<WorkshopCommand>(
        "workshop", "workshop list | workshop run NAME [--json] [--scenario-file FILE] [--pace-ms N]",
        "Teaching scenarios, step by step, on a private redis-server.");
    d.details =
        QStringLiteral("`workshop list [--json]` lists the shipped scenarios. Exit 0 when the scenario's expectations "
                       "held, 3 when one did not, 1 for an unknown scenario or a malformed file, 2 when no "
                       "`redis-server` could be started. See [teaching](../teaching.md).");
    d.subcommands = CliCommandDescriptor::words("list run");
    d.operandWordsFrom = QStringLiteral("workshop list");
    d.options = CliCommandDescriptor::words("json scenario-file pace-ms");
    d.examples = {QStringLiteral("workshop list"), QStringLiteral("workshop run force-unlock --pace-ms 2000")};
    d.ownOperands = true;
    return d;
}

namespace
{
constexpr int kFailed = CliCommand::Refused; ///< an expectation did not hold
}

QList<QCommandLineOption> WorkshopCommand::options()
{
    return {{QStringLiteral("scenario-file"),
             QStringLiteral("workshop run: run this scenario file instead of a shipped one (format: "
                            "docs/teaching.md, installed in /usr/share/doc/lockscope)."),
             QStringLiteral("FILE")},
            {QStringLiteral("pace-ms"),
             QStringLiteral("workshop run: wait N ms of wall time between steps, as a teacher talking (time on the "
                            "workshop server stands still meanwhile)."),
             QStringLiteral("N")}};
}

bool WorkshopCommand::begin(int *exitCode)
{
    const QStringList &args = m_operands;
    auto usage = [&](const QString &msg) { return CliCommand::usage(msg, exitCode); };
    const QString action = args.value(0);
    if (action == QLatin1String("list")) {
        if (args.size() > 1)
            return usage(QStringLiteral("unexpected argument '%1'").arg(args.at(1)));
        *exitCode = list();
        return false;
    }
    if (action != QLatin1String("run"))
        return usage(action.isEmpty() ? QStringLiteral("'workshop' needs 'list' or 'run NAME'")
                                      : QStringLiteral("unknown workshop command '%1' (list or run)").arg(action));
    const bool fromFile = m_parser.isSet(QStringLiteral("scenario-file"));
    int paceMs = 0;
    if (m_parser.isSet(QStringLiteral("pace-ms"))) {
        bool ok = false;
        const qint64 v = m_parser.value(QStringLiteral("pace-ms")).toLongLong(&ok);
        if (!ok)
            return usage(QStringLiteral("--pace-ms needs a whole number, not '%1'")
                             .arg(m_parser.value(QStringLiteral("pace-ms"))));
        if (v < 0 || v > Scenario::kMaxDurationMs)
            return usage(
                QStringLiteral("--pace-ms must be between 0 and %1, not %2").arg(Scenario::kMaxDurationMs).arg(v));
        paceMs = int(v);
    }
    if (args.size() > 2)
        return usage(QStringLiteral("unexpected argument '%1'").arg(args.last()));
    if (args.size() < 2 && !fromFile)
        return usage(
            QStringLiteral("'workshop run' needs a scenario name (see 'workshop list') or --scenario-file FILE"));
    QString error;
    const bool loaded = fromFile ? Scenario::load(m_parser.value(QStringLiteral("scenario-file")), &m_scenario, &error)
                                 : Scenario::loadBuiltIn(args.at(1), &m_scenario, &error);
    if (!loaded) {
        m_err << "lockscope-cli: cannot run the scenario: " << error << '\n';
        m_err.flush();
        *exitCode = Usage;
        return false;
    }
    if (fromFile && args.size() == 2 && args.at(1) != m_scenario.name)
        return usage(QStringLiteral("the scenario file is named \"%1\", not \"%2\"").arg(m_scenario.name, args.at(1)));

    m_server = new RedisServerProcess(this);
    m_server->setNotifyKeyspaceEvents(QString());
    if (!m_server->start(10000, &error)) {
        m_err << "lockscope-cli: cannot start the workshop redis-server: " << error << '\n';
        m_err.flush();
        *exitCode = ServerError;
        return false;
    }
    m_runner = new ScenarioRunner(m_scenario, m_server->endpoint(), this);
    m_runner->setPaceMs(paceMs);
    connect(m_runner, &ScenarioRunner::stepFinished, this, [this](const StepReport &r) {
        if (r.index == 0 && !m_json)
            printHeader();
        if (m_json)
            m_out << QJsonDocument(r.toJson()).toJson(QJsonDocument::Compact) << '\n';
        else
            m_out << r.toText(m_runner->actorOfClientId()) << '\n';
        m_out.flush();
    });
    connect(m_runner, &ScenarioRunner::failed, this, [this](const QString &why) {
        m_err << "lockscope-cli: " << why << '\n';
        m_err.flush();
        finish(ServerError);
    });
    connect(m_runner, &ScenarioRunner::finished, this, &WorkshopCommand::onFinished);
    m_runner->run();
    return true;
}

int WorkshopCommand::list()
{
    for (const QString &name : Scenario::builtInNames()) {
        Scenario s;
        QString error;
        if (!Scenario::loadBuiltIn(name, &s, &error)) {
            m_err << "lockscope-cli: shipped scenario " << error << '\n';
            m_err.flush();
            return kFailed;
        }
        if (m_json)
            m_out << QJsonDocument(QJsonObject{{QStringLiteral("name"), s.name},
                                               {QStringLiteral("title"), s.title},
                                               {QStringLiteral("summary"), s.summary},
                                               {QStringLiteral("steps"), int(s.steps.size())}})
                         .toJson(QJsonDocument::Compact)
                  << '\n';
        else
            m_out << qSetFieldWidth(22) << Qt::left << s.name << qSetFieldWidth(0) << s.title << '\n';
    }
    m_out.flush();
    return Ok;
}

void WorkshopCommand::printHeader()
{
    m_out << "== " << m_scenario.title << " (" << m_scenario.name << ")\n";
    if (!m_scenario.summary.isEmpty())
        m_out << m_scenario.summary << '\n';
    const auto ids = m_runner->actorOfClientId();
    for (const Scenario::Actor &a : m_scenario.actors)
        m_out << "actor " << a.name << ": client id " << ids.key(a.name) << ", thread " << a.threadId
              << " (fields shown as " << a.name << ':' << a.threadId << ")\n";
    m_out << "redis-server " << m_server->url() << '\n' << '\n';
}

void WorkshopCommand::onFinished(bool held)
{
    QJsonArray failedSteps;
    for (const StepReport &r : m_runner->reports())
        if (!r.ok)
            failedSteps.append(r.index + 1);
    if (m_json) {
        m_out << QJsonDocument(QJsonObject{{QStringLiteral("scenario"), m_scenario.name},
                                           {QStringLiteral("ok"), held},
                                           {QStringLiteral("steps"), int(m_runner->reports().size())},
                                           {QStringLiteral("failed_steps"), failedSteps}})
                     .toJson(QJsonDocument::Compact)
              << '\n';
    } else if (held) {
        m_out << "Every expectation held (" << m_runner->reports().size() << " steps).\n";
    } else {
        QStringList steps;
        for (const QJsonValue &v : failedSteps)
            steps.append(QString::number(v.toInt()));
        m_out << "Expectations FAILED at step(s) " << steps.join(QStringLiteral(", ")) << ".\n";
    }
    m_out.flush();
    m_server->stop();
    finish(held ? Ok : kFailed);
}

} // namespace lockscope
