#pragma once

#include "protocol/clientidentity.h"

#include <functional>

#include "protocol/locksnapshot.h"

#include <QDialog>

namespace lockscope
{

/**
 * Confirmation for a force unlock: states exactly what will happen to whom (holder, hold count,
 * age is unknown to Redis so the TTL is shown, waiters that will be woken) before anything is
 * written. Cancel is the default button; Escape cancels.
 */
class ForceUnlockDialog : public QDialog
{
    Q_OBJECT
public:
    /** `who`: what is known of a holder's client id (LockSession::clientIdentity); each holder line
     *  then says whether its client is connected, from where, and when it last did anything. */
    explicit ForceUnlockDialog(const LockSnapshot &snapshot, QWidget *parent = nullptr,
                               const std::function<ClientIdentity(const QString &clientId)> &who = nullptr);

    /** The text shown (for tests and the audit trail). */
    QString summary() const { return m_summary; }

private:
    QString m_summary;
};

} // namespace lockscope
