#include "hashslot.h"

#include <array>

namespace lockscope
{

static std::array<quint16, 256> makeTable()
{
    std::array<quint16, 256> table{};
    for (int i = 0; i < 256; ++i) {
        quint16 crc = quint16(i << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? quint16((crc << 1) ^ 0x1021) : quint16(crc << 1);
        table[size_t(i)] = crc;
    }
    return table;
}

quint16 HashSlot::crc16(const QByteArray &data)
{
    static const std::array<quint16, 256> table = makeTable();
    quint16 crc = 0;
    for (const char c : data)
        crc = quint16((crc << 8) ^ table[size_t(((crc >> 8) ^ quint8(c)) & 0xff)]);
    return crc;
}

QByteArray HashSlot::hashedPart(const QByteArray &key)
{
    const int open = key.indexOf('{');
    if (open < 0)
        return key;
    const int close = key.indexOf('}', open + 1);
    if (close < 0 || close == open + 1)
        return key;
    return key.mid(open + 1, close - open - 1);
}

int HashSlot::of(const QByteArray &key)
{
    return crc16(hashedPart(key)) % kSlotCount;
}

} // namespace lockscope
