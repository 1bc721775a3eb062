#include "protocol/lockkinds.h"

#include <QStringList>

#include <algorithm>

namespace lockscope
{

namespace
{

/** Appends `d` to `kinds` with its id (see LockKinds::add); Auto when refused. Touches no other
 *  list, so the registry's first fill can use it. */
AcquireKind addTo(QList<LockKindDescriptor> &kinds, LockKindDescriptor d)
{
    if (d.word.isEmpty() || d.word.compare(QLatin1String("auto"), Qt::CaseInsensitive) == 0 || !d.make) {
        qWarning("LockKinds::add: a kind needs a word other than \"auto\" and a make function");
        return AcquireKind::Auto;
    }
    int next = int(AcquireKind::Spin) + 1;
    for (const LockKindDescriptor &k : std::as_const(kinds)) {
        if (k.word.compare(d.word, Qt::CaseInsensitive) == 0 || (d.kind != AcquireKind::Auto && k.kind == d.kind)) {
            qWarning("LockKinds::add: the kind \"%s\" or its id is already registered", qPrintable(d.word));
            return AcquireKind::Auto;
        }
        next = std::max(next, int(k.kind) + 1);
    }
    if (d.kind == AcquireKind::Auto)
        d.kind = AcquireKind(next);
    kinds << d;
    return d.kind;
}

/** The registry's one list, the shipped kinds in it from the first use (thread-safe start). */
QList<LockKindDescriptor> &registry()
{
    static QList<LockKindDescriptor> kinds = [] {
        QList<LockKindDescriptor> shipped;
        for (const LockKindDescriptor &d : shippedLockKinds())
            addTo(shipped, d);
        return shipped;
    }();
    return kinds;
}

QString choiceList(const QStringList &words)
{
    if (words.size() < 2)
        return words.join(QString());
    return QStringLiteral("%1 or %2").arg(words.mid(0, words.size() - 1).join(QStringLiteral(", ")), words.last());
}

QStringList offeredWords()
{
    QStringList words;
    for (const LockKindDescriptor &d : std::as_const(registry()))
        if (d.offered)
            words << d.word;
    return words;
}

} // namespace

QList<LockKindDescriptor> LockKinds::all()
{
    return registry();
}

QList<LockKindDescriptor> LockKinds::offered()
{
    QList<LockKindDescriptor> out;
    for (const LockKindDescriptor &d : std::as_const(registry()))
        if (d.offered)
            out << d;
    return out;
}

const LockKindDescriptor *LockKinds::find(AcquireKind kind)
{
    const QList<LockKindDescriptor> &kinds = registry();
    for (const LockKindDescriptor &d : kinds)
        if (d.kind == kind && kind != AcquireKind::Auto)
            return &d;
    return nullptr;
}

const LockKindDescriptor *LockKinds::findWord(const QString &word)
{
    const QList<LockKindDescriptor> &kinds = registry();
    for (const LockKindDescriptor &d : kinds)
        if (d.word.compare(word, Qt::CaseInsensitive) == 0)
            return &d;
    return nullptr;
}

AcquireKind LockKinds::add(LockKindDescriptor d)
{
    return addTo(registry(), std::move(d));
}

AcquireKind LockKinds::idOf(const QString &word)
{
    const LockKindDescriptor *d = findWord(word);
    return d ? d->kind : AcquireKind::Auto;
}

bool LockKinds::remove(AcquireKind kind)
{
    QList<LockKindDescriptor> &kinds = registry();
    return kind != AcquireKind::Auto &&
           kinds.removeIf([kind](const LockKindDescriptor &d) { return d.kind == kind; }) > 0;
}

QString LockKinds::kindSynopsis()
{
    return offeredWords().join(QLatin1Char('|'));
}

QString LockKinds::kindHelp()
{
    return QStringLiteral("acquire: the lock kind to take: %1. Default: the kind the lock's data says (lock "
                          "for a free name; a read-write lock needs read or write). A kind that contradicts "
                          "the data is refused (exit 3).")
        .arg(choiceList(offeredWords()));
}

} // namespace lockscope
