#include "connect/connectdialog.h"

#include "connect/connectionprofilestore.h"
#include "connect/passwordkeychain.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace lockscope
{

namespace
{

enum ItemRole { KindRole = Qt::UserRole, KeyRole };
const QString kProfile = QStringLiteral("profile");
const QString kRecent = QStringLiteral("recent");

QIcon swatch(const QColor &color)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    if (color.isValid()) {
        p.setBrush(color);
        p.setPen(color.darker(130));
    } else {
        p.setBrush(Qt::NoBrush);
        p.setPen(QColor(0x99, 0x99, 0x99));
    }
    p.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 3, 3);
    return QIcon(pm);
}

QListWidgetItem *header(const QString &text)
{
    auto *item = new QListWidgetItem(text);
    item->setFlags(Qt::NoItemFlags);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
    return item;
}

} // namespace

ConnectDialog::ConnectDialog(ConnectionProfileStore *store, PasswordKeychain *keychain, QWidget *parent)
    : QDialog(parent), m_store(store), m_keychain(keychain)
{
    setWindowTitle(tr("Connect to Redis"));
    setObjectName(QStringLiteral("connectDialog"));

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("connectionList"));
    m_list->setMinimumWidth(280);
    m_list->setIconSize(QSize(14, 14));
    auto *newButton = new QPushButton(tr("&New"), this);
    newButton->setObjectName(QStringLiteral("newButton"));
    m_delete = new QPushButton(tr("&Delete"), this);
    m_delete->setObjectName(QStringLiteral("deleteButton"));
    m_delete->setToolTip(tr("Delete the saved connection (and its password in the keychain). Redis is not touched"));
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(newButton);
    listButtons->addStretch();
    listButtons->addWidget(m_delete);
    auto *left = new QVBoxLayout;
    left->addWidget(m_list);
    left->addLayout(listButtons);

    auto named = [this](auto *w, const char *name) {
        w->setObjectName(QString::fromLatin1(name));
        return w;
    };
    m_name = named(new QLineEdit(this), "nameEdit");
    m_name->setPlaceholderText(tr("e.g. orders production"));
    m_url = named(new QLineEdit(this), "urlEdit");
    m_url->setPlaceholderText(QStringLiteral("rediss://user@host:6379/0"));
    m_url->setToolTip(tr("redis://[user@]host[:port][/db], rediss://… for TLS, unix:///path.sock.\n"
                         "The ACL user goes in the URL; the password does not"));
    m_password = named(new QLineEdit(this), "passwordEdit");
    m_password->setEchoMode(QLineEdit::Password);
    m_storage = named(new QComboBox(this), "passwordStorage");
    m_storage->addItem(tr("No password"), int(ConnectionProfile::PasswordStorage::None));
    m_storage->addItem(tr("Ask when connecting"), int(ConnectionProfile::PasswordStorage::Ask));
    m_storage->addItem(tr("Save in the system keychain"), int(ConnectionProfile::PasswordStorage::Keychain));
    if (!PasswordKeychain::isCompiledIn()) {
        m_storage->setItemData(2, false, Qt::UserRole - 1); // disabled item
        m_storage->setToolTip(tr("This LockScope was built without keychain support (qtkeychain)"));
    }
    auto *passwordRow = new QHBoxLayout;
    passwordRow->addWidget(m_password, 1);
    passwordRow->addWidget(m_storage);

    auto fileRow = [this, named](QLineEdit **edit, const char *name, const QString &title, const QString &tip) {
        *edit = named(new QLineEdit(this), name);
        (*edit)->setToolTip(tip);
        auto *browse = new QPushButton(tr("Browse…"), this);
        QLineEdit *target = *edit;
        connect(browse, &QPushButton::clicked, this, [this, target, title] { this->browse(target, title); });
        auto *row = new QHBoxLayout;
        row->addWidget(*edit, 1);
        row->addWidget(browse);
        return row;
    };
    QHBoxLayout *caRow = fileRow(&m_caFile, "caFileEdit", tr("CA certificate"),
                                 tr("PEM file of the CA that signed the server certificate (--tls-ca).\n"
                                    "Empty: the system's CA certificates"));
    QHBoxLayout *certRow = fileRow(&m_certFile, "certFileEdit", tr("Client certificate"),
                                   tr("PEM client certificate, for servers with tls-auth-clients (--tls-cert)"));
    QHBoxLayout *keyRow = fileRow(&m_keyFile, "keyFileEdit", tr("Client key"),
                                  tr("Unencrypted PEM private key of the client certificate (--tls-key)"));
    m_serverName = named(new QLineEdit(this), "serverNameEdit");
    m_serverName->setPlaceholderText(tr("the URL host"));
    m_serverName->setToolTip(tr("The name the server certificate must carry, when it is not the URL host "
                                "(--tls-server-name)"));
    m_insecure = named(new QCheckBox(tr("Do not verify the server certificate (insecure; sandboxes only)"), this),
                       "insecureCheck");
    m_readOnly = named(new QCheckBox(tr("Read-only: never write to this Redis"), this), "readOnlyCheck");
    m_color = named(new QComboBox(this), "colorCombo");
    for (const auto &tag : ConnectionProfile::colorTags())
        m_color->addItem(swatch(tag.second), tag.first, tag.second);
    m_color->setToolTip(tr("Shown as a coloured band in the main window, so production looks different"));

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&URL:"), m_url);
    // Rows holding a layout get a label with an explicit buddy, so their shortcuts work.
    auto buddyRow = [this, form](const QString &text, QWidget *buddy, QLayout *row) {
        auto *label = new QLabel(text, this);
        label->setBuddy(buddy);
        form->addRow(label, row);
    };
    buddyRow(tr("&Password:"), m_password, passwordRow);
    buddyRow(tr("TLS &CA file:"), m_caFile, caRow);
    buddyRow(tr("Client certi&ficate:"), m_certFile, certRow);
    buddyRow(tr("Client &key:"), m_keyFile, keyRow);
    form->addRow(tr("TLS server name:"), m_serverName);
    form->addRow(QString(), m_insecure);
    form->addRow(QString(), m_readOnly);
    form->addRow(tr("Colour &tag:"), m_color);

    m_save = named(new QPushButton(tr("&Save"), this), "saveButton");
    m_save->setToolTip(tr("Save these settings as a named connection (the password only in the keychain)"));
    auto *saveRow = new QHBoxLayout;
    saveRow->addStretch();
    saveRow->addWidget(m_save);
    m_message = named(new QLabel(this), "messageLabel");
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *right = new QVBoxLayout;
    right->addLayout(form);
    right->addLayout(saveRow);
    right->addWidget(m_message);
    right->addStretch();

    auto *columns = new QHBoxLayout;
    columns->addLayout(left, 2);
    columns->addLayout(right, 3);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_connect = buttons->addButton(tr("C&onnect"), QDialogButtonBox::AcceptRole);
    m_connect->setObjectName(QStringLiteral("connectButton"));
    m_connect->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &ConnectDialog::tryAccept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(columns);
    layout->addWidget(buttons);

    connect(m_list, &QListWidget::currentItemChanged, this,
            [this](QListWidgetItem *current) { onItemChanged(current); });
    connect(m_list, &QListWidget::itemDoubleClicked, this, [this] { tryAccept(); });
    connect(newButton, &QPushButton::clicked, this, &ConnectDialog::newProfile);
    connect(m_save, &QPushButton::clicked, this, &ConnectDialog::saveProfile);
    connect(m_delete, &QPushButton::clicked, this, &ConnectDialog::deleteProfile);
    connect(m_url, &QLineEdit::textChanged, this, &ConnectDialog::updateState);
    connect(m_name, &QLineEdit::textChanged, this, &ConnectDialog::updateState);
    connect(m_insecure, &QCheckBox::toggled, this, &ConnectDialog::updateState);

    reload();
    resize(860, 480);
}

