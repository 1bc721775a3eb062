#include "pingprobe.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <chrono>

namespace lockscope::bench
{

bool PingProbe::start(const QString &host, int port, int intervalUs, QString *error)
{
    redisContext *c = redisConnect(host.toLatin1().constData(), port);
    if (!c || c->err) {
        if (error)
            *error = c ? QString::fromLatin1(c->errstr) : QStringLiteral("out of memory");
        if (c)
            redisFree(c);
        return false;
    }
    freeReplyObject(redisCommand(c, "CLIENT SETNAME bench-probe"));
    m_stop = false;
    m_samplesMs.clear();
    m_thread = std::thread([this, c, intervalUs] {
        using clock = std::chrono::steady_clock;
        while (!m_stop.load()) {
            const auto t0 = clock::now();
            void *reply = redisCommand(c, "PING");
            const auto t1 = clock::now();
            if (!reply)
                break;
            freeReplyObject(reply);
            m_samplesMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            std::this_thread::sleep_for(std::chrono::microseconds(intervalUs));
        }
        redisFree(c);
    });
    return true;
}

QVector<double> PingProbe::stop()
{
    if (m_thread.joinable()) {
        m_stop = true;
        m_thread.join();
    }
    return m_samplesMs;
}

double quantile(QVector<double> &samples, double p)
{
    if (samples.isEmpty())
        return -1;
    std::sort(samples.begin(), samples.end());
    return samples[std::min<int>(int(samples.size()) - 1, int(samples.size() * p))];
}

} // namespace lockscope::bench
