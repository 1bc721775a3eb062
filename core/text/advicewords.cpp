#include "advicewords.h"

namespace lockscope
{

namespace
{

AdviceWords::Namer &namer()
{
    static AdviceWords::Namer n;
    return n;
}

} // namespace

void AdviceWords::setNamer(Namer n)
{
    namer() = std::move(n);
}

QString AdviceWords::name(Choice choice, const QString &value)
{
    return namer() ? namer()(choice, value) : defaultName(choice, value);
}

QString AdviceWords::defaultName(Choice choice, const QString &value)
{
    switch (choice) {
    case Choice::LockKind:
        return QStringLiteral("\"%1\"").arg(value);
    case Choice::WaiterWait:
        break;
    }
    return QStringLiteral("give the waiter's wait");
}

} // namespace lockscope
