#include "repaircommand.h"

#include "text/displaytext.h"

#include <QCommandLineParser>

namespace lockscope
{

namespace
{

/** What the four repairs share: RepairCommand, a lock name (then `field`, the operand naming a
 *  waiter or a reader, when given) and --yes (the options of those that take more are named in full). */
CliCommandDescriptor repair(const char *name, const char *synopsis, const char *summary, const char *field = nullptr)
{
    auto d = CliCommandDescriptor::of<RepairCommand>(name, synopsis, summary);
    d.operands = {QString::fromLatin1(CliCommandDescriptor::kLockName)};
    if (field)
        d.operands << QString::fromLatin1(field);
    d.options = {QStringLiteral("yes")};
    return d;
}

} // namespace

CliCommandDescriptor RepairCommand::setTtlDescriptor()
{
    auto d = repair("set-ttl", "set-ttl NAME --ttl-ms N [--yes]", "Repair: give a lock without TTL one (N >= 1).");
    d.details =
        QStringLiteral("`--ttl-ms` must be at least 1 (a TTL of 0 would delete the lock without waking its waiters).");
    d.options = CliCommandDescriptor::words("yes ttl-ms");
    d.examples = {QStringLiteral("set-ttl orders:42 --ttl-ms 30000")};
    d.check = CliCommandDescriptor::needs("ttl-ms", "'set-ttl' needs --ttl-ms N");
    return d;
}

CliCommandDescriptor RepairCommand::removeWaiterDescriptor()
{
    auto d = repair("remove-waiter", "remove-waiter NAME FIELD [--wait-ms N] [--yes]",
                    "Repair: drop a stale fair-queue waiter.", "waiter field <clientId>:<threadId>");
    d.details = QStringLiteral(
        "FIELD is the waiter's `clientId:threadId`. It leaves the fair lock's queue and timeout set. "
        "Without `--wait-ms` the wait is derived from the gaps between deadlines, else Redisson's "
        "default 300000 ms (clients of 3.13.2 and older use 5000 ms). The waiters behind move up by that "
        "wait, never into the past.");
    d.options = CliCommandDescriptor::words("wait-ms yes");
    d.examples = {QStringLiteral("remove-waiter fair:1 8743c9c0-2a4e-4f6b-9d3e-1b2c3d4e5f60:57")};
    return d;
}

CliCommandDescriptor RepairCommand::removeReaderDescriptor()
{
    auto d = repair("remove-reader", "remove-reader NAME FIELD [--yes]",
                    "Repair: drop a dead reader of a read-write lock.", "reader field <clientId>:<threadId>");
    d.examples = {QStringLiteral("remove-reader rw:1 8743c9c0-2a4e-4f6b-9d3e-1b2c3d4e5f60:12 --yes")};
    return d;
}

CliCommandDescriptor RepairCommand::wakeDescriptor()
{
    auto d = repair("wake", "wake NAME [--yes]", "Repair: wake the waiters of a free lock on their kind's channel.");
    d.details = QStringLiteral("Publishes on the channel the lock's kind waits on; refuses a held lock.");
    d.examples = {QStringLiteral("wake fair:1")};
    return d;
}

void RepairCommand::run()
{
    m_session->open();
    if (m_args.command == QLatin1String("wake")) {
        if (!confirm(QStringLiteral("Publish the unlock message of %1 to wake the clients waiting for it?").arg(m_name),
                     QString()))
            return;
        if (!awaitAction())
            return;
        m_session->wake(m_name);
        return;
    }
    readOne(m_name, [this](const LockSnapshot &s) {
        if (m_args.command == QLatin1String("set-ttl")) {
            const qint64 ttl = m_parser.value(QStringLiteral("ttl-ms")).toLongLong();
            m_err << "Set a TTL of " << ttl << " ms on " << DisplayText::escaped(s.name)
                  << " (TTL now: " << ttlText(s.pttlMs)
                  << ", holders: " << (s.holders.isEmpty() ? QStringLiteral("none") : s.holderSummary()) << ")\n";
            if (!confirm(QStringLiteral("The lock then expires unless its holder renews or releases it."), QString()))
                return;
            if (!awaitAction())
                return;
            m_session->setTtl(m_name, ttl, s.stateFingerprint());
        } else if (m_args.command == QLatin1String("remove-waiter")) {
            m_err << "Remove waiter " << DisplayText::escaped(m_args.field) << " from the queue and timeout set of "
                  << DisplayText::escaped(s.name) << " (" << s.queueLength << " queued)\n";
            if (!confirm(QStringLiteral("Waiters behind it move up; if it is alive it will re-enqueue at the back."),
                         QString()))
                return;
            if (!awaitAction())
                return;
            m_session->removeWaiter(
                m_name, m_args.field,
                m_parser.isSet(QStringLiteral("wait-ms")) ? m_parser.value(QStringLiteral("wait-ms")).toLongLong() : 0);
        } else {
            m_err << "Remove dead reader " << DisplayText::escaped(m_args.field) << " from "
                  << DisplayText::escaped(s.name) << "\n";
            if (!confirm(QStringLiteral("Only done if all its rwlock_timeout keys are gone."), QString()))
                return;
            if (!awaitAction())
                return;
            m_session->removeReader(m_name, m_args.field);
        }
    });
}

} // namespace lockscope
