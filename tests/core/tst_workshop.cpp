// Workshop mode: every shipped scenario runs to completion on a private redis-server
// with its expectations met; malformed scenario files are rejected with the line and the reason;
// steps never overlap (one action in flight); `lockscope-cli workshop list|run` end to end.
// Time stands still between steps, since a teacher talks for a minute per step while the leases
// are seconds (tested at 5 s between steps, every shipped scenario); narration of a step whose expectations failed says
// so, step back and fork.

#include "demo/redisserverprocess.h"
#include "scenario/scenario.h"
#include "scenario/scenariorunner.h"
#include "scenario/workshopactions.h"

#include "testsupport.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include <signal.h>

using namespace lockscope;
using lockscope::test::waitUntil;

namespace
{

const char *const kBadJson = "{\n"
                             "  \"name\": \"broken\",\n"
                             "  \"actors\": [{\"name\": \"A\"}],\n"
                             "  \"steps\": [\n"
                             "    {\"actor\": \"A\", \"action\": \"lock\" \"lock\": \"l\"}\n"
                             "  ]\n"
                             "}\n";

const char *const kUnknownAction = "{\n"
                                   "  \"name\": \"broken\",\n"
                                   "  \"lock\": \"l\",\n"
                                   "  \"actors\": [{\"name\": \"A\"}],\n"
                                   "  \"steps\": [\n"
                                   "    {\"actor\": \"A\", \"action\": \"lock\"},\n"
                                   "    {\"actor\": \"A\", \"action\": \"teleport\"}\n"
                                   "  ]\n"
                                   "}\n";

const char *const kUnknownActor = "{\n"
                                  "  \"name\": \"broken\",\n"
                                  "  \"lock\": \"l\",\n"
                                  "  \"actors\": [{\"name\": \"A\"}],\n"
                                  "  \"steps\": [\n"
                                  "    {\"actor\": \"A\", \"action\": \"lock\"},\n"
                                  "    {\"actor\": \"A\", \"action\": \"unlock\"},\n"
                                  "    {\"actor\": \"Zed\", \"action\": \"unlock\"}\n"
                                  "  ]\n"
                                  "}\n";

// Parses, but its second step expects the wrong thing: the run must fail (exit 3), not error.
const char *const kWrongExpectation = R"({
  "name": "wrong",
  "lock": "w",
  "actors": [{"name": "A"}, {"name": "B"}],
  "steps": [
    {"actor": "A", "action": "lock", "leaseMs": 2000, "expect": {"result": "acquired"}},
    {"actor": "B", "action": "lock", "leaseMs": 2000, "expect": {"result": "acquired"}}
  ]
})";

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

