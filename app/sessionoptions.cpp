#include "sessionoptions.h"

#include <QCommandLineParser>

namespace lockscope
{

LockSession::Options SessionOptions::fromCommandLine(const QCommandLineParser &parser, Front front)
{
    LockSession::Options options;
    options.pattern = parser.value(QStringLiteral("pattern"));
    options.readOnly = parser.isSet(QStringLiteral("read-only"));
    options.forcePolling = parser.isSet(QStringLiteral("poll"));
    options.pollBudget = qMax(100, parser.value(QStringLiteral("poll-budget")).toInt());
    if (front == Front::Cli) {
        options.auditLogPath = parser.value(QStringLiteral("audit-log"));
        // Redis Cluster: detected from the first node (INFO cluster), or forced with --cluster.
        options.detectCluster = true;
        options.forceCluster = parser.isSet(QStringLiteral("cluster"));
        if (parser.isSet(QStringLiteral("client-list-budget"))) {
            options.clientListBudget = parser.value(QStringLiteral("client-list-budget")).toInt();
            options.trackClients = options.clientListBudget > 0;
        }
    }
    return options;
}

} // namespace lockscope
