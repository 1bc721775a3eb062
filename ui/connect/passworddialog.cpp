#include "connect/passworddialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace lockscope
{

PasswordDialog::PasswordDialog(const QString &server, const QString &user, const QString &reason, bool offerKeychain,
                               QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Password for %1").arg(server));
    setObjectName(QStringLiteral("passwordDialog"));
    m_text = new QLabel(tr("<b>%1 wants a password.</b><br>LockScope reads nothing until the login works. "
                           "Give the password of ACL user <b>%2</b> to connect again.")
                            .arg(server.toHtmlEscaped(), user.toHtmlEscaped()),
                        this);
    m_text->setWordWrap(true);
    auto *why = new QLabel(reason, this);
    why->setWordWrap(true);
    why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    why->setForegroundRole(QPalette::PlaceholderText);
    m_password = new QLineEdit(this);
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("Password"));
    m_password->setAccessibleName(tr("Password of ACL user %1 at %2").arg(user, server));
    m_save = new QCheckBox(tr("Save in the system keychain"), this);
    m_save->setToolTip(tr("Kept by the desktop's keychain (Secret Service, KWallet), never in a settings file"));
    m_save->setAccessibleName(tr("Save the password in the system keychain"));
    m_save->setVisible(offerKeychain);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    buttons->button(QDialogButtonBox::Cancel)->setText(tr("Not now"));
    buttons->button(QDialogButtonBox::Cancel)
        ->setToolTip(tr("Leave the window not connected; File > Connect… opens the connection again"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    layout->addWidget(why);
    layout->addWidget(m_password);
    layout->addWidget(m_save);
    layout->addWidget(buttons);
    m_password->setFocus();
    resize(460, sizeHint().height());
}

QString PasswordDialog::password() const
{
    return m_password->text();
}

bool PasswordDialog::saveInKeychain() const
{
    return !m_save->isHidden() && m_save->isChecked();
}

} // namespace lockscope
