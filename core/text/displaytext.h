#pragma once

#include <QJsonObject>
#include <QString>

namespace lockscope
{

class JsonObjectBuilder;

/**
 * Text from Redis made safe for a terminal or a label: key names, holder fields and
 * values are whatever a client wrote, and raw control characters in them would reach the
 * operator's terminal as escape sequences. JSON output needs none of this (QJsonDocument escapes).
 */
class DisplayText
{
public:
    /** `text` with every control character (C0, DEL, C1) and U+FFFD (a byte that was not UTF-8)
     *  written as a visible escape: `\n`, `\t`, `\r`, `\e`, else `\xNN` / `\u{NNNN}`. A backslash
     *  is doubled only when escapes were needed, so ordinary names print unchanged. */
    static QString escaped(const QString &text);
    /** Puts a key name or field into JSON under `key`: as it is when valid UTF-8; otherwise its
     *  escaped form (`lock:\xff`, which the CLI accepts as a name) plus `<key>_hex` with the exact
     *  bytes, so nothing is lost. */
    static void insertJson(QJsonObject &o, const QString &key, const QString &text);
    /** The same into a JsonObjectBuilder: `hexKey` is `<key>_hex` (both string literals). */
    static void insertJson(JsonObjectBuilder &o, QLatin1StringView key, QLatin1StringView hexKey, const QString &text);
    /** Inverse of insertJson(): the exact text from `<key>_hex` when present, else `key`'s string. */
    static QString fromJson(const QJsonObject &o, const QString &key);
    /** A count for a progress line: "412", "8.3k", "83k", "1.0M" (used by the CLI and the
     *  dashboard's scan progress). */
    static QString compactCount(qint64 n);
};

} // namespace lockscope
