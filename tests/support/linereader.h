#pragma once

#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QVector>

#include <functional>

namespace lockscope::test
{

/** A line of a process's output with the local time it arrived (epoch ms). */
struct Line {
    qint64 arrivedMs = 0;
    QString text;
    QJsonObject json() const;
};

/** A process (a lockscope-cli command, a node-redisson service) whose stdout lines are collected
 *  with their arrival time, for tests that wait for what it says. */
class LineReader
{
public:
    QProcess process;
    QVector<Line> lines;
    /** Reads the complete lines available now. */
    void pump();
    /** The first line (not taken before) for which `match` holds, waiting up to `timeoutMs`;
     *  an empty Line when none came. */
    Line waitFor(const std::function<bool(const Line &)> &match, int timeoutMs);
    Line waitForPrefix(const QString &prefix, int timeoutMs);
    /** Writes `line` and a newline to its stdin. */
    void send(const QByteArray &line) { process.write(line + '\n'); }

private:
    int m_next = 0;
};

} // namespace lockscope::test
