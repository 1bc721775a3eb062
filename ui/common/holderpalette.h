#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lockscope
{

/**
 * One colour per holder, the same everywhere (timeline lanes, TTL chart, every lock) and in
 * every run: the colour is picked from a fixed palette by a stable hash (FNV-1a over the UTF-16
 * text) of the holder field `clientId:threadId`, never by Qt's per-process seeded qHash.
 */
class HolderPalette
{
public:
    /** The fixed palette (12 colours readable on white and on a projector). */
    static const QVector<QColor> &colors();
    /** The colour of one holder field; an empty field gets neutral grey. */
    static QColor colorFor(const QString &holderField);
    /** The holder fields of an interval's `who` / a sample's `holders` ("a:1, b:2" -> {a:1, b:2}). */
    static QStringList split(const QString &who);
    /** A short label for a holder field: the first 8 characters of the client id, then the thread
     *  id ("b983c153…:57"); fields without a colon are shortened to 12 characters. */
    static QString shortLabel(const QString &holderField);
};

} // namespace lockscope
