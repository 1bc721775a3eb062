#include "connect/connectionprofilestore.h"

#include <QSettings>

#include <algorithm>

namespace lockscope
{

ConnectionProfileStore::ConnectionProfileStore() : m_owned(std::make_unique<QSettings>()), m_settings(m_owned.get()) {}

ConnectionProfileStore::ConnectionProfileStore(QSettings *settings) : m_settings(settings) {}

ConnectionProfileStore::~ConnectionProfileStore() = default;

QList<ConnectionProfile> ConnectionProfileStore::readList(const QString &array) const
{
    QList<ConnectionProfile> list;
    m_settings->beginGroup(QStringLiteral("connections"));
    const int n = m_settings->beginReadArray(array);
    for (int i = 0; i < n; ++i) {
        m_settings->setArrayIndex(i);
        ConnectionProfile p;
        p.name = m_settings->value(QStringLiteral("name")).toString();
        p.url = ConnectionProfile::stripPassword(m_settings->value(QStringLiteral("url")).toString());
        p.tlsCaFile = m_settings->value(QStringLiteral("tlsCaFile")).toString();
        p.tlsCertFile = m_settings->value(QStringLiteral("tlsCertFile")).toString();
        p.tlsKeyFile = m_settings->value(QStringLiteral("tlsKeyFile")).toString();
        p.tlsServerName = m_settings->value(QStringLiteral("tlsServerName")).toString();
        p.tlsInsecure = m_settings->value(QStringLiteral("tlsInsecure"), false).toBool();
        p.readOnly = m_settings->value(QStringLiteral("readOnly"), false).toBool();
        const QString color = m_settings->value(QStringLiteral("color")).toString();
        p.color = color.isEmpty() ? QColor() : QColor::fromString(color);
        p.passwordStorage =
            ConnectionProfile::storageFromName(m_settings->value(QStringLiteral("password")).toString());
        list << p;
    }
    m_settings->endArray();
    m_settings->endGroup();
    return list;
}

void ConnectionProfileStore::writeList(const QString &array, const QList<ConnectionProfile> &list)
{
    m_settings->beginGroup(QStringLiteral("connections"));
    m_settings->remove(array);
    m_settings->beginWriteArray(array, int(list.size()));
    for (int i = 0; i < list.size(); ++i) {
        const ConnectionProfile &p = list.at(i);
        m_settings->setArrayIndex(i);
        m_settings->setValue(QStringLiteral("name"), p.name);
        m_settings->setValue(QStringLiteral("url"), ConnectionProfile::stripPassword(p.url)); // never a password
        m_settings->setValue(QStringLiteral("tlsCaFile"), p.tlsCaFile);
        m_settings->setValue(QStringLiteral("tlsCertFile"), p.tlsCertFile);
        m_settings->setValue(QStringLiteral("tlsKeyFile"), p.tlsKeyFile);
        m_settings->setValue(QStringLiteral("tlsServerName"), p.tlsServerName);
        m_settings->setValue(QStringLiteral("tlsInsecure"), p.tlsInsecure);
        m_settings->setValue(QStringLiteral("readOnly"), p.readOnly);
        m_settings->setValue(QStringLiteral("color"), p.color.isValid() ? p.color.name() : QString());
        m_settings->setValue(QStringLiteral("password"), ConnectionProfile::storageName(p.passwordStorage));
    }
    m_settings->endArray();
    m_settings->endGroup();
    m_settings->sync();
}

QList<ConnectionProfile> ConnectionProfileStore::profiles() const
{
    QList<ConnectionProfile> list = readList(QStringLiteral("profiles"));
    std::sort(list.begin(), list.end(), [](const ConnectionProfile &a, const ConnectionProfile &b) {
        return a.name.compare(b.name, Qt::CaseInsensitive) < 0;
    });
    return list;
}

bool ConnectionProfileStore::find(const QString &name, ConnectionProfile *profile) const
{
    for (const ConnectionProfile &p : readList(QStringLiteral("profiles"))) {
        if (p.name == name) {
            if (profile)
                *profile = p;
            return true;
        }
    }
    return false;
}

bool ConnectionProfileStore::save(const ConnectionProfile &profile, const QString &previousName, QString *error)
{
    ConnectionProfile p = profile;
    p.name = p.name.trimmed();
    p.url = ConnectionProfile::stripPassword(p.url);
    if (p.name.isEmpty()) {
        if (error)
            *error = QStringLiteral("Give the connection a name to save it.");
        return false;
    }
    QList<ConnectionProfile> list = readList(QStringLiteral("profiles"));
    const QString replaced = previousName.isEmpty() ? p.name : previousName;
    for (const ConnectionProfile &other : list) {
        if (other.name == p.name && other.name != replaced) {
            if (error)
                *error = QStringLiteral("A connection called '%1' exists already: choose another name.").arg(p.name);
            return false;
        }
    }
    auto it = std::find_if(list.begin(), list.end(), [&](const ConnectionProfile &o) { return o.name == replaced; });
    if (it != list.end())
        *it = p;
    else
        list << p;
    writeList(QStringLiteral("profiles"), list);
    return true;
}

bool ConnectionProfileStore::remove(const QString &name)
{
    QList<ConnectionProfile> list = readList(QStringLiteral("profiles"));
    const auto before = list.size();
    list.removeIf([&](const ConnectionProfile &p) { return p.name == name; });
    if (list.size() == before)
        return false;
    writeList(QStringLiteral("profiles"), list);
    return true;
}

QList<ConnectionProfile> ConnectionProfileStore::recent() const
{
    return readList(QStringLiteral("recent"));
}

void ConnectionProfileStore::addRecent(const ConnectionProfile &profile)
{
    ConnectionProfile p = profile;
    p.name.clear();
    p.url = ConnectionProfile::stripPassword(p.url);
    QList<ConnectionProfile> list = readList(QStringLiteral("recent"));
    list.removeIf([&](const ConnectionProfile &o) { return o.sameConnection(p); });
    list.prepend(p);
    while (list.size() > maxRecent())
        list.removeLast();
    writeList(QStringLiteral("recent"), list);
}

} // namespace lockscope
