#include "text/displaytext.h"

#include "redis/redisbytes.h"
#include "text/jsonobjectbuilder.h"

namespace lockscope
{

namespace
{

bool needsEscape(const QString &text, qsizetype i)
{
    const ushort u = text.at(i).unicode();
    // A backslash too: shown doubled, so `a\\nb` (backslash, n) and `a\nb` (a newline) differ.
    return u < 0x20 || u == '\\' || u == 0x7f || (u >= 0x80 && u < 0xa0) || u == 0xfffd ||
           RedisBytes::escapedByteAt(text, i) >= 0; // a byte of a name that is not valid UTF-8
}

} // namespace

QString DisplayText::escaped(const QString &text)
{
    bool any = false;
    for (qsizetype i = 0; i < text.size() && !any; ++i)
        any = needsEscape(text, i);
    if (!any)
        return text;
    QString out;
    out.reserve(text.size() + 8);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        const ushort u = c.unicode();
        if (c == QLatin1Char('\\'))
            out += QStringLiteral("\\\\");
        else if (!needsEscape(text, i))
            out += c;
        else if (u == '\n')
            out += QStringLiteral("\\n");
        else if (u == '\t')
            out += QStringLiteral("\\t");
        else if (u == '\r')
            out += QStringLiteral("\\r");
        else if (u == 0x1b)
            out += QStringLiteral("\\e");
        else if (RedisBytes::escapedByteAt(text, i) >= 0)
            out += QStringLiteral("\\x%1").arg(RedisBytes::escapedByteAt(text, i), 2, 16, QLatin1Char('0'));
        else if (u < 0x100)
            out += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
        else
            out += QStringLiteral("\\u{%1}").arg(u, 4, 16, QLatin1Char('0'));
    }
    return out;
}

namespace
{

/** DisplayText::insertJson() into either kind of object: `hexKey()` names the `_hex` key, built
 *  only for text that needs it. */
template <class Object, class Key, class HexKey>
void insertTextJson(Object &o, const Key &key, const HexKey &hexKey, const QString &text)
{
    if (!RedisBytes::hasEscapedBytes(text)) {
        o.insert(key, text);
        return;
    }
    o.insert(key, DisplayText::escaped(text));
    o.insert(hexKey(), RedisBytes::hex(text));
}

} // namespace

void DisplayText::insertJson(QJsonObject &o, const QString &key, const QString &text)
{
    insertTextJson(
        o, key, [&key] { return key + QStringLiteral("_hex"); }, text);
}

void DisplayText::insertJson(JsonObjectBuilder &o, QLatin1StringView key, QLatin1StringView hexKey, const QString &text)
{
    insertTextJson(
        o, key, [hexKey] { return hexKey; }, text);
}

QString DisplayText::fromJson(const QJsonObject &o, const QString &key)
{
    const QJsonValue hex = o.value(key + QStringLiteral("_hex"));
    if (hex.isString())
        return RedisBytes::toText(QByteArray::fromHex(hex.toString().toLatin1()));
    return o.value(key).toString();
}

QString DisplayText::compactCount(qint64 n)
{
    if (n < 1000)
        return QString::number(n);
    if (n < 1000000)
        return QStringLiteral("%1k").arg(n < 10000 ? QString::number(n / 1000.0, 'f', 1) : QString::number(n / 1000));
    return QStringLiteral("%1M").arg(QString::number(n / 1000000.0, 'f', 1));
}

} // namespace lockscope
