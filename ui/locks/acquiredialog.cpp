#include "locks/acquiredialog.h"

#include "protocol/lockkinds.h"

#include <QButtonGroup>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lockscope
{

namespace
{

/** A kind's text in the dialog: its descriptor's label or tooltip, translated (context LockKinds). */
QString kindText(const char *text)
{
    return QCoreApplication::translate("LockKinds", text);
}

} // namespace

AcquireDialog::AcquireDialog(const QString &name, QWidget *parent) : AcquireDialog(name, SnapshotLookup(), parent) {}

AcquireDialog::AcquireDialog(const QString &name, SnapshotLookup lookup, QWidget *parent)
    : QDialog(parent), m_lookup(std::move(lookup))
{
    setWindowTitle(tr("Acquire lock"));
    auto *form = new QFormLayout;
    m_name = new QLineEdit(name, this);
    m_name->setPlaceholderText(tr("lock name, e.g. orders:42"));
    form->addRow(tr("Lock &name:"), m_name);

    m_kindGroup = new QButtonGroup(this);
    auto *kindRow = new QHBoxLayout;
    for (const LockKindDescriptor &d : LockKinds::offered()) {
        auto *b = new QRadioButton(kindText(d.label), this);
        m_kindGroup->addButton(b, int(d.kind));
        m_kinds.insert(d.kind, b);
        m_kindTips.insert(d.kind, kindText(d.toolTip));
        kindRow->addWidget(b);
    }
    kindRow->addStretch();
    form->addRow(tr("Lock kind:"), kindRow);
    m_kindNote = new QLabel(this);
    m_kindNote->setWordWrap(true);
    form->addRow(QString(), m_kindNote);

    m_watchdog = new QRadioButton(tr("&Watchdog: 30 s lease, renewed every 10 s until released"), this);
    auto *lease = new QRadioButton(tr("Fixed l&ease:"), this);
    m_watchdog->setChecked(true);
    m_lease = new QSpinBox(this);
    m_lease->setRange(100, 24 * 3600 * 1000);
    m_lease->setValue(30000);
    m_lease->setSuffix(tr(" ms"));
    m_lease->setEnabled(false);
    connect(lease, &QRadioButton::toggled, m_lease, &QSpinBox::setEnabled);
    auto *leaseGroup = new QButtonGroup(this); // apart from the kind choice
    leaseGroup->addButton(m_watchdog);
    leaseGroup->addButton(lease);
    form->addRow(tr("Lease time:"), m_watchdog);
    form->addRow(lease, m_lease);
    m_thread = new QSpinBox(this);
    m_thread->setRange(1, 1 << 30);
    m_thread->setValue(1);
    m_thread->setToolTip(tr("The thread id part of the holder field. The same thread id re-enters (hold count + 1)"));
    form->addRow(tr("&Thread id:"), m_thread);
    m_wait = new QSpinBox(this);
    m_wait->setRange(0, 3600 * 1000);
    m_wait->setValue(0);
    m_wait->setSuffix(tr(" ms"));
    m_wait->setSpecialValueText(tr("do not wait (one attempt)"));
    m_wait->setToolTip(tr("Wait time: how long to wait for a held lock, woken by its unlock channel "
                          "(a fair lock queues only when it waits)"));
    form->addRow(tr("Wait &time:"), m_wait);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Acquire"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &AcquireDialog::updateKinds);
    connect(m_kindGroup, &QButtonGroup::idToggled, this, &AcquireDialog::updateOk);
    updateKinds();

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

void AcquireDialog::updateKinds()
{
    const QString name = lockName();
    std::optional<LockSnapshot> known = m_lookup && !name.isEmpty() ? m_lookup(name) : std::nullopt;
    if (known && known->name != name)
        known.reset();
    AcquireKind preselect = AcquireKind::Lock;
    if (known) {
        preselect = AcquirePlan::dataKind(*known);
        for (auto it = m_kinds.cbegin(); it != m_kinds.cend(); ++it) {
            const AcquirePlan plan = AcquirePlan::decide(*known, it.key());
            it.value()->setEnabled(!plan.isRefused());
            it.value()->setToolTip(plan.isRefused() ? plan.refusal : m_kindTips.value(it.key()));
        }
        const QString what = AcquirePlan::describe(*known);
        m_kindNote->setText(preselect == AcquireKind::Auto && !m_kinds.value(AcquireKind::Read)->isEnabled()
                                ? tr("%1 is %2: LockScope does not acquire it.").arg(name, what)
                            : preselect == AcquireKind::Auto ? tr("%1 is %2: choose read or write.").arg(name, what)
                                                             : tr("%1 is %2.").arg(name, what));
    } else {
        for (auto it = m_kinds.cbegin(); it != m_kinds.cend(); ++it) {
            it.value()->setEnabled(true);
            it.value()->setToolTip(m_kindTips.value(it.key()));
        }
        m_kindNote->setText(name.isEmpty() ? QString()
                                           : tr("Not seen in Redis: a free name, created with the kind you choose."));
    }
    if (QRadioButton *b = m_kinds.value(preselect)) {
        b->setChecked(true);
    } else { // a read-write lock: no default, the operator must choose
        m_kindGroup->setExclusive(false);
        for (QRadioButton *k : std::as_const(m_kinds))
            k->setChecked(false);
        m_kindGroup->setExclusive(true);
    }
    updateOk();
}

void AcquireDialog::updateOk()
{
    if (m_ok)
        m_ok->setEnabled(!lockName().isEmpty() && kind() != AcquireKind::Auto);
}

QString AcquireDialog::lockName() const
{
    return m_name->text().trimmed();
}
AcquireKind AcquireDialog::kind() const
{
    const int id = m_kindGroup->checkedId();
    return id < 0 ? AcquireKind::Auto : AcquireKind(id);
}
qint64 AcquireDialog::leaseMs() const
{
    return m_watchdog->isChecked() ? 0 : m_lease->value();
}
qint64 AcquireDialog::threadId() const
{
    return m_thread->value();
}
qint64 AcquireDialog::waitMs() const
{
    return m_wait->value();
}

} // namespace lockscope
