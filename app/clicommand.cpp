#include "clicommand.h"

#include "interruptnotifier.h"

#include "redis/redisbytes.h"
#include "text/durationtext.h"

#include <QCommandLineParser>
#include <QTimer>

#include <csignal>

namespace lockscope
{

CliCommand::CliCommand(const Context &context, QObject *parent)
    : QObject(parent), m_parser(context.parser), m_connection(context.connection), m_args(context.arguments),
      m_operands(context.operands), m_out(stdout), m_err(stderr)
{
    m_json = m_parser.isSet(QStringLiteral("json"));
}

CliCommand::~CliCommand() = default;

void CliCommand::interrupt(int sig)
{
    if (m_finished || sig <= 0)
        return;
    if (sig == SIGHUP && onHangup())
        return;
    if (m_signal == 0) {
        m_signal = sig;
        m_err << "lockscope-cli: " << InterruptNotifier::describe(sig) << '\n';
        m_err.flush();
    }
    if (m_writeSent)
        return; // a write is under way: it finishes and is audited first (awaitAction(), acquire)
    if (m_onInterrupt) {
        m_onInterrupt();
        // Whatever the command does first (release a hold) gets a second at most.
        QTimer::singleShot(1000, this, [this] {
            if (!m_writeSent)
                finish(128 + m_signal);
        });
        return;
    }
    finish(128 + sig);
}

QString CliCommand::ttlText(qint64 ms)
{
    return DurationText::ttl(ms, DurationText::Style::Seconds);
}

int CliCommand::failureCode(int code, const QString &) const
{
    return code;
}

void CliCommand::finish(int code)
{
    if (m_finished)
        return;
    m_finished = true;
    m_out.flush();
    onFinishing();
    m_err.flush();
    emit finished(code);
}

void CliCommand::fail(int code, const QString &message)
{
    code = failureCode(code, message);
    m_err << "lockscope-cli: " << RedisBytes::displayed(message) << '\n';
    finish(code);
}

bool CliCommand::usage(const QString &message, int *exitCode)
{
    m_err << "lockscope-cli: " << message << "\nRun 'lockscope-cli " << m_args.command << " --help' for usage.\n";
    m_err.flush();
    *exitCode = Usage;
    return false;
}

} // namespace lockscope
