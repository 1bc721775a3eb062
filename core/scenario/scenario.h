#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * A workshop scenario: a declarative script of simulated Redisson clients (actors) acting on
 * locks one step at a time, with narration and the outcome each step must have. The file format
 * (JSON) is documented in resources/scenarios/README.md; shipped scenarios are Qt resources
 * `:/lockscope/scenarios/<name>.json`.
 *
 * A value type: parse() checks everything the runner relies on (known actions, known actors,
 * option types), so a ScenarioRunner never meets a malformed step.
 */
class Scenario
{
public:
    /** A simulated Redisson client: one client id (UUID), one thread id. */
    struct Actor {
        QString name;     ///< short name used by steps ("A", "reader-1")
        QString clientId; ///< Redisson client UUID; empty = a fresh random one per run
        qint64 threadId = 1;
        qint64 watchdogTimeoutMs = 3000; ///< lockWatchdogTimeout: the lease of lock() without one
    };

    /** One action of one actor. Numbers are ms; -1 = not given. */
    struct Step {
        int index = 0;       ///< 0-based position in `steps`
        int line = 0;        ///< 1-based line of the step's "action" key in the file, 0 = unknown
        QString actor;       ///< Actor::name (empty for "pause"/"doctor" without actor)
        QString action;      ///< one of actions()
        QString lock;        ///< lock name (default: the scenario's `lock`)
        qint64 leaseMs = -1; ///< lock/fairLock/readLock/writeLock/fencedLock/renew; -1 = watchdog timeout
        qint64 waitMs = -1;  ///< tryLock: wait time; fairLock: the wait that sets the queue deadline
        qint64 ms = -1;      ///< pause: how long; expireWait: the longest wait
        QStringList locks;   ///< doctor: the locks to examine (default: every lock of the scenario)
        int server = 0;      ///< stopServer: which RedLock server (1-based)
        QString narration;
        QJsonObject expect; ///< expectation name -> expected value (see expectations())
    };

    QString name;
    QString title;
    QString summary;
    QString lock;    ///< default lock name of the steps
    int servers = 0; ///< independent servers for redlock steps (RedLockStage), 0 = none
    QVector<Actor> actors;
    QVector<Step> steps;

    /** The longest duration a scenario may give (ms, waitMs, leaseMs, watchdogTimeoutMs): one
     *  hour. A workshop runs in minutes; the runner's timers hold at most 2^31-1 ms. */
    static constexpr qint64 kMaxDurationMs = 3600000;

    /** Every action name a step may use. */
    static QStringList actions();
    /** Every expectation name a step may use. */
    static QStringList expectations();

    /**
     * Parses a scenario file. On error returns false and sets `*error` to a sentence that starts
     * with "line L, column C:" for JSON syntax errors (from QJsonParseError's offset) and with
     * "step N (line L):" for semantic errors (unknown action, unknown actor, wrong type), L being
     * the line of that step's "action" key; the line is left out when it cannot be located (a
     * step without "action"). A bad number (every duration and count is checked: whole, in
     * range, durations at most kMaxDurationMs) is located by the line and column of its value:
     * "step 3 (line 12, column 40): ...", or "line 5, column 20: ..." outside the steps.
     */
    static bool parse(const QByteArray &json, Scenario *out, QString *error);
    /** Reads and parses `path` (a file or a `:/` resource); the error names the file. */
    static bool load(const QString &path, Scenario *out, QString *error);

    /** Names of the shipped scenarios (resource files), sorted. */
    static QStringList builtInNames();
    /** Loads a shipped scenario by name; false with `*error` when there is none. */
    static bool loadBuiltIn(const QString &name, Scenario *out, QString *error);

    /** Every lock name the steps use. */
    QStringList lockNames() const;
    const Actor *actor(const QString &name) const;
};

} // namespace lockscope
