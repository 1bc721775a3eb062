#pragma once

#include "protocol/lockevent.h"
#include "protocol/locksnapshot.h"

#include <QJsonObject>
#include <QString>

#include <memory>

namespace lockscope
{

/**
 * Writes what the monitor sees to a recording: JSON lines, one record per batch, after a
 * versioned header. gzip-compressed when the path ends in ".gz". Format (version 1):
 *   {"format":"lockscope-recording","version":1,"started_ms":...,"server":"redis://...",...}
 *   {"t":<epoch ms>,"k":"locks","changed":[<LockSnapshot::toJson() + "read_ms_ago">...],"removed":[...]}
 *   {"t":<epoch ms>,"k":"events","events":[<LockEvent::toJson()>...]}
 *   {"t":<epoch ms>,"k":"end"}     (written by close(): when recording stopped)
 * `read_ms_ago` (optional, ms) is how long before `t` the snapshot was read; readers treat its
 * absence as 0. Each record is flushed as it is written, so a recording cut short (crash, kill) stays readable
 * up to its last complete line (Recording::load). The file is created owner-only (0600), like the
 * audit log.
 */
class SessionRecorder
{
public:
    static constexpr int kFormatVersion = 1;

    SessionRecorder();
    ~SessionRecorder();

    /** The header fields of a recording of a session (the one place they are built, so the
     *  dashboard and the CLI write the same header):
     *  "server" (`serverUrl`, the URL without its password, as RedisEndpoint::toString gives it;
     *  a replay reconnects nowhere but shows it), "pattern" (the glob watched) and "writer" (the
     *  program and version, e.g. "lockscope-cli 0.9.0"). open() adds format, version, started_ms. */
    static QJsonObject header(const QString &serverUrl, const QString &pattern, const QString &writer);

    /** Creates `path`. `header` fields are added to the header line. False with `*error` on failure. */
    bool open(const QString &path, const QJsonObject &header, QString *error = nullptr);
    void close();

    void recordLocks(const QVector<LockSnapshot> &changed, const QStringList &removed, qint64 timeMs);
    void recordEvents(const QVector<LockEvent> &events);

    qint64 records() const { return m_records; }
    QString path() const { return m_path; }
    /** First write error, if any (the recording then stops growing). */
    QString error() const { return m_error; }

private:
    void writeLine(const QJsonObject &o);
    struct Sink;
    std::unique_ptr<Sink> m_sink;
    QString m_path;
    QString m_error;
    qint64 m_records = 0;
};

} // namespace lockscope
