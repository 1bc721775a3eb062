#include "webconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSslCertificate>
#include <QSslKey>
#include <QStringList>

#include <crypt.h>

#include <cstring>
#include <memory>

namespace lockscope
{

namespace
{

QString unquote(const QString &raw, bool *ok)
{
    *ok = true;
    QString v = raw.trimmed();
    if (v.size() >= 2 && ((v.startsWith(QLatin1Char('"')) && v.endsWith(QLatin1Char('"'))) ||
                          (v.startsWith(QLatin1Char('\'')) && v.endsWith(QLatin1Char('\''))))) {
        const QChar q = v.at(0);
        v = v.mid(1, v.size() - 2);
        if (q == QLatin1Char('\''))
            v.replace(QStringLiteral("''"), QStringLiteral("'"));
        else if (v.contains(QLatin1Char('\\')))
            *ok = false; // escapes in double quotes: not in this subset
        return v;
    }
    const qsizetype hash = v.indexOf(QStringLiteral(" #"));
    if (hash >= 0)
        v = v.left(hash).trimmed();
    if (v.startsWith(QLatin1Char('"')) || v.startsWith(QLatin1Char('\'')) || v.startsWith(QLatin1Char('[')) ||
        v.startsWith(QLatin1Char('{')) || v.startsWith(QLatin1Char('&')) || v.startsWith(QLatin1Char('*')) ||
        v.startsWith(QLatin1Char('|')) || v.startsWith(QLatin1Char('>')))
        *ok = false;
    return v;
}

bool isBcrypt(const QByteArray &hash)
{
    return hash.size() == 60 && (hash.startsWith("$2a$") || hash.startsWith("$2b$") || hash.startsWith("$2y$"));
}

} // namespace

bool WebConfig::verifyBcrypt(const QByteArray &password, const QByteArray &hash)
{
    if (!isBcrypt(hash) || password.contains('\0'))
        return false;
    auto data = std::make_unique<crypt_data>();
    std::memset(data.get(), 0, sizeof(crypt_data));
    const char *out = crypt_r(password.constData(), hash.constData(), data.get());
    if (!out || out[0] == '*')
        return false;
    const size_t n = std::strlen(out);
    if (n != size_t(hash.size()))
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; ++i)
        diff |= static_cast<unsigned char>(out[i] ^ hash.at(qsizetype(i)));
    return diff == 0;
}

QByteArray WebConfig::hashBcrypt(const QByteArray &password, int cost)
{
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    if (!crypt_gensalt_rn("$2b$", static_cast<unsigned long>(cost), nullptr, 0, salt, sizeof salt))
        return QByteArray();
    auto data = std::make_unique<crypt_data>();
    std::memset(data.get(), 0, sizeof(crypt_data));
    const char *out = crypt_r(password.constData(), salt, data.get());
    if (!out || out[0] == '*')
        return QByteArray();
    return QByteArray(out);
}

