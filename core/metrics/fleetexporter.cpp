#include "metrics/fleetexporter.h"

#include "metrics/lockmetrics.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QSet>
#include <QTimer>

#include <algorithm>

namespace lockscope
{

FleetExporter::FleetExporter(const LockSession::Options &base, const LockGrouper &grouper, int maxNamedFindings,
                             QObject *parent)
    : QObject(parent), m_base(base), m_grouper(grouper), m_maxNamedFindings(maxNamedFindings)
{
    m_base.readOnly = true; // an exporter never writes
    m_base.oneShot = false;
}

FleetExporter::~FleetExporter() = default;

bool FleetExporter::start(const QString &targetsPath, const QString &passwordPath, QString *error)
{
    m_targetsPath = targetsPath;
    m_passwordPath = passwordPath;
    QVector<FleetTargets::Target> targets;
    QHash<QString, QString> passwords;
    if (!FleetTargets::loadTargets(targetsPath, &targets, error))
        return false;
    if (!passwordPath.isEmpty() && !FleetTargets::loadPasswords(passwordPath, &passwords, error))
        return false;
    apply(targets, passwords);
    watchFile();
    return true;
}

void FleetExporter::watchFile()
{
    if (!m_files) {
        m_files = new QFileSystemWatcher(this);
        // An editor or a configuration tool replaces the file (a new inode): the directory
        // change says so, and the file is watched again.
        auto changed = [this] {
            QTimer::singleShot(200, this, [this] { // a write in several parts: read once it is done
                QString error;
                if (!reload(&error))
                    emit reloadFailed(error);
                watchFile();
            });
        };
        connect(m_files, &QFileSystemWatcher::fileChanged, this, changed);
        connect(m_files, &QFileSystemWatcher::directoryChanged, this, [this, changed](const QString &) {
            if (!m_files->files().contains(m_targetsPath) && QFileInfo::exists(m_targetsPath))
                changed();
        });
    }
    if (!m_files->files().contains(m_targetsPath) && QFileInfo::exists(m_targetsPath))
        m_files->addPath(m_targetsPath);
    const QString dir = QFileInfo(m_targetsPath).absolutePath();
    if (!m_files->directories().contains(dir))
        m_files->addPath(dir);
}

bool FleetExporter::reload(QString *error)
{
    QVector<FleetTargets::Target> targets;
    QHash<QString, QString> passwords;
    if (!FleetTargets::loadTargets(m_targetsPath, &targets, error) ||
        (!m_passwordPath.isEmpty() && !FleetTargets::loadPasswords(m_passwordPath, &passwords, error))) {
        m_lastError = *error;
        ++m_reloadFailures;
        return false;
    }
    m_lastError.clear();
    ++m_reloads;
    apply(targets, passwords);
    return true;
}

void FleetExporter::stopWatching(Watched &w)
{
    if (w.metrics)
        w.metrics->deleteLater();
    if (w.session)
        w.session->deleteLater(); // its connections close with it
    w.metrics = nullptr;
    w.session = nullptr;
}

void FleetExporter::apply(const QVector<FleetTargets::Target> &targets, const QHash<QString, QString> &passwords)
{
    QStringList added, removed;
    QSet<QString> wanted;
    for (const FleetTargets::Target &t : targets)
        wanted.insert(t.uri);
    for (auto it = m_watched.begin(); it != m_watched.end();) {
        if (!wanted.contains(it.key())) {
            removed << it.key();
            stopWatching(it.value());
            it = m_watched.erase(it);
        } else {
            ++it;
        }
    }
    m_order.clear();
    for (const FleetTargets::Target &t : targets) {
        m_order << t.uri;
        const QString password = passwords.value(t.uri);
        auto it = m_watched.find(t.uri);
        if (it != m_watched.end() && it->password == password && it->tlsKey == t.tlsKey()) {
            it->target = t; // labels may have changed: they apply at the next scrape
            it->metrics->setConstantLabels(t.labels);
            continue;
        }
        if (it != m_watched.end()) { // a new password or TLS setting: a new session
            stopWatching(it.value());
            m_watched.erase(it);
        } else {
            added << t.uri;
        }
        Watched w;
        w.target = t;
        w.password = password;
        w.tlsKey = t.tlsKey();
        LockSession::Options options = m_base;
        options.endpoint = RedisEndpoint::parse(t.uri);
        if (options.endpoint.transport() == RedisEndpoint::Transport::Tls)
            options.endpoint.setTlsOptions(t.tls);
        if (!password.isEmpty())
            options.endpoint.setPassword(password, RedisEndpoint::PasswordSource::Keychain);
        options.commandConnection = QStringLiteral("--url ") + t.uri;
        w.session = new LockSession(options, this);
        w.metrics = new LockMetrics(m_grouper, m_maxNamedFindings, this);
        w.metrics->setConstantLabels(t.labels);
        w.metrics->attach(w.session);
        w.session->start();
        m_watched.insert(t.uri, w);
    }
    if (!added.isEmpty() || !removed.isEmpty())
        emit reloaded(added, removed);
}

int FleetExporter::renderTarget(const QString &uri, PrometheusWriter::Format format, QByteArray *body) const
{
    const auto it = m_watched.constFind(uri);
    if (it == m_watched.cend() || !it->metrics) {
        *body = QByteArrayLiteral("target not in the targets file: this exporter reads only the servers its targets "
                                  "file names (--targets)\n");
        return 403;
    }
    *body = it->metrics->render(format, LockSnapshot::steadyNowMs());
    return 200;
}

int FleetExporter::targetsUp() const
{
    int up = 0;
    for (const Watched &w : m_watched) {
        if (!w.session)
            continue;
        const QVector<WatchMode> modes = w.session->serverModes();
        const bool all = !modes.isEmpty() && std::all_of(modes.cbegin(), modes.cend(), [](WatchMode m) {
            return m == WatchMode::Live || m == WatchMode::Polling;
        });
        up += all;
    }
    return up;
}

QByteArray FleetExporter::renderSelf(PrometheusWriter::Format format) const
{
    using Type = PrometheusWriter::Type;
    PrometheusWriter w(format);
    w.family("lockscope_build_info", Type::Gauge, "LockScope's version (always 1).");
    w.sample({{"version", QCoreApplication::applicationVersion()}}, 1);
    w.family("lockscope_exporter_targets", Type::Gauge, "Targets in the targets file (--targets).");
    w.sample({}, double(m_watched.size()));
    w.family("lockscope_exporter_targets_up", Type::Gauge, "Targets whose every master LockScope reads now.");
    w.sample({}, targetsUp());
    w.family("lockscope_exporter_target_reloads_total", Type::Counter,
             "Times the targets file was read again (a change, or SIGHUP).");
    w.sample({}, double(m_reloads));
    w.family("lockscope_exporter_target_reload_failures_total", Type::Counter,
             "Reloads that failed (the file did not parse): the targets stayed as they were.");
    w.sample({}, double(m_reloadFailures));
    return w.finish();
}

} // namespace lockscope
