#include "locks/clientlabels.h"

#include <QSettings>
#include <QUrl>

#include <memory>

namespace lockscope
{

ClientLabels::ClientLabels(const QString &connectionKey, QSettings *settings)
    : m_key(connectionKey), m_settings(settings)
{
    inGroup([this](QSettings &s) {
        for (const QString &id : s.childKeys())
            m_labels.insert(id, s.value(id).toString());
    });
}

void ClientLabels::inGroup(const std::function<void(QSettings &)> &work) const
{
    // The settings given to the constructor, else the application's own for this call.
    std::unique_ptr<QSettings> own;
    QSettings *s = m_settings;
    if (!s) {
        own = std::make_unique<QSettings>();
        s = own.get();
    }
    s->beginGroup(group());
    work(*s);
    s->endGroup();
}

QString ClientLabels::connectionKey(const QString &address, int db)
{
    return QStringLiteral("%1/%2").arg(address).arg(db);
}

QString ClientLabels::group() const
{
    // '/' and ':' separate QSettings groups and keys: the key is percent-encoded.
    return QStringLiteral("clientLabels/") + QString::fromLatin1(QUrl::toPercentEncoding(m_key));
}

void ClientLabels::setLabel(const QString &clientId, const QString &label)
{
    const QString trimmed = label.trimmed();
    if (trimmed.isEmpty())
        m_labels.remove(clientId);
    else
        m_labels.insert(clientId, trimmed);
    inGroup([&](QSettings &s) {
        if (trimmed.isEmpty())
            s.remove(clientId);
        else
            s.setValue(clientId, trimmed);
        s.sync();
    });
}

} // namespace lockscope
