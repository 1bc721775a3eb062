#include "recordcommand.h"

#include "recording/sessionrecorder.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QTimer>

#include <memory>

namespace lockscope
{

CliCommandDescriptor RecordCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<RecordCommand>("record", "record --out FILE [--pattern GLOB] [--duration-ms N]",
                                                     "Record what is seen (JSON lines; .gz compresses).");
    d.details = QStringLiteral("Writes JSON lines (`.gz` compresses), mode 0600, until `--duration-ms` or Ctrl-C, for "
                               "`lockscope --replay` and `export`. Exit 2 when it ends while disconnected. Format: "
                               "[recordings](json.md#recordings).");
    d.options = CliCommandDescriptor::words("pattern duration-ms out client-list-budget");
    d.examples = {QStringLiteral("record --out /tmp/locks.jsonl.gz --duration-ms 60000")};
    d.check = CliCommandDescriptor::needs("out", "'record' needs --out FILE");
    return d;
}

void RecordCommand::run()
{
    auto recorder = std::make_shared<SessionRecorder>();
    QString error;
    const QJsonObject header =
        SessionRecorder::header(m_session->options().endpoint.toString(), m_session->options().pattern,
                                QStringLiteral("lockscope-cli %1").arg(QCoreApplication::applicationVersion()));
    if (!recorder->open(m_parser.value(QStringLiteral("out")), header, &error)) {
        fail(ServerError, error);
        return;
    }
    connect(m_session, &LockSession::locksUpdated, this,
            [recorder](const QVector<LockSnapshot> &c, const QStringList &r) {
                recorder->recordLocks(c, r, QDateTime::currentMSecsSinceEpoch());
            });
    connect(m_session, &LockSession::eventsOccurred, this,
            [recorder](const QVector<LockEvent> &e) { recorder->recordEvents(e); });
    auto stop = [this, recorder] {
        recorder->close();
        if (!recorder->error().isEmpty()) {
            fail(ServerError, recorder->error());
            return;
        }
        m_out << "recorded " << recorder->records() << " record(s) to " << recorder->path() << '\n';
        finish(m_signal ? 128 + m_signal : m_durationEndedDisconnected ? ServerError : Ok);
    };
    m_onInterrupt = stop; // Ctrl-C: the recording is closed whole, then exit 130 / 143
    if (m_parser.isSet(QStringLiteral("duration-ms")))
        QTimer::singleShot(m_parser.value(QStringLiteral("duration-ms")).toInt(), this, [this, stop] {
            connectedAtDurationEnd(); // exit 2 when not
            stop();
        });
    m_err << "lockscope-cli: recording to " << recorder->path() << "; Ctrl-C to stop\n";
    m_err.flush();
    m_session->start();
}

} // namespace lockscope
