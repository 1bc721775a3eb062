#include "clicommandtable.h"

#include "acquirecommand.h"
#include "clientscommand.h"
#include "doctorcommand.h"
#include "exportcommand.h"
#include "forceunlockcommand.h"
#include "listcommand.h"
#include "recordcommand.h"
#include "redlockcommand.h"
#include "repaircommand.h"
#include "servecommand.h"
#include "showcommand.h"
#include "watchcommand.h"
#include "workshopcommand.h"

namespace lockscope
{

const QVector<CliCommandDescriptor> &CliCommandTable::all()
{
    static const QVector<CliCommandDescriptor> commands{
        ListCommand::descriptor(),
        ShowCommand::descriptor(),
        ClientsCommand::descriptor(),
        WatchCommand::descriptor(),
        AcquireCommand::descriptor(),
        ForceUnlockCommand::descriptor(),
        DoctorCommand::descriptor(),
        RepairCommand::setTtlDescriptor(),
        RepairCommand::removeWaiterDescriptor(),
        RepairCommand::removeReaderDescriptor(),
        RepairCommand::wakeDescriptor(),
        RecordCommand::descriptor(),
        ExportCommand::descriptor(),
        RedLockCommand::descriptor(),
        WorkshopCommand::descriptor(),
        ServeCommand::descriptor(),
    };
    return commands;
}

const CliCommandDescriptor *CliCommandTable::find(const QString &name)
{
    for (const CliCommandDescriptor &d : all())
        if (d.name == name)
            return &d;
    return nullptr;
}

QStringList CliCommandTable::names()
{
    QStringList names;
    for (const CliCommandDescriptor &d : all())
        names << d.name;
    return names;
}

QStringList CliCommandTable::commandsTaking(const QString &option)
{
    QStringList commands;
    for (const CliCommandDescriptor &d : all())
        if (d.options.contains(option))
            commands << d.name;
    return commands;
}

} // namespace lockscope
