#include "connect/passwordkeychain.h"

#include <QEventLoop>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>

#ifdef LOCKSCOPE_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
#endif

namespace lockscope
{

namespace
{

/** `callback` made to run at most once (from the job or from the timeout, whichever comes first)
 *  and not at all once `context`, when one was given, is gone. */
template <typename... Args>
std::function<void(Args...)> runOnce(QObject *context, std::function<void(Args...)> callback)
{
    const QPointer<QObject> ctx(context);
    const bool hasContext = context != nullptr;
    auto done = std::make_shared<bool>(false);
    return [done, ctx, hasContext, callback](Args... args) {
        if (*done)
            return;
        *done = true;
        if ((hasContext && !ctx) || !callback)
            return;
        callback(args...);
    };
}

#ifdef LOCKSCOPE_HAVE_KEYCHAIN
QString describe(QKeychain::Error error, const QString &detail)
{
    switch (error) {
    case QKeychain::NoError:
        return QString();
    case QKeychain::EntryNotFound:
        return QStringLiteral("no password is saved in the system keychain for this connection");
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
        return QStringLiteral("no system keychain is available (no Secret Service such as GNOME Keyring, or "
                              "KWallet, is running): %1")
            .arg(detail);
    case QKeychain::AccessDeniedByUser:
    case QKeychain::AccessDenied:
        return QStringLiteral("the system keychain refused access: %1").arg(detail);
    case QKeychain::CouldNotDeleteEntry:
    case QKeychain::OtherError:
        break;
    }
    return QStringLiteral("the system keychain failed: %1").arg(detail);
}
#endif

const QString kNotBuilt = QStringLiteral("LockScope was built without keychain support (qtkeychain): the password "
                                         "is asked for on every connect");

} // namespace

PasswordKeychain::PasswordKeychain(const QString &service, QObject *parent) : QObject(parent), m_service(service) {}

bool PasswordKeychain::isCompiledIn()
{
#ifdef LOCKSCOPE_HAVE_KEYCHAIN
    return true;
#else
    return false;
#endif
}

void PasswordKeychain::read(const QString &key, QObject *context, ReadCallback callback)
{
    const auto finish = runOnce(context, callback);
#ifdef LOCKSCOPE_HAVE_KEYCHAIN
    auto *job = new QKeychain::ReadPasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [finish](QKeychain::Job *j) {
        auto *read = static_cast<QKeychain::ReadPasswordJob *>(j);
        if (read->error() == QKeychain::NoError)
            finish(read->textData(), QString());
        else
            finish(QString(), describe(read->error(), read->errorString()));
    });
    QTimer::singleShot(m_timeoutMs, this, [finish, this] {
        finish(QString(), QStringLiteral("the system keychain did not answer within %1 s").arg(m_timeoutMs / 1000.0));
    });
    job->start();
#else
    Q_UNUSED(key);
    QTimer::singleShot(0, this, [finish] { finish(QString(), kNotBuilt); });
#endif
}

void PasswordKeychain::write(const QString &key, const QString &password, QObject *context, DoneCallback callback)
{
    const auto finish = runOnce(context, callback);
#ifdef LOCKSCOPE_HAVE_KEYCHAIN
    auto *job = new QKeychain::WritePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    job->setTextData(password);
    connect(job, &QKeychain::Job::finished, this,
            [finish](QKeychain::Job *j) { finish(describe(j->error(), j->errorString())); });
    QTimer::singleShot(m_timeoutMs, this, [finish, this] {
        finish(QStringLiteral("the system keychain did not answer within %1 s").arg(m_timeoutMs / 1000.0));
    });
    job->start();
#else
    Q_UNUSED(key);
    Q_UNUSED(password);
    QTimer::singleShot(0, this, [finish] { finish(kNotBuilt); });
#endif
}

void PasswordKeychain::remove(const QString &key, QObject *context, DoneCallback callback)
{
    const auto finish = runOnce(context, callback);
#ifdef LOCKSCOPE_HAVE_KEYCHAIN
    auto *job = new QKeychain::DeletePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [finish](QKeychain::Job *j) {
        finish(j->error() == QKeychain::EntryNotFound ? QString() : describe(j->error(), j->errorString()));
    });
    QTimer::singleShot(m_timeoutMs, this, [finish, this] {
        finish(QStringLiteral("the system keychain did not answer within %1 s").arg(m_timeoutMs / 1000.0));
    });
    job->start();
#else
    Q_UNUSED(key);
    QTimer::singleShot(0, this, [finish] { finish(kNotBuilt); });
#endif
}

QString PasswordKeychain::readNow(const QString &key, QString *error)
{
    QEventLoop loop;
    bool answered = false;
    QString password;
    QString failure;
    read(key, &loop, [&](const QString &p, const QString &e) {
        password = p;
        failure = e;
        answered = true;
        loop.quit();
    });
    if (!answered)
        loop.exec();
    if (error)
        *error = failure;
    return password;
}

} // namespace lockscope
