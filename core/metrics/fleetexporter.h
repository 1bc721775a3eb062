#pragma once

#include "metrics/fleettargets.h"
#include "metrics/lockgrouper.h"
#include "metrics/prometheuswriter.h"
#include "session/locksession.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <memory>

class QFileSystemWatcher;

namespace lockscope
{

class LockMetrics;

/**
 * `lockscope-cli serve --targets FILE`: one exporter for a fleet of Redis servers, as
 * redis_exporter's multi-target mode, but watching: lease safety needs a watcher that keeps
 * following each server between scrapes. Each target of the targets file (FleetTargets) gets its
 * own read-only LockSession (its own connections, reconnection backoff and health) and its own
 * LockMetrics, with the file's labels on every series; `/scrape?target=URI` renders that
 * target's metrics from what was already read (no Redis I/O at scrape time: a down or hanging
 * target answers at once with lockscope_up 0 and lockscope_last_error_info). A target that is not
 * in the file is refused (renderTarget() returns 403): an exporter that connects wherever a URL
 * tells it to would be a server-side request forgery.
 *
 * The file is re-read when it changes (QFileSystemWatcher, also an editor's rename over it) and
 * on reload() (SIGHUP): targets added start watching, targets removed stop, labels changed apply
 * at once; a file that no longer parses keeps the targets as they were (lastError() says why).
 * All sessions run on the calling thread with non-blocking I/O: a slow target delays nobody.
 */
class FleetExporter : public QObject
{
    Q_OBJECT
public:
    /** `base`: the options every target's session gets (pattern, poll budget); endpoint,
     *  password and TLS settings come from the files (FleetTargets::Target::tls). */
    FleetExporter(const LockSession::Options &base, const LockGrouper &grouper, int maxNamedFindings,
                  QObject *parent = nullptr);
    ~FleetExporter() override;

    /** Reads both files and starts a session per target. False with `*error` when either file
     *  is unusable (nothing started). `passwordPath` may be empty. */
    bool start(const QString &targetsPath, const QString &passwordPath, QString *error);
    /** Re-reads both files and applies the difference; false (targets unchanged) with `*error`. */
    bool reload(QString *error);

    /** HTTP status and body of `/scrape?target=uri`: 200 with the target's exposition, 403 for a
     *  target not in the file (`body` says so). */
    int renderTarget(const QString &uri, PrometheusWriter::Format format, QByteArray *body) const;
    /** The exporter's own metrics (`/metrics` in fleet mode): build info, targets configured
     *  and up, reloads. */
    QByteArray renderSelf(PrometheusWriter::Format format) const;

    QStringList targets() const { return m_order; }
    /** Targets whose session reads every master now. */
    int targetsUp() const;
    QString lastError() const { return m_lastError; }

signals:
    /** The targets changed (reload): `added` and `removed` URIs. */
    void reloaded(const QStringList &added, const QStringList &removed);
    /** A reload failed (the targets stay as they were). */
    void reloadFailed(const QString &error);

private:
    struct Watched {
        FleetTargets::Target target;
        QString password;
        QString tlsKey; ///< Target::tlsKey() of the session's settings
        LockSession *session = nullptr;
        LockMetrics *metrics = nullptr;
    };
    void apply(const QVector<FleetTargets::Target> &targets, const QHash<QString, QString> &passwords);
    void stopWatching(Watched &w);
    void watchFile();

    LockSession::Options m_base;
    LockGrouper m_grouper;
    int m_maxNamedFindings;
    QString m_targetsPath;
    QString m_passwordPath;
    QHash<QString, Watched> m_watched;
    QStringList m_order; ///< targets in file order
    QFileSystemWatcher *m_files = nullptr;
    qint64 m_reloads = 0;
    qint64 m_reloadFailures = 0;
    QString m_lastError;
};

} // namespace lockscope
