#include "connectionlauncher.h"

#include "connect/connectdialog.h"
#include "connect/connectionprofilestore.h"
#include "connect/passworddialog.h"
#include "connect/passwordkeychain.h"
#include "mainwindow.h"

#include <QMessageBox>
#include <QPointer>

namespace lockscope
{

ConnectionLauncher::ConnectionLauncher(ConnectionProfileStore *store, PasswordKeychain *keychain, QObject *parent)
    : QObject(parent), m_store(store), m_keychain(keychain)
{
}

bool ConnectionLauncher::resolve(const ConnectionProfile &profile, const QString &typedPassword, QWidget *parent,
                                 LockSession::Options *options, QString *error)
{
    RedisEndpoint ep = profile.endpoint(error);
    if (!ep.isValid())
        return false;
    if (!typedPassword.isEmpty()) {
        ep.setPassword(typedPassword, RedisEndpoint::PasswordSource::Prompt);
    } else if (profile.passwordStorage != ConnectionProfile::PasswordStorage::None) {
        QString why;
        if (profile.passwordStorage == ConnectionProfile::PasswordStorage::Keychain && m_keychain) {
            const QString saved = m_keychain->readNow(profile.keychainKey(), &why);
            if (why.isEmpty())
                ep.setPassword(saved, RedisEndpoint::PasswordSource::Keychain);
        }
        if (ep.passwordSource() != RedisEndpoint::PasswordSource::Keychain) {
            QString question = tr("Password for ACL user '%1' at %2:").arg(ep.aclUser(), ep.address());
            if (!why.isEmpty())
                question = tr("The password could not be read: %1.").arg(why) + QLatin1Char('\n') + question;
            QString typed;
            if (!ConnectDialog::askPassword(parent, question, &typed, error))
                return false;
            ep.setPassword(typed, RedisEndpoint::PasswordSource::Prompt);
        }
    }
    options->endpoint = ep;
    options->readOnly = options->readOnly || profile.readOnly;
    return true;
}

void ConnectionLauncher::adopt(MainWindow *window, const ConnectionProfile &profile)
{
    connect(window, &MainWindow::connectRequested, this, [this, window] { showConnectDialog(window); });
    connect(window, &MainWindow::authenticationNeeded, this,
            [this, window, profile](const QString &detail) { askPassword(window, profile, detail); });
}

QDialog *ConnectionLauncher::askPassword(MainWindow *window, const ConnectionProfile &profile, const QString &detail)
{
    const RedisEndpoint &ep = window->options().endpoint;
    auto *dialog = new PasswordDialog(ep.address(), ep.aclUser(), detail,
                                      PasswordKeychain::isCompiledIn() && m_keychain != nullptr, window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, window, dialog, profile] {
        LockSession::Options options = window->options();
        options.endpoint.setPassword(dialog->password(), RedisEndpoint::PasswordSource::Prompt);
        ConnectionProfile reopened = profile;
        if (reopened.url.isEmpty())
            reopened.url = options.endpoint.toString(); // never carries the password
        if (dialog->saveInKeychain()) {
            reopened.passwordStorage = ConnectionProfile::PasswordStorage::Keychain;
            m_keychain->write(reopened.keychainKey(), dialog->password(), this,
                              [window = QPointer<MainWindow>(window)](const QString &error) {
                                  if (!error.isEmpty() && window)
                                      QMessageBox::warning(window, tr("Keychain"),
                                                           tr("The password was not saved: %1.").arg(error));
                              });
            if (!reopened.name.isEmpty())
                m_store->save(reopened, reopened.name);
        }
        if (m_store)
            m_store->addRecent(reopened);
        MainWindow *next = openWindow(options, reopened);
        next->setGeometry(window->geometry());
        window->stopSession();
        window->close();
    });
    dialog->open();
    return dialog;
}

MainWindow *ConnectionLauncher::showConnectDialog(QWidget *parent)
{
    ConnectDialog dialog(m_store, m_keychain, parent);
    for (;;) {
        if (dialog.exec() != QDialog::Accepted)
            return nullptr;
        const ConnectionProfile profile = dialog.profile();
        LockSession::Options options;
        QString error;
        if (resolve(profile, dialog.password(), &dialog, &options, &error)) {
            m_store->addRecent(profile);
            return openWindow(options, profile);
        }
        QMessageBox::warning(&dialog, tr("Connect"), error);
    }
}

MainWindow *ConnectionLauncher::openWindow(const LockSession::Options &options, const ConnectionProfile &profile)
{
    auto *window = new MainWindow(options);
    window->setAttribute(Qt::WA_DeleteOnClose);
    adopt(window, profile);
    window->rememberLayout();
    window->setConnectionTag(tagLabel(profile), profile.color);
    window->show();
    window->start();
    return window;
}

QString ConnectionLauncher::tagLabel(const ConnectionProfile &profile)
{
    return profile.name.isEmpty() ? QString() : profile.name;
}

} // namespace lockscope
