#include "lockscopecli.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lockscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOCKSCOPE_VERSION));
    lockscope::LockScopeCli cli;
    int code = 0;
    if (!cli.start(QCoreApplication::arguments(), &code))
        return code;
    QObject::connect(&cli, &lockscope::LockScopeCli::finished, &app, [](int c) { QCoreApplication::exit(c); },
                     Qt::QueuedConnection);
    return QCoreApplication::exec();
}
