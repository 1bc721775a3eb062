#include "redistlsoptions.h"
#include "endpoint/tlsadvicewords.h"

#include <QFile>
#include <QMap>
#include <QSet>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslError>
#include <QSslKey>
#include <QSslSocket>

namespace lockscope
{

namespace
{

bool tlsFail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

using Word = TlsAdviceWords::Word;

/** The front end's words for a TLS setting (core names no CLI flag). */
QString tlsWord(Word word, const QString &value = QString())
{
    return TlsAdviceWords::name(word, value);
}

bool readFile(const QString &path, const QString &what, QByteArray *data, QString *error)
{
    QFile f(path);
    if (!f.exists())
        return tlsFail(error, QStringLiteral("The %1 '%2' does not exist: check the path.").arg(what, path));
    if (!f.open(QIODevice::ReadOnly))
        return tlsFail(
            error,
            QStringLiteral("The %1 '%2' cannot be read (%3): check its permissions.").arg(what, path, f.errorString()));
    *data = f.readAll();
    return true;
}

QList<QSslCertificate> parseCertificates(const QByteArray &data)
{
    QList<QSslCertificate> certs = QSslCertificate::fromData(data, QSsl::Pem);
    if (certs.isEmpty())
        certs = QSslCertificate::fromData(data, QSsl::Der);
    return certs;
}

QSslKey parseKey(const QByteArray &data)
{
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        const QSslKey key(data, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    return {};
}

QString certificateNames(const QSslCertificate &cert)
{
    QStringList names;
    const auto sans = cert.subjectAlternativeNames();
    for (auto it = sans.cbegin(); it != sans.cend(); ++it) {
        if (!names.contains(it.value()))
            names << it.value();
    }
    for (const QString &cn : cert.subjectInfo(QSslCertificate::CommonName)) {
        if (!names.contains(cn))
            names << cn;
    }
    if (names.isEmpty())
        return QStringLiteral("no host name at all");
    QStringList quoted;
    for (const QString &n : names)
        quoted << QLatin1Char('\'') + n + QLatin1Char('\'');
    return quoted.join(QStringLiteral(", "));
}

QString describeCertificate(const QSslCertificate &cert)
{
    if (cert.isNull())
        return QString();
    const QString subject = cert.subjectDisplayName();
    const QString issuer = cert.issuerDisplayName();
    if (subject == issuer)
        return QStringLiteral(" ('%1', self-signed)").arg(subject);
    return QStringLiteral(" ('%1', issued by '%2')").arg(subject, issuer);
}

} // namespace

bool RedisTlsOptions::isDefault() const
{
    return m_caFile.isEmpty() && m_certFile.isEmpty() && m_keyFile.isEmpty() && m_serverName.isEmpty() && !m_insecure;
}

bool RedisTlsOptions::applyTo(QSslConfiguration *config, QString *error) const
{
    QSslConfiguration c = config ? *config : QSslConfiguration::defaultConfiguration();
    if (!m_caFile.isEmpty()) {
        QByteArray data;
        if (!readFile(m_caFile, QStringLiteral("CA certificate file (%1)").arg(tlsWord(Word::CaFile)), &data, error))
            return false;
        const QList<QSslCertificate> cas = parseCertificates(data);
        if (cas.isEmpty())
            return tlsFail(error, QStringLiteral("The CA certificate file '%1' holds no certificate (expected PEM "
                                                 "'BEGIN CERTIFICATE' or DER): pass the CA's certificate, not its key.")
                                      .arg(m_caFile));
        c.setCaCertificates(cas);
    }
    if (!m_keyFile.isEmpty() && m_certFile.isEmpty())
        return tlsFail(error,
                       QStringLiteral("A client key (%1) was given without its certificate: %2 too.")
                           .arg(tlsWord(Word::KeyFile, m_keyFile), tlsWord(Word::Give, tlsWord(Word::CertFile))));
    if (!m_certFile.isEmpty()) {
        QByteArray certData;
        if (!readFile(m_certFile, QStringLiteral("client certificate file (%1)").arg(tlsWord(Word::CertFile)),
                      &certData, error))
            return false;
        const QList<QSslCertificate> chain = QSslCertificate::fromData(certData, QSsl::Pem);
        if (chain.isEmpty())
            return tlsFail(error, QStringLiteral("The client certificate file '%1' holds no PEM certificate "
                                                 "('BEGIN CERTIFICATE'): check the path.")
                                      .arg(m_certFile));
        QByteArray keyData = certData;
        QString keyPath = m_certFile;
        if (!m_keyFile.isEmpty()) {
            keyPath = m_keyFile;
            if (!readFile(m_keyFile, QStringLiteral("client key file (%1)").arg(tlsWord(Word::KeyFile)), &keyData,
                          error))
                return false;
        }
        const QSslKey key = parseKey(keyData);
        if (key.isNull()) {
            if (keyData.contains("ENCRYPTED"))
                return tlsFail(error, QStringLiteral("The client key '%1' is encrypted, and LockScope reads only "
                                                     "unencrypted keys: decrypt a private copy (openssl pkey -in KEY "
                                                     "-out KEY.plain; chmod 600 KEY.plain) and pass that.")
                                          .arg(keyPath));
            if (m_keyFile.isEmpty())
                return tlsFail(error,
                               QStringLiteral("The client certificate '%1' needs its private key: %2.")
                                   .arg(m_certFile, tlsWord(Word::Give, tlsWord(Word::KeyFile) +
                                                                            QStringLiteral(" with the key file"))));
            return tlsFail(error, QStringLiteral("The client key file '%1' holds no private key LockScope can read "
                                                 "(PEM RSA, EC or DSA): check the path.")
                                      .arg(keyPath));
        }
        c.setLocalCertificateChain(chain);
        c.setPrivateKey(key);
    }
    c.setPeerVerifyMode(m_insecure ? QSslSocket::VerifyNone : QSslSocket::VerifyPeer);
    if (config)
        *config = c;
    return true;
}

bool RedisTlsOptions::validate(QString *error) const
{
    return applyTo(nullptr, error);
}

QString RedisTlsOptions::describeErrors(const QList<QSslError> &errors, const QString &address, const QString &peerName)
{
    static const QSet<QSslError::SslError> untrusted{QSslError::SelfSignedCertificate,
                                                     QSslError::SelfSignedCertificateInChain,
                                                     QSslError::UnableToGetLocalIssuerCertificate,
                                                     QSslError::UnableToVerifyFirstCertificate,
                                                     QSslError::UnableToGetIssuerCertificate,
                                                     QSslError::CertificateUntrusted,
                                                     QSslError::CertificateRejected,
                                                     QSslError::InvalidCaCertificate,
                                                     QSslError::CertificateSignatureFailed};
    QMap<int, QString> sentences; // by category: the root cause (an untrusted chain) first
    for (const QSslError &e : errors) {
        QString sentence;
        int category = 0;
        if (untrusted.contains(e.error())) {
            category = 1;
            sentence = QStringLiteral("The TLS certificate of %1%2 is not trusted: give LockScope the CA certificate "
                                      "that signed it with %3 (%4 skips the check; for a sandbox only).")
                           .arg(address, describeCertificate(e.certificate()),
                                tlsWord(Word::CaFile, QStringLiteral("FILE")), tlsWord(Word::Insecure));
        } else if (e.error() == QSslError::HostNameMismatch) {
            category = 2;
            sentence = QStringLiteral("The TLS certificate of %1 is for %2, not for '%3': connect with one of those "
                                      "names, or name the expected one with %4 (%5 skips the check; for a sandbox "
                                      "only).")
                           .arg(address, certificateNames(e.certificate()), peerName, tlsWord(Word::ServerName),
                                tlsWord(Word::Insecure));
        } else if (e.error() == QSslError::CertificateExpired) {
            category = 3;
            sentence = QStringLiteral("The TLS certificate of %1 expired on %2: renew it on the server.")
                           .arg(address, e.certificate().expiryDate().toString(Qt::ISODate));
        } else if (e.error() == QSslError::CertificateNotYetValid) {
            category = 4;
            sentence = QStringLiteral("The TLS certificate of %1 is not valid before %2: check the clocks of both "
                                      "machines.")
                           .arg(address, e.certificate().effectiveDate().toString(Qt::ISODate));
        } else {
            category = 100 + int(e.error());
            sentence = QStringLiteral("TLS verification of %1 failed: %2.").arg(address, e.errorString());
        }
        if (!sentences.contains(category))
            sentences.insert(category, sentence);
    }
    if (sentences.isEmpty())
        return QStringLiteral("TLS verification of %1 failed.").arg(address);
    return sentences.values().join(QLatin1Char(' '));
}

bool RedisTlsOptions::operator==(const RedisTlsOptions &o) const
{
    return m_caFile == o.m_caFile && m_certFile == o.m_certFile && m_keyFile == o.m_keyFile &&
           m_serverName == o.m_serverName && m_insecure == o.m_insecure;
}

} // namespace lockscope
