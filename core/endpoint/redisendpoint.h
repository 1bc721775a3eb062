#pragma once

#include "redistlsoptions.h"

#include <QList>
#include <QPair>
#include <QString>

namespace lockscope
{

/**
 * Where and how to reach one Redis server, parsed from a URL.
 *
 * Accepted forms: `redis://[user[:password]@]host[:port][/db]` (or `?db=N` instead of `/db`; both
 * must agree; any other query parameter is refused), `rediss://...` (TLS) and
 * `unix:///path/to/redis.sock[?db=N]`. Default port 6379, default db 0. A host without a scheme
 * ("127.0.0.1:6379") is refused with the URL it probably meant ("did you mean redis://...?"). When the URL carries no
 * user name, the environment variable LOCKSCOPE_USER supplies it (an ACL user; none = Redis's
 * `default` user); when it carries no password, LOCKSCOPE_PASSWORD does. The password is kept only
 * in memory: `address()` and `toString()` never contain it, and passwordSource() says where it came
 * from so that an authentication error can say what to fix without showing it.
 * For `rediss://`, tlsOptions() says which CA to trust and which client certificate to show.
 *
 * Redis Sentinel (the Lettuce convention):
 * `redis-sentinel://[user[:password]@]host[:port][,host2[:port2]...][/db]#masterName` (or
 * `?sentinelMasterId=masterName`; `rediss-sentinel://` for TLS). Sentinel ports default to 26379.
 * Such an endpoint names no server to connect to: isSentinel() is true, sentinels() lists the
 * sentinels to ask (SENTINEL GET-MASTER-ADDR-BY-NAME, see SentinelResolver) and masterAt() makes
 * the endpoint of the master they name. The same user, password and TLS settings are used for the
 * sentinels and for the master; the db applies to the master only.
 */
class RedisEndpoint
{
public:
    enum class Transport { Tcp, Tls, Unix };
    /** Where the password came from (for error messages; the password itself is never shown). */
    enum class PasswordSource { None, Url, Environment, Prompt, Keychain };

    /** Parses `url`. On failure returns an invalid endpoint and sets `*error` to a sentence that
     *  says what is wrong and shows the expected form. */
    static RedisEndpoint parse(const QString &url, QString *error = nullptr);
    static RedisEndpoint tcp(const QString &host, quint16 port, int db = 0);

    bool isValid() const { return m_valid; }
    Transport transport() const { return m_transport; }
    QString host() const { return m_host; }
    quint16 port() const { return m_port; }
    QString socketPath() const { return m_socketPath; }
    int db() const { return m_db; }
    /** ACL user name; empty = Redis's `default` user. */
    QString username() const { return m_username; }
    void setUsername(const QString &username) { m_username = username; }
    /** The user name as Redis calls it: username(), or "default". */
    QString aclUser() const;
    QString password() const { return m_password; }
    void setPassword(const QString &password, PasswordSource source = PasswordSource::Prompt);
    PasswordSource passwordSource() const { return m_passwordSource; }
    /** "the URL", "LOCKSCOPE_PASSWORD", "the password prompt", "the system keychain" or "" (none). */
    static QString describe(PasswordSource source);
    /**
     * `text` (a URL as typed, valid or not) with the password replaced by "***", for every
     * message that echoes a URL: "redis://app:***@host:6379/0". The user name stays. Anything
     * between the scheme (or the start) and the last '@' that follows a ':' is taken for a
     * password, even in a malformed URL (a typo in the port, the db or the scheme must not show
     * it); text with no '@' is returned as it is.
     */
    static QString redactUrl(const QString &text);

    /** TLS settings, used when transport() is Tls. */
    const RedisTlsOptions &tlsOptions() const { return m_tls; }
    void setTlsOptions(const RedisTlsOptions &options) { m_tls = options; }

    /** A `redis-sentinel://` endpoint: the master is found through sentinels(). */
    bool isSentinel() const { return !m_sentinelMaster.isEmpty(); }
    /** The master name after '#' (Sentinel's `sentinel monitor <name> ...`); empty otherwise. */
    QString sentinelMasterName() const { return m_sentinelMaster; }
    /** The sentinels of a sentinel endpoint, in URL order: plain endpoints (db 0) with this
     *  endpoint's transport, user, password and TLS options. Empty for other endpoints. */
    QList<RedisEndpoint> sentinels() const;
    /** The endpoint of the server at host:port with this endpoint's transport, credentials, TLS
     *  options and db; no longer a sentinel endpoint. Used for the master a sentinel names. */
    RedisEndpoint masterAt(const QString &host, quint16 port) const;

    /** "host:port" or the socket path: the pool key and what the UI shows. No credentials.
     *  For a sentinel endpoint: "'mymaster' via sentinels 10.0.0.5:26379,10.0.0.6:26379". */
    QString address() const;
    /** URL without the password, e.g. "redis://ops@10.0.0.5:6379/0" or
     *  "redis-sentinel://ops@10.0.0.5:26379,10.0.0.6:26379/0#mymaster". */
    QString toString() const;

    bool operator==(const RedisEndpoint &o) const;

private:
    static RedisEndpoint parseSentinel(const QString &text, bool tls, QString *error);
    static QString hostPort(const QString &host, quint16 port);

    bool m_valid = false;
    Transport m_transport = Transport::Tcp;
    QString m_host;
    quint16 m_port = 6379;
    QString m_socketPath;
    int m_db = 0;
    QString m_username;
    QString m_password;
    PasswordSource m_passwordSource = PasswordSource::None;
    RedisTlsOptions m_tls;
    QString m_sentinelMaster;                   ///< sentinel endpoints: the master name
    QList<QPair<QString, quint16>> m_sentinels; ///< sentinel endpoints: host, port
};

} // namespace lockscope
