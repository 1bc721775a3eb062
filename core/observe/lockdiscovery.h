#pragma once

#include <QObject>
#include <QPointer>
#include <QRegularExpression>
#include <QStringList>

namespace lockscope {

class RedisConnection;

/**
 * Finds candidate lock names with SCAN, gently: one `SCAN cursor MATCH <glob> COUNT <n> TYPE hash`
 * per step (never KEYS), each step sent only when the previous reply arrived, so the server
 * never serves more than one small step for us at a time and the event loop never blocks. A
 * second pass (`MATCH redisson_lock_queue:* TYPE list`) finds fair locks whose hash is gone
 * but whose waiter queue remains (protocol §3.1, §9); a queue `redisson_lock_queue:{x}` yields
 * both `x` and `{x}` (each when it matches the glob), since Redisson derives it for both names
 * (§14.4). Needs Redis >= 6.0 (SCAN ... TYPE).
 *
 * Candidates are names only: SnapshotReader classifies them.
 *
 * The COUNT (at most 4000) adapts to the measured round trip of each step (an upper bound of the server's
 * time for it): it aims at half of stepBudgetUs() (500 µs by default), at most doubling or
 * halving per step, between 100 and 4000. setScanCount() fixes it instead.
 */
class LockDiscovery : public QObject
{
    Q_OBJECT
public:
    explicit LockDiscovery(RedisConnection *connection, QObject *parent = nullptr);

    /** A fixed COUNT per step (turns the adaptation off). */
    void setScanCount(int count)
    {
        m_count = qMax(10, count);
        m_budgetUs = 0;
    }
    int scanCount() const { return m_count; }
    /** Round-trip time one SCAN step should take at most, in µs (0 = fixed COUNT). */
    void setStepBudgetUs(qint64 us) { m_budgetUs = qMax<qint64>(0, us); }
    /** SCAN steps sent since start(). */
    qint64 steps() const { return m_steps; }
    bool isRunning() const { return m_running; }

    /** Starts a scan for lock names matching `glob` (Redis glob; "*" = all). Restarts a running one. */
    void start(const QString &glob);
    void cancel();

    /** Redis glob match (`*`, `?`, `[...]`, backslash escapes) used to filter names client-side. */
    static QRegularExpression globToRegex(const QString &glob);

signals:
    /** Candidate lock names found by one step (no duplicates within one scan of a pass). */
    void candidatesFound(const QStringList &names);
    /** `scannedKeys`: keys the first pass visited so far (about the sum of its COUNTs; -1 once
     *  it is done and the fair-queue pass runs), `candidates` names passed on so far. */
    void progress(qint64 scannedKeys, qint64 candidates);
    /** `scannedKeys`: keys the first pass visited (about the sum of its COUNTs). */
    void finished(qint64 scannedKeys, qint64 candidates);
    void failed(const QString &error);

private:
    void step();

    QPointer<RedisConnection> m_connection;
    QString m_glob;
    QRegularExpression m_regex;
    QByteArray m_cursor = "0";
    int m_pass = 0;
    int m_count = 500;
    qint64 m_budgetUs = 500;
    qint64 m_steps = 0;
    qint64 m_examined = 0;
    int m_generation = 0;
    bool m_running = false;
    qint64 m_scanned = 0;
    qint64 m_candidates = 0;
};

} // namespace lockscope
