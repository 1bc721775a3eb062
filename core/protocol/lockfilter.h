#pragma once

#include "protocol/locksnapshot.h"

#include <QRegularExpression>
#include <QString>

namespace lockscope
{

/**
 * Which locks an operator is looking for: a lock-name glob and/or the text of a holder, thread or
 * waiter they arrived with (a client id from a stack trace, `<clientId>:<threadId>`, a thread id).
 * No I/O; shared by `lockscope-cli ... --holder ID` and the dashboard's filter, so both find the same locks.
 *
 *  - name pattern: a Redis glob as SCAN MATCH takes it (`*`, `?`, `[abc]`, `[^a]`, `[a-z]`,
 *    `\x` = x literally), matched against the whole name, case-sensitive; empty or `*` = every name.
 *  - holder text (case-insensitive): matches a field `<clientId>:<threadId>` (protocol §2.1) of a
 *    holder (incl. read-write readers, §4.1), of a fair-queue waiter or timeout-set entry (§3.1), or
 *    the owner of a faster-multilock value (§14.10), when the field starts with the text (a whole
 *    client id, a prefix of it of at least 4 characters such as its first 8 hex digits, or the whole
 *    field) or when the text is exactly the thread id. Empty = every lock.
 * A lock matches when both parts match. A snapshot whose holders were only sampled (too big to read
 * whole, LockSnapshot::sampled) matches the holder text only through what was read.
 */
class LockFilter
{
public:
    LockFilter() = default;
    LockFilter(const QString &namePattern, const QString &holderText);

    void setNamePattern(const QString &glob);
    QString namePattern() const { return m_pattern; }
    void setHolderText(const QString &text) { m_holder = text.trimmed(); }
    QString holderText() const { return m_holder; }
    /** True when it lets every lock through. */
    bool isEmpty() const { return m_holder.isEmpty() && !m_byName; }

    bool matches(const LockSnapshot &snapshot) const;
    bool matchesName(const QString &name) const;
    /** A holder/waiter field `<clientId>:<threadId>` (or any text a client wrote there). */
    bool matchesField(const QString &field) const;

    /** The anchored regular expression of a Redis glob (as SCAN MATCH and KEYS read it). */
    static QRegularExpression globToRegularExpression(const QString &glob);

private:
    QString m_pattern;
    QString m_holder;
    QRegularExpression m_nameRegex;
    bool m_byName = false; ///< false: every name
};

} // namespace lockscope
