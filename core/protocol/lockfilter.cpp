#include "protocol/lockfilter.h"
#include "redis/redisbytes.h"

#include <algorithm>

namespace lockscope
{

LockFilter::LockFilter(const QString &namePattern, const QString &holderText)
{
    setNamePattern(namePattern);
    setHolderText(holderText);
}

void LockFilter::setNamePattern(const QString &glob)
{
    m_pattern = glob;
    m_byName = !glob.isEmpty() && glob != QLatin1String("*");
    m_nameRegex = m_byName ? globToRegularExpression(glob) : QRegularExpression();
}

QRegularExpression LockFilter::globToRegularExpression(const QString &glob)
{
    // Redis' stringmatchlen(): * ? [set] [^set] [a-z] and backslash escapes; everything else literal.
    QString rx;
    rx.reserve(glob.size() * 2 + 8);
    for (qsizetype i = 0; i < glob.size(); ++i) {
        const QChar c = glob.at(i);
        if (c == QLatin1Char('*')) {
            rx += QStringLiteral(".*");
        } else if (c == QLatin1Char('?')) {
            rx += QLatin1Char('.');
        } else if (c == QLatin1Char('\\') && i + 1 < glob.size()) {
            rx += QRegularExpression::escape(glob.at(++i));
        } else if (c == QLatin1Char('[')) {
            const qsizetype close = glob.indexOf(QLatin1Char(']'), i + 1);
            if (close < 0) { // Redis takes an unclosed set up to the end; literal is close enough
                rx += QRegularExpression::escape(c);
                continue;
            }
            QString set = glob.mid(i + 1, close - i - 1);
            QString out = QStringLiteral("[");
            qsizetype j = 0;
            if (set.startsWith(QLatin1Char('^'))) {
                out += QLatin1Char('^');
                j = 1;
            }
            for (; j < set.size(); ++j) {
                const QChar s = set.at(j);
                if (s == QLatin1Char('\\') && j + 1 < set.size())
                    out += QLatin1Char('\\') + set.at(++j);
                else if (s == QLatin1Char('-') && j > 0 && j + 1 < set.size())
                    out += QLatin1Char('-');
                else
                    out += QRegularExpression::escape(s);
            }
            rx += out + QLatin1Char(']');
            i = close;
        } else {
            rx += QRegularExpression::escape(c);
        }
    }
    return QRegularExpression(QRegularExpression::anchoredPattern(rx), QRegularExpression::DotMatchesEverythingOption);
}

bool LockFilter::matchesName(const QString &name) const
{
    return !m_byName || m_nameRegex.match(RedisBytes::matchable(name)).hasMatch();
}

bool LockFilter::matchesField(const QString &field) const
{
    if (m_holder.isEmpty())
        return true;
    // A prefix of at least 4 characters: shorter ones ("5") are thread ids, not client ids.
    if (m_holder.size() >= 4 && field.startsWith(m_holder, Qt::CaseInsensitive))
        return true;
    if (field.compare(m_holder, Qt::CaseInsensitive) == 0)
        return true;
    const qsizetype colon = field.lastIndexOf(QLatin1Char(':'));
    return colon >= 0 && field.mid(colon + 1) == m_holder;
}

bool LockFilter::matches(const LockSnapshot &s) const
{
    if (!matchesName(s.name))
        return false;
    if (m_holder.isEmpty())
        return true;
    auto any = [this](const auto &entries, auto fieldOf) {
        return std::any_of(entries.cbegin(), entries.cend(),
                           [this, &fieldOf](const auto &e) { return matchesField(fieldOf(e)); });
    };
    return any(s.holders, [](const LockHolder &h) { return h.field; }) ||
           any(s.waiters, [](const LockWaiter &w) { return w.field; }) ||
           any(s.timeoutSet, [](const auto &t) { return t.first; }) ||
           any(s.multiLockValues, [](const MultiLockValue &v) { return v.holder; });
}

} // namespace lockscope
