#include "lockgrouper.h"

namespace lockscope
{

const QString LockGrouper::kOverflowGroup = QStringLiteral("(other)");

bool LockGrouper::parseRule(const QString &text, Rule *rule, QString *error)
{
    const qsizetype eq = text.lastIndexOf(QLatin1Char('='));
    if (eq < 0) {
        *error = QStringLiteral("--group needs REGEX=NAME (e.g. 'orders:(\\d+)=orders:*'), not '%1'").arg(text);
        return false;
    }
    const QString regex = text.left(eq);
    const QString name = text.mid(eq + 1);
    if (regex.isEmpty() || name.isEmpty()) {
        *error = QStringLiteral("--group needs a regular expression and a group name on either side of '=', not '%1'")
                     .arg(text);
        return false;
    }
    QRegularExpression re(QRegularExpression::anchoredPattern(regex));
    if (!re.isValid()) {
        *error = QStringLiteral("--group '%1': the regular expression is not valid: %2 (at offset %3)")
                     .arg(text, re.errorString())
                     .arg(re.patternErrorOffset());
        return false;
    }
    re.optimize();
    rule->pattern = re;
    rule->group = name;
    return true;
}

QString LockGrouper::defaultGroup(const QString &lockName)
{
    static const QRegularExpression uuid(
        QStringLiteral("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"));
    QString out;
    out.reserve(lockName.size());
    QString name = lockName;
    if (name.contains(QLatin1Char('-')))
        name.replace(uuid, QStringLiteral("*"));
    bool inDigits = false;
    for (const QChar c : name) {
        if (c >= QLatin1Char('0') && c <= QLatin1Char('9')) {
            if (!inDigits)
                out += QLatin1Char('*');
            inDigits = true;
        } else {
            out += c;
            inDigits = false;
        }
    }
    return out;
}

LockGrouper::LockGrouper(const QVector<Rule> &rules, int maxGroups) : m_rules(rules), m_maxGroups(qMax(1, maxGroups)) {}

QString LockGrouper::ruleGroup(const QString &lockName) const
{
    for (const Rule &r : m_rules) {
        const QRegularExpressionMatch m = r.pattern.match(lockName);
        if (!m.hasMatch())
            continue;
        QString group = r.group;
        for (int i = 9; i >= 1; --i) // $10 is not supported: $1 then a 0
            if (i <= m.lastCapturedIndex())
                group.replace(QStringLiteral("$%1").arg(i), m.captured(i));
        return group;
    }
    return defaultGroup(lockName);
}

int LockGrouper::groupOf(const QString &lockName)
{
    const QString group = ruleGroup(lockName);
    const auto it = m_index.constFind(group);
    if (it != m_index.cend())
        return it.value();
    if (m_groups.size() < m_maxGroups && group != kOverflowGroup) {
        m_groups.append(group);
        m_index.insert(group, int(m_groups.size()) - 1);
        return int(m_groups.size()) - 1;
    }
    if (m_overflow < 0) {
        m_groups.append(kOverflowGroup);
        m_overflow = int(m_groups.size()) - 1;
        m_index.insert(kOverflowGroup, m_overflow);
    }
    return m_overflow;
}

} // namespace lockscope
