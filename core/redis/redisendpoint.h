#pragma once

#include <QString>

namespace lockscope {

/**
 * Where and how to reach one Redis server, parsed from a URL.
 *
 * Accepted forms: `redis://[user[:password]@]host[:port][/db]`, `rediss://...` (TLS) and
 * `unix:///path/to/redis.sock[?db=N]`. Default port 6379, default db 0. When the URL carries no
 * password, the environment variable LOCKSCOPE_PASSWORD supplies it. The password is kept only in
 * memory: `displayName()` and `toString()` never contain it.
 */
class RedisEndpoint
{
public:
    enum class Transport { Tcp, Tls, Unix };

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
    QString username() const { return m_username; }
    QString password() const { return m_password; }
    void setPassword(const QString &password) { m_password = password; }

    /** "host:port" or the socket path: the pool key and what the UI shows. No credentials. */
    QString address() const;
    /** URL without the password, e.g. "redis://ops@10.0.0.5:6379/0". */
    QString toString() const;

    bool operator==(const RedisEndpoint &o) const;

private:
    bool m_valid = false;
    Transport m_transport = Transport::Tcp;
    QString m_host;
    quint16 m_port = 6379;
    QString m_socketPath;
    int m_db = 0;
    QString m_username;
    QString m_password;
};

} // namespace lockscope
