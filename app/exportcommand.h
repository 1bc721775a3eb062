#pragma once

#include "clicommand.h"
#include "clicommanddescriptor.h"

#include <QString>

namespace lockscope
{

/**
 * `lockscope-cli export RECORDING --csv [--out-dir DIR]`, offline (no Redis): the events and the
 * hold intervals of a recording (HistoryStore over every record) as two CSV files,
 * `<name>-events.csv` and `<name>-holds.csv`, next to the recording or in --out-dir. Written
 * whole or not at all (QSaveFile). Exit 3 when the recording cannot be read, 2 when the CSV files
 * cannot be written.
 */
class ExportCommand : public CliCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    ExportCommand(const Context &context, QObject *parent = nullptr);

    /** Exports at once (no Redis): always false, with the exit code in `*exitCode`. */
    bool begin(int *exitCode) override;

private:
    /** Exports; returns the exit code. */
    int run();

    QString m_recordingPath;
};

} // namespace lockscope
