#include "redisbytes.h"

#include <QByteArrayView>
#include <QRegularExpression>

namespace lockscope
{

namespace
{

/** Length of the UTF-8 sequence a lead byte announces, 0 for a byte that cannot lead one. */
int sequenceLength(uchar lead)
{
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF)
        return 3;
    if (lead >= 0xF0 && lead <= 0xF4)
        return 4;
    return 0;
}

} // namespace

QString RedisBytes::toText(const QByteArray &bytes)
{
    if (QByteArrayView(bytes).isValidUtf8())
        return QString::fromUtf8(bytes);
    // Slow path, only for invalid UTF-8: each sequence Qt's validator accepts is decoded, every
    // other byte is escaped on its own.
    QString out;
    out.reserve(bytes.size());
    qsizetype i = 0;
    while (i < bytes.size()) {
        const int n = sequenceLength(uchar(bytes.at(i)));
        if (n > 0 && i + n <= bytes.size()) {
            const QByteArrayView sequence(bytes.constData() + i, n);
            if (sequence.isValidUtf8()) {
                out += QString::fromUtf8(sequence);
                i += n;
                continue;
            }
        }
        out += QChar(ushort(0xDC00 + uchar(bytes.at(i))));
        ++i;
    }
    return out;
}

bool RedisBytes::hasEscapedBytes(const QString &text)
{
    // Called for every name shown or written (5 % of `list --json`'s time): one pass over the
    // UTF-16 units, the surrogate test only for units in U+DC80..U+DCFF.
    const QChar *u = text.constData(); // not utf16(): that may copy to add a terminator
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i)
        if (u[i].unicode() >= 0xDC80 && u[i].unicode() <= 0xDCFF && escapedByteAt(text, i) >= 0)
            return true;
    return false;
}

QString RedisBytes::displayed(const QString &text)
{
    if (!hasEscapedBytes(text))
        return text;
    QString out;
    out.reserve(text.size() + 16);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const int b = escapedByteAt(text, i);
        if (b >= 0)
            out += QStringLiteral("\\x%1").arg(b, 2, 16, QLatin1Char('0'));
        else
            out += text.at(i);
    }
    return out;
}

QString RedisBytes::matchable(const QString &text)
{
    if (!hasEscapedBytes(text))
        return text;
    QString out = text;
    for (qsizetype i = 0; i < out.size(); ++i)
        if (escapedByteAt(text, i) >= 0)
            out[i] = QChar(QChar::ReplacementCharacter);
    return out;
}

QByteArray RedisBytes::toBytes(const QString &text)
{
    if (!hasEscapedBytes(text))
        return text.toUtf8();
    QByteArray out;
    out.reserve(text.size());
    qsizetype runStart = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const int b = escapedByteAt(text, i);
        if (b < 0)
            continue;
        out += QStringView(text).mid(runStart, i - runStart).toUtf8();
        out += char(b);
        runStart = i + 1;
    }
    out += QStringView(text).mid(runStart).toUtf8();
    return out;
}

QString RedisBytes::fromDisplayed(const QString &typed)
{
    // A string with an escape DisplayText::escaped() writes is taken as displayed text; anything
    // else is the name as typed. "C:\temp" thus reads as "C:<tab>emp": the CLI, finding no such
    // lock, tries the text as typed (CliCommand::readOne).
    static const QRegularExpression displayed(
        QStringLiteral("\\\\(x[0-9a-fA-F]{2}|u\\{[0-9a-fA-F]{4,6}\\}|[\\\\ntre])"));
    if (!typed.contains(displayed))
        return typed;
    QString out;
    out.reserve(typed.size());
    for (qsizetype i = 0; i < typed.size(); ++i) {
        const QChar c = typed.at(i);
        if (c != QLatin1Char('\\') || i + 1 >= typed.size()) {
            out += c;
            continue;
        }
        const QChar e = typed.at(i + 1);
        bool ok = false;
        if (e == QLatin1Char('x') && i + 3 < typed.size()) {
            const int b = typed.mid(i + 2, 2).toInt(&ok, 16);
            if (ok && typed.mid(i + 2, 2).size() == 2) {
                out += b >= 0x80 ? QChar(ushort(0xDC00 + b)) : QChar(ushort(b));
                i += 3;
                continue;
            }
        } else if (e == QLatin1Char('u') && i + 2 < typed.size() && typed.at(i + 2) == QLatin1Char('{')) {
            const qsizetype close = typed.indexOf(QLatin1Char('}'), i + 3);
            const uint code = close > 0 ? typed.mid(i + 3, close - i - 3).toUInt(&ok, 16) : 0;
            if (ok) {
                out += QString::fromUcs4(reinterpret_cast<const char32_t *>(&code), 1);
                i = close;
                continue;
            }
        } else {
            const char16_t simple = e == QLatin1Char('\\')  ? u'\\'
                                    : e == QLatin1Char('n') ? u'\n'
                                    : e == QLatin1Char('t') ? u'\t'
                                    : e == QLatin1Char('r') ? u'\r'
                                    : e == QLatin1Char('e') ? u'\x1b'
                                                            : 0;
            if (simple) {
                out += QChar(simple);
                ++i;
                continue;
            }
        }
        out += c;
    }
    return out;
}

} // namespace lockscope
