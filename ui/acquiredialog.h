#pragma once

#include <QDialog>

class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace lockscope {

/** Asks what to acquire as LockScope's own Redisson client: name, watchdog or lease, thread id, wait. */
class AcquireDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AcquireDialog(const QString &name, QWidget *parent = nullptr);

    QString lockName() const;
    /** 0 = watchdog (30 s lease renewed every 10 s), otherwise the lease in ms. */
    qint64 leaseMs() const;
    qint64 threadId() const;
    /** 0 = a single attempt; otherwise how long to wait in ms. */
    qint64 waitMs() const;

private:
    QLineEdit *m_name;
    QRadioButton *m_watchdog;
    QSpinBox *m_lease;
    QSpinBox *m_thread;
    QSpinBox *m_wait;
};

} // namespace lockscope
