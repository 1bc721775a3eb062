#include "common/actornames.h"

#include <QRegularExpression>

namespace lockscope
{

QString ActorNames::nameOfField(const QString &field) const
{
    if (m_names.isEmpty())
        return QString();
    const QString name = m_names.value(field.section(QLatin1Char(':'), 0, 0));
    if (name.isEmpty())
        return QString();
    return field.endsWith(QLatin1String(":write")) ? name + QStringLiteral(" (write)") : name;
}

QString ActorNames::label(const QString &field, const QString &fallback) const
{
    const QString name = nameOfField(field);
    return name.isEmpty() ? fallback : name;
}

QString ActorNames::replaceIn(QString text) const
{
    for (auto it = m_names.cbegin(); it != m_names.cend(); ++it) {
        if (it.key().isEmpty() || !text.contains(it.key()))
            continue;
        text.replace(QRegularExpression(QRegularExpression::escape(it.key()) + QStringLiteral(":\\d+")), it.value());
        text.replace(it.key(), it.value());
    }
    return text;
}

} // namespace lockscope
