#pragma once

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
    explicit ForceUnlockDialog(const LockSnapshot &snapshot, QWidget *parent = nullptr);

    /** The text shown (for tests and the audit trail). */
    QString summary() const { return m_summary; }

private:
    QString m_summary;
};

} // namespace lockscope
