#include "locks/actionoutcome.h"

#include "text/displaytext.h"

#include <QCoreApplication>
#include <QStringList>

namespace lockscope
{

namespace
{
QString tr(const char *text)
{
    return QCoreApplication::translate("ActionOutcome", text);
}
} // namespace

void ActionOutcome::expect(const QString &action, const LockSnapshot &before)
{
    m_before.insert(action + QLatin1Char('\n') + before.name, before);
}

QString ActionOutcome::sentence(const QString &action, const QString &lock, bool ok, const QString &outcome,
                                const QString &message)
{
    const QString key = action + QLatin1Char('\n') + lock;
    const bool known = m_before.contains(key);
    const LockSnapshot before = m_before.take(key);
    const QString said = ok && known && action == QLatin1String("force_unlock") && outcome == QLatin1String("done")
                             ? forceUnlocked(before)
                             : message;
    m_lastLock = lock;
    m_lastSentence = ok ? said : QString(); // a failure is not repeated as a success later
    return said;
}

QString ActionOutcome::forceUnlocked(const LockSnapshot &before) const
{
    QStringList holders;
    for (const LockHolder &h : before.holders)
        holders << m_names.label(h.field, DisplayText::escaped(h.field));
    const QString name = DisplayText::escaped(before.name);
    QString text = holders.isEmpty() ? tr("%1 was force-unlocked").arg(name)
                                     : tr("%1 was force-unlocked (held by %2, hold count %3)")
                                           .arg(name, holders.join(QStringLiteral(", ")))
                                           .arg(before.totalHoldCount());
    if (before.kind == LockKind::FairLock) {
        // Redisson wakes only the head of a fair queue; the others stay queued behind it.
        if (before.queueLength <= 0)
            return text + tr("; no waiter was queued");
        if (before.queueLength == 1)
            return text + tr("; 1 waiter woken");
        return text + tr("; 1 waiter woken (the head of the queue; %1 still queued)").arg(before.queueLength - 1);
    }
    // An unlock message wakes every client subscribed to the lock's channel.
    if (before.subscribers <= 0)
        return text + tr("; no waiter to wake");
    return text +
           (before.subscribers == 1
                ? tr("; 1 waiter woken")
                : tr("; %1 waiters woken (Redisson clients subscribed to the unlock channel)").arg(before.subscribers));
}

} // namespace lockscope
