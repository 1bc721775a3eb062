#include "linereader.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTest>

namespace lockscope::test
{

QJsonObject Line::json() const
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

void LineReader::pump()
{
    while (process.canReadLine())
        lines << Line{QDateTime::currentMSecsSinceEpoch(), QString::fromUtf8(process.readLine()).trimmed()};
}

Line LineReader::waitFor(const std::function<bool(const Line &)> &match, int timeoutMs)
{
    Line found;
    (void)QTest::qWaitFor(
        [&] {
            pump();
            for (int i = m_next; i < lines.size(); ++i)
                if (match(lines.at(i))) {
                    found = lines.at(i);
                    return true;
                }
            return false;
        },
        timeoutMs);
    return found;
}

Line LineReader::waitForPrefix(const QString &prefix, int timeoutMs)
{
    return waitFor([&prefix](const Line &l) { return l.text.startsWith(prefix); }, timeoutMs);
}

} // namespace lockscope::test
