#pragma once

#include <QByteArray>
#include <QString>

namespace lockscope
{

/**
 * Redis keys, hash fields, list and zset members are bytes, not text: a lock may be named with
 * bytes that are not valid UTF-8, and a holder field may carry such bytes; such a lock must still be listed and named.
 * LockScope keeps them in QString losslessly with the "surrogate escape" of PEP 383: every byte that is not part of a
 * valid UTF-8 sequence becomes the lone low surrogate U+DC80..U+DCFF (0xDC00 + byte), which valid UTF-8 can never
 * produce, and toBytes() turns it back into that byte. For valid UTF-8 both functions are exactly QString::fromUtf8 /
 * QString::toUtf8.
 *
 * Use toText() for every name, field or member read from Redis and toBytes() for every one sent
 * back (KEYS, ARGV, channels, the hash slot); DisplayText::escaped() shows an escaped byte as \xNN.
 */
class RedisBytes
{
public:
    /** The bytes as text, invalid UTF-8 bytes surrogate-escaped (lossless). */
    static QString toText(const QByteArray &bytes);
    /** The exact bytes of a toText() string (UTF-8, escaped bytes restored). */
    static QByteArray toBytes(const QString &text);
    /** True when `text` holds escaped bytes (its name is not valid UTF-8 in Redis). */
    static bool hasEscapedBytes(const QString &text);
    /** Lowercase hex of toBytes(text), for JSON consumers that need the exact bytes. */
    static QString hex(const QString &text) { return QString::fromLatin1(toBytes(text).toHex()); }
    /**
     * A name typed by an operator in the form LockScope displays it (DisplayText::escaped): when
     * it holds an escape (\xNN, \u{NNNN}, \\, \n, \t, \r, \e), every escape is undone (\xNN
     * with NN ≥ 80 hex is that raw byte, \\ a backslash, \n \t \r \e control characters);
     * otherwise the text is the name as typed. So `lock:\xff` names the key "lock:" + byte 0xFF,
     * `nl\nX` the name with a newline, and the CLI can act on every lock it lists. A name that
     * holds such a sequence literally (`C:\temp`) is found by the CLI's second try, the text
     * as typed, when no lock has the decoded name.
     */
    static QString fromDisplayed(const QString &typed);
    /** `text` with each escaped byte written \xNN and nothing else changed (for messages that
     *  embed a name; DisplayText::escaped() also escapes control characters). */
    static QString displayed(const QString &text);
    /** `text` for QRegularExpression, which matches no string holding a lone surrogate: each
     *  escaped byte becomes U+FFFD (one character, as a glob's `?` is one byte to Redis). */
    static QString matchable(const QString &text);
    /** The byte escaped at text[i], or -1: U+DC80..U+DCFF that is not the low half of a valid
     *  surrogate pair (U+1F480..U+1F4FF, e.g., has such a low half and is no escaped byte). */
    static int escapedByteAt(const QString &text, qsizetype i)
    {
        const ushort u = text.at(i).unicode();
        if (u < 0xDC80 || u > 0xDCFF || (i > 0 && text.at(i - 1).isHighSurrogate()))
            return -1;
        return int(u - 0xDC00);
    }
};

} // namespace lockscope
