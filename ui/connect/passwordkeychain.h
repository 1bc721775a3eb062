#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace lockscope
{

/**
 * Connection passwords in the system keychain (Secret Service / KWallet through qtkeychain),
 * under the service name "LockScope" and a key per connection (ConnectionProfile::keychainKey()).
 *
 * Optional at build time (LOCKSCOPE_HAVE_KEYCHAIN, see isCompiledIn()) and at run time: without a
 * keychain (a headless machine, no secret service running) every call fails, quickly, with a
 * sentence, and callers fall back to asking. qtkeychain's insecure plain-text fallback is never
 * used, so a password is never written to a settings file. A call that gets no answer within
 * timeoutMs() fails too (a hung D-Bus service must not hang the GUI).
 *
 * Callbacks run on this object's thread, once, and not at all if `context` was destroyed.
 */
class PasswordKeychain : public QObject
{
    Q_OBJECT
public:
    /** `service`: the keychain's service name (tests use their own, never the user's entries). */
    explicit PasswordKeychain(const QString &service = QStringLiteral("LockScope"), QObject *parent = nullptr);

    /** True when LockScope was built with qtkeychain. */
    static bool isCompiledIn();
    QString service() const { return m_service; }
    int timeoutMs() const { return m_timeoutMs; }
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }

    /** `error` empty: `password` is the saved one. Otherwise a sentence (not found, no keychain, ...). */
    using ReadCallback = std::function<void(const QString &password, const QString &error)>;
    /** `error` empty: done. */
    using DoneCallback = std::function<void(const QString &error)>;

    void read(const QString &key, QObject *context, ReadCallback callback);
    void write(const QString &key, const QString &password, QObject *context, DoneCallback callback);
    void remove(const QString &key, QObject *context, DoneCallback callback);

    /** read(), waiting for the answer in a local event loop (at most timeoutMs()): for start-up. */
    QString readNow(const QString &key, QString *error);

private:
    QString m_service;
    int m_timeoutMs = 5000;
};

} // namespace lockscope
