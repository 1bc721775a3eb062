#include "confirmedwritecommand.h"

#include "interruptnotifier.h"

#include "redis/redisbytes.h"

#include <QCommandLineParser>
#include <QTextStream>

#include <cstdio>
#include <unistd.h>

namespace lockscope
{

bool ConfirmedWriteCommand::confirm(const QString &question, const QString &typedAnswer)
{
    if (m_parser.isSet(QStringLiteral("yes")))
        return true;
    if (!isatty(fileno(stdin))) {
        fail(Refused, QStringLiteral("not confirmed: pass --yes to %1 without a terminal. Nothing was changed.")
                          .arg(m_args.command));
        return false;
    }
    if (typedAnswer.isEmpty())
        m_err << question << " [y/N] ";
    else
        m_err << question << " Type the lock name to confirm: ";
    m_err.flush();
    QTextStream in(stdin);
    InterruptNotifier::beginPrompt(); // nothing was sent yet: Ctrl-C during the prompt exits at once
    const QString answer = in.readLine().trimmed();
    InterruptNotifier::endPrompt();
    const bool ok = typedAnswer.isEmpty() ? (answer.compare(QLatin1String("y"), Qt::CaseInsensitive) == 0 ||
                                             answer.compare(QLatin1String("yes"), Qt::CaseInsensitive) == 0)
                                          : (answer == typedAnswer || RedisBytes::fromDisplayed(answer) == typedAnswer);
    if (!ok)
        fail(Refused, QStringLiteral("not confirmed: nothing was changed"));
    return ok;
}

bool ConfirmedWriteCommand::awaitAction()
{
    if (m_signal) { // interrupted before the write was sent: send nothing
        finish(128 + m_signal);
        return false;
    }
    m_writeSent = true; // a signal now waits for the (audited) result, then exits 130 / 143
    connect(m_session, &LockSession::actionFinished, this,
            [this](const QString &, const QString &, bool ok, const QString &message, const QString &outcome) {
                m_writeSent = false;
                if (ok && m_signal) {
                    m_out << RedisBytes::displayed(message) << '\n';
                    finish(128 + m_signal);
                } else if (ok) {
                    m_out << RedisBytes::displayed(message) << '\n';
                    finish(Ok);
                } else if (outcome == QLatin1String("error") || outcome == QLatin1String("audit_failed") ||
                           outcome == QLatin1String("unknown")) {
                    fail(ServerError, message);
                } else {
                    fail(Refused, message);
                }
            });
    return true;
}

} // namespace lockscope
