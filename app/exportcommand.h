#pragma once

#include <QString>
#include <QTextStream>

class QCommandLineParser;

namespace lockscope
{

/**
 * `lockscope-cli export RECORDING --csv [--out-dir DIR]`, offline (no Redis): the events and the
 * hold intervals of a recording (HistoryStore over every record) as two CSV files,
 * `<name>-events.csv` and `<name>-holds.csv`, next to the recording or in --out-dir. Written
 * whole or not at all (QSaveFile). Exit 3 when the recording cannot be read, 2 when the CSV files
 * cannot be written.
 */
class ExportCommand
{
public:
    ExportCommand(const QCommandLineParser &parser, const QString &recordingPath);

    /** Exports; returns the exit code (CliCommand::ExitCode). */
    int run();

private:
    const QCommandLineParser &m_parser;
    QString m_recordingPath;
    QTextStream m_out;
    QTextStream m_err;
};

} // namespace lockscope
