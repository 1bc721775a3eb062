#pragma once

#include <QList>
#include <QString>

class QSslConfiguration;
class QSslError;

namespace lockscope
{

/**
 * How to secure a `rediss://` connection: which CA to trust, which client certificate to show,
 * and how strictly to check the server. A plain value type carried by RedisEndpoint and applied
 * by RedisConnection to its QSslSocket on every (re)connect, so rotated files are picked up.
 *
 * Defaults are the safe ones: the server certificate must chain to a trusted CA (`caFile` when
 * set, else the system's) and must name the host LockScope connects to (or `serverName`).
 * `insecure` turns both checks off; it exists for a sandbox with a throw-away certificate and is
 * never on unless asked for (the front end's switch, TlsAdviceWords::Word::Insecure).
 *
 * Files are PEM (DER is accepted for certificates). The private key must not be encrypted.
 */
class RedisTlsOptions
{
public:
    /** CA certificate(s) that signed the server certificate. When set, only these are trusted (as with
     *  `redis-cli --cacert`); empty = the system's CA certificates. */
    QString caFile() const { return m_caFile; }
    void setCaFile(const QString &path) { m_caFile = path; }
    /** Client certificate for servers that ask for one (`tls-auth-clients yes|optional`). */
    QString certFile() const { return m_certFile; }
    void setCertFile(const QString &path) { m_certFile = path; }
    /** Private key of the client certificate. Empty: looked for in certFile (a combined PEM). */
    QString keyFile() const { return m_keyFile; }
    void setKeyFile(const QString &path) { m_keyFile = path; }
    /** Skip certificate and name verification (encrypts, but anyone on the path can impersonate the server). */
    bool isInsecure() const { return m_insecure; }
    void setInsecure(bool on) { m_insecure = on; }
    /** Name the server certificate must carry, when it differs from the URL host (e.g. through a tunnel
     *  to 127.0.0.1). Empty = the URL host. Also sent as SNI. */
    QString serverName() const { return m_serverName; }
    void setServerName(const QString &name) { m_serverName = name; }

    /** True when nothing is set (system CAs, full verification, no client certificate). */
    bool isDefault() const;

    /**
     * Loads the files into `config`: the CA certificates to trust (when caFile is set), the client
     * certificate and key, and the peer verify mode (VerifyPeer, or VerifyNone when insecure).
     * Returns false with `*error` set to a sentence naming the file and what to do when a file
     * is missing, unreadable or not a certificate/key; `config` is then unchanged.
     */
    bool applyTo(QSslConfiguration *config, QString *error = nullptr) const;
    /** The same checks as applyTo() without a configuration: for validating options up front. */
    bool validate(QString *error = nullptr) const;

    /**
     * A sentence for failed server verification, saying what to do: an untrusted certificate
     * ("give the CA that signed it"), a name mismatch (the names it has), an expired one.
     * `address` is "host:port"; `peerName` is the name that was checked.
     */
    static QString describeErrors(const QList<QSslError> &errors, const QString &address, const QString &peerName);

    bool operator==(const RedisTlsOptions &o) const;
    bool operator!=(const RedisTlsOptions &o) const { return !(*this == o); }

private:
    QString m_caFile;
    QString m_certFile;
    QString m_keyFile;
    QString m_serverName;
    bool m_insecure = false;
};

} // namespace lockscope
