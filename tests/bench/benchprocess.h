#pragma once

// Child processes and /proc readings for lockscope-bench (Linux only).

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace lockscope::bench
{

/** One finished (or killed) child process run by runChild(). */
struct ChildRun {
    bool started = false;
    bool killed = false;      ///< still running at the timeout: SIGTERM, then SIGKILL 2 s later
    bool termIgnored = false; ///< killed, and SIGTERM alone did not end it within 2 s
    int exitCode = -1;        ///< exit status, or -signal
    qint64 wallMs = 0;        ///< spawn to reap
    qint64 peakRssKb = 0;     ///< wait4()'s ru_maxrss (peak resident set, KiB)
    qint64 cpuMs = 0;         ///< wait4()'s ru_utime + ru_stime (CPU time of all its threads, ms)
    QByteArray out;           ///< stdout (whole)
    QByteArray err;           ///< stderr (whole)
    QString error;            ///< why it did not start
};

/**
 * Runs `program args` (blocking; the caller's event loop does not run meanwhile), stdout and
 * stderr to temporary files, and reaps it with wait4() for its peak RSS. After `timeoutMs` it is
 * sent SIGTERM, then SIGKILL 2 s later.
 */
ChildRun runChild(const QString &program, const QStringList &args, qint64 timeoutMs);

/** A "Vm..." field of /proc/<pid>/status in KiB ("VmRSS", "VmHWM"); -1 when unreadable. */
qint64 procStatusKb(qint64 pid, const char *field);
/** utime + stime of /proc/<pid>/stat in seconds; -1 when unreadable. */
double procCpuSeconds(qint64 pid);

} // namespace lockscope::bench
