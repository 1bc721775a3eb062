#include "lockscopecli.h"

#include "protocol/advicewords.h"
#include "redis/redisconnection.h"
#include "redis/tlsadvicewords.h"

#include <QCoreApplication>

#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    // Below a Redis on the same host in CPU priority (nice +10): on a busy box the scheduler then
    // never stops redis-server in the middle of one of our scripts to run us (issue 12: SLOWLOG
    // entries of `list` on a 2-core machine came from that, not from the scripts' own cost).
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0);
    if (errno == 0 && nice < 10)
        (void)setpriority(PRIO_PROCESS, 0, 10);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lockscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOCKSCOPE_VERSION));
    // Core sentences leave the "how" to the front-end: here, options and the environment.
    lockscope::RedisConnection::setPasswordAdvice(
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
    if (!cli.start(QCoreApplication::arguments(), &code))
        return code;
    QObject::connect(
        &cli, &lockscope::LockScopeCli::finished, &app, [](int c) { QCoreApplication::exit(c); }, Qt::QueuedConnection);
    const int exitCode = QCoreApplication::exec();
#ifndef __SANITIZE_ADDRESS__ // sanitizer builds tear down, so that leaks are still reported
    if (cli.mayLeaveWithoutTeardown()) {
        // The answer is written and nothing is left to close: leave without freeing what was read
        // (issue 12: half a second at 200k locks). Redis sees the connection close as on exit.
        std::fflush(nullptr);
        std::_Exit(exitCode);
    }
#endif
    return exitCode;
}
