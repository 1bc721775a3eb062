#include "clustertopology.h"

#include "hashslot.h"

#include <algorithm>

namespace lockscope
{

namespace
{

QString hostOr(const QByteArray &host, const QString &fallback)
{
    if (host.isEmpty() || host == "?")
        return fallback;
    return QString::fromUtf8(host);
}

QString joinAddress(const QString &host, qint64 port)
{
    if (host.contains(QLatin1Char(':')))
        return QStringLiteral("[%1]:%2").arg(host).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

/** A RESP2 "map" (flat array of name, value, ...) -> value of `name`, or Nil. */
/** True for an array reply; else false, with the server's error or "COMMAND: unexpected reply"
 *  in `error` (when given). */
bool isArrayElseError(const RedisReply &reply, const char *command, QString *error)
{
    if (reply.isArray())
        return true;
    if (error)
        *error = reply.isError()
                     ? reply.errorMessage()
                     : QStringLiteral("%1: unexpected reply %2").arg(QLatin1String(command), reply.debugString());
    return false;
}

RedisReply field(const RedisReply &map, const char *name)
{
    for (int i = 0; i + 1 < map.size(); i += 2)
        if (map.at(i).toByteArray() == name)
            return map.at(i + 1);
    return RedisReply();
}

} // namespace

ClusterTopology ClusterTopology::fromShards(const RedisReply &reply, const QString &fallbackHost, QString *error)
{
    ClusterTopology t;
    if (!isArrayElseError(reply, "CLUSTER SHARDS", error))
        return t;
    for (const RedisReply &shard : reply.elements()) {
        const RedisReply slotList = field(shard, "slots");
        const RedisReply nodes = field(shard, "nodes");
        QString master;
        QStringList replicas;
        for (const RedisReply &node : nodes.elements()) {
            QByteArray host = field(node, "endpoint").toByteArray();
            if (host.isEmpty() || host == "?")
                host = field(node, "ip").toByteArray();
            qint64 port = field(node, "port").toInteger(0);
            if (port <= 0)
                port = field(node, "tls-port").toInteger(0);
            const QString address = joinAddress(hostOr(host, fallbackHost), port);
            const bool healthy = field(node, "health").toByteArray() != "fail";
            if (field(node, "role").toByteArray() == "master" && healthy)
                master = address;
            else if (healthy)
                replicas << address;
        }
        if (master.isEmpty())
            continue;
        for (int i = 0; i + 1 < slotList.size(); i += 2)
            t.m_ranges.append({int(slotList.at(i).toInteger()), int(slotList.at(i + 1).toInteger()), master, replicas});
    }
    t.normalise();
    if (!t.isValid() && error)
        *error = QStringLiteral("CLUSTER SHARDS lists no master serving a slot");
    return t;
}

ClusterTopology ClusterTopology::fromSlots(const RedisReply &reply, const QString &fallbackHost, QString *error)
{
    ClusterTopology t;
    if (!isArrayElseError(reply, "CLUSTER SLOTS", error))
        return t;
    for (const RedisReply &entry : reply.elements()) {
        if (entry.size() < 3)
            continue;
        Range r;
        r.first = int(entry.at(0).toInteger());
        r.last = int(entry.at(1).toInteger());
        for (int i = 2; i < entry.size(); ++i) {
            const RedisReply &node = entry.at(i);
            const QString address = joinAddress(hostOr(node.at(0).toByteArray(), fallbackHost), node.at(1).toInteger());
            if (i == 2)
                r.master = address;
            else
                r.replicas << address;
        }
        t.m_ranges.append(r);
    }
    t.normalise();
    if (!t.isValid() && error)
        *error = QStringLiteral("CLUSTER SLOTS lists no slot range");
    return t;
}

ClusterTopology ClusterTopology::singleMaster(const QString &address)
{
    ClusterTopology t;
    t.m_ranges.append({0, HashSlot::kSlotCount - 1, address, {}});
    t.m_singleServer = true;
    return t;
}

void ClusterTopology::normalise()
{
    std::sort(m_ranges.begin(), m_ranges.end(), [](const Range &a, const Range &b) { return a.first < b.first; });
}

bool ClusterTopology::coversAllSlots() const
{
    int next = 0;
    for (const Range &r : m_ranges) {
        if (r.first > next)
            return false;
        next = qMax(next, r.last + 1);
    }
    return next >= HashSlot::kSlotCount;
}

QStringList ClusterTopology::masters() const
{
    QStringList out;
    for (const Range &r : m_ranges)
        if (!out.contains(r.master))
            out << r.master;
    std::sort(out.begin(), out.end());
    return out;
}

QString ClusterTopology::masterForSlot(int slot) const
{
    // Ranges are few (one per shard, plus migrated pieces): a linear search is enough.
    for (const Range &r : m_ranges)
        if (slot >= r.first && slot <= r.last)
            return r.master;
    return QString();
}

QString ClusterTopology::masterForKey(const QByteArray &key) const
{
    return masterForSlot(HashSlot::of(key));
}

void ClusterTopology::setMaster(int slot, const QString &address)
{
    if (slot < 0 || slot >= HashSlot::kSlotCount)
        return;
    QVector<Range> out;
    bool placed = false;
    for (const Range &r : m_ranges) {
        if (slot < r.first || slot > r.last) {
            out.append(r);
            continue;
        }
        if (r.first < slot)
            out.append({r.first, slot - 1, r.master, r.replicas});
        out.append({slot, slot, address, {}});
        placed = true;
        if (slot < r.last)
            out.append({slot + 1, r.last, r.master, r.replicas});
    }
    if (!placed)
        out.append({slot, slot, address, {}});
    m_ranges = out;
    normalise();
}

bool ClusterTopology::splitAddress(const QString &address, QString *host, quint16 *port)
{
    const int colon = address.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    QString h = address.left(colon);
    if (h.startsWith(QLatin1Char('[')) && h.endsWith(QLatin1Char(']')))
        h = h.mid(1, h.size() - 2);
    bool ok = false;
    const uint p = address.mid(colon + 1).toUInt(&ok);
    if (!ok || p == 0 || p > 65535 || h.isEmpty())
        return false;
    *host = h;
    *port = quint16(p);
    return true;
}

RedisEndpoint ClusterTopology::endpointFor(const QString &address, const RedisEndpoint &seed)
{
    QString host;
    quint16 port = 0;
    if (!splitAddress(address, &host, &port))
        return RedisEndpoint();
    const QString scheme =
        seed.transport() == RedisEndpoint::Transport::Tls ? QStringLiteral("rediss") : QStringLiteral("redis");
    const QString hostPart = host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(host) : host;
    RedisEndpoint ep =
        RedisEndpoint::parse(QStringLiteral("%1://%2:%3/%4").arg(scheme, hostPart).arg(port).arg(seed.db()));
    if (!ep.isValid())
        return ep;
    ep.setUsername(seed.username());
    ep.setPassword(seed.password(), seed.passwordSource());
    ep.setTlsOptions(seed.tlsOptions());
    return ep;
}

} // namespace lockscope

namespace lockscope
{

QVector<int> ClusterTopology::slotIndex() const
{
    QVector<int> index(HashSlot::kSlotCount, -1);
    for (int i = 0; i < m_ranges.size(); ++i) {
        const Range &r = m_ranges.at(i);
        for (int slot = qMax(0, r.first); slot <= r.last && slot < HashSlot::kSlotCount; ++slot)
            index[slot] = i;
    }
    return index;
}

QVector<QPair<int, int>> ClusterTopology::slotsOf(const QString &master) const
{
    QVector<QPair<int, int>> out;
    for (const Range &r : m_ranges) {
        if (r.master != master)
            continue;
        if (!out.isEmpty() && out.last().second + 1 == r.first)
            out.last().second = r.last;
        else
            out.append({r.first, r.last});
    }
    return out;
}

ClusterTopology ClusterTopology::mergedOver(const ClusterTopology &older) const
{
    const QVector<int> mine = slotIndex();
    const QVector<int> theirs = older.slotIndex();
    ClusterTopology out = *this;
    int start = -1;
    auto flush = [&](int endSlot) {
        if (start < 0)
            return;
        Range r = older.m_ranges.at(theirs.at(start));
        r.first = start;
        r.last = endSlot;
        out.m_ranges.append(r);
        start = -1;
    };
    for (int slot = 0; slot < HashSlot::kSlotCount; ++slot) {
        const bool fill = mine.at(slot) < 0 && theirs.at(slot) >= 0;
        if (start >= 0 && (!fill || theirs.at(slot) != theirs.at(start)))
            flush(slot - 1);
        if (fill && start < 0)
            start = slot;
    }
    flush(HashSlot::kSlotCount - 1);
    out.normalise();
    return out;
}

QVector<ClusterTopology::Handover> ClusterTopology::handovers(const ClusterTopology &before,
                                                              const ClusterTopology &after)
{
    QVector<Handover> out;
    const QVector<int> a = before.slotIndex();
    const QVector<int> b = after.slotIndex();
    for (int slot = 0; slot < HashSlot::kSlotCount; ++slot) {
        if (a.at(slot) < 0 || b.at(slot) < 0)
            continue;
        const QString &from = before.m_ranges.at(a.at(slot)).master;
        const QString &to = after.m_ranges.at(b.at(slot)).master;
        if (from == to)
            continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const Handover &h) { return h.from == from && h.to == to; });
        if (it == out.end()) {
            out.append({from, to, {{slot, slot}}});
        } else if (it->slotRanges.last().second + 1 == slot) {
            it->slotRanges.last().second = slot;
        } else {
            it->slotRanges.append({slot, slot});
        }
    }
    return out;
}

QString ClusterTopology::describeSlots(const QVector<QPair<int, int>> &ranges)
{
    QStringList parts;
    for (const auto &r : ranges)
        parts << (r.first == r.second ? QString::number(r.first) : QStringLiteral("%1-%2").arg(r.first).arg(r.second));
    return parts.join(QStringLiteral(", "));
}

bool ClusterTopology::operator==(const ClusterTopology &other) const
{
    if (m_ranges.size() != other.m_ranges.size() || m_shardedPubSub != other.m_shardedPubSub ||
        m_singleServer != other.m_singleServer)
        return false;
    for (int i = 0; i < m_ranges.size(); ++i) {
        const Range &x = m_ranges.at(i);
        const Range &y = other.m_ranges.at(i);
        if (x.first != y.first || x.last != y.last || x.master != y.master || x.replicas != y.replicas)
            return false;
    }
    return true;
}

} // namespace lockscope
