#include "protocol/acquireplan.h"

#include "protocol/lockkinds.h"
#include "text/advicewords.h"

namespace lockscope
{

namespace
{

enum class DataShape { Free, FreeFenced, Plain, Fenced, Fair, ReadWrite, MultiLockGroup, NotALock };

bool isReadWrite(const LockSnapshot &s)
{
    return s.exists && (s.rwMode == QLatin1String("read") || s.rwMode == QLatin1String("write"));
}

DataShape shapeOf(const LockSnapshot &s)
{
    if (isReadWrite(s))
        return DataShape::ReadWrite;
    if (s.queueLength > 0 || s.timeoutSetSize > 0)
        return DataShape::Fair;
    if (s.exists && s.isLock && s.kind == LockKind::FasterMultiLock)
        return DataShape::MultiLockGroup;
    if (s.exists)
        return s.isLock ? (s.token >= 0 ? DataShape::Fenced : DataShape::Plain) : DataShape::NotALock;
    if (s.pttlMs != -2) // a key of another type under that name
        return DataShape::NotALock;
    return s.token >= 0 ? DataShape::FreeFenced : DataShape::Free;
}

QString plural(qint64 n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QString heldBy(const LockSnapshot &s)
{
    return s.holders.isEmpty() ? QStringLiteral("free") : QStringLiteral("held by %1").arg(s.holderSummary());
}

/** The front end's words for choosing kind `k` ("--kind fair" on the CLI, "\"fair\"" in the dashboard). */
QString kindFlag(AcquireKind k)
{
    return AdviceWords::name(AdviceWords::Choice::LockKind, AcquirePlan::kindName(k));
}

/** What a snapshot finds where `k` holds (LockKindDescriptor::foundAs); FasterMultiLock, which no
 *  acquire kind leaves, for Auto or an unregistered id. */
LockKind foundAs(AcquireKind k)
{
    const LockKindDescriptor *d = LockKinds::find(k);
    return d ? d->foundAs : LockKind::FasterMultiLock;
}

} // namespace

QString AcquirePlan::kindName(AcquireKind kind)
{
    if (kind == AcquireKind::Auto)
        return QStringLiteral("auto");
    const LockKindDescriptor *d = LockKinds::find(kind);
    return d ? d->word : QString();
}

std::optional<AcquireKind> AcquirePlan::parseKind(const QString &name)
{
    if (name.compare(QLatin1String("auto"), Qt::CaseInsensitive) == 0)
        return AcquireKind::Auto;
    const LockKindDescriptor *d = LockKinds::findWord(name);
    if (d && d->offered)
        return d->kind;
    return std::nullopt;
}

QString AcquirePlan::describe(const LockSnapshot &s)
{
    switch (shapeOf(s)) {
    case DataShape::ReadWrite: {
        if (s.rwMode == QLatin1String("write")) {
            QStringList writers;
            for (const auto &h : s.holders)
                if (h.mode == QLatin1String("write"))
                    writers << h.field;
            return writers.isEmpty() ? QStringLiteral("a read-write lock in write mode with no writer left")
                                     : QStringLiteral("a read-write lock, held for writing by %1")
                                           .arg(writers.join(QStringLiteral(", ")));
        }
        qint64 readers = 0;
        for (const auto &h : s.holders)
            if (h.mode == QLatin1String("read"))
                ++readers;
        return readers == 0 ? QStringLiteral("a read-write lock in read mode with no reader left")
                            : QStringLiteral("a read-write lock, held for reading by %1")
                                  .arg(plural(readers, "reader", "readers"));
    }
    case DataShape::Fair:
        if (s.queueLength > 0)
            return QStringLiteral("a fair lock with %1 (%2)")
                .arg(plural(s.queueLength, "queued waiter", "queued waiters"), heldBy(s));
        return QStringLiteral("a fair lock with %1 in its timeout set (%2)")
            .arg(plural(s.timeoutSetSize, "waiter deadline", "waiter deadlines"), heldBy(s));
    case DataShape::Fenced:
        return QStringLiteral("a fenced lock %1 (token %2)").arg(heldBy(s)).arg(s.token);
    case DataShape::FreeFenced:
        return QStringLiteral("a free fenced lock (token counter at %1)").arg(s.token);
    case DataShape::Plain:
        return QStringLiteral("a reentrant lock (or a fair lock with an empty queue) %1").arg(heldBy(s));
    case DataShape::MultiLockGroup:
        return QStringLiteral("a RedissonFasterMultiLock group (%1), which only getMultiLock(group, values) "
                              "clients take part in")
            .arg(heldBy(s));
    case DataShape::NotALock:
        return s.exists ? QStringLiteral(
                              "a hash that is not a Redisson lock (its fields are not <clientId>:<threadId> -> count)")
                        : QStringLiteral("a key that is not a hash, so not a Redisson lock");
    case DataShape::Free:
        break;
    }
    return QStringLiteral("a free name");
}

AcquireKind AcquirePlan::dataKind(const LockSnapshot &s)
{
    switch (shapeOf(s)) {
    case DataShape::Free:
    case DataShape::Plain:
        return AcquireKind::Lock;
    case DataShape::Fair:
        return AcquireKind::Fair;
    case DataShape::Fenced:
    case DataShape::FreeFenced:
        return AcquireKind::Fenced;
    case DataShape::ReadWrite:
    case DataShape::MultiLockGroup:
    case DataShape::NotALock:
        break;
    }
    return AcquireKind::Auto;
}

AcquirePlan AcquirePlan::decide(const LockSnapshot &s, AcquireKind requested)
{
    AcquirePlan plan;
    const QString what = QStringLiteral("%1 is %2").arg(s.name, describe(s));
    auto refuse = [&](const QString &advice) {
        plan.kind = AcquireKind::Auto;
        plan.refusal = QStringLiteral("%1%2").arg(what, advice);
        return plan;
    };
    if (requested != AcquireKind::Auto && !LockKinds::find(requested))
        return refuse(QStringLiteral("; LockScope knows no lock kind %1").arg(int(requested)));
    const DataShape shape = shapeOf(s);
    const AcquireKind wanted = requested == AcquireKind::Auto ? dataKind(s) : requested;
    switch (shape) {
    case DataShape::ReadWrite:
        if (foundAs(requested) == LockKind::ReadWriteLock)
            break;
        if (requested == AcquireKind::Auto)
            return refuse(
                QStringLiteral(": choose %1 or %2").arg(kindFlag(AcquireKind::Read), kindFlag(AcquireKind::Write)));
        return refuse(QStringLiteral("; %1 would treat its holds as its own and its release would delete them: "
                                     "use %2 or %3")
                          .arg(kindFlag(requested), kindFlag(AcquireKind::Read), kindFlag(AcquireKind::Write)));
    case DataShape::Fair:
        if (foundAs(wanted) == LockKind::FairLock)
            break;
        return refuse(
            QStringLiteral("; %1 would jump the queue: use %2").arg(kindFlag(requested), kindFlag(AcquireKind::Fair)));
    case DataShape::Fenced:
    case DataShape::FreeFenced:
        if (foundAs(wanted) == LockKind::FencedLock)
            break;
        if (foundAs(requested) == LockKind::ReadWriteLock)
            return refuse(QStringLiteral("; %1 would write a read-write 'mode' into it: use %2")
                              .arg(kindFlag(requested), kindFlag(AcquireKind::Fenced)));
        return refuse(QStringLiteral("; %1 would take no fencing token: use %2")
                          .arg(kindFlag(requested), kindFlag(AcquireKind::Fenced)));
    case DataShape::Plain:
        // What an RLock hash may be: an RLock, a spin lock (the same data) or a fair lock whose
        // queue is empty; the data cannot tell them apart.
        if (foundAs(wanted) == LockKind::Lock || foundAs(wanted) == LockKind::FairLock)
            break;
        if (foundAs(requested) == LockKind::FencedLock)
            return refuse(QStringLiteral(" and has no fencing token counter; %1 does not fit: use %2")
                              .arg(kindFlag(AcquireKind::Fenced), kindFlag(AcquireKind::Lock)));
        return refuse(QStringLiteral("; %1 would see no 'mode' field, treat it as free and join it: use %2")
                          .arg(kindFlag(requested), kindFlag(AcquireKind::Lock)));
    case DataShape::MultiLockGroup:
        return refuse(QStringLiteral(": LockScope's acquire does not join such groups (force-unlock can release one)"));
    case DataShape::NotALock:
        return refuse(QStringLiteral(": LockScope does not write into it"));
    case DataShape::Free:
        break;
    }
    plan.kind = wanted;
    return plan;
}

} // namespace lockscope