// Lease safety in the workshop: the runner derives LockScope's own verdicts (LockEvent::diff and
// LeaseTracker, the engine of `watch`) from each step's keys on the stage clock, and the steps
// expect them. At a teacher's pace (time held between steps) a watchdog-renewed lock is neither
// late nor lost until the GC pause, and the failover loses the lock. `steps`: the JSON lines of
// `workshop run NAME --json --pace-ms N` by scenario.
void checkLeaseSafetyVerdicts(const QHash<QString, QVector<QJsonObject>> &steps)
{
    auto eventsOf = [](const QJsonObject &step, const QString &type) {
        QVector<QJsonObject> out;
        for (const QJsonValue &e : step.value(QStringLiteral("events")).toArray())
            if (e.toObject().value(QStringLiteral("type")).toString() == type)
                out << e.toObject();
        return out;
    };
    const QVector<QJsonObject> &gc = steps.value(QStringLiteral("gc-pause"));
    QCOMPARE(gc.size(), 19);
    const QString a = gc.at(0).value(QStringLiteral("client_id")).toString() + QStringLiteral(":1");
    const QString b = gc.at(3).value(QStringLiteral("client_id")).toString() + QStringLiteral(":1");
    // No verdict before the pause, however long the teacher talked.
    for (int i = 0; i < 4; ++i)
        for (const char *t : {"renewal_late", "lease_lost"})
            QVERIFY2(eventsOf(gc.at(i), QLatin1String(t)).isEmpty(), qPrintable(QString::number(i)));
    const QVector<QJsonObject> lost = eventsOf(gc.at(4), QStringLiteral("lease_lost"));
    QCOMPARE(lost.size(), 1);
    QCOMPARE(lost.first().value(QStringLiteral("lock")).toString(), QStringLiteral("report"));
    QCOMPARE(lost.first().value(QStringLiteral("holder")).toString(), a);
    QCOMPARE(lost.first().value(QStringLiteral("renewals")).toInt(), 1);
    const qint64 leaseMs = lost.first().value(QStringLiteral("lease_ms")).toInteger();
    QVERIFY2(leaseMs > 2500 && leaseMs <= 3000, qPrintable(QString::number(leaseMs)));
    const QVector<QJsonObject> acquired = eventsOf(gc.at(5), QStringLiteral("acquired"));
    QCOMPARE(acquired.size(), 1);
    QCOMPARE(acquired.first().value(QStringLiteral("after_lease_lost")).toString(), a);
    const QVector<QJsonObject> back = eventsOf(gc.at(7), QStringLiteral("holder_returned"));
    QCOMPARE(back.size(), 1);
    QCOMPARE(back.first().value(QStringLiteral("lock")).toString(), QStringLiteral("report"));
    QCOMPARE(back.first().value(QStringLiteral("holder")).toString(), a);
    QCOMPARE(back.first().value(QStringLiteral("returned_on")).toString(), QStringLiteral("audit-log"));
    QCOMPARE(back.first().value(QStringLiteral("next_holder")).toString(), b);
    QCOMPARE(eventsOf(gc.at(14), QStringLiteral("lease_lost")).size(), 1);
    QCOMPARE(gc.at(17).value(QStringLiteral("result")).toString(), QStringLiteral("rejected"));

    const QVector<QJsonObject> &fo = steps.value(QStringLiteral("failover-loss"));
    QCOMPARE(fo.size(), 7);
    const QJsonObject before = fo.at(2).value(QStringLiteral("keys_after")).toObject();
    bool onMaster = false, onReplica = false;
    for (auto it = before.begin(); it != before.end(); ++it) {
        onMaster = onMaster || (it.key().startsWith(QLatin1String("server 1 ")) &&
                                it.value().toObject().value(QStringLiteral("type")).toString() == "hash");
        onReplica = onReplica || it.key().startsWith(QLatin1String("server 2 "));
    }
    QVERIFY2(onMaster && !onReplica, QJsonDocument(before).toJson().constData());
    const QVector<QJsonObject> gone = eventsOf(fo.at(3), QStringLiteral("lost_in_failover"));
    QCOMPARE(gone.size(), 1);
    QCOMPARE(gone.first().value(QStringLiteral("lock")).toString(), QStringLiteral("payments"));
    QCOMPARE(gone.first().value(QStringLiteral("holder")).toString(),
             fo.at(2).value(QStringLiteral("client_id")).toString() + QStringLiteral(":1"));
    QVERIFY(eventsOf(fo.at(3), QStringLiteral("failover")).size() == 1);
    QCOMPARE(fo.at(4).value(QStringLiteral("result")).toString(), QStringLiteral("acquired"));
}

} // namespace

