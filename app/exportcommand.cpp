#include "exportcommand.h"

#include "clicommand.h"

#include "history/historystore.h"
#include "history/recording.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <limits>

namespace lockscope
{

ExportCommand::ExportCommand(const QCommandLineParser &parser, const QString &recordingPath)
    : m_parser(parser), m_recordingPath(recordingPath), m_out(stdout), m_err(stderr)
{
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
    if (!Recording::load(m_recordingPath, &rec, &error)) {
        m_err << "lockscope-cli: " << error << '\n';
        return CliCommand::Refused;
    }
    if (!rec.warning.isEmpty())
        m_err << "lockscope-cli: " << rec.warning << '\n';
    HistoryStore::Retention keepAll;
    keepAll.maxAgeMs = std::numeric_limits<qint64>::max() / 4;
    keepAll.maxSamplesPerLock = keepAll.maxIntervalsPerLock = keepAll.maxEvents = std::numeric_limits<int>::max();
    keepAll.maxLocks = std::numeric_limits<int>::max();
    HistoryStore history(keepAll);
    for (const auto &r : rec.records) {
        for (const auto &s : r.changed)
            history.addSnapshot(s, r.timeMs);
        for (const auto &n : r.removed)
            history.addRemoval(n, r.timeMs);
        history.addEvents(r.events);
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
        return CliCommand::ServerError;
    }
    QTextStream ev(&events);
    ev << "time_ms,lock,type,holder,detail\n";
    int nEvents = 0;
    for (const auto &e : history.events()) {
        ev << e.timeMs << ',' << csvField(e.lock) << ',' << e.type << ',' << csvField(e.holder) << ','
           << csvField(e.detail) << '\n';
        ++nEvents;
    }
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
        return CliCommand::ServerError;
    }
    m_out << "wrote " << nEvents << " event(s) to " << eventsPath << " and " << nHolds << " hold interval(s) to "
          << holdsPath << '\n';
    m_out.flush();
    m_err.flush();
    return CliCommand::Ok;
}

} // namespace lockscope
