#pragma once

#include "connect/connectionprofile.h"

#include <QList>
#include <QString>

#include <memory>

class QSettings;

namespace lockscope
{

/**
 * Saved connection profiles and recent connections, kept in QSettings (group "connections").
 *
 * What is stored per connection: name, URL (any password stripped), TLS file paths and server
 * name, the insecure and read-only flags, the colour tag and where the password lives ("none",
 * "ask", "keychain"). Never a password: save() and addRecent() strip one from the URL first.
 * Profiles are unique by name and listed sorted by name; recent connections are unnamed, newest
 * first, at most maxRecent(), one per sameConnection().
 *
 * Not thread-safe; use from the GUI thread.
 */
class ConnectionProfileStore
{
public:
    /** The application's settings (QSettings() with the organisation and application names). */
    ConnectionProfileStore();
    /** Another settings object (tests use an INI file in a temporary directory); not owned. */
    explicit ConnectionProfileStore(QSettings *settings);
    ~ConnectionProfileStore();

    QList<ConnectionProfile> profiles() const;
    /** The profile called `name`; false when there is none. */
    bool find(const QString &name, ConnectionProfile *profile) const;
    /**
     * Adds `profile`, or replaces the one called `previousName` (a rename) or `profile.name`.
     * Returns false with `*error` set when the name is empty or taken by another profile.
     */
    bool save(const ConnectionProfile &profile, const QString &previousName = QString(), QString *error = nullptr);
    /** Removes the profile called `name`; false when there was none. */
    bool remove(const QString &name);

    QList<ConnectionProfile> recent() const;
    /** Puts `profile` (its name dropped) first in the recent list. */
    void addRecent(const ConnectionProfile &profile);
    static int maxRecent() { return 8; }

private:
    QList<ConnectionProfile> readList(const QString &array) const;
    void writeList(const QString &array, const QList<ConnectionProfile> &list);

    std::unique_ptr<QSettings> m_owned;
    QSettings *m_settings = nullptr;
};

} // namespace lockscope
