#include "clicommandtable.h"

#include "acquirecommand.h"
#include "clientscommand.h"
#include "doctorcommand.h"
#include "exportcommand.h"
#include "forceunlockcommand.h"
#include "interruptnotifier.h"
#include "listcommand.h"
#include "recordcommand.h"
#include "redlockcommand.h"
#include "repaircommand.h"
#include "servecommand.h"
#include "showcommand.h"
#include "watchcommand.h"
#include "workshopcommand.h"

#include <QCommandLineParser>
#include <QTextStream>
#include <QTimer>

#include <memory>

namespace lockscope
{

namespace
{

template <typename Command>
CliCommand *make(const QCommandLineParser &parser, const CliCommand::Arguments &args, QObject *parent)
{
    return new Command(parser, args, parent);
}

/** A usage sentence when `option` is missing. */
std::function<QString(const QCommandLineParser &)> needs(const char *option, const char *sentence)
{
    return [option, sentence](const QCommandLineParser &parser) {
        return parser.isSet(QLatin1String(option)) ? QString() : QString::fromLatin1(sentence);
    };
}

bool launchWorkshop(const CliCommandTable::Launch &l, int *exitCode)
{
    // Scenarios on their own private redis-server: no --url, no LockSession.
    auto *workshop = new WorkshopCommand(l.parser, l.parent);
    QObject::connect(workshop, &WorkshopCommand::finished, l.parent, l.finish);
    // A signal ends the run at once (its private redis-server stops with the process): 128 + sig.
    const auto finish = l.finish;
    QObject::connect(l.interrupts, &InterruptNotifier::interrupted, l.parent, [finish](int sig) {
        if (sig <= 0)
            return;
        QTextStream(stderr) << "lockscope-cli: " << InterruptNotifier::describe(sig) << '\n';
        finish(128 + sig);
    });
    return workshop->start(l.operands, exitCode);
}

bool launchExport(const CliCommandTable::Launch &l, int *exitCode)
{
    *exitCode = ExportCommand(l.parser, l.args.name).run();
    return false; // offline: no Redis needed, done already
}

bool launchRedLock(const CliCommandTable::Launch &l, int *exitCode)
{
    // Independent servers (--servers): a RedLockSession, no LockSession. It polls the signal
    // flag while holding, releases and finishes by itself; a second at most after the signal.
    auto *redlock = new RedLockCommand(
        l.parser, l.connection, [] { return InterruptNotifier::received() != 0; }, l.parent);
    QObject::connect(redlock, &RedLockCommand::finished, l.parent, l.finish);
    auto said = std::make_shared<bool>(false);
    const auto finish = l.finish;
    QObject *parent = l.parent;
    QObject::connect(l.interrupts, &InterruptNotifier::interrupted, parent, [said, finish, parent](int sig) {
        if (sig <= 0)
            return;
        if (!*said) {
            *said = true;
            QTextStream(stderr) << "lockscope-cli: " << InterruptNotifier::describe(sig) << '\n';
        }
        QTimer::singleShot(1000, parent, [finish, sig] { finish(128 + sig); });
    });
    return redlock->start(l.args.name, l.args.field, exitCode);
}

const QVector<CliCommandTable::Entry> &table()
{
    static const QVector<CliCommandTable::Entry> entries{
        {{"list"}, {}, make<ListCommand>, {}},
        {{"show"}, {}, make<ShowCommand>, {}},
        {{"clients"}, {}, make<ClientsCommand>, {}},
        {{"watch"}, {}, make<WatchCommand>, {}},
        {{"acquire"}, {}, make<AcquireCommand>, {}},
        {{"doctor"}, {}, make<DoctorCommand>, {}},
        {{"force-unlock"}, {}, make<ForceUnlockCommand>, {}},
        {{"record"}, needs("out", "'record' needs --out FILE"), make<RecordCommand>, {}},
        {{"serve"}, {}, make<ServeCommand>, {}, false, true},
        {{"set-ttl"}, needs("ttl-ms", "'set-ttl' needs --ttl-ms N"), make<RepairCommand>, {}},
        {{"remove-waiter", "remove-reader", "wake"}, {}, make<RepairCommand>, {}},
        {{"export"}, needs("csv", "'export' needs --csv (the only format so far)"), {}, launchExport},
        {{"redlock"}, {}, {}, launchRedLock},
        {{"workshop"}, {}, {}, launchWorkshop, true},
    };
    return entries;
}

} // namespace

const CliCommandTable::Entry *CliCommandTable::find(const QString &command)
{
    for (const Entry &e : table())
        if (e.names.contains(command))
            return &e;
    return nullptr;
}

} // namespace lockscope
