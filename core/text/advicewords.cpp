#include "advicewords.h"

namespace lockscope
{

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
