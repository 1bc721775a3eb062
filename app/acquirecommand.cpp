#include "acquirecommand.h"

#include "protocol/acquireplan.h"
#include "redis/redisbytes.h"
#include "text/displaytext.h"

#include "connectionoptions.h"
#include "diagnose/lockdoctor.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QTimer>

#include <memory>

namespace lockscope
{

CliCommandDescriptor AcquireCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<AcquireCommand>(
        "acquire", "acquire NAME [--kind KIND] [--lease-ms N] [--hold-ms N] [--wait-ms N] [--thread-id N]",
        "Take the lock as LockScope's Redisson client, with the client of its kind; release after "
        "--hold-ms or Ctrl-C.");
    d.details = QStringLiteral(
        "Takes the lock with the client of its kind, decided from the data re-read just before; `--kind` "
        "picks what to create for a free name (default `lock`). A kind that contradicts the data is "
        "refused (exit 3) with a sentence saying what is there. Prints `acquired NAME as FIELD (...)`, "
        "holds until `--hold-ms` or Ctrl-C, releases with the matching unlock and prints `released "
        "NAME`; both are audited. Exit 0 acquired and released, 3 refused or not acquired within "
        "`--wait-ms`, 2 server error.");
    d.operands = {QString::fromLatin1(CliCommandDescriptor::kLockName)};
    d.options = CliCommandDescriptor::words("lease-ms hold-ms wait-ms thread-id kind");
    d.examples = {QStringLiteral("acquire orders:42 --hold-ms 5000"),
                  QStringLiteral("acquire orders:42 --kind fair --wait-ms 10000 --lease-ms 30000")};
    return d;
}

