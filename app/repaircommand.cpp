#include "repaircommand.h"

#include "protocol/displaytext.h"

#include <QCommandLineParser>

namespace lockscope
{

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
