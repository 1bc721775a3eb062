#include "fleetrunner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>

namespace lockscope
{

namespace
{
/** Worse first: usage, unreachable, a finding, refused, fine. */
int rank(int code)
{
    switch (code) {
    case CliCommand::Usage:
        return 5;
    case CliCommand::ServerError:
        return 4;
    case CliCommand::ProblemsFound:
        return 3;
    case CliCommand::Refused:
        return 2;
    case CliCommand::Ok:
        return 0;
    default:
        return 1; // ended by a signal (128 + n)
    }
}
} // namespace

FleetRunner::FleetRunner(const Context &context, QObject *parent)
    : CliCommand(context, parent), m_arguments(QCoreApplication::arguments())
{
}

bool FleetRunner::begin(int *exitCode)
{
    const QString targetsPath = m_parser.value(QStringLiteral("targets"));
    const QString passwordPath = m_parser.value(QStringLiteral("password-file"));
    QString error;
    if (!FleetTargets::loadTargets(targetsPath, &m_targets, &error))
        return usage(error, exitCode);
    if (!passwordPath.isEmpty() && !FleetTargets::loadPasswords(passwordPath, &m_passwords, &error))
        return usage(error, exitCode);
    if (m_targets.isEmpty())
        return usage(QStringLiteral("targets file %1 lists no target").arg(targetsPath), exitCode);
    for (int i = 0; i < kParallel; ++i)
        startNext();
    return true;
}

QStringList FleetRunner::childArguments(const QString &target) const
{
    QStringList out{QStringLiteral("--url"), target};
    static const QStringList dropped{
        QStringLiteral("--targets"),        QStringLiteral("--password-file"), QStringLiteral("--url"),
        QStringLiteral("--tls-ca"),         QStringLiteral("--tls-cert"),      QStringLiteral("--tls-key"),
        QStringLiteral("--tls-server-name")};
    for (int i = 1; i < m_arguments.size(); ++i) {
        const QString &a = m_arguments.at(i);
        bool drop = false;
        for (const QString &d : dropped) {
            if (a == d) {
                ++i; // and its value
                drop = true;
            } else if (a.startsWith(d + QLatin1Char('='))) {
                drop = true;
            }
        }
        if (!drop)
            out << a;
    }
    return out;
}

void FleetRunner::startNext()
{
    if (m_next >= m_targets.size()) {
        if (m_running == 0) {
            if (!m_unreachable.isEmpty())
                m_err << "lockscope-cli: unreachable: " << m_unreachable.join(QLatin1String(", ")) << '\n';
            m_err << "lockscope-cli: " << m_targets.size() << " target(s), " << m_unreachable.size()
                  << " unreachable\n";
            m_err.flush();
            finish(m_worst);
        }
        return;
    }
    const int index = m_next++;
    const QString target = m_targets.at(index).uri;
    auto *p = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("LOCKSCOPE_URL"));
    env.remove(QStringLiteral("LOCKSCOPE_PASSWORD"));
    if (m_passwords.contains(target))
        env.insert(QStringLiteral("LOCKSCOPE_PASSWORD"), m_passwords.value(target));
    p->setProcessEnvironment(env);
    connect(p, &QProcess::finished, this, [this, index, p] { onFinished(index, p); });
    connect(p, &QProcess::errorOccurred, this, [this, index, p](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            onFinished(index, p);
    });
    ++m_running;
    QStringList args = childArguments(target);
    const RedisTlsOptions &tls = m_targets.at(index).tls;
    if (!tls.caFile().isEmpty())
        args << QStringLiteral("--tls-ca") << tls.caFile();
    if (!tls.certFile().isEmpty())
        args << QStringLiteral("--tls-cert") << tls.certFile();
    if (!tls.keyFile().isEmpty())
        args << QStringLiteral("--tls-key") << tls.keyFile();
    if (!tls.serverName().isEmpty())
        args << QStringLiteral("--tls-server-name") << tls.serverName();
    if (tls.isInsecure())
        args << QStringLiteral("--tls-insecure");
    p->start(QCoreApplication::applicationFilePath(), args);
}

void FleetRunner::onFinished(int index, QProcess *p)
{
    const QString target = m_targets.at(index).uri;
    const int code =
        p->exitStatus() == QProcess::NormalExit && p->error() != QProcess::FailedToStart ? p->exitCode() : ServerError;
    for (const QByteArray &line : p->readAllStandardOutput().split('\n')) {
        if (line.isEmpty())
            continue;
        if (m_json) {
            QJsonObject o = QJsonDocument::fromJson(line).object();
            if (!o.isEmpty()) {
                o.insert(QStringLiteral("target"), target);
                m_out << QJsonDocument(o).toJson(QJsonDocument::Compact);
                continue;
            }
        }
        m_out << target << "  " << QString::fromUtf8(line) << '\n';
    }
    for (const QByteArray &line : p->readAllStandardError().split('\n'))
        if (!line.isEmpty())
            m_err << target << ": " << QString::fromUtf8(line) << '\n';
    m_out.flush();
    m_err.flush();
    if (code == ServerError)
        m_unreachable << target;
    if (rank(code) > rank(m_worst))
        m_worst = code;
    p->deleteLater();
    --m_running;
    startNext();
}

} // namespace lockscope
