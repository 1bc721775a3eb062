#include "exportcommand.h"

#include "recording/historystore.h"
#include "recording/recording.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <limits>

namespace lockscope
{

CliCommandDescriptor ExportCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<ExportCommand>("export", "export RECORDING --csv [--out-dir DIR]",
                                                     "Events and hold intervals of a recording as CSV files.");
    d.details =
        QStringLiteral("Writes `NAME-events.csv` and `NAME-holds.csv` next to the recording, or in `--out-dir`, whole "
                       "or not at all. Needs no server. Exit 3 when the recording cannot be read, 2 when the CSV files "
                       "cannot be written.");
    d.operands = {QStringLiteral("recording file")};
    d.options = CliCommandDescriptor::words("csv out-dir");
    d.examples = {QStringLiteral("export /tmp/locks.jsonl.gz --csv --out-dir /tmp/csv")};
    d.check = CliCommandDescriptor::needs("csv", "'export' needs --csv (the only format so far)");
    return d;
}

ExportCommand::ExportCommand(const Context &context, QObject *parent)
    : CliCommand(context, parent), m_recordingPath(context.arguments.name)
{
}

bool ExportCommand::begin(int *exitCode)
{
    *exitCode = run();
    m_out.flush();
    m_err.flush();
    return false; // offline: no Redis needed, done already
}

namespace
{

QString csvField(const QString &v)
{
    if (!v.contains(QLatin1Char(',')) && !v.contains(QLatin1Char('"')) && !v.contains(QLatin1Char('\n')))
        return v;
    return QLatin1Char('"') + QString(v).replace(QStringLiteral("\""), QStringLiteral("\"\"")) + QLatin1Char('"');
}

} // namespace

int ExportCommand::run()
{
    Recording rec;
    QString error;
    // First the header only: a file that is no recording is refused before any CSV is made.
    Recording::Visitor headerOnly;
    headerOnly.record = [](qint64) { return false; };
    if (!Recording::read(m_recordingPath, headerOnly, &rec, &error)) {
        m_err << "lockscope-cli: " << error << '\n';
        return Refused;
    }
    const QFileInfo info(m_recordingPath);
    const QString dir =
        m_parser.isSet(QStringLiteral("out-dir")) ? m_parser.value(QStringLiteral("out-dir")) : info.absolutePath();
    QString base = info.fileName();
    for (const char *ext : {".gz", ".jsonl", ".json"})
        if (base.endsWith(QLatin1String(ext)))
            base.chop(int(qstrlen(ext)));
    const QString eventsPath = QDir(dir).filePath(base + QStringLiteral("-events.csv"));
    const QString holdsPath = QDir(dir).filePath(base + QStringLiteral("-holds.csv"));
    QSaveFile events(eventsPath);
    QSaveFile holds(holdsPath);
    if (!events.open(QIODevice::WriteOnly) || !holds.open(QIODevice::WriteOnly)) {
        m_err << "lockscope-cli: cannot write the CSV files in " << dir << '\n';
        return ServerError;
    }
    QTextStream ev(&events);
    ev << "time_ms,lock,type,holder,detail\n";
    // Streamed: each event is written as it is read (in file order) and the hold intervals are
    // derived on the way, samples and events kept only as far as that needs: memory does not grow
    // with the file (a gzip bomb of `{}` snapshots, one line repeated a million times).
    HistoryStore::Retention bounded;
    bounded.maxAgeMs = std::numeric_limits<qint64>::max() / 4;
    bounded.maxSamplesPerLock = 2;
    bounded.maxEvents = 1000;
    bounded.maxIntervalsPerLock = bounded.maxLocks = std::numeric_limits<int>::max();
    HistoryStore history(bounded);
    int nEvents = 0;
    qint64 timeMs = 0;
    Recording::Visitor visitor;
    visitor.record = [&timeMs](qint64 t) {
        timeMs = t;
        return true;
    };
    visitor.snapshot = [&](const LockSnapshot &s) {
        history.addSnapshot(s, timeMs);
        return true;
    };
    visitor.removed = [&](const QString &name) {
        history.addRemoval(name, timeMs);
        return true;
    };
    visitor.event = [&](const LockEvent &e) {
        ev << e.timeMs << ',' << csvField(e.lock) << ',' << e.type << ',' << csvField(e.holder) << ','
           << csvField(e.detail) << '\n';
        ++nEvents;
        history.addEvents({e});
        return true;
    };
    if (!Recording::read(m_recordingPath, visitor, &rec, &error)) {
        m_err << "lockscope-cli: " << error << '\n';
        return Refused; // the CSV files are not committed
    }
    if (!rec.warning.isEmpty())
        m_err << "lockscope-cli: " << rec.warning << '\n';
    QTextStream ho(&holds);
    ho << "lock,holder,start_ms,end_ms,duration_ms,end_reason\n";
    int nHolds = 0;
    for (const auto &h : history.holds()) {
        ho << csvField(h.lock) << ',' << csvField(h.who) << ',' << h.startMs << ','
           << (h.endMs < 0 ? QString() : QString::number(h.endMs)) << ','
           << (h.endMs < 0 ? QString() : QString::number(h.endMs - h.startMs)) << ',' << h.endReason << '\n';
        ++nHolds;
    }
    ev.flush();
    ho.flush();
    if (!events.commit() || !holds.commit()) {
        m_err << "lockscope-cli: writing the CSV files failed\n";
        return ServerError;
    }
    m_out << "wrote " << nEvents << " event(s) to " << eventsPath << " and " << nHolds << " hold interval(s) to "
          << holdsPath << '\n';
    m_out.flush();
    m_err.flush();
    return Ok;
}

} // namespace lockscope
