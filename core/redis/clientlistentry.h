#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * One connection of CLIENT LIST (Redis `CLIENT LIST`, one `key=value ...` line per connection):
 * the fields LockScope uses to say who a Redisson client id is. Times are the server's, in whole
 * seconds (`age`, `idle`). `libName` / `libVersion` come with Redis 7.2+ (empty before).
 */
struct ClientListEntry {
    qint64 id = -1;                ///< the connection id (CLIENT LIST ID, CLIENT KILL ID)
    QString address;               ///< `addr`: the client's ip:port as the server sees it
    QString localAddress;          ///< `laddr`: the server's ip:port the client connected to (Redis 6.2+)
    QString name;                  ///< `name` (CLIENT SETNAME; Redisson's clientName / connectionName)
    QString user;                  ///< `user`: the ACL user
    qint64 ageS = 0;               ///< seconds since the connection opened
    qint64 idleS = 0;              ///< seconds since its last command
    QString command;               ///< `cmd`: its last command, lower case ("evalsha", "client|list")
    QString flags;                 ///< `flags`: N normal, P pub/sub, S replica, M master, ...
    QString libName;               ///< `lib-name` (7.2+)
    QString libVersion;            ///< `lib-ver` (7.2+)
    qint64 shardSubscriptions = 0; ///< `ssub`: sharded channels it is subscribed to (7.0+)
    QString server;                ///< the master this entry was read from (set by the reader, not by Redis)

    /** The IP of `address` (brackets of IPv6 removed), or `address` itself when it has no port
     *  (a unix socket's path). */
    QString host() const;
    /** The script commands a Redisson lock operation leaves in `cmd` (eval, evalsha, their _ro
     *  forms, fcall): a connection whose last command is one of these may have sent it. */
    bool ranScript() const;
    /** A replica's or master's replication link (flags S or M), not a client. */
    bool isReplicationLink() const;

    /** address, local_address, name, user, age_s, idle_s, last_command, id, server
     *  (lib_name / lib_version when known); empty strings left out. */
    QJsonObject toJson() const;
    static ClientListEntry fromJson(const QJsonObject &o);

    /**
     * Parses CLIENT LIST's reply text (one line per connection, `key=value` separated by single
     * spaces; `name` may not contain spaces, Redis refuses them). Lines without an `id=` are
     * skipped; unknown keys are ignored. `server` is copied into each entry.
     */
    static QVector<ClientListEntry> parse(const QByteArray &text, const QString &server = QString());
};

} // namespace lockscope
