#include "lockscopecli.h"

#include "endpoint/tlsadvicewords.h"
#include "redis/connectionerrortext.h"
#include "text/advicewords.h"

#include <QCoreApplication>

#include <sys/resource.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace
{

/** Overwrites the password of every Redis URL on the command line with '*' (same length), so
 *  `ps` and /proc/PID/cmdline no longer show it once it was read: `redis://user:PASS@host`, also
 *  in `--url=...` and in `--servers` lists. Names and other arguments are left alone. */
void scrubPasswords(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        char *arg = argv[i];
        const char *value = std::strchr(arg, '=');
        const bool option = std::strncmp(arg, "--url=", 6) == 0 || std::strncmp(arg, "--servers=", 10) == 0;
        const char *start = option ? value + 1 : arg;
        if (!option && std::strncmp(start, "redis", 5) != 0)
            continue;
        for (char *scheme = std::strstr(arg, "://"); scheme; scheme = std::strstr(scheme + 3, "://")) {
            char *userinfo = scheme + 3;
            const size_t hostPart = std::strcspn(userinfo, "/,?#");
            char *at = static_cast<char *>(std::memchr(userinfo, '@', hostPart));
            if (!at)
                continue;
            char *colon = static_cast<char *>(std::memchr(userinfo, ':', size_t(at - userinfo)));
            if (!colon)
                continue;
            std::memset(colon + 1, '*', size_t(at - colon - 1));
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    // Below a Redis on the same host in CPU priority (nice +10): on a busy box the scheduler then
    // never stops redis-server in the middle of one of our scripts to run us (SLOWLOG entries
    // of `list` on a 2-core machine came from that, not from the scripts' own cost).
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0);
    if (errno == 0 && nice < 10)
        (void)setpriority(PRIO_PROCESS, 0, 10);
    // A file size limit (ulimit -f) makes a write fail (EFBIG) instead of killing lockscope-cli
    // with SIGXFSZ: the audit log then refuses the write it would have recorded.
    std::signal(SIGXFSZ, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lockscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOCKSCOPE_VERSION));
    // Core sentences leave the "how" to the front-end: here, options and the environment.
    lockscope::ConnectionErrorText::setPasswordAdvice(
        QStringLiteral("give it with --ask-password, LOCKSCOPE_PASSWORD or in the URL"));
    lockscope::TlsAdviceWords::setNamer(&lockscope::TlsAdviceWords::cliName); // "--tls-ca FILE"
    lockscope::AdviceWords::setNamer([](lockscope::AdviceWords::Choice choice, const QString &value) {
        switch (choice) {
        case lockscope::AdviceWords::Choice::LockKind:
            return QStringLiteral("--kind %1").arg(value); // "use --kind fair"
        case lockscope::AdviceWords::Choice::WaiterWait:
            break;
        }
        return QStringLiteral("pass --wait-ms");
    });
    lockscope::LockScopeCli cli;
    int code = 0;
    const bool started = cli.start(QCoreApplication::arguments(), &code);
    // Read (QCommandLineParser keeps its own copies): the password leaves the process's argv.
    scrubPasswords(argc, argv);
    if (!started)
        return code;
    QObject::connect(
        &cli, &lockscope::LockScopeCli::finished, &app, [](int c) { QCoreApplication::exit(c); }, Qt::QueuedConnection);
    const int exitCode = QCoreApplication::exec();
#ifndef __SANITIZE_ADDRESS__ // sanitizer builds tear down, so that leaks are still reported
    if (cli.mayLeaveWithoutTeardown()) {
        // The answer is written and nothing is left to close: leave without freeing what was read
        // (freeing it costs half a second at 200k locks). Redis sees the connection close as on exit.
        std::fflush(nullptr);
        std::_Exit(exitCode);
    }
#endif
    return exitCode;
}