void ConnectDialog::reload(const QString &selectName)
{
    const QSignalBlocker block(m_list);
    m_list->clear();
    const QList<ConnectionProfile> profiles = m_store->profiles();
    m_list->addItem(header(tr("Saved connections")));
    QListWidgetItem *select = nullptr;
    for (const ConnectionProfile &p : profiles) {
        auto *item = new QListWidgetItem(swatch(p.color), p.name);
        item->setToolTip(p.url + (p.readOnly ? tr(" (read-only)") : QString()));
        item->setData(KindRole, kProfile);
        item->setData(KeyRole, p.name);
        m_list->addItem(item);
        if (p.name == selectName)
            select = item;
    }
    if (profiles.isEmpty()) {
        auto *none = new QListWidgetItem(tr("  none yet: fill in the form and Save"));
        none->setFlags(Qt::NoItemFlags);
        m_list->addItem(none);
    }
    const QList<ConnectionProfile> recent = m_store->recent();
    if (!recent.isEmpty()) {
        m_list->addItem(header(tr("Recent connections")));
        for (int i = 0; i < recent.size(); ++i) {
            auto *item = new QListWidgetItem(swatch(recent.at(i).color), recent.at(i).url);
            item->setData(KindRole, kRecent);
            item->setData(KeyRole, i);
            m_list->addItem(item);
        }
    }
    if (select)
        m_list->setCurrentItem(select);
    updateState();
}

