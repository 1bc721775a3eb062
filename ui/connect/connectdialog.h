#pragma once

#include "connect/connectionprofile.h"

#include "endpoint/tlsadvicewords.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace lockscope
{

class ConnectionProfileStore;
class PasswordKeychain;

/**
 * File > Connect… (Ctrl+O): saved connection profiles and recent connections on the left, the
 * selected one's settings on the right (name, URL, password and where it is kept, TLS files,
 * read-only, colour tag), with New, Save and Delete. Connect accepts the dialog with the form's
 * settings (saved or not) and the password typed, if any; ConnectionLauncher does the rest.
 *
 * Saving never writes a password to the settings: a password typed with "Save in the system
 * keychain" goes to the keychain; if that fails (no keychain), the profile falls back to asking
 * on connect and the dialog says why.
 */
class ConnectDialog : public QDialog
{
    Q_OBJECT
public:
    ConnectDialog(ConnectionProfileStore *store, PasswordKeychain *keychain, QWidget *parent = nullptr);

    /** The settings in the form (what Connect connects to). */
    ConnectionProfile profile() const;
    /** The password typed in the form; empty: none typed (the keychain or a prompt may supply it). */
    QString password() const;
    /** Selects the saved profile called `name` (false when there is none). */
    bool selectProfile(const QString &name);
    /** Fills the form with `profile` (not saved until Save). */
    void setProfile(const QString &savedName, const ConnectionProfile &profile);
    /** Saves the form as a profile (what the Save button does). Returns false and shows why on failure. */
    bool saveProfile();
    /** Deletes the selected saved profile and its keychain entry. */
    bool deleteProfile();
    /** The last message shown under the form (errors and notes). */
    QString message() const;
    /** This dialog's words for the TLS settings in core's sentences (TlsAdviceWords: core itself
     *  names no field or flag): the
     *  labels of its fields in quotes, "fill in …" to give them; `value` (a path) is left out, the
     *  field shows it. The dashboard's main installs it. */
    static QString tlsAdviceWord(TlsAdviceWords::Word word, const QString &value);

    /** A password prompt for ConnectionOptions / ConnectionLauncher: a modal dialog, echo off. */
    static bool askPassword(QWidget *parent, const QString &question, QString *password, QString *error);

signals:
    /** A save finished (the keychain is asynchronous): `ok` false when the profile was not saved. */
    void profileSaved(const QString &name, bool ok);

private:
    void reload(const QString &selectName = QString());
    void onItemChanged(QListWidgetItem *current);
    void newProfile();
    void browse(QLineEdit *edit, const QString &title);
    void showMessage(const QString &text, bool error);
    void updateState();
    void tryAccept();

    ConnectionProfileStore *m_store = nullptr;
    PasswordKeychain *m_keychain = nullptr;
    QString m_editedName; ///< saved name of the profile in the form, empty for a new/recent one
    ConnectionProfile::PasswordStorage m_savedStorage = ConnectionProfile::PasswordStorage::None;

    QListWidget *m_list = nullptr;
    QLineEdit *m_name = nullptr;
    QLineEdit *m_url = nullptr;
    QLineEdit *m_password = nullptr;
    QComboBox *m_storage = nullptr;
    QLineEdit *m_caFile = nullptr;
    QLineEdit *m_certFile = nullptr;
    QLineEdit *m_keyFile = nullptr;
    QLineEdit *m_serverName = nullptr;
    QCheckBox *m_insecure = nullptr;
    QCheckBox *m_readOnly = nullptr;
    QComboBox *m_color = nullptr;
    QLabel *m_message = nullptr;
    QPushButton *m_save = nullptr;
    QPushButton *m_delete = nullptr;
    QPushButton *m_connect = nullptr;
};

} // namespace lockscope
