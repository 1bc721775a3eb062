#include "acquiredialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lockscope {

AcquireDialog::AcquireDialog(const QString &name, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Acquire lock"));
    auto *form = new QFormLayout;
    m_name = new QLineEdit(name, this);
    m_name->setPlaceholderText(tr("lock name, e.g. orders:42"));
    form->addRow(tr("Lock &name:"), m_name);
    m_watchdog = new QRadioButton(tr("&Watchdog: 30 s lease, renewed every 10 s until released"), this);
    auto *lease = new QRadioButton(tr("Fixed &lease:"), this);
    m_watchdog->setChecked(true);
    m_lease = new QSpinBox(this);
    m_lease->setRange(100, 24 * 3600 * 1000);
    m_lease->setValue(30000);
    m_lease->setSuffix(tr(" ms"));
    m_lease->setEnabled(false);
    connect(lease, &QRadioButton::toggled, m_lease, &QSpinBox::setEnabled);
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
    m_wait->setToolTip(tr("Wait time: how long to wait for a held lock, woken by its unlock channel"));
    form->addRow(tr("Wait &time:"), m_wait);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Acquire"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto updateOk = [this, buttons] { buttons->button(QDialogButtonBox::Ok)->setEnabled(!lockName().isEmpty()); };
    connect(m_name, &QLineEdit::textChanged, this, updateOk);
    updateOk();

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

QString AcquireDialog::lockName() const { return m_name->text().trimmed(); }
qint64 AcquireDialog::leaseMs() const { return m_watchdog->isChecked() ? 0 : m_lease->value(); }
qint64 AcquireDialog::threadId() const { return m_thread->value(); }
qint64 AcquireDialog::waitMs() const { return m_wait->value(); }

} // namespace lockscope
