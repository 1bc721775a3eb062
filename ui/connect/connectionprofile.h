#pragma once

#include "endpoint/redisendpoint.h"

#include <QColor>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

namespace lockscope
{

/**
 * A saved way to reach one Redis, as the Connect dialog edits it: a name, the URL (never with a
 * password in it), the TLS files, whether to run read-only, a colour tag that makes the main
 * window look different for production and a sandbox, and where the password lives.
 *
 * The password itself is never part of a profile: it is in the system keychain (Keychain),
 * asked for on every connect (Ask), or not needed (None; LOCKSCOPE_PASSWORD still applies).
 */
struct ConnectionProfile {
    enum class PasswordStorage { None, Ask, Keychain };

    QString name;
    QString url;
    QString tlsCaFile;
    QString tlsCertFile;
    QString tlsKeyFile;
    QString tlsServerName;
    bool tlsInsecure = false;
    bool readOnly = false;
    QColor color; ///< invalid: no tag
    PasswordStorage passwordStorage = PasswordStorage::None;

    /** The endpoint: URL + TLS options. Invalid with `*error` set (a sentence) when the URL is wrong,
     *  holds a password, names TLS files for a plain URL, or a TLS file cannot be used. */
    RedisEndpoint endpoint(QString *error = nullptr) const;
    /** The key of this connection's password in the keychain: "<acl user>@<address>". */
    QString keychainKey() const;
    /** The name, or the URL for an unnamed (recent) connection. */
    QString displayName() const;
    /** Same server, user and TLS settings (what makes two recent connections the same). */
    bool sameConnection(const ConnectionProfile &other) const;
    bool operator==(const ConnectionProfile &other) const;

    /** `url` without its password; `*password` gets the password if one was there. */
    static QString stripPassword(const QString &url, QString *password = nullptr);
    static QString storageName(PasswordStorage storage);
    static PasswordStorage storageFromName(const QString &name);
    /** The colour tags offered in the dialog: label and colour (the first, "None", is invalid). */
    static QList<QPair<QString, QColor>> colorTags();
};

} // namespace lockscope

Q_DECLARE_METATYPE(lockscope::ConnectionProfile)
