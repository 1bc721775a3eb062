#include "recording/sessionrecorder.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <zlib.h>

namespace lockscope
{

/** Plain file or gzip stream behind one interface. */
struct SessionRecorder::Sink {
    QFile file;
    gzFile gz = nullptr;

    bool write(const QByteArray &data)
    {
        if (gz) {
            if (gzwrite(gz, data.constData(), unsigned(data.size())) != data.size())
                return false;
            return gzflush(gz, Z_SYNC_FLUSH) == Z_OK;
        }
        return file.write(data) == data.size() && file.flush();
    }
    void close()
    {
        if (gz) {
            gzclose(gz);
            gz = nullptr;
        }
        file.close();
    }
};

SessionRecorder::SessionRecorder() = default;
SessionRecorder::~SessionRecorder()
{
    close();
}

QJsonObject SessionRecorder::header(const QString &serverUrl, const QString &pattern, const QString &writer)
{
    return QJsonObject{{QStringLiteral("server"), serverUrl},
                       {QStringLiteral("pattern"), pattern},
                       {QStringLiteral("writer"), writer}};
}

bool SessionRecorder::open(const QString &path, const QJsonObject &header, QString *error)
{
    close();
    m_path = path;
    m_error.clear();
    m_records = 0;
    m_sink = std::make_unique<Sink>();
    const bool gzip = path.endsWith(QLatin1String(".gz"));
    // A FIFO (or socket, device) would block open() until a reader came, deaf to SIGTERM.
    if (const QFileInfo info(path); info.exists() && !info.isFile()) {
        if (error)
            *error = QStringLiteral("cannot record to %1: it is not a regular file (a directory, FIFO, socket or "
                                    "device); a recording is written to a file")
                         .arg(path);
        m_sink.reset();
        return false;
    }
    // Owner-only (0600) like the audit log: lock names, holders and hosts are not for every
    // local user. Created so before a byte is written; an existing file is narrowed too.
    {
        QFile create(path);
        const auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
        if (!create.open(QIODevice::WriteOnly | QIODevice::Truncate, ownerOnly) || !create.setPermissions(ownerOnly)) {
            if (error)
                *error = QStringLiteral("cannot create %1: %2").arg(path, create.errorString());
            m_sink.reset();
            return false;
        }
    }
    if (gzip) {
        m_sink->gz = gzopen(QFile::encodeName(path).constData(), "wb6");
        if (!m_sink->gz) {
            if (error)
                *error = QStringLiteral("cannot create %1").arg(path);
            m_sink.reset();
            return false;
        }
    } else {
        m_sink->file.setFileName(path);
        if (!m_sink->file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            if (error)
                *error = QStringLiteral("cannot create %1: %2").arg(path, m_sink->file.errorString());
            m_sink.reset();
            return false;
        }
    }
    QJsonObject h = header;
    h.insert(QStringLiteral("format"), QStringLiteral("lockscope-recording"));
    h.insert(QStringLiteral("version"), kFormatVersion);
    h.insert(QStringLiteral("started_ms"), QDateTime::currentMSecsSinceEpoch());
    writeLine(h);
    if (!m_error.isEmpty() && error)
        *error = m_error;
    return m_error.isEmpty();
}

void SessionRecorder::close()
{
    if (m_sink) {
        // Until when the last state held: a replay's scrub bar reaches the end of the session.
        writeLine(
            {{QStringLiteral("t"), QDateTime::currentMSecsSinceEpoch()}, {QStringLiteral("k"), QStringLiteral("end")}});
        m_sink->close();
    }
    m_sink.reset();
}

void SessionRecorder::writeLine(const QJsonObject &o)
{
    if (!m_sink || !m_error.isEmpty())
        return;
    if (!m_sink->write(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n'))
        m_error = QStringLiteral("writing %1 failed (disk full?): the recording stops here").arg(m_path);
    else
        ++m_records;
}

void SessionRecorder::recordLocks(const QVector<LockSnapshot> &changed, const QStringList &removed, qint64 timeMs)
{
    QJsonArray c;
    const qint64 steadyNow = LockSnapshot::steadyNowMs();
    for (const auto &s : changed) {
        QJsonObject o = s.toJson();
        // How old the reading was when recorded (the GUI may apply a batch a little later), so a
        // replay counts TTLs down from the instant of the read, as the live view did.
        if (s.readAtSteadyMs > 0)
            o.insert(QStringLiteral("read_ms_ago"), qMax<qint64>(0, steadyNow - s.readAtSteadyMs));
        c.append(o);
    }
    writeLine({{QStringLiteral("t"), timeMs},
               {QStringLiteral("k"), QStringLiteral("locks")},
               {QStringLiteral("changed"), c},
               {QStringLiteral("removed"), QJsonArray::fromStringList(removed)}});
}

void SessionRecorder::recordEvents(const QVector<LockEvent> &events)
{
    if (events.isEmpty())
        return;
    QJsonArray e;
    for (const auto &ev : events)
        e.append(ev.toJson());
    writeLine({{QStringLiteral("t"), events.last().timeMs},
               {QStringLiteral("k"), QStringLiteral("events")},
               {QStringLiteral("events"), e}});
}

} // namespace lockscope
