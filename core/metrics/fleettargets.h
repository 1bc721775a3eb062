#pragma once

#include "endpoint/redistlsoptions.h"

#include <QByteArray>
#include <QHash>
#include <QPair>
#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * The targets of `lockscope-cli serve --targets FILE` (and of `list`, `doctor`, `clients
 * --targets`): Prometheus' `file_sd` JSON or YAML, `[{"targets": ["redis://host:6379", ...], "labels":
 * {"env": "prod"}}, ...]`, each target a LockScope URL as `--url` takes it (redis://, rediss://,
 * unix://, redis-sentinel://; a user but no password), and the password file of redis_exporter,
 * JSON `{"redis://host:6379": "password", ...}` keyed by the targets as written.
 *
 * Errors are sentences naming the file and what to fix; nothing here connects anywhere.
 */
class FleetTargets
{
public:
    struct Target {
        QString uri;                                ///< as written in the file (the /scrape?target= key)
        QVector<QPair<QByteArray, QString>> labels; ///< the group's labels, sorted by name
        /** rediss:// targets: the group's `__tls_ca_file`, `__tls_cert_file`, `__tls_key_file`,
         *  `__tls_server_name` and `__tls_insecure` ("true") labels, as --tls-ca, --tls-cert,
         *  --tls-key, --tls-server-name and --tls-insecure would set them (meta labels: never exported). */
        RedisTlsOptions tls;
        /** The TLS settings as one comparable text (a change restarts the target's session). */
        QString tlsKey() const;
    };

    /** Label names the exporter's own families use: a file label may not take one of them. */
    static const QVector<QByteArray> kReservedLabels;

    /**
     * Reads `path` (file_sd: YAML when it ends in .yml or .yaml, as Prometheus decides, JSON
     * otherwise; see YamlDocument for how YAML values are read). False with `*error` when it
     * cannot be read, is not a list of objects with a `targets` array of strings, names a target twice, gives a target
     * with a password in it, or a label that Prometheus would not accept (name not
     * [a-zA-Z_][a-zA-Z0-9_]*) or that the exporter uses itself (kReservedLabels). Labels that
     * start with "__" are Prometheus' meta labels and are skipped (the __tls_* ones set `tls`).
     */
    static bool loadTargets(const QString &path, QVector<Target> *targets, QString *error);
    /**
     * Reads the password file `path`: a JSON object of target -> password. It must be readable
     * by its owner only (mode 0600 or 0400): a file others can read is refused, as ssh refuses a
     * private key (a systemd credential, in $CREDENTIALS_DIRECTORY, is private by construction).
     * The error never contains a password.
     */
    static bool loadPasswords(const QString &path, QHash<QString, QString> *passwords, QString *error);
};

} // namespace lockscope
