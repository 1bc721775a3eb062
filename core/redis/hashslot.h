#pragma once

#include <QByteArray>

namespace lockscope
{

/**
 * Redis Cluster key -> hash slot, as Redis computes it (protocol §7, toolchain item 6):
 * CRC16-CCITT (XMODEM: polynomial 0x1021, init 0) of the key, or of its hash tag, mod 16384.
 * Hash tag: the bytes between the first '{' and the first '}' after it, when non-empty.
 * (Redisson's own calcSlot differs for pathological keys such as "a}b{c}"; we follow Redis.)
 */
class HashSlot
{
public:
    static constexpr int kSlotCount = 16384;

    /** Slot 0..16383 of `key`. */
    static int of(const QByteArray &key);
    /** The part of `key` that is hashed (the hash tag, or the whole key). */
    static QByteArray hashedPart(const QByteArray &key);
    /** CRC16/XMODEM of `data`. */
    static quint16 crc16(const QByteArray &data);
};

} // namespace lockscope
