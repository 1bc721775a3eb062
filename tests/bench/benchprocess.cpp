#include "benchprocess.h"

#include <QFile>
#include <QTemporaryDir>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace lockscope::bench
{

ChildRun runChild(const QString &program, const QStringList &args, qint64 timeoutMs)
{
    ChildRun run;
    QTemporaryDir dir;
    const QByteArray outPath = (dir.path() + QStringLiteral("/out")).toLocal8Bit();
    const QByteArray errPath = (dir.path() + QStringLiteral("/err")).toLocal8Bit();
    std::vector<QByteArray> storage;
    storage.push_back(program.toLocal8Bit());
    for (const QString &a : args)
        storage.push_back(a.toLocal8Bit());
    std::vector<char *> argv;
    for (auto &s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = 0;
    const auto start = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        run.error = QStringLiteral("cannot start %1: %2").arg(program, QString::fromLocal8Bit(std::strerror(rc)));
        return run;
    }
    run.started = true;
    auto elapsedMs = [&] {
        return qint64(
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
    };
    int status = 0;
    rusage usage{};
    qint64 termAt = -1;
    for (;;) {
        const pid_t r = wait4(pid, &status, WNOHANG, &usage);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            break;
        const qint64 now = elapsedMs();
        if (termAt < 0 && now > timeoutMs) {
            run.killed = true;
            ::kill(pid, SIGTERM);
            termAt = now;
        } else if (termAt >= 0 && now > termAt + 2000 && !run.termIgnored) {
            run.termIgnored = true;
            ::kill(pid, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    run.wallMs = run.killed ? timeoutMs : elapsedMs();
    run.peakRssKb = usage.ru_maxrss;
    run.cpuMs = qint64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
                qint64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? -WTERMSIG(status) : -1);
    QFile out(QString::fromLocal8Bit(outPath));
    if (out.open(QIODevice::ReadOnly))
        run.out = out.readAll();
    QFile err(QString::fromLocal8Bit(errPath));
    if (err.open(QIODevice::ReadOnly))
        run.err = err.readAll();
    return run;
}

qint64 procStatusKb(qint64 pid, const char *field)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

double procCpuSeconds(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray all = f.readAll();
    // Fields after the ")" of the command name: state is field 3, utime 14, stime 15.
    const QList<QByteArray> rest = all.mid(all.lastIndexOf(')') + 2).split(' ');
    if (rest.size() < 13)
        return -1;
    const double ticks = double(rest[11].toLongLong() + rest[12].toLongLong());
    return ticks / double(sysconf(_SC_CLK_TCK));
}

} // namespace lockscope::bench
