#pragma once

#include "common/actornames.h"

#include "protocol/locksnapshot.h"

#include <QHash>
#include <QString>

namespace lockscope
{

/**
 * The sentence an operator reads after a write action (the session's own message, such as the
 * channel and message published, tells an operator nothing about the lock). Remembers
 * what the operator confirmed (expect()) and, when the action finishes, says what happened to
 * whom: "orders:42 was force-unlocked (held by billing-7f9c:1, hold count 2); 1 waiter woken".
 * A plain value type; GUI thread.
 */
class ActionOutcome
{
public:
    void setActorNames(const ActorNames &names) { m_names = names; }
    /** `action` ("force_unlock") is about to run on `before` (the snapshot the operator confirmed). */
    void expect(const QString &action, const LockSnapshot &before);
    /**
     * The sentence for a finished action (LockSession::actionFinished's arguments): for a force
     * unlock that deleted the lock ("done"), what was released and who was woken; otherwise the
     * session's own `message`. Forgets the expectation.
     */
    QString sentence(const QString &action, const QString &lock, bool ok, const QString &outcome,
                     const QString &message);
    /** The last successful sentence() said about `lock`; empty when the last one was about another
     *  lock or said a failure. */
    QString lastSentence(const QString &lock) const { return lock == m_lastLock ? m_lastSentence : QString(); }
    /** "orders:42 was force-unlocked (held by …, hold count N); 1 waiter woken" from `before`. */
    QString forceUnlocked(const LockSnapshot &before) const;

private:
    ActorNames m_names;
    QHash<QString, LockSnapshot> m_before; ///< key: action + '\n' + lock name
    QString m_lastLock;
    QString m_lastSentence;
};

} // namespace lockscope
