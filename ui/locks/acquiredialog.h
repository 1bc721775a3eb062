#pragma once

#include "protocol/acquireplan.h"
#include "protocol/locksnapshot.h"

#include <QDialog>
#include <QMap>

#include <functional>
#include <optional>

class QButtonGroup;
class QPushButton;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace lockscope
{

/**
 * Asks what to acquire as LockScope's own Redisson client: name, lock kind, watchdog or lease,
 * thread id, wait.
 *
 * The kind: one choice per kind the front ends offer (LockKinds::offered(): lock, fair, read,
 * write, fenced, and any kind registered later), with its descriptor's label and tooltip
 * (protocol §14.1). For a name the dashboard knows,
 * the kind its data says is preselected and the kinds that contradict the data are disabled,
 * each with a tooltip saying why (AcquirePlan::decide); on a read-write lock nothing is
 * preselected, since the operator must choose read or write (Acquire stays disabled until then).
 * For a free name every kind is offered, `lock` preselected.
 */
class AcquireDialog : public QDialog
{
    Q_OBJECT
public:
    /** What the dashboard last read about a lock name; nullopt when it knows nothing (free). */
    using SnapshotLookup = std::function<std::optional<LockSnapshot>(const QString &name)>;

    explicit AcquireDialog(const QString &name, QWidget *parent = nullptr);
    AcquireDialog(const QString &name, SnapshotLookup lookup, QWidget *parent = nullptr);

    QString lockName() const;
    /** The chosen kind; Auto when none is chosen (then Acquire is disabled). */
    AcquireKind kind() const;
    /** 0 = watchdog (30 s lease renewed every 10 s), otherwise the lease in ms. */
    qint64 leaseMs() const;
    qint64 threadId() const;
    /** 0 = a single attempt; otherwise how long to wait in ms. */
    qint64 waitMs() const;

    /** The radio button of `kind` (tests, screenshots). */
    QRadioButton *kindButton(AcquireKind kind) const { return m_kinds.value(kind); }

private:
    /** Re-reads what is known about the typed name and updates the kind choice. */
    void updateKinds();
    void updateOk();

    SnapshotLookup m_lookup;
    QLineEdit *m_name;
    QButtonGroup *m_kindGroup;
    QMap<AcquireKind, QRadioButton *> m_kinds;
    /** Each offered kind's tooltip (its descriptor's), shown when the data does not refuse it. */
    QMap<AcquireKind, QString> m_kindTips;
    QLabel *m_kindNote;
    QRadioButton *m_watchdog;
    QSpinBox *m_lease;
    QSpinBox *m_thread;
    QSpinBox *m_wait;
    QPushButton *m_ok = nullptr;
};

} // namespace lockscope