void ConnectDialog::onItemChanged(QListWidgetItem *current)
{
    if (!current)
        return;
    const QString kind = current->data(KindRole).toString();
    if (kind == kProfile) {
        ConnectionProfile p;
        if (m_store->find(current->data(KeyRole).toString(), &p))
            setProfile(p.name, p);
    } else if (kind == kRecent) {
        const QList<ConnectionProfile> recent = m_store->recent();
        const int i = current->data(KeyRole).toInt();
        if (i >= 0 && i < recent.size())
            setProfile(QString(), recent.at(i));
    }
    showMessage(QString(), false);
}

void ConnectDialog::setProfile(const QString &savedName, const ConnectionProfile &p)
{
    m_editedName = savedName;
    m_savedStorage = p.passwordStorage;
    m_name->setText(p.name);
    m_url->setText(p.url);
    m_password->clear();
    m_storage->setCurrentIndex(m_storage->findData(int(p.passwordStorage)));
    m_password->setPlaceholderText(
        p.passwordStorage == ConnectionProfile::PasswordStorage::Keychain ? tr("saved in the system keychain")
        : p.passwordStorage == ConnectionProfile::PasswordStorage::Ask    ? tr("asked when connecting")
                                                                          : tr("none (or LOCKSCOPE_PASSWORD)"));
    m_caFile->setText(p.tlsCaFile);
    m_certFile->setText(p.tlsCertFile);
    m_keyFile->setText(p.tlsKeyFile);
    m_serverName->setText(p.tlsServerName);
    m_insecure->setChecked(p.tlsInsecure);
    m_readOnly->setChecked(p.readOnly);
    int colorIndex = 0;
    for (int i = 0; i < m_color->count(); ++i) {
        if (m_color->itemData(i).value<QColor>() == p.color)
            colorIndex = i;
    }
    m_color->setCurrentIndex(colorIndex);
    updateState();
}

bool ConnectDialog::selectProfile(const QString &name)
{
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        if (item->data(KindRole).toString() == kProfile && item->data(KeyRole).toString() == name) {
            if (m_list->currentItem() == item)
                onItemChanged(item); // already current: still reset the form to what is saved
            else
                m_list->setCurrentItem(item);
            return true;
        }
    }
    return false;
}

