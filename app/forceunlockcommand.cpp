#include "forceunlockcommand.h"

#include "text/displaytext.h"

namespace lockscope
{

CliCommandDescriptor ForceUnlockCommand::descriptor()
{
    auto d = CliCommandDescriptor::of<ForceUnlockCommand>("force-unlock", "force-unlock NAME [--yes]",
                                                          "Delete the lock and wake its waiters.");
    d.details = QStringLiteral(
        "Shows the holder, hold count, TTL and the waiters that will be woken, asks on the terminal "
        "(refuses without one unless `--yes`), then deletes the lock and publishes the unlock message in "
        "one script that first checks the confirmed state, as Redisson's forceUnlock does. A lock that "
        "is not held is not deleted; the preview says so and points to `wake`. See [the "
        "runbook](../operator-runbook.md#2-when-is-a-force-unlock-safe).");
    d.operands = {QString::fromLatin1(CliCommandDescriptor::kLockName)};
    d.options = CliCommandDescriptor::words("yes");
    d.examples = {QStringLiteral("force-unlock orders:42"),
                  QStringLiteral("force-unlock orders:42 --yes --audit-log /tmp/audit.jsonl")};
    return d;
}

void ForceUnlockCommand::run()
{
    m_session->open();
    readOne(m_name, [this](const LockSnapshot &s) {
        m_err << "Force unlock " << DisplayText::escaped(s.name) << " (" << lockKindLabel(s.kind) << "):\n";
        if (s.holders.isEmpty())
            m_err << "  holder:  none\n";
        for (const auto &h : s.holders)
            m_err << "  holder:  " << DisplayText::escaped(h.field) << "  hold count " << h.holdCount << '\n';
        m_err << "  TTL:     " << ttlText(s.pttlMs) << '\n';
        if (!s.exists) {
            // A free lock: the force-unlock script deletes nothing and so publishes nothing.
            const qint64 waiting = s.kind == LockKind::FairLock ? s.queueLength : s.subscribers;
            m_err << "  waiting: " << waiting
                  << " waiting; the lock is not held, so force unlock deletes nothing and wakes nobody";
            if (waiting > 0)
                m_err << " (to wake them: lockscope-cli wake " << DisplayText::escaped(s.name) << ")";
            m_err << '\n';
        } else if (s.kind == LockKind::FairLock)
            m_err << "  waiting: " << s.queueLength << " queued; the head waiter "
                  << (s.waiters.isEmpty() ? QStringLiteral("(none)") : s.waiters.first().field) << " will be woken\n";
        else
            m_err << "  waiting: " << s.subscribers << " client(s) will be woken by the unlock message\n";
        if (!confirm(QStringLiteral("The holder will not be told and may still think it holds the lock."),
                     s.isHeld() ? s.name : QString()))
            return;
        if (!awaitAction())
            return;
        // Deleted only if the lock is still exactly what was shown above.
        m_session->forceUnlock(m_name, s.stateFingerprint());
    });
}

} // namespace lockscope
