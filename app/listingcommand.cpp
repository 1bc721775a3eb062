#include "listingcommand.h"

namespace lockscope
{

bool ListingCommand::oneShot() const
{
    return !identifies();
}

void ListingCommand::run()
{
    auto listed = [this] {
        if (m_finished)
            return;
        disconnect(m_session, &LockSession::watchIdle, this, nullptr);
        if (!identifies()) {
            print();
            return;
        }
        identifyThen(clientIds(), [this] { print(); });
    };
    connect(m_session, &LockSession::watchIdle, this, listed);
    connect(m_session, &LockSession::readFailed, this, [this](const QString &msg) { fail(ServerError, msg); });
    m_session->start();
}

QStringList ListingCommand::clientIds() const
{
    QStringList ids;
    m_session->forEachLock([&ids](const LockSnapshot &s) {
        for (const auto &h : s.holders)
            ids << h.clientId;
    });
    ids.removeAll(QString());
    ids.removeDuplicates();
    return ids;
}

} // namespace lockscope