class TestWorkshop : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QString error;
        m_server.setNotifyKeyspaceEvents(QString());
        QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    }
    void cleanupTestCase() { m_server.stop(); }

    void shippedScenariosAreListed()
    {
        const QStringList names = Scenario::builtInNames();
        for (const char *want : {"reentrancy", "watchdog-renewal", "gc-pause-fencing", "fair-handoff", "dead-waiter",
                                 "force-unlock", "lost-unlock-message", "read-write", "fair-deadlock"})
            QVERIFY2(names.contains(QLatin1String(want)), want);
    }

    void everyShippedScenarioHoldsItsExpectations_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &n : Scenario::builtInNames())
            QTest::newRow(qPrintable(n)) << n;
    }
    void everyShippedScenarioHoldsItsExpectations()
    {
        QFETCH(QString, name);
        Scenario s;
        QString error;
        QVERIFY2(Scenario::loadBuiltIn(name, &s, &error), qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        QSignalSpy failed(&runner, &ScenarioRunner::failed);
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 0 || failed.count() > 0; }, 60000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(runner.reports().size(), s.steps.size());
        for (const StepReport &r : runner.reports())
            QVERIFY2(r.ok, qPrintable(r.toText(runner.actorOfClientId())));
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QVERIFY(runner.allExpectationsHeld());

        // Every step names its actor and its script branch (time-only steps have no actor).
        for (const StepReport &r : runner.reports()) {
            QVERIFY2(!r.branch.isEmpty(), qPrintable(r.call));
            if (WorkshopActions::find(r.action)->needsActor)
                QVERIFY2(!r.clientId.isEmpty(), qPrintable(r.call));
        }
        // One action in flight: each step started after the previous one's last reply.
        for (int i = 1; i < runner.reports().size(); ++i) {
            const StepReport &prev = runner.reports().at(i - 1), &cur = runner.reports().at(i);
            QVERIFY2(prev.startedUs <= prev.finishedUs, qPrintable(prev.call));
            QVERIFY2(prev.finishedUs <= cur.startedUs,
                     qPrintable(QStringLiteral("step %1 started before step %2 finished").arg(i + 1).arg(i)));
        }
    }

    void stepsAreBranchesOfTheScriptsWithKeysBeforeAndAfter()
    {
        Scenario s;
        QString error;
        QVERIFY2(Scenario::loadBuiltIn(QStringLiteral("reentrancy"), &s, &error), qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 0; }, 30000));
        const QVector<StepReport> &r = runner.reports();
        QVERIFY(r.at(0).branch.startsWith(QLatin1String("acquire: key absent -> HINCRBY")));
        QVERIFY(r.at(0).before.isEmpty());
        const QString fieldA = r.at(0).clientId + QStringLiteral(":1");
        QCOMPARE(r.at(0).after.value(QStringLiteral("orders")).value.toObject().value(fieldA).toInt(), 1);
        QVERIFY(r.at(1).branch.contains(QLatin1String("re-entered")));
        QCOMPARE(r.at(1).after.value(QStringLiteral("orders")).value.toObject().value(fieldA).toInt(), 2);
        QVERIFY(r.at(2).branch.startsWith(QLatin1String("acquire: held by another")));
        QVERIFY(r.at(3).branch.startsWith(QLatin1String("unlock: hold count 2 -> 1")));
        QVERIFY(r.at(4).branch.contains(QLatin1String("DEL orders, PUBLISH redisson_lock__channel:{orders} 0")));
        QCOMPARE(r.at(4).messageChannel, QStringLiteral("redisson_lock__channel:{orders}"));
        QCOMPARE(r.at(4).woke, QStringList{QStringLiteral("B")});
        QVERIFY(!r.at(4).after.contains(QStringLiteral("orders")));
        QVERIFY(StepReport::changes(r.at(4).before, r.at(4).after).value(0).startsWith(QLatin1String("- orders")));
    }

    void stepModeNeverStartsTwoActions()
    {
        Scenario s;
        QString error;
        QVERIFY2(Scenario::loadBuiltIn(QStringLiteral("fair-handoff"), &s, &error), qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy stepped(&runner, &ScenarioRunner::stepFinished);
        int expected = 0;
        while (!runner.atEnd()) {
            QVERIFY(runner.next());
            QVERIFY(runner.isBusy());
            QVERIFY2(!runner.next(), "a second step started while one was in flight");
            ++expected;
            QVERIFY(waitUntil([&] { return stepped.count() == expected; }, 10000));
            QVERIFY(!runner.isBusy());
        }
        QVERIFY(!runner.next());
        QVERIFY(runner.allExpectationsHeld());
        for (int i = 1; i < runner.reports().size(); ++i)
            QVERIFY(runner.reports().at(i - 1).finishedUs <= runner.reports().at(i).startedUs);
    }

    void expireWaitAndTryLockFollowTheTtl()
    {
        Scenario s;
        QString error;
        QVERIFY2(Scenario::parse(R"({"name": "ttl", "lock": "t", "actors": [{"name": "A"}, {"name": "B"}], "steps": [
            {"actor": "A", "action": "lock", "leaseMs": 400, "expect": {"result": "acquired"}},
            {"actor": "B", "action": "tryLock", "waitMs": 5000, "leaseMs": 400, "expect": {"result": "acquired", "holder": "B"}},
            {"actor": "B", "action": "expireWait", "ms": 5000, "expect": {"result": "expired", "exists": false}},
            {"actor": "A", "action": "unlock", "expect": {"result": "not_held"}}]})",
                                 &s, &error),
                 qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 0; }, 20000));
        for (const StepReport &r : runner.reports())
            QVERIFY2(r.ok, qPrintable(r.toText(runner.actorOfClientId())));
        // B was refused first, waited for the TTL, then took the lock.
        QVERIFY2(runner.reports().at(1).branch.contains(QLatin1String("waited")),
                 qPrintable(runner.reports().at(1).branch));
    }

    void malformedFilesAreRejectedWithLineAndReason_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("why");
        QTest::newRow("bad json") << QByteArray(kBadJson) << QStringLiteral("line 5, column")
                                  << QStringLiteral("unterminated object");
        QTest::newRow("unknown action") << QByteArray(kUnknownAction) << QStringLiteral("step 2 (line 7)")
                                        << QStringLiteral("unknown action \"teleport\"");
        QTest::newRow("unknown actor") << QByteArray(kUnknownActor) << QStringLiteral("step 3 (line 8)")
                                       << QStringLiteral("unknown actor \"Zed\"");
        QTest::newRow("not an object") << QByteArray("[1, 2]") << QStringLiteral("line 1")
                                       << QStringLiteral("JSON object");
    }
    void malformedFilesAreRejectedWithLineAndReason()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, where);
        QFETCH(QString, why);
        Scenario s;
        QString error;
        QVERIFY(!Scenario::parse(json, &s, &error));
        QVERIFY2(error.startsWith(where), qPrintable(error));
        QVERIFY2(error.contains(why), qPrintable(error));
    }

    // A scenario file is input like any other: every duration and count is checked, and the error points at the value.
    void badNumbersAreRejectedWithLineAndColumn_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("why");
        auto scenario = [](const QByteArray &actorExtra, const QByteArray &step3, const QByteArray &top = {}) {
            return QByteArray("{\"name\": \"n\", \"lock\": \"l\"" + top +
                              ",\n"
                              " \"actors\": [{\"name\": \"A\"" +
                              actorExtra +
                              "}],\n"
                              " \"steps\": [\n"
                              "  {\"actor\": \"A\", \"action\": \"lock\", \"leaseMs\": 5000},\n"
                              "  {\"action\": \"pause\", \"ms\": 10},\n"
                              "  " +
                              step3 +
                              "\n"
                              " ]}\n");
        };
        QTest::newRow("pause 2^53")
            << scenario({}, "{\"action\": \"pause\", \"ms\": 9007199254740992}")
            << QStringLiteral("step 3 (line 6, column 29): ")
            << QStringLiteral("\"ms\" must be a whole number of ms from 0 to 3600000 (one hour), not 9007199254740992");
        QTest::newRow("pause 2^32+1000") << scenario({}, "{\"action\": \"pause\", \"ms\": 4294968296}")
                                         << QStringLiteral("step 3 (line 6, column 29): ")
                                         << QStringLiteral("not 4294968296");
        QTest::newRow("pause 1e300") << scenario({}, "{\"action\": \"pause\", \"ms\": 1e300}")
                                     << QStringLiteral("step 3 (line 6, column 29): ")
                                     << QStringLiteral("\"ms\" must be");
        QTest::newRow("pause negative") << scenario({}, "{\"action\": \"pause\", \"ms\": -1}")
                                        << QStringLiteral("step 3 (line 6, column 29): ") << QStringLiteral("not -1");
        QTest::newRow("pause fraction") << scenario({}, "{\"action\": \"pause\", \"ms\": 1.5}")
                                        << QStringLiteral("step 3 (line 6, column 29): ") << QStringLiteral("not 1.5");
        QTest::newRow("pause as text") << scenario({}, "{\"action\": \"pause\", \"ms\": \"10\"}")
                                       << QStringLiteral("step 3 (line 6, column 29): ")
                                       << QStringLiteral("not \"10\"");
        QTest::newRow("lease before action")
            << scenario({}, "{\"leaseMs\": 99999999999, \"actor\": \"A\", \"action\": \"lock\"}")
            << QStringLiteral("step 3 (line 6, column 15): ") << QStringLiteral("\"leaseMs\"");
        QTest::newRow("tryLock wait") << scenario({},
                                                  "{\"actor\": \"A\", \"action\": \"tryLock\", \"waitMs\": 3600001}")
                                      << QStringLiteral("step 3 (line 6, column 49): ") << QStringLiteral("\"waitMs\"");
        QTest::newRow("watchdog") << scenario(", \"watchdogTimeoutMs\": 0", "{\"action\": \"pause\", \"ms\": 1}")
                                  << QStringLiteral("line 2, column 48: ")
                                  << QStringLiteral("\"watchdogTimeoutMs\" must be");
        QTest::newRow("threadId") << scenario(", \"threadId\": 1e300", "{\"action\": \"pause\", \"ms\": 1}")
                                  << QStringLiteral("line 2, column 39: ") << QStringLiteral("\"threadId\" must be");
        QTest::newRow("servers") << scenario({}, "{\"action\": \"pause\", \"ms\": 1}", ", \"servers\": 4294967301")
                                 << QStringLiteral("line 1, column 39: ") << QStringLiteral("\"servers\" must be");
        QTest::newRow("server") << scenario({}, "{\"action\": \"stopServer\", \"server\": 4294967297}",
                                            ", \"servers\": 3")
                                << QStringLiteral("step 3 (line 6, column 38): ")
                                << QStringLiteral("\"server\" must be a whole number from 1 to 3");
        QTest::newRow("holdCount")
            << scenario({}, "{\"actor\": \"A\", \"action\": \"lock\", \"expect\": {\"holdCount\": -1}}")
            << QStringLiteral("step 3 (line 6, column 60): ") << QStringLiteral("\"holdCount\" must be");
    }
    void badNumbersAreRejectedWithLineAndColumn()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, where);
        QFETCH(QString, why);
        Scenario s;
        QString error;
        QVERIFY(!Scenario::parse(json, &s, &error));
        QVERIFY2(error.startsWith(where), qPrintable(error));
        QVERIFY2(error.contains(why), qPrintable(error));
    }

    void cliListsTheScenarios()
    {
        const auto r = test::runProcess(cliPath(), {QStringLiteral("workshop"), QStringLiteral("list")});
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
        for (const QString &n : Scenario::builtInNames())
            QVERIFY2(r.out.contains(n.toUtf8()), qPrintable(n));
        QVERIFY(r.out.contains("Reentrancy: one thread takes the same lock twice"));

        const auto j =
            test::runProcess(cliPath(), {QStringLiteral("workshop"), QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY2(j.finished && j.exitCode == 0, qPrintable(j.describe()));
        const QList<QByteArray> lines = j.out.trimmed().split('\n');
        QCOMPARE(lines.size(), Scenario::builtInNames().size());
        for (const QByteArray &line : lines) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QVERIFY(!o.value(QStringLiteral("name")).toString().isEmpty());
            QVERIFY(!o.value(QStringLiteral("title")).toString().isEmpty());
        }
    }

    void cliRunsEveryScenarioAsJson_data() { everyShippedScenarioHoldsItsExpectations_data(); }
    void cliRunsEveryScenarioAsJson()
    {
        QFETCH(QString, name);
        const auto r = test::runProcess(
            cliPath(), {QStringLiteral("workshop"), QStringLiteral("run"), name, QStringLiteral("--json")}, 60000);
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        Scenario s;
        QString error;
        QVERIFY(Scenario::loadBuiltIn(name, &s, &error));
        QCOMPARE(lines.size(), s.steps.size() + 1);
        for (int i = 0; i < s.steps.size(); ++i) {
            QJsonParseError pe;
            const QJsonObject o = QJsonDocument::fromJson(lines.at(i), &pe).object();
            QCOMPARE(pe.error, QJsonParseError::NoError);
            QCOMPARE(o.value(QStringLiteral("index")).toInt(), i);
            for (const char *key :
                 {"actor", "action", "call", "branch", "result", "keys_before", "keys_after", "narration", "ok"})
                QVERIFY2(o.contains(QLatin1String(key)), key);
            QVERIFY(o.value(QStringLiteral("ok")).toBool());
        }
        const QJsonObject summary = QJsonDocument::fromJson(lines.last()).object();
        QCOMPARE(summary.value(QStringLiteral("scenario")).toString(), name);
        QCOMPARE(summary.value(QStringLiteral("ok")).toBool(), true);
    }

    // "events" lists the verdicts a step expects; one more than listed (a false alarm) fails it.
    void eventsExpectationFailsOnAnUnexpectedVerdict()
    {
        Scenario s;
        QString error;
        QVERIFY2(Scenario::parse(R"({"name": "t", "lock": "l", "actors": [{"name": "A", "watchdogTimeoutMs": 3000}],
            "steps": [{"actor": "A", "action": "lock", "expect": {"events": ["acquired"]}},
                      {"action": "pause", "ms": 500, "expect": {"events": []}},
                      {"actor": "A", "action": "renew", "expect": {"events": ["renewed"]}},
                      {"action": "pause", "ms": 3600, "expect": {"events": []}}]})",
                                 &s, &error),
                 qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 0; }, 20000));
        for (int i = 0; i < 3; ++i)
            QVERIFY2(runner.reports().at(i).ok, qPrintable(runner.reports().at(i).toText({})));
        // The renewed lock ran out in the pause: lease_lost, which the step did not list.
        QVERIFY(!runner.reports().at(3).ok);
        QVERIFY(runner.reports().at(3).eventTypes().contains(QStringLiteral("lease_lost")));
        QVERIFY(!Scenario::parse(R"({"name": "t", "lock": "l", "actors": [{"name": "A"}],
            "steps": [{"actor": "A", "action": "lock", "expect": {"events": "lease_lost"}}]})",
                                 &s, &error));
        QVERIFY2(error.contains(QLatin1String("\"events\" must be a list")), qPrintable(error));
    }

    void cliReportsFailedExpectationsAndMalformedFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&](const QString &file, const QByteArray &text) {
            QFile f(dir.filePath(file));
            if (!f.open(QIODevice::WriteOnly))
                return QString();
            f.write(text);
            return f.fileName();
        };
        const QString wrong = write(QStringLiteral("wrong.json"), kWrongExpectation);
        auto r = test::runProcess(
            cliPath(), {QStringLiteral("workshop"), QStringLiteral("run"), QStringLiteral("--scenario-file"), wrong});
        QVERIFY2(r.finished && r.exitCode == 3, qPrintable(r.describe()));
        QVERIFY2(r.out.contains("FAILED"), qPrintable(r.describe()));

        const QString bad = write(QStringLiteral("bad.json"), kUnknownAction);
        r = test::runProcess(
            cliPath(), {QStringLiteral("workshop"), QStringLiteral("run"), QStringLiteral("--scenario-file"), bad});
        QVERIFY2(r.finished && r.exitCode == 1, qPrintable(r.describe()));
        QVERIFY2(r.err.contains("step 2 (line 7): unknown action \"teleport\""), qPrintable(r.describe()));

        r = test::runProcess(cliPath(),
                             {QStringLiteral("workshop"), QStringLiteral("run"), QStringLiteral("no-such-scenario")});
        QVERIFY2(r.finished && r.exitCode == 1, qPrintable(r.describe()));
    }

    // A teacher talks between steps (here 4 s); with the stage clock every shipped scenario's
    // expectations hold. All scenarios run at once (each CLI has its own redis-server), so the
    // test takes as long as the longest scenario (12 steps: about a minute).
    void cliHoldsEveryScenarioAtATeachersPace()
    {
        const QStringList names = Scenario::builtInNames();
        QVector<QProcess *> runs;
        QHash<QString, QVector<QJsonObject>> steps;
        for (const QString &name : names) {
            auto *p = new QProcess(this);
            p->start(cliPath(), {QStringLiteral("workshop"), QStringLiteral("run"), name, QStringLiteral("--json"),
                                 QStringLiteral("--pace-ms"), QStringLiteral("4000")});
            runs << p;
        }
        for (int i = 0; i < runs.size(); ++i) {
            QProcess *p = runs.at(i);
            QVERIFY2(p->waitForFinished(180000), qPrintable(names.at(i)));
            const QByteArray out = p->readAllStandardOutput();
            QVERIFY2(p->exitCode() == 0, qPrintable(names.at(i) + QLatin1Char('\n') + QString::fromUtf8(out) +
                                                    QString::fromUtf8(p->readAllStandardError())));
            const QList<QByteArray> lines = out.trimmed().split('\n');
            for (const QByteArray &line : lines) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                QVERIFY2(o.value(QStringLiteral("ok")).toBool(), line.constData());
                if (o.contains(QStringLiteral("index")))
                    steps[names.at(i)] << o;
            }
            // 4 s between steps really passed: the last step started at least (steps - 1) x 4 s
            // after the first.
            const QJsonObject first = QJsonDocument::fromJson(lines.first()).object();
            const QJsonObject last = QJsonDocument::fromJson(lines.at(lines.size() - 2)).object();
            const double spanMs = (last.value(QStringLiteral("started_us")).toDouble() -
                                   first.value(QStringLiteral("started_us")).toDouble()) /
                                  1000.0;
            QVERIFY2(spanMs >= (lines.size() - 2) * 4000.0,
                     qPrintable(QStringLiteral("%1: %2 ms").arg(names.at(i)).arg(spanMs)));
            delete p;
        }
        checkLeaseSafetyVerdicts(steps);
        const auto bad = test::runProcess(cliPath(), {QStringLiteral("workshop"), QStringLiteral("run"),
                                                      QStringLiteral("reentrancy"), QStringLiteral("--pace-ms"),
                                                      QStringLiteral("-1")});
        QVERIFY2(bad.finished && bad.exitCode == 1 && bad.err.contains("--pace-ms must be between 0 and"),
                 qPrintable(bad.describe()));
    }

    // Issue 37: a script's `&` job starts with SIGINT ignored; `workshop run` still ends on SIGINT
    // (and SIGTERM, SIGHUP) at once, exit 128 + signal, and its private redis-server goes with it.
    void cliRunEndsOnSignalsEvenWhenStartedWithThemIgnored_data()
    {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGHUP") << int(SIGHUP);
    }
    void cliRunEndsOnSignalsEvenWhenStartedWithThemIgnored()
    {
        QFETCH(int, sig);
        QProcess p;
        p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"),
                                            QStringLiteral("trap '' INT TERM HUP; exec \"$0\" workshop run reentrancy "
                                                           "--pace-ms 60000"),
                                            cliPath()});
        QVERIFY(p.waitForStarted());
        QVERIFY(QTest::qWaitFor([&] { return p.readAllStandardOutput().contains("1"); }, 30000));
        const qint64 pid = p.processId();
        QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
        QVERIFY(children.open(QIODevice::ReadOnly));
        const qint64 server = children.readAll().trimmed().split(' ').value(0).toLongLong();
        QVERIFY(server > 0);
        QElapsedTimer t;
        t.start();
        ::kill(pid_t(pid), sig);
        QVERIFY2(p.waitForFinished(5000), "still running 5 s after the signal");
        QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + sig);
        auto serverGone = [server] {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(server));
            return !stat.open(QIODevice::ReadOnly) || stat.readAll().contains(") Z ");
        };
        QVERIFY2(QTest::qWaitFor(serverGone, 5000), "the workshop's redis-server outlived it");
    }

    // Between steps the lock's PTTL and the fair waiters' time to their deadlines stay where the
    // step left them, on the server itself; letting time run makes them run down again.
    void timeStandsStillBetweenSteps()
    {
        Scenario s;
        QString error;
        QVERIFY2(Scenario::loadBuiltIn(QStringLiteral("fair-handoff"), &s, &error), qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy stepped(&runner, &ScenarioRunner::stepFinished);
        for (int i = 0; i < 2; ++i) {
            QVERIFY(runner.next());
            QVERIFY(waitUntil([&] { return stepped.count() == i + 1; }, 10000));
        }
        QVERIFY(runner.isTimeHeld());
        const quint16 port = m_server.endpoint().port();
        auto pttl = [port] {
            return test::redisCli(port, {QStringLiteral("PTTL"), QStringLiteral("payments")})
                .out.trimmed()
                .toLongLong();
        };
        const qint64 ttl0 = pttl();
        const QByteArray zset0 =
            test::redisCli(port, {QStringLiteral("ZRANGE"), QStringLiteral("redisson_lock_timeout:{payments}"),
                                  QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("WITHSCORES")})
                .out;
        const qint64 now0 = QDateTime::currentMSecsSinceEpoch();
        QVERIFY2(ttl0 > 2500 && ttl0 <= 3000, qPrintable(QString::number(ttl0)));
        QTest::qWait(3500); // longer than the 3 s lease
        const qint64 ttl1 = pttl();
        QVERIFY2(ttl1 > ttl0 - 2 * StageClock::kReapplyMs, qPrintable(QStringLiteral("%1 -> %2").arg(ttl0).arg(ttl1)));
        const QByteArray zset1 =
            test::redisCli(port, {QStringLiteral("ZRANGE"), QStringLiteral("redisson_lock_timeout:{payments}"),
                                  QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("WITHSCORES")})
                .out;
        const qint64 now1 = QDateTime::currentMSecsSinceEpoch();
        // B's deadline moved with the clock: as far ahead of now as before the wait.
        const qint64 left0 = qint64(zset0.split('\n').value(1).trimmed().toDouble()) - now0;
        const qint64 left1 = qint64(zset1.split('\n').value(1).trimmed().toDouble()) - now1;
        QVERIFY2(qAbs(left1 - left0) < 3 * StageClock::kReapplyMs,
                 qPrintable(QStringLiteral("%1 -> %2").arg(left0).arg(left1)));

        // Let time run: the lease runs down in real time (and the lock expires).
        QSignalSpy held(&runner, &ScenarioRunner::timeHeldChanged);
        runner.setTimeRuns(true);
        QVERIFY(waitUntil([&] { return !runner.isTimeHeld(); }, 5000));
        QVERIFY(waitUntil([&] { return pttl() < ttl1 - 500; }, 5000));
        runner.setTimeRuns(false);
        QVERIFY(waitUntil([&] { return runner.isTimeHeld(); }, 5000));
        QVERIFY(held.count() >= 2);
    }

    // A step whose expectation did not hold does not tell the expected branch as what happened.
    void narrationOfAFailedStepSaysItDidNotHold()
    {
        Scenario s;
        QString error;
        QVERIFY2(Scenario::parse(kWrongExpectation, &s, &error), qPrintable(error));
        s.steps[1].narration = QStringLiteral("B takes the lock.");
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 0; }, 20000));
        const StepReport &r = runner.reports().at(1);
        QVERIFY(!r.ok);
        QCOMPARE(r.result, QStringLiteral("refused"));
        QVERIFY2(r.branch.startsWith(QLatin1String("acquire: held by another")), qPrintable(r.branch));
        QCOMPARE(r.narrationText(),
                 QStringLiteral("expected: B takes the lock. — did not hold: result: expected acquired, saw refused"));
        const QString text = r.toText(runner.actorOfClientId());
        QVERIFY2(!text.contains(QLatin1String("why:")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("did not hold: result: expected acquired, saw refused")),
                 qPrintable(text));
        QCOMPARE(r.toJson().value(QStringLiteral("did_not_hold")).toArray().size(), 1);
    }

    // Step back from the last step to step 2 and step on: the same results as the first time,
    // on a server restored to the keys before step 2; then a fork in another order.
    void stepBackAndStepOnGivesTheSameResults_data() { everyShippedScenarioHoldsItsExpectations_data(); }
    void stepBackAndStepOnGivesTheSameResults()
    {
        QFETCH(QString, name);
        Scenario s;
        QString error;
        QVERIFY2(Scenario::loadBuiltIn(name, &s, &error), qPrintable(error));
        ScenarioRunner runner(s, m_server.endpoint());
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 0; }, 60000));
        QVERIFY(runner.allExpectationsHeld());
        if (runner.replicates()) { // a killed master and a replica's link cannot be put back: refused
            QVERIFY(runner.rewindableSteps().isEmpty());
            QVERIFY(!runner.rewindTo(1, &error));
            QVERIFY2(error.contains(QLatin1String("cannot step back")), qPrintable(error));
            return;
        }
        const QVector<StepReport> first = runner.reports();
        QCOMPARE(runner.rewindableSteps().size(), s.steps.size());

        QSignalSpy rewound(&runner, &ScenarioRunner::rewound);
        // RedLock: step 2 stops server 2 (and step 6 server 4); going back before it starts them
        // again with their keys (compared below: server 2's copy is a hash again, not "down").
        QVERIFY2(runner.rewindTo(1, &error), qPrintable(error));
        QVERIFY(waitUntil([&] { return rewound.count() > 0; }, 10000));
        QCOMPARE(rewound.first().at(1).toString(), QString());
        QCOMPARE(runner.reports().size(), 1);
        QCOMPARE(runner.firstPending(), 1);
        QVERIFY(runner.isTimeHeld());
        runner.run();
        QVERIFY(waitUntil([&] { return finished.count() > 1; }, 60000));
        const QVector<StepReport> again = runner.reports();
        QCOMPARE(again.size(), first.size());
        // Keys before step 2 are those the first run had (TTLs as held, give or take the re-apply).
        QCOMPARE(again.at(1).before.keys(), first.at(1).before.keys());
        for (auto it = first.at(1).before.cbegin(); it != first.at(1).before.cend(); ++it) {
            const StepReport::Key k = again.at(1).before.value(it.key());
            QCOMPARE(k.type, it->type);
            if (it->type != QLatin1String("zset")) // fair deadlines moved with the clock
                QCOMPARE(k.value, it->value);
            QVERIFY2(qAbs(k.pttlMs - it->pttlMs) < 3 * StageClock::kReapplyMs, qPrintable(it.key()));
        }
        for (int i = 1; i < first.size(); ++i) {
            const StepReport &a = first.at(i), &b = again.at(i);
            QVERIFY2(b.ok, qPrintable(b.toText(runner.actorOfClientId())));
            QCOMPARE(b.index, a.index);
            QCOMPARE(b.result, a.result);
            QCOMPARE(b.woke, a.woke);
            QCOMPARE(b.messageChannel, a.messageChannel);
            QCOMPARE(b.after.keys(), a.after.keys());
            QCOMPARE(b.checks.size(), a.checks.size());
            for (int c = 0; c < a.checks.size(); ++c) {
                QCOMPARE(b.checks.at(c).held, a.checks.at(c).held);
                if (!a.checks.at(c).name.startsWith(QLatin1String("pttl"))) // a PTTL read varies by a few ms
                    QCOMPARE(b.checks.at(c).actual, a.checks.at(c).actual);
            }
        }
        if (name != QLatin1String("fair-handoff"))
            return;
        // Fork: back to before step 2, and this time C asks before B: C queues first.
        QVERIFY2(runner.rewindTo(1, &error), qPrintable(error));
        QVERIFY(waitUntil([&] { return rewound.count() > 1; }, 10000));
        QSignalSpy stepped(&runner, &ScenarioRunner::stepFinished);
        QVERIFY(runner.nextFor(QStringLiteral("C")));
        QVERIFY(waitUntil([&] { return stepped.count() > 0; }, 10000));
        QCOMPARE(runner.reports().last().index, 2);
        QCOMPARE(runner.reports().last().result, QStringLiteral("queued"));
        for (const StepReport::Check &c : runner.reports().last().checks)
            if (c.name == QLatin1String("queue"))
                QCOMPARE(c.actual, QJsonValue(QJsonArray{QStringLiteral("C")}));
        QVERIFY(!runner.reports().last().ok); // the scenario's order expected [B, C]
        QVERIFY(!runner.rewindTo(7, &error));
        QVERIFY2(error.contains(QLatin1String("has not run")), qPrintable(error));
    }

private:
    RedisServerProcess m_server;
};

QTEST_GUILESS_MAIN(TestWorkshop)
#include "tst_workshop.moc"