ConnectionProfile ConnectDialog::profile() const
{
    ConnectionProfile p;
    p.name = m_name->text().trimmed();
    p.url = m_url->text().trimmed();
    p.tlsCaFile = m_caFile->text().trimmed();
    p.tlsCertFile = m_certFile->text().trimmed();
    p.tlsKeyFile = m_keyFile->text().trimmed();
    p.tlsServerName = m_serverName->text().trimmed();
    p.tlsInsecure = m_insecure->isChecked();
    p.readOnly = m_readOnly->isChecked();
    p.color = m_color->currentData().value<QColor>();
    p.passwordStorage = ConnectionProfile::PasswordStorage(m_storage->currentData().toInt());
    return p;
}

QString ConnectDialog::password() const
{
    return m_password->text();
}

QString ConnectDialog::message() const
{
    return m_message->text();
}

void ConnectDialog::newProfile()
{
    m_list->setCurrentItem(nullptr);
    ConnectionProfile blank;
    blank.url = QStringLiteral("redis://127.0.0.1:6379");
    setProfile(QString(), blank);
    m_name->setFocus();
    showMessage(QString(), false);
}

void ConnectDialog::browse(QLineEdit *edit, const QString &title)
{
    const QString file = QFileDialog::getOpenFileName(
        this, title, edit->text(), tr("Certificates and keys (*.pem *.crt *.cer *.key);;All files (*)"));
    if (!file.isEmpty())
        edit->setText(file);
}

void ConnectDialog::showMessage(const QString &text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color:#c0392b;") : QString());
}

void ConnectDialog::updateState()
{
    m_delete->setEnabled(!m_editedName.isEmpty());
    m_save->setEnabled(!m_name->text().trimmed().isEmpty() && !m_url->text().trimmed().isEmpty());
    m_connect->setEnabled(!m_url->text().trimmed().isEmpty());
    m_insecure->setStyleSheet(m_insecure->isChecked() ? QStringLiteral("color:#c0392b;") : QString());
}

bool ConnectDialog::saveProfile()
{
    // A password typed into the URL moves to the password field: it is never saved in clear.
    QString urlPassword;
    const QString stripped = ConnectionProfile::stripPassword(m_url->text(), &urlPassword);
    QString note;
    if (!urlPassword.isEmpty()) {
        m_url->setText(stripped);
        m_password->setText(urlPassword);
        if (m_storage->currentData().toInt() == int(ConnectionProfile::PasswordStorage::None))
            m_storage->setCurrentIndex(
                m_storage->findData(int(PasswordKeychain::isCompiledIn() ? ConnectionProfile::PasswordStorage::Keychain
                                                                         : ConnectionProfile::PasswordStorage::Ask)));
        note = tr("The password was moved out of the URL. ");
    }
    ConnectionProfile p = profile();
    QString error;
    if (!p.endpoint(&error).isValid()) {
        showMessage(error, true);
        emit profileSaved(p.name, false);
        return false;
    }
    const QString typed = m_password->text();
    const QString previousName = m_editedName;
    const QString oldKey = [&] {
        ConnectionProfile old;
        return m_store->find(previousName, &old) ? old.keychainKey() : QString();
    }();
    const bool toKeychain = p.passwordStorage == ConnectionProfile::PasswordStorage::Keychain && !typed.isEmpty();
    if (!m_store->save(p, previousName, &error)) {
        showMessage(error, true);
        emit profileSaved(p.name, false);
        return false;
    }
    m_editedName = p.name;
    m_savedStorage = p.passwordStorage;
    // A password that is no longer to be kept leaves the keychain.
    if (!oldKey.isEmpty() && m_keychain &&
        (p.passwordStorage != ConnectionProfile::PasswordStorage::Keychain || oldKey != p.keychainKey()))
        m_keychain->remove(oldKey, this, nullptr);
    reload(p.name);
    if (!toKeychain) {
        m_password->clear();
        showMessage(note + tr("Saved '%1'.").arg(p.name) +
                        (p.passwordStorage == ConnectionProfile::PasswordStorage::Keychain
                             ? tr(" The password in the keychain is unchanged.")
                             : QString()),
                    false);
        emit profileSaved(p.name, true);
        return true;
    }
    showMessage(note + tr("Saving the password in the system keychain…"), false);
    const QString name = p.name;
    QPointer<ConnectDialog> self(this);
    m_keychain->write(p.keychainKey(), typed, this, [self, name, p, note](const QString &keychainError) {
        if (!self)
            return;
        if (keychainError.isEmpty()) {
            self->m_password->clear();
            self->showMessage(note + tr("Saved '%1'; its password is in the system keychain.").arg(name), false);
            emit self->profileSaved(name, true);
            return;
        }
        // No keychain: keep the profile, ask for the password on connect instead.
        ConnectionProfile asking = p;
        asking.passwordStorage = ConnectionProfile::PasswordStorage::Ask;
        self->m_store->save(asking, name);
        self->m_savedStorage = asking.passwordStorage;
        self->m_storage->setCurrentIndex(self->m_storage->findData(int(asking.passwordStorage)));
        self->showMessage(note + tr("Saved '%1', but not its password: %2. LockScope will ask for it when "
                                    "connecting.")
                                     .arg(name, keychainError),
                          true);
        emit self->profileSaved(name, true);
    });
    return true;
}

