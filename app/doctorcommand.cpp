#include "doctorcommand.h"

#include "connectionoptions.h"

#include "diagnose/doctorloop.h"
#include "text/displaytext.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace lockscope
{

CliCommandDescriptor DoctorCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<DoctorCommand>(
        "doctor",
        "doctor [--pattern GLOB] [--holder ID] [--json] [--observe-ms N] [--watchdog-threshold-ms N] "
        "[--waiter-threshold-ms N] [--silent-holder-threshold-ms N] [--replication-threshold-ms N]",
        "Find stuck locks, dead waiters and readers, deadlocks.");
    d.description = QStringLiteral("Exit 4 when a problem of severity warning or worse is found.");
    d.details =
        QStringLiteral("Locks without TTL, waiters without holder, dead readers, stale fair-queue heads, deadlock "
                       "cycles, orphaned unlock latches, malformed data; with `--observe-ms` also late renewals, lost "
                       "leases, waiters behind a silent holder, failover losses and regressed fencing tokens. Exit 0: "
                       "no finding of severity warning or worse; 4: at least one. Each finding's `do:` line is a "
                       "command to paste (with `--url`, never the password). Rules that need time: see [what one run "
                       "can know](../operator-runbook.md#3-what-one-doctor-run-can-and-cannot-know); every code: "
                       "[findings](findings.md).");
    d.options = CliCommandDescriptor::words(
        "pattern json observe-ms watchdog-threshold-ms waiter-threshold-ms silent-holder-threshold-ms "
        "replication-threshold-ms holder client-list-budget targets password-file");
    d.examples = {QStringLiteral("doctor"), QStringLiteral("doctor --json --observe-ms 30000")};
    d.fleet = true;
    return d;
}

bool DoctorCommand::oneShot() const
{
    // One pass, one read per lock; the history rules need --observe-ms, which watches as the
    // dashboard does.
    return m_parser.value(QStringLiteral("observe-ms")).toLongLong() <= 0;
}

void DoctorCommand::run()
{
    // The locks with their replication verdicts (not_replicated, --observe-ms: a session that watches).
    auto *loop = new DoctorLoop([this] { return m_session->locks(); }, this);
    LockDoctor::Thresholds t;
    t.watchdogHeldMs = m_parser.value(QStringLiteral("watchdog-threshold-ms")).toLongLong();
    t.waitersWithoutHolderMs = m_parser.value(QStringLiteral("waiter-threshold-ms")).toLongLong();
    t.silentHolderWaitMs = m_parser.value(QStringLiteral("silent-holder-threshold-ms")).toLongLong();
    t.replicationMs = m_parser.value(QStringLiteral("replication-threshold-ms")).toLongLong();
    loop->doctor().setThresholds(t);
    // Its "do:" commands reach this server when pasted, not the default one.
    loop->doctor().setCommandConnection(
        ConnectionOptions::commandArguments(m_session->options().endpoint, m_session->isCluster()));
    // On every master in a cluster, each for the locks it serves.
    loop->setProbe([this](DoctorLoop::ProbeDone done) { m_session->probeForDoctor(std::move(done)); });
    const qint64 observeMs = m_parser.value(QStringLiteral("observe-ms")).toLongLong();

    // The session's batches: its events carry the lease-safety verdicts (lease_lost, ...), which
    // this loop's own LeaseTracker records for its findings.
    connect(m_session, &LockSession::locksUpdated, loop, &DoctorLoop::observe);
    connect(m_session, &LockSession::eventsOccurred, loop,
            [loop](const QVector<LockEvent> &events) { (void)loop->observeEvents(events); });
    // Who the holders are (--observe-ms: followed while observing): holder_disconnected.
    connect(m_session, &LockSession::clientsUpdated, loop,
            [loop](const QVector<ClientIdentity> &clients) { loop->doctor().observeClients(clients); });
    connect(m_session, &LockSession::readFailed, this, [this](const QString &msg) { fail(ServerError, msg); });
    auto reportWith = [this](const QVector<LockFinding> &findings, const DoctorProbe::Result &r) {
        report(findings, r);
    };
    // One pass (no --observe-ms): the probe (channels, latch SCAN) does not depend on the locks, so
    // it runs beside the discovery instead of after it, so on a big
    // keyspace it costs the slower of the two, not their sum; the report waits for both.
    struct EarlyProbe {
        bool started = false;
        bool done = false;
        bool locksRead = false;
        DoctorProbe::Result result;
    };
    auto early = std::make_shared<EarlyProbe>();
    auto reportEarly = [loop, early, reportWith] {
        loop->absorb(early->result);
        reportWith(loop->diagnose(), early->result);
    };
    if (observeMs <= 0) {
        connect(m_session, &LockSession::discoveryProgress, this, [this, early, reportEarly] {
            if (early->started)
                return; // connected and scanning: start the probe once
            early->started = true;
            m_session->probeForDoctor([early, reportEarly](const DoctorProbe::Result &r) {
                early->done = true;
                early->result = r;
                if (early->locksRead)
                    reportEarly();
            });
        });
    }
    bool first = true;
    auto ready = [this, loop, observeMs, first, early, reportEarly, reportWith]() mutable {
        if (!first)
            return;
        first = false;
        if (observeMs > 0) {
            m_err << "lockscope-cli: observing for " << observeMs << " ms…\n";
            m_err.flush();
        } else if (early->started) {
            early->locksRead = true;
            if (early->done)
                reportEarly();
            return;
        }
        loop->diagnoseAfter(observeMs, reportWith);
    };
    connect(m_session, &LockSession::watchIdle, this, ready);
    m_session->start();
}