void AcquireCommand::run()
{
    const qint64 lease = m_parser.value(QStringLiteral("lease-ms")).toLongLong();
    const qint64 wait = m_parser.value(QStringLiteral("wait-ms")).toLongLong();
    const qint64 thread = m_parser.value(QStringLiteral("thread-id")).toLongLong();
    const AcquireKind kind =
        m_parser.isSet(QStringLiteral("kind"))
            ? AcquirePlan::parseKind(m_parser.value(QStringLiteral("kind"))).value_or(AcquireKind::Auto)
            : AcquireKind::Auto;
    m_session->open(); // waiting acquires listen on the unlock channel
    // A watchdog renewal that fails leaves the hold at risk: the session's errorOccurred() says so
    // on stderr at once (§14.2); say it too when the renewals work again.
    connect(m_session, &LockSession::holdRecovered, this, [this](const QString &lock) {
        m_err << "lockscope-cli: the watchdog renewed " << lock << " again\n";
        m_err.flush();
    });
    // Acquire and release both go through LockSession's audited write path (re-read, the client
    // of the lock's kind, audit record), as every other write does.
    struct Hold {
        QString field;
        QString kind;
        qint64 token = -1;
        int exitCode = Ok;   ///< after the release: ServerError when an audit record was not written
        QString exitMessage; ///< with exitCode: what to say after the release
        bool releasing = false;
        qint64 acquiredAtMs = 0; ///< local epoch ms of the acquire
    };
    auto hold = std::make_shared<Hold>();
    connect(m_session, &LockSession::acquired, this,
            [hold](const QString &, const QString &field, const QString &kindName, qint64 token) {
                hold->field = field;
                hold->kind = kindName;
                hold->token = token;
                hold->acquiredAtMs = QDateTime::currentMSecsSinceEpoch();
            });
    // The release is a write: once sent, it finishes and is audited before the process exits.
    auto release = [this, thread, hold] {
        if (hold->releasing)
            return;
        hold->releasing = true;
        m_writeSent = true;
        m_session->release(m_name, thread);
    };
    // Ctrl-C / SIGTERM: release the hold first (exit 130 / 143 once released); while the acquire
    // is still waiting, nothing is held and the process ends (a hold that arrives meanwhile is
    // released at once, below).
    m_onInterrupt = [hold, release] {
        if (!hold->field.isEmpty())
            release();
    };
    auto holdUntilDone = [this, release] {
        if (m_signal) {
            release();
            return;
        }
        if (m_parser.isSet(QStringLiteral("hold-ms"))) {
            QTimer::singleShot(m_parser.value(QStringLiteral("hold-ms")).toInt(), this, release);
            return;
        }
        m_err << "holding " << DisplayText::escaped(m_name) << "; Ctrl-C to release\n";
        m_err.flush();
    };
    connect(
        m_session, &LockSession::actionFinished, this,
        [this, hold, lease, holdUntilDone, release](const QString &action, const QString &, bool ok,
                                                    const QString &message, const QString &outcome) {
            if (action == QLatin1String("acquire")) {
                if (outcome == QLatin1String("audit_failed") && !hold->field.isEmpty()) {
                    // Held, but unaudited: say so, give it back (that release is audited if it can be).
                    m_err << "lockscope-cli: " << RedisBytes::displayed(message) << "; releasing it again\n";
                    m_err.flush();
                    hold->exitCode = ServerError;
                    hold->exitMessage = QStringLiteral("the acquire of %1 has no audit record").arg(m_name);
                    release();
                    return;
                }
                if (outcome == QLatin1String("unknown") && !hold->field.isEmpty()) {
                    // The reply never came, but the re-read found the hold: the session releases it.
                    m_err << "lockscope-cli: " << RedisBytes::displayed(message) << '\n';
                    m_err.flush();
                    hold->exitCode = ServerError;
                    hold->exitMessage =
                        QStringLiteral("the acquire of %1 had no reply; its hold was released").arg(m_name);
                    hold->releasing = true;
                    m_writeSent = true;
                    return;
                }
                if (!ok) {
                    fail(outcome == QLatin1String("error") || outcome == QLatin1String("audit_failed") ||
                                 outcome == QLatin1String("unknown")
                             ? ServerError
                             : Refused,
                         message);
                    return;
                }
                const qint64 watchdogMs = m_session->watchdogTimeoutMs(m_name);
                QString how =
                    lease > 0
                        ? QStringLiteral("lease %1 ms").arg(lease)
                        : QStringLiteral("watchdog: %1 ms, renewed every %2 ms").arg(watchdogMs).arg(watchdogMs / 3);
                if (hold->kind != QLatin1String("lock"))
                    how = QStringLiteral("%1 lock, %2").arg(hold->kind, how);
                if (hold->token >= 0)
                    how += QStringLiteral(", fencing token %1").arg(hold->token);
                m_out << "acquired " << DisplayText::escaped(m_name) << " as " << DisplayText::escaped(hold->field)
                      << " (" << how << ")\n";
                m_out.flush();
                holdUntilDone();
            } else if (action == QLatin1String("release")) {
                m_writeSent = false;
                if (ok) {
                    m_out << "released " << DisplayText::escaped(m_name) << '\n';
                    m_out.flush();
                    if (hold->exitCode != Ok)
                        fail(hold->exitCode, hold->exitMessage);
                    else
                        finish(m_signal ? 128 + m_signal : Ok);
                } else {
                    // The hold stays in Redis until its lease ends: say until when, and how to free it now.
                    const qint64 leaseEndMs =
                        lease > 0 ? hold->acquiredAtMs + lease
                                  : QDateTime::currentMSecsSinceEpoch() + m_session->watchdogTimeoutMs(m_name);
                    const QString until =
                        QDateTime::fromMSecsSinceEpoch(leaseEndMs).toString(QStringLiteral("HH:mm:ss"));
                    fail(outcome == QLatin1String("refused") || outcome == QLatin1String("changed") ? Refused
                                                                                                    : ServerError,
                         QStringLiteral("release of %1 failed: %2. The lock %3 by %4 until its lease ends "
                                        "(about %5%6), and its waiters wait until then. To free it now: lockscope-cli "
                                        "force-unlock %7 %8")
                             .arg(m_name, message,
                                  outcome == QLatin1String("unknown") ? QStringLiteral("may still be held")
                                                                      : QStringLiteral("is STILL HELD"),
                                  hold->field, until,
                                  lease > 0
                                      ? QString()
                                      : QStringLiteral(", the watchdog timeout after this process stops renewing"),
                                  LockDoctor::shellQuoted(m_name),
                                  ConnectionOptions::commandArguments(m_session->options().endpoint,
                                                                      m_session->isCluster())));
                }
            }
        });
    m_session->acquire(m_name, thread, lease, wait, kind);
}

} // namespace lockscope
