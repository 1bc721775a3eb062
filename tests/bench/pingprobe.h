#pragma once

#include <QString>
#include <QVector>

#include <atomic>
#include <thread>

namespace lockscope::bench
{

/**
 * "Another client" of the Redis under test: on its own thread and its own (blocking hiredis)
 * connection named "bench-probe", a PING every `intervalUs` µs; stop() returns every round-trip
 * time in ms. Used to see what LockScope's discovery costs the other users of Redis.
 */
class PingProbe
{
public:
    ~PingProbe() { stop(); }
    bool start(const QString &host, int port, int intervalUs, QString *error);
    QVector<double> stop();

private:
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    QVector<double> m_samplesMs;
};

/** The p-th quantile (0..1) of `samples` (sorted in place); -1 when empty. */
double quantile(QVector<double> &samples, double p);

} // namespace lockscope::bench