bool ConnectDialog::deleteProfile()
{
    if (m_editedName.isEmpty())
        return false;
    ConnectionProfile old;
    const bool had = m_store->find(m_editedName, &old);
    if (!had || !m_store->remove(m_editedName))
        return false;
    if (m_keychain && old.passwordStorage == ConnectionProfile::PasswordStorage::Keychain)
        m_keychain->remove(old.keychainKey(), this, nullptr);
    showMessage(tr("Deleted '%1'.").arg(m_editedName), false);
    m_editedName.clear();
    reload();
    return true;
}

void ConnectDialog::tryAccept()
{
    QString error;
    QString urlPassword;
    ConnectionProfile::stripPassword(m_url->text(), &urlPassword);
    if (!urlPassword.isEmpty()) {
        // Connecting with a password in the URL is allowed (it is not saved); move it to the field.
        m_url->setText(ConnectionProfile::stripPassword(m_url->text()));
        if (m_password->text().isEmpty())
            m_password->setText(urlPassword);
    }
    if (!profile().endpoint(&error).isValid()) {
        showMessage(error, true);
        return;
    }
    accept();
}

bool ConnectDialog::askPassword(QWidget *parent, const QString &question, QString *password, QString *error)
{
    bool ok = false;
    const QString text =
        QInputDialog::getText(parent, tr("Redis password"), question, QLineEdit::Password, QString(), &ok);
    if (!ok) {
        if (error)
            *error = tr("no password was entered (the prompt was cancelled)");
        return false;
    }
    *password = text;
    return true;
}

QString ConnectDialog::tlsAdviceWord(TlsAdviceWords::Word word, const QString &value)
{
    const auto quoted = [](const QString &label) { return QStringLiteral("\"%1\"").arg(label); };
    switch (word) {
    case TlsAdviceWords::Word::CaFile:
        return quoted(tr("TLS CA file"));
    case TlsAdviceWords::Word::CertFile:
        return quoted(tr("Client certificate"));
    case TlsAdviceWords::Word::KeyFile:
        return quoted(tr("Client key"));
    case TlsAdviceWords::Word::ServerName:
        return quoted(tr("TLS server name"));
    case TlsAdviceWords::Word::Insecure:
        return quoted(tr("Do not verify the server certificate"));
    case TlsAdviceWords::Word::Give:
        break;
    }
    return tr("fill in %1 in File > Connect").arg(value);
}

} // namespace lockscope
