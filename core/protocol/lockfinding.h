#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * One diagnosis of LockDoctor: what is wrong, in the operator's words, with the values read that
 * show it and what to do about it. JSON (doctor --json): `severity`, `code`, `lock`, `locks`,
 * `title`, `explanation`, `evidence` (object of values read), `action`.
 */
struct LockFinding {
    enum class Severity { Info = 0, Warning = 1, Critical = 2 };

    Severity severity = Severity::Warning;
    QString code;         ///< stable id: no_ttl, watchdog_long, fair_head_expired, fair_companions_disagree,
                          ///< waiters_without_holder, several_holders, dead_readers, lingering_latch, deadlock,
                          ///< malformed_data, holder_disconnected, not_replicated, and LeaseTracker's
    QString lock;         ///< the lock concerned (the first one for a deadlock)
    QStringList locks;    ///< every lock concerned (deadlock cycles: all locks on the cycle)
    QString title;        ///< one line
    QString explanation;  ///< why it matters, in the operator's words
    QJsonObject evidence; ///< the values read that show it
    QString action;       ///< the suggested next step

    QJsonObject toJson() const;
    /** A finding about `lock` with its stable `code` and `severity`; the caller adds the title,
     *  explanation, evidence and action. */
    static LockFinding about(const QString &lock, const QString &code, Severity severity = Severity::Warning);
    static QString severityName(Severity s);
    bool operator==(const LockFinding &o) const { return code == o.code && locks == o.locks && lock == o.lock; }
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::LockFinding)
