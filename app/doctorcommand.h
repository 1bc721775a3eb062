#pragma once

#include "clicommanddescriptor.h"
#include "sessioncommand.h"

#include "diagnose/doctorprobe.h"

namespace lockscope
{

/**
 * `lockscope-cli doctor [--pattern GLOB] [--holder ID] [--json] [--observe-ms N]
 * [--watchdog-threshold-ms N] [--waiter-threshold-ms N]`: the stuck-lock doctor (LockDoctor and
 * its probe of channels and latches) over every lock, each finding with why, evidence and a
 * command to paste, through a DoctorLoop like the dashboard's. Without --observe-ms one pass
 * (the probe beside the discovery); with it, the session watches for N ms first so the rules
 * that need history can fire. Exit 4 when a
 * finding of severity warning or worse is found, 2 when the server cannot be read.
 */
class DoctorCommand : public SessionCommand
{
    Q_OBJECT
public:
    /** Its name, synopsis, help, operands, options and examples (CliCommandTable registers it). */
    static CliCommandDescriptor descriptor();

    using SessionCommand::SessionCommand;

    bool oneShot() const override;

protected:
    void run() override;

private:
    /** Prints `findings` (--holder: those about its locks or naming it) and finishes: 4 when one
     *  is a warning or worse. `probe`: the probe's result, whose error is said first. */
    void report(QVector<LockFinding> findings, const DoctorProbe::Result &probe);
};

} // namespace lockscope