void DoctorCommand::report(QVector<LockFinding> findings, const DoctorProbe::Result &r)
{
    if (!r.error.isEmpty())
        m_err << "lockscope-cli: some doctor reads failed: " << r.error << '\n';
    const LockFilter filter = holderFilter();
    if (!filter.isEmpty()) { // --holder: findings about its locks, or naming it
        const auto locks = m_session->locks();
        const qsizetype all = findings.size();
        findings.erase(std::remove_if(findings.begin(), findings.end(),
                                      [&](const LockFinding &f) {
                                          QStringList names = f.locks;
                                          names << f.lock;
                                          for (const QString &n : names)
                                              if (locks.contains(n) && filter.matches(locks.value(n)))
                                                  return false;
                                          const QString text = QString::fromUtf8(QJsonDocument(f.evidence).toJson());
                                          return !text.contains(filter.holderText(), Qt::CaseInsensitive);
                                      }),
                       findings.end());
        if (!m_json)
            m_err << "lockscope-cli: " << findings.size() << " of " << all << " findings concern --holder "
                  << DisplayText::escaped(filter.holderText()) << '\n';
    }
    int counts[3] = {0, 0, 0};
    QString heading; // the lock(s) of the findings printed last: named once, not on every line
    for (const auto &f : findings) {
        ++counts[int(f.severity)];
        if (m_json) {
            m_out << QJsonDocument(f.toJson()).toJson(QJsonDocument::Compact) << '\n';
            continue;
        }
        QStringList evidence;
        for (auto it = f.evidence.constBegin(); it != f.evidence.constEnd(); ++it) {
            const QJsonValue v = it.value();
            evidence << QStringLiteral("%1=%2").arg(
                it.key(),
                v.isString()
                    ? v.toString()
                    : QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1));
        }
        const QString concerned = f.locks.isEmpty() ? f.lock : f.locks.join(QStringLiteral(", "));
        if (concerned != heading) {
            heading = concerned;
            m_out << DisplayText::escaped(concerned) << '\n';
        }
        QString title = f.title;
        if (title.startsWith(f.lock + QLatin1Char(' ')))
            title = title.mid(f.lock.size() + 1); // "orders:42 has no TTL" under "orders:42"
        m_out << "  [" << LockFinding::severityName(f.severity).toUpper() << "] " << DisplayText::escaped(title) << '\n'
              << "    why:      " << DisplayText::escaped(f.explanation) << '\n'
              << "    evidence: " << DisplayText::escaped(evidence.join(QStringLiteral(", "))) << '\n'
              << "    do:       " << DisplayText::escaped(f.action) << "\n\n";
    }
    if (!m_json) {
        if (findings.isEmpty())
            m_out << "No problems found on " << m_session->options().endpoint.address() << " ("
                  << m_session->locks().size() << " lock(s) checked).\n";
        else
            m_out << findings.size() << " finding(s): " << counts[2] << " critical, " << counts[1] << " warning, "
                  << counts[0] << " info (" << m_session->locks().size() << " lock(s) checked).\n";
    }
    finish(LockDoctor::worstSeverity(findings) >= int(LockFinding::Severity::Warning) ? ProblemsFound : Ok);
}

} // namespace lockscope
