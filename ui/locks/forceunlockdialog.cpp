#include "locks/forceunlockdialog.h"

#include "protocol/locknames.h"
#include "text/durationtext.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace lockscope
{

ForceUnlockDialog::ForceUnlockDialog(const LockSnapshot &s, QWidget *parent,
                                     const std::function<ClientIdentity(const QString &)> &who)
    : QDialog(parent)
{
    setWindowTitle(tr("Force unlock %1?").arg(s.name));
    QStringList lines;
    lines
        << tr("<b>Force unlock deletes <code>%1</code> whatever its holder is doing.</b>").arg(s.name.toHtmlEscaped());
    if (s.holders.isEmpty())
        lines << tr("Holder: none (the lock looks free)");
    for (const auto &h : s.holders) {
        lines << tr("Holder: client <code>%1</code>, thread <code>%2</code>, hold count <b>%3</b>")
                     .arg(h.clientId, h.threadId.toHtmlEscaped())
                     .arg(h.holdCount);
        if (!who)
            continue;
        const ClientIdentity c = who(h.clientId);
        if (c.state == ClientIdentity::State::Disconnected)
            lines
                << tr("&nbsp;&nbsp;<b>Its client is gone:</b> every connection closed at %1 (was %2%3). Nothing of it "
                      "is running against Redis any more.")
                       .arg(QDateTime::fromMSecsSinceEpoch(c.disconnectedAtMs).toString(QStringLiteral("HH:mm:ss")),
                            c.lastAddresses.join(QStringLiteral(", ")).toHtmlEscaped(),
                            c.name.isEmpty() ? QString() : QStringLiteral(", '%1'").arg(c.name.toHtmlEscaped()));
        else if (c.state == ClientIdentity::State::Connected && c.evidence != ClientIdentity::Evidence::None)
            lines << tr("&nbsp;&nbsp;<span style='color:#b03a00'><b>Its client is connected</b></span> from %1%2, last "
                        "command %3 s ago: it may still be working.")
                         .arg(c.connections.isEmpty() ? c.host.toHtmlEscaped()
                                                      : c.connections.first().address.toHtmlEscaped(),
                              c.name.isEmpty() ? QString() : QStringLiteral(" ('%1')").arg(c.name.toHtmlEscaped()))
                         .arg(std::max<qint64>(0, c.idleS()));
        else
            lines << tr("&nbsp;&nbsp;Its client is not identified: LockScope has not seen it send anything (Clients › "
                        "Identify finds its host).");
    }
    lines << tr("TTL left: %1").arg(DurationText::ttl(s.remainingTtlMs(LockSnapshot::steadyNowMs())));
    if (!s.exists) {
        // The force-unlock script deletes nothing here, and so publishes nothing: promise no wake-up.
        const qint64 waiting = s.kind == LockKind::FairLock ? s.queueLength : s.subscribers;
        lines << tr("The lock is not held: force unlock deletes nothing and wakes nobody.");
        if (waiting > 0)
            lines << tr("%n client(s) wait for it. To wake them use the doctor's <b>Wake the waiting clients</b> "
                        "repair (<code>lockscope-cli wake "
                        "%1</code>) instead.",
                        nullptr, int(waiting))
                         .arg(s.name.toHtmlEscaped());
    } else if (s.kind == LockKind::FairLock) {
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
    QLabel *hint = nullptr;
    if (s.isHeld()) {
        // A held lock: the operator types its name, so a stray Enter never deletes it. Focus starts
        // in the field; Enter there acts only when the name matches, and never cancels silently
        // (with focus on Cancel, Enter after typing the name would cancel).
        typed = new QLineEdit(this);
        typed->setObjectName(QStringLiteral("confirmName"));
        typed->setPlaceholderText(tr("type %1 to confirm").arg(s.name));
        typed->setAccessibleName(tr("Lock name to confirm the force unlock"));
        hint = new QLabel(this);
        hint->setObjectName(QStringLiteral("confirmHint"));
        force->setEnabled(false);
        connect(typed, &QLineEdit::textChanged, this, [force, hint, name = s.name](const QString &t) {
            force->setEnabled(t == name);
            hint->setText(t == name ? tr("Enter force-unlocks %1; Escape cancels.").arg(name) : QString());
        });
        connect(typed, &QLineEdit::returnPressed, this, [this, typed, hint, name = s.name] {
            if (typed->text() == name)
                accept();
            else
                hint->setText(tr("The text does not match the lock name yet: nothing was done."));
        });
    }
    force->setStyleSheet(QStringLiteral("QPushButton { color: white; background: #c0392b; padding: 4px 12px; }"
                                        "QPushButton:disabled { color: #f4f4f4; background: #d9a39c; }"));
    force->setAutoDefault(false);
    if (typed) {
        cancel->setAutoDefault(false); // Enter in the field is handled above, not by a default button
        cancel->setDefault(false);
    } else {
        cancel->setDefault(true); // a lock nobody holds: Enter cancels, the safe side
    }
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);
    connect(force, &QPushButton::clicked, this, &QDialog::accept);

    auto *row = new QHBoxLayout;
    row->addWidget(icon, 0, Qt::AlignTop);
    row->addWidget(text, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    if (typed) {
        auto *ask = new QLabel(tr("It is held. Type the lock name to confirm:"), this);
        ask->setBuddy(typed);
        layout->addWidget(ask);
        layout->addWidget(typed);
        layout->addWidget(hint);
    }
    layout->addWidget(new QLabel(tr("<small>Deleted only if the lock is still exactly as shown; the action is "
                                    "recorded in the audit log.</small>"),
                                 this));
    layout->addWidget(buttons);
    if (typed)
        typed->setFocus();
    else
        cancel->setFocus();
}

} // namespace lockscope
