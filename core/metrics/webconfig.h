#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

namespace lockscope
{

/**
 * `--web-config FILE` of `lockscope-cli serve`: the subset of the Prometheus exporter-toolkit
 * web configuration (https://prometheus.io/docs/prometheus/latest/configuration/https/) that
 * LockScope implements with Qt and the system's libcrypt, and nothing else:
 *
 *   tls_server_config:
 *     cert_file: server.crt          # PEM; relative paths are relative to FILE's directory
 *     key_file: server.key           # PEM, unencrypted
 *     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (default), VerifyClientCertIfGiven
 *     client_ca_file: ca.crt         # needed for the two that verify
 *     min_version: TLS12             # or TLS13 (default TLS12)
 *   basic_auth_users:
 *     prometheus: $2y$10$...         # bcrypt hashes ($2a$, $2b$, $2y$), as htpasswd -B writes them
 *
 * Every other key (http_server_config, cipher_suites, curve_preferences, max_version,
 * client_allowed_sans, prefer_server_cipher_suites, ...) is refused with a sentence naming it,
 * never silently ignored. The file is YAML restricted to what the above needs: two levels of
 * `key: value` maps by indentation, `#` comments, values bare or in single or double quotes.
 */
class WebConfig
{
public:
    enum class ClientAuth { None, VerifyIfGiven, RequireAndVerify };

    QString certFile; ///< absolute; empty = no TLS
    QString keyFile;
    QString clientCaFile;
    ClientAuth clientAuth = ClientAuth::None;
    bool tls13Only = false;
    QHash<QString, QByteArray> basicAuthUsers; ///< user -> bcrypt hash

    bool hasTls() const { return !certFile.isEmpty(); }
    bool hasBasicAuth() const { return !basicAuthUsers.isEmpty(); }

    /** Reads and checks FILE (also that the certificate, key and CA files can be read and parsed
     *  by Qt, and that every hash is a bcrypt hash). False with `*error` a sentence naming the
     *  file, the line and the entry. */
    static bool load(const QString &path, WebConfig *config, QString *error);

    /** Whether `password` matches the bcrypt `hash` (crypt_r of libcrypt/libxcrypt; comparison in
     *  constant time). False for anything that is not a bcrypt hash. */
    static bool verifyBcrypt(const QByteArray &password, const QByteArray &hash);
    /** A bcrypt hash of `password` with cost `cost` (4..31), empty on failure (tests, docs). */
    static QByteArray hashBcrypt(const QByteArray &password, int cost = 10);
};

} // namespace lockscope
