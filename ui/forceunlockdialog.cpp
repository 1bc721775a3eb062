#include "forceunlockdialog.h"

#include "ttlbardelegate.h"

#include "observe/locknames.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace lockscope {

ForceUnlockDialog::ForceUnlockDialog(const LockSnapshot &s, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Force unlock %1?").arg(s.name));
    QStringList lines;
    lines << tr("<b>Force unlock deletes <code>%1</code> whatever its holder is doing.</b>").arg(s.name.toHtmlEscaped());
    if (s.holders.isEmpty())
        lines << tr("Holder: none (the lock looks free)");
    for (const auto &h : s.holders)
        lines << tr("Holder: client <code>%1</code>, thread <code>%2</code>, hold count <b>%3</b>")
                     .arg(h.clientId, h.threadId.toHtmlEscaped())
                     .arg(h.holdCount);
    lines << tr("TTL left: %1").arg(TtlBarDelegate::formatTtl(s.remainingTtlMs(LockSnapshot::steadyNowMs())));
    if (s.kind == LockKind::FairLock) {
        if (s.waiters.isEmpty()) {
            lines << tr("Waiters: none queued");
        } else {
            QStringList queued;
            for (const auto &w : s.waiters.mid(0, 5))
                queued << QStringLiteral("%1. <code>%2</code>").arg(w.position).arg(w.field.toHtmlEscaped());
            lines << tr("Waiters (%1 queued, FIFO):<br>&nbsp;&nbsp;%2%3")
                         .arg(s.queueLength)
                         .arg(queued.join(QStringLiteral("<br>&nbsp;&nbsp;")))
                         .arg(s.queueLength > 5 ? QStringLiteral("<br>&nbsp;&nbsp;…") : QString());
        }
        lines << tr("Then LockScope prunes waiters past their deadline and publishes <code>0</code> on the head "
                    "waiter's own channel <code>%1:&lt;head&gt;</code>, in the same atomic script; the head waiter "
                    "acquires next.")
                     .arg(LockNames::unlockChannel(s.name).toHtmlEscaped());
    } else if (s.kind == LockKind::ReadWriteLock) {
        lines << tr("Waiters: %n Redisson client(s) subscribed to the read-write channel", nullptr, int(s.subscribers));
        lines << tr("Then LockScope publishes <code>1</code> on <code>%1</code> in the same atomic script: every "
                    "waiting reader and writer thread wakes up.")
                     .arg(LockNames::readWriteChannel(s.name).toHtmlEscaped());
    } else {
        lines << tr("Waiters: %n Redisson client(s) subscribed to the unlock channel will be woken at once", nullptr,
                    int(s.subscribers));
        lines << tr("Then LockScope publishes <code>0</code> on <code>%1</code> in the same atomic script.")
                     .arg(LockNames::unlockChannel(s.name).toHtmlEscaped());
    }
    lines << tr("<span style='color:#b03a00'>The holder is not told: if it is still working, two processes may "
                "run the critical section at once. Use this for stuck locks whose holder is gone.</span>");
    m_summary = lines.join(QStringLiteral("<br>"));

    auto *icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(48, 48));
    auto *text = new QLabel(m_summary, this);
    text->setWordWrap(true);
    text->setTextFormat(Qt::RichText);
    text->setMinimumWidth(460);

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
    QPushButton *force = buttons->addButton(tr("&Force unlock"), QDialogButtonBox::DestructiveRole);
    QLineEdit *typed = nullptr;
    if (s.isHeld()) {
        // A held lock: the operator types its name, so a stray Enter never deletes it.
        typed = new QLineEdit(this);
        typed->setObjectName(QStringLiteral("confirmName"));
        typed->setPlaceholderText(tr("type %1 to confirm").arg(s.name));
        force->setEnabled(false);
        connect(typed, &QLineEdit::textChanged, force, [force, name = s.name](const QString &t) { force->setEnabled(t == name); });
    }
    force->setStyleSheet(QStringLiteral("QPushButton { color: white; background: #c0392b; padding: 4px 12px; }"));
    force->setAutoDefault(false);
    cancel->setDefault(true);
    cancel->setFocus();
    connect(force, &QPushButton::clicked, this, &QDialog::accept);
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);

    auto *row = new QHBoxLayout;
    row->addWidget(icon, 0, Qt::AlignTop);
    row->addWidget(text, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    if (typed) {
        layout->addWidget(new QLabel(tr("It is held. Type the lock name to confirm:"), this));
        layout->addWidget(typed);
    }
    layout->addWidget(new QLabel(tr("<small>Deleted only if the lock is still exactly as shown; the action is "
                                    "recorded in the audit log.</small>"), this));
    layout->addWidget(buttons);
}

} // namespace lockscope
