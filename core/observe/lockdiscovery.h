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
 */
class LockDiscovery : public QObject
{
    Q_OBJECT
public:
    explicit LockDiscovery(RedisConnection *connection, QObject *parent = nullptr);

    void setScanCount(int count) { m_count = qMax(10, count); }
    bool isRunning() const { return m_running; }

    /** Starts a scan for lock names matching `glob` (Redis glob; "*" = all). Restarts a running one. */
    void start(const QString &glob);
    void cancel();

    /** Redis glob match (`*`, `?`, `[...]`, backslash escapes) used to filter names client-side. */
    static QRegularExpression globToRegex(const QString &glob);

signals:
    /** Candidate lock names found by one step (no duplicates within one scan of a pass). */
    void candidatesFound(const QStringList &names);
    /** `scannedKeys` keys returned by SCAN so far, `candidates` names passed on so far. */
    void progress(qint64 scannedKeys, qint64 candidates);
    void finished(qint64 scannedKeys, qint64 candidates);
    void failed(const QString &error);

private:
    void step();

    QPointer<RedisConnection> m_connection;
    QString m_glob;
    QRegularExpression m_regex;
    QByteArray m_cursor = "0";
    int m_pass = 0;
    int m_count = 1000;
    int m_generation = 0;
    bool m_running = false;
    qint64 m_scanned = 0;
    qint64 m_candidates = 0;
};

} // namespace lockscope
