#include "protocol/lockkinddescriptor.h"

#include "protocol/locknames.h"

namespace lockscope
{

QString LockKindDescriptor::holderFieldOf(const QString &clientId, qint64 threadId) const
{
    const QString field = QStringLiteral("%1:%2").arg(clientId).arg(threadId);
    return holderField == HolderField::ClientThreadWrite ? field + QStringLiteral(":write") : field;
}

QString LockKindDescriptor::waitChannelOf(const QString &name, const QString &field) const
{
    switch (waitChannel) {
    case WaitChannel::LockChannel:
        return LockNames::unlockChannel(name);
    case WaitChannel::PerWaiterChannel:
        return LockNames::unlockChannel(name) + QLatin1Char(':') + field;
    case WaitChannel::ReadWriteChannel:
        return LockNames::readWriteChannel(name);
    case WaitChannel::None:
        break;
    }
    return QString();
}

} // namespace lockscope
