#include "endpoint/tlsadvicewords.h"

namespace lockscope
{

namespace
{

/** `name` followed by " `value`" when there is one. */
QString withValue(const QString &name, const QString &value)
{
    return value.isEmpty() ? name : name + QLatin1Char(' ') + value;
}

} // namespace

QString TlsAdviceWords::defaultName(Word word, const QString &value)
{
    switch (word) {
    case Word::CaFile:
        return QStringLiteral("the CA certificate file");
    case Word::CertFile:
        return QStringLiteral("the client certificate");
    case Word::KeyFile:
        return value.isEmpty() ? QStringLiteral("the client key") : QStringLiteral("the client key %1").arg(value);
    case Word::ServerName:
        return QStringLiteral("the TLS server name");
    case Word::Insecure:
        return QStringLiteral("turning verification off");
    case Word::Give:
        break;
    }
    return QStringLiteral("give ") + value;
}

QString TlsAdviceWords::cliName(Word word, const QString &value)
{
    switch (word) {
    case Word::CaFile:
        return withValue(QStringLiteral("--tls-ca"), value);
    case Word::CertFile:
        return withValue(QStringLiteral("--tls-cert"), value);
    case Word::KeyFile:
        return withValue(QStringLiteral("--tls-key"), value);
    case Word::ServerName:
        return QStringLiteral("--tls-server-name");
    case Word::Insecure:
        return QStringLiteral("--tls-insecure");
    case Word::Give:
        break;
    }
    return QStringLiteral("pass ") + value;
}

} // namespace lockscope
