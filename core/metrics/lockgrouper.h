#pragma once

#include <QHash>
#include <QRegularExpression>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * Maps lock names to *lock groups*, the `group` label of LockScope's metrics, so that the number
 * of series stays bounded however many locks there are: one series per lock
 * name would grow Prometheus without bound.
 *
 * - Rules (`--group 'REGEX=NAME'`, in the order given): the first whose REGEX matches the whole
 *   lock name gives NAME, in which `$1`..`$9` stand for REGEX's capture groups.
 * - No rule matches: the default rule, defaultGroup(): every UUID (8-4-4-4-12 hex digits) and
 *   every run of decimal digits becomes `*` ("orders:42" -> "orders:*",
 *   "session:5b1c...-...:lock" -> "session:*:lock").
 * - At most maxGroups() groups: once that many exist, a name of a new group goes to
 *   kOverflowGroup. Groups, once given, stay (counters of a group must not vanish).
 */
class LockGrouper
{
public:
    struct Rule {
        QRegularExpression pattern; ///< anchored: must match the whole lock name
        QString group;              ///< may refer to captures as $1..$9
    };

    /** The group of names beyond the cap. */
    static const QString kOverflowGroup;
    static constexpr int kDefaultMaxGroups = 100;

    /** Parses "REGEX=NAME" (split at the last '='). False with `*error` (a sentence naming the
     *  option value) when there is no '=', REGEX or NAME is empty, or REGEX is not a valid
     *  regular expression (Perl syntax, QRegularExpression). */
    static bool parseRule(const QString &text, Rule *rule, QString *error);
    /** The default rule: UUIDs, then digit runs, to `*`. */
    static QString defaultGroup(const QString &lockName);

    explicit LockGrouper(const QVector<Rule> &rules = {}, int maxGroups = kDefaultMaxGroups);

    /** The group index of `lockName` (index into groups()), creating its group when there is room. */
    int groupOf(const QString &lockName);
    /** The group a name would get by the rules, before the cap. */
    QString ruleGroup(const QString &lockName) const;
    const QVector<QString> &groups() const { return m_groups; }
    int maxGroups() const { return m_maxGroups; }

private:
    QVector<Rule> m_rules;
    int m_maxGroups;
    QVector<QString> m_groups;
    QHash<QString, int> m_index;
    int m_overflow = -1;
};

} // namespace lockscope