bool WebConfig::load(const QString &path, WebConfig *config, QString *error)
{
    // A FIFO (or socket, device) would block open() until a writer came, deaf to SIGTERM.
    if (const QFileInfo info(path); info.exists() && !info.isFile()) {
        *error =
            QStringLiteral("--web-config %1: it is not a regular file (a directory, FIFO, socket or device)").arg(path);
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        *error = QStringLiteral("--web-config %1: cannot read it: %2").arg(path, file.errorString());
        return false;
    }
    const QDir base = QFileInfo(path).absoluteDir();
    auto resolve = [&base](const QString &p) { return QDir::cleanPath(base.absoluteFilePath(p)); };
    WebConfig c;
    QString section;
    int sectionIndent = -1;
    int childIndent = -1;
    int lineNo = 0;
    QString clientAuthText;
    QString minVersion;
    auto fail = [&](const QString &what) {
        *error = QStringLiteral("--web-config %1, line %2: %3").arg(path).arg(lineNo).arg(what);
        return false;
    };
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    for (const QString &rawLine : lines) {
        ++lineNo;
        QString line = rawLine;
        if (line.trimmed().isEmpty() || line.trimmed().startsWith(QLatin1Char('#')) ||
            line.trimmed() == QLatin1String("---"))
            continue;
        if (line.contains(QLatin1Char('\t')))
            return fail(QStringLiteral("tabs are not allowed for indentation in YAML"));
        int indent = 0;
        while (indent < line.size() && line.at(indent) == QLatin1Char(' '))
            ++indent;
        const QString text = line.mid(indent);
        if (text.startsWith(QLatin1String("- ")))
            return fail(QStringLiteral("lists are not supported here ('%1')").arg(text.trimmed()));
        const qsizetype colon = text.indexOf(QLatin1Char(':'));
        if (colon <= 0)
            return fail(QStringLiteral("expected 'key: value', got '%1'").arg(text.trimmed()));
        QString k = text.left(colon).trimmed();
        if ((k.startsWith(QLatin1Char('"')) && k.endsWith(QLatin1Char('"'))) ||
            (k.startsWith(QLatin1Char('\'')) && k.endsWith(QLatin1Char('\''))))
            k = k.mid(1, k.size() - 2);
        bool ok = true;
        const QString value = unquote(text.mid(colon + 1), &ok);
        if (!ok)
            return fail(QStringLiteral("the value of '%1' uses YAML that LockScope does not read (flow collections, "
                                       "anchors, block scalars, escapes): write it plain or in single quotes")
                            .arg(k));
        if (section.isEmpty() || indent <= sectionIndent) {
            // A top-level key.
            if (indent != 0)
                return fail(QStringLiteral("unexpected indentation before '%1'").arg(k));
            if (!value.isEmpty())
                return fail(QStringLiteral("'%1' must be a map (its entries indented below it)").arg(k));
            if (k != QLatin1String("tls_server_config") && k != QLatin1String("basic_auth_users"))
                return fail(
                    QStringLiteral("'%1' is not supported by lockscope-cli serve (supported: tls_server_config, "
                                   "basic_auth_users)")
                        .arg(k));
            section = k;
            sectionIndent = indent;
            childIndent = -1;
            continue;
        }
        if (childIndent < 0)
            childIndent = indent;
        if (indent != childIndent)
            return fail(QStringLiteral("nested maps are not supported under '%1' ('%2')").arg(section, k));
        if (value.isEmpty())
            return fail(QStringLiteral("'%1' under '%2' needs a value").arg(k, section));
        if (section == QLatin1String("basic_auth_users")) {
            const QByteArray hash = value.toUtf8();
            if (!isBcrypt(hash))
                return fail(QStringLiteral("the password of user '%1' is not a bcrypt hash ($2y$..., 60 characters; "
                                           "htpasswd -nBC 10 '' | tr -d ':\\n' makes one)")
                                .arg(k));
            c.basicAuthUsers.insert(k, hash);
        } else if (k == QLatin1String("cert_file")) {
            c.certFile = resolve(value);
        } else if (k == QLatin1String("key_file")) {
            c.keyFile = resolve(value);
        } else if (k == QLatin1String("client_ca_file")) {
            c.clientCaFile = resolve(value);
        } else if (k == QLatin1String("client_auth_type")) {
            clientAuthText = value;
            if (value == QLatin1String("NoClientCert"))
                c.clientAuth = ClientAuth::None;
            else if (value == QLatin1String("VerifyClientCertIfGiven"))
                c.clientAuth = ClientAuth::VerifyIfGiven;
            else if (value == QLatin1String("RequireAndVerifyClientCert"))
                c.clientAuth = ClientAuth::RequireAndVerify;
            else
                return fail(QStringLiteral("client_auth_type '%1' is not supported (NoClientCert, "
                                           "VerifyClientCertIfGiven or RequireAndVerifyClientCert; Qt cannot ask for a "
                                           "client certificate without verifying it)")
                                .arg(value));
        } else if (k == QLatin1String("min_version")) {
            minVersion = value;
            if (value == QLatin1String("TLS13"))
                c.tls13Only = true;
            else if (value != QLatin1String("TLS12"))
                return fail(QStringLiteral("min_version '%1' is not supported (TLS12 or TLS13)").arg(value));
        } else {
            return fail(
                QStringLiteral("'%1' under tls_server_config is not supported by lockscope-cli serve "
                               "(supported: cert_file, key_file, client_auth_type, client_ca_file, min_version)")
                    .arg(k));
        }
    }
    lineNo = 0;
    auto failFile = [&](const QString &what) {
        *error = QStringLiteral("--web-config %1: %2").arg(path, what);
        return false;
    };
    if (c.certFile.isEmpty() != c.keyFile.isEmpty())
        return failFile(QStringLiteral("tls_server_config needs both cert_file and key_file"));
    if (c.certFile.isEmpty() &&
        (c.clientAuth != ClientAuth::None || !c.clientCaFile.isEmpty() || !minVersion.isEmpty()))
        return failFile(QStringLiteral("tls_server_config needs cert_file and key_file"));
    if (c.clientAuth != ClientAuth::None && c.clientCaFile.isEmpty())
        return failFile(QStringLiteral("client_auth_type %1 needs client_ca_file").arg(clientAuthText));
    auto readFile = [&](const QString &p, const char *what, QByteArray *data) {
        if (const QFileInfo info(p); info.exists() && !info.isFile()) {
            *error = QStringLiteral("--web-config %1: %2 %3 is not a regular file").arg(path, QLatin1String(what), p);
            return false;
        }
        QFile f(p);
        if (!f.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("--web-config %1: cannot read %2 %3: %4")
                         .arg(path, QLatin1String(what), p, f.errorString());
            return false;
        }
        *data = f.readAll();
        return true;
    };
    if (c.hasTls()) {
        QByteArray data;
        if (!readFile(c.certFile, "cert_file", &data))
            return false;
        if (QSslCertificate::fromData(data, QSsl::Pem).isEmpty())
            return failFile(QStringLiteral("cert_file %1 holds no PEM certificate").arg(c.certFile));
        if (!readFile(c.keyFile, "key_file", &data))
            return false;
        if (QSslKey(data, QSsl::Rsa).isNull() && QSslKey(data, QSsl::Ec).isNull())
            return failFile(
                QStringLiteral("key_file %1 holds no unencrypted PEM RSA or EC private key").arg(c.keyFile));
        if (!c.clientCaFile.isEmpty()) {
            if (!readFile(c.clientCaFile, "client_ca_file", &data))
                return false;
            if (QSslCertificate::fromData(data, QSsl::Pem).isEmpty())
                return failFile(QStringLiteral("client_ca_file %1 holds no PEM certificate").arg(c.clientCaFile));
        }
    }
    *config = c;
    return true;
}

} // namespace lockscope
