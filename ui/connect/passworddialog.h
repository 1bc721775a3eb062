#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace lockscope
{

/**
 * Asks for the password a server wants (retrying a server that answers NOAUTH or WRONGPASS gets
 * nowhere, and a GUI user cannot act on advice about command-line options). Says which
 * server and ACL user, why it asks (the server's refusal, as a sentence), and offers to keep the
 * password in the system keychain when LockScope was built with one (PasswordKeychain).
 * Non-modal use: open() and the accepted() signal; the GUI thread never waits for it.
 */
class PasswordDialog : public QDialog
{
    Q_OBJECT
public:
    /** `server`: an address without password; `user`: the ACL user ("default" for requirepass);
     *  `reason`: why the login failed (the connection's sentence); `offerKeychain`: show the
     *  "save in the system keychain" box. */
    PasswordDialog(const QString &server, const QString &user, const QString &reason, bool offerKeychain,
                   QWidget *parent = nullptr);

    QString password() const;
    /** The operator ticked "Save in the system keychain" (false when it was not offered). */
    bool saveInKeychain() const;

private:
    QLabel *m_text = nullptr;
    QLineEdit *m_password = nullptr;
    QCheckBox *m_save = nullptr;
};

} // namespace lockscope
