#pragma once

#include "clicommanddescriptor.h"
#include "sessioncommand.h"

#include "metrics/lockgrouper.h"
#include "metrics/webconfig.h"

#include <QCommandLineOption>
#include <QHostAddress>
#include <QList>

namespace lockscope
{

class FleetExporter;
class LockMetrics;
class MetricsServer;

/**
 * `lockscope-cli serve [--listen HOST:PORT] [--web-config FILE] [--group 'REGEX=NAME']...
 * [--max-groups N] [--max-named-findings N]`: a Prometheus exporter of the locks LockScope
 * watches (LockMetrics over a read-only LockSession, served by MetricsServer).
 *
 * Read-only by construction: prepare() sets `readOnly` on its session and refuses
 * `--enable-notifications`, and this command calls nothing that writes. It watches as the
 * dashboard does (live with keyspace notifications, else polling within --poll-budget; every
 * master of a cluster; Sentinel failovers followed) and the session's doctor runs every 2 s.
 * It keeps serving while Redis is unreachable (lockscope_up 0) and ends on SIGINT / SIGTERM
 * (exit 130 / 143) at once.
 *
 * Errors before anything runs (prepare()): --enable-notifications, a malformed --listen, --group, --max-groups or
 * --web-config (unreadable, unsupported entry, bad certificate) exits 1 (usage) with a sentence
 * naming the option; an address that cannot be bound exits 2. Nothing is written anywhere.
 */
class ServeCommand : public SessionCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    static constexpr const char *kDefaultListen = "127.0.0.1:9464";

    /** --listen, --web-config, --group, --max-groups, --max-named-findings. */
    static QList<QCommandLineOption> options();

    ServeCommand(const Context &context, QObject *parent = nullptr);
    ~ServeCommand() override;

    /** Checks the options, reads --web-config and binds the listening socket; makes the session
     *  read-only. False with `*exitCode` (1 usage, 2 cannot bind) after printing why. */
    bool prepare(LockSession::Options *options, int *exitCode) override;

protected:
    ConnectionLoss connectionLoss() const override { return ConnectionLoss::KeepServing; }
    /** Starts watching with the session and serving its metrics. */
    void run() override;
    /** Fleet mode: SIGHUP re-reads the targets (and passwords) instead of ending. */
    bool onHangup() override;

private:
    WebConfig m_webConfig;
    QVector<LockGrouper::Rule> m_rules;
    int m_maxGroups = LockGrouper::kDefaultMaxGroups;
    int m_maxNamedFindings = 20;
    FleetExporter *m_fleet = nullptr; ///< --targets: the fleet (null: one server, m_metrics)
    QHostAddress m_address;
    quint16 m_port = 0;
    LockMetrics *m_metrics = nullptr;
    MetricsServer *m_server = nullptr;
};

} // namespace lockscope
