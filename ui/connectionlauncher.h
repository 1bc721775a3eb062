#pragma once

#include "connect/connectionprofile.h"

#include "session/locksession.h"

#include <QObject>

class QDialog;
class QWidget;

namespace lockscope
{

class ConnectionProfileStore;
class MainWindow;
class PasswordKeychain;

/**
 * Turns a connection profile into a dashboard window: resolves the password (typed, else the
 * system keychain, else a prompt when the profile needs one), applies the read-only flag and the
 * colour tag, remembers the connection as recent, and opens a new MainWindow for it.
 *
 * Switching connection opens a new window (each window owns its LockSession and redis-io
 * thread); the window it was asked from stays as it is. Windows it opens delete themselves on
 * close. Lives on the GUI thread.
 */
class ConnectionLauncher : public QObject
{
    Q_OBJECT
public:
    ConnectionLauncher(ConnectionProfileStore *store, PasswordKeychain *keychain, QObject *parent = nullptr);

    /**
     * Session options for `profile`: its endpoint with the password (`typedPassword`, else the
     * keychain, else asked in a dialog parented to `parent`) and its read-only flag. Returns false
     * with `*error` set when the profile is wrong or the password prompt was cancelled.
     */
    bool resolve(const ConnectionProfile &profile, const QString &typedPassword, QWidget *parent,
                 LockSession::Options *options, QString *error);
    /** File > Connect… of `window` opens the connect dialog; a refused login or a missing password
     *  opens a PasswordDialog (askPassword()). `profile`: the saved or recent connection the
     *  window shows (where to keep a password in the keychain), empty for a bare URL. */
    void adopt(MainWindow *window, const ConnectionProfile &profile = ConnectionProfile());
    /**
     * Asks, without blocking, for the password `window`'s server wants (`detail`: why). On
     * Connect: saves it in the keychain if asked (and the profile as keeping it there), opens a
     * new window with it at the same place and closes `window` (its session stopped). Returns
     * the dialog (deleted when closed).
     */
    QDialog *askPassword(MainWindow *window, const ConnectionProfile &profile, const QString &detail);
    /** Shows the connect dialog; on Connect, opens a window for the chosen connection. */
    MainWindow *showConnectDialog(QWidget *parent);
    /** A new, started window for `options`, tagged with `profile`'s name and colour. */
    MainWindow *openWindow(const LockSession::Options &options, const ConnectionProfile &profile);
    /** The label of the colour band for `profile` (its name; the URL for an unnamed one). */
    static QString tagLabel(const ConnectionProfile &profile);

private:
    ConnectionProfileStore *m_store = nullptr;
    PasswordKeychain *m_keychain = nullptr;
};

} // namespace lockscope
