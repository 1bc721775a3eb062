#include "common/holderpalette.h"

namespace lockscope
{

const QVector<QColor> &HolderPalette::colors()
{
    // Tableau 10 plus two darker tones: distinct hues, none too light for a white background.
    static const QVector<QColor> palette{
        QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
        QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf),
        QColor(0xbc, 0xbd, 0x22), QColor(0x39, 0x3b, 0x79), QColor(0x63, 0x79, 0x39), QColor(0xad, 0x49, 0x4a),
    };
    return palette;
}

QColor HolderPalette::colorFor(const QString &holderField)
{
    if (holderField.isEmpty())
        return QColor(0x9e, 0x9e, 0x9e);
    quint32 hash = 2166136261u; // FNV-1a, 32 bit
    for (const QChar c : holderField) {
        hash ^= c.unicode();
        hash *= 16777619u;
    }
    const QVector<QColor> &p = colors();
    return p.at(int(hash % quint32(p.size())));
}

QStringList HolderPalette::split(const QString &who)
{
    QStringList out;
    for (const QString &part : who.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString field = part.trimmed();
        if (!field.isEmpty())
            out << field;
    }
    return out;
}

QString HolderPalette::shortLabel(const QString &holderField)
{
    const int colon = holderField.lastIndexOf(QLatin1Char(':'));
    if (colon < 0)
        return holderField.size() > 12 ? holderField.left(12) + QChar(0x2026) : holderField;
    const QString client = holderField.left(colon);
    return (client.size() > 8 ? client.left(8) + QChar(0x2026) : client) + holderField.mid(colon);
}

} // namespace lockscope
