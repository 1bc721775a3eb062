#pragma once

#include "endpoint/redisendpoint.h"

#include <QCommandLineOption>
#include <QList>
#include <QString>

#include <functional>

class QCommandLineParser;

namespace lockscope
{

/**
 * The connection options lockscope and lockscope-cli share, and how they become a RedisEndpoint.
 *
 *   --url URL              (default: LOCKSCOPE_URL, else the front end's default)
 * redis://[user[:password]@]host[:port][/db], rediss://..., unix:///path.sock,
 *                          redis-sentinel://host:port[,host2:port2...][/db]#masterName (rediss-sentinel:// for TLS)
 *   --tls-ca FILE          CA certificate(s) to trust for rediss:// (instead of the system's)
 *   --tls-cert FILE        client certificate, for servers with tls-auth-clients yes/optional
 *   --tls-key FILE         its private key (unencrypted PEM; may be in the --tls-cert file)
 *   --tls-server-name NAME name the server certificate must carry (default: the URL host)
 *   --tls-insecure         do not verify the server certificate (encrypts only; sandboxes)
 *   --user NAME            ACL user (overrides the URL's user and LOCKSCOPE_USER)
 *   --ask-password         ask for the password (overrides the URL and LOCKSCOPE_PASSWORD)
 *
 * Password sources, strongest first: --ask-password, the URL, LOCKSCOPE_PASSWORD (and, in the
 * GUI, the system keychain of a saved connection profile). The password is never printed.
 * Errors are sentences that say what to fix; the caller prints them and exits with "usage".
 */
class ConnectionOptions
{
public:
    /** Asks for a password: returns false with `*error` set when it cannot (no terminal, cancelled). */
    using PasswordPrompt = std::function<bool(const QString &question, QString *password, QString *error)>;

    /** `defaultUrl` is --url's default value (empty: --url has none, e.g. the GUI starts the demo). */
    explicit ConnectionOptions(const QString &defaultUrl = QString());

    /** The options above. */
    QList<QCommandLineOption> options() const;
    /** Adds the options above to `parser` (before it parses). */
    void addTo(QCommandLineParser &parser) const;
    /** True when --url was given on the command line. */
    static bool isUrlSet(const QCommandLineParser &parser);
    /** LOCKSCOPE_URL (trimmed; empty when unset): the URL when --url is not given, before the default. */
    static QString urlFromEnvironment();
    /**
     * The arguments that make a pasted lockscope-cli command reach `endpoint` (not the default
     * server), quoted
     * for a POSIX shell: "--url redis://ops@10.0.0.5:6380/2", the TLS options, --ask-password when
     * the password came from the URL, a prompt or the keychain (it is never shown), --cluster.
     */
    static QString commandArguments(const RedisEndpoint &endpoint, bool cluster = false);
    /** True when any TLS option was given (they need a rediss:// URL). */
    static bool isTlsSet(const QCommandLineParser &parser);

    /**
     * The endpoint of --url (or the default URL) with the TLS, user and password options applied.
     * Returns an invalid endpoint and sets `*error` when the URL is wrong, a TLS option is given for
     * a plain URL, a TLS file cannot be used, or the password prompt failed. Prints a warning on
     * stderr for --tls-insecure.
     */
    RedisEndpoint endpoint(const QCommandLineParser &parser, QString *error) const;
    /** The same for an endpoint from elsewhere (a saved profile): options given override its own. */
    bool applyTo(RedisEndpoint *endpoint, const QCommandLineParser &parser, QString *error) const;

    /** Replaces the password prompt (the GUI asks in a dialog). Default: askOnTerminal(). */
    void setPasswordPrompt(PasswordPrompt prompt) { m_prompt = std::move(prompt); }
    /** Asks on the controlling terminal (/dev/tty) with echo off (termios); fails without a terminal. */
    static bool askOnTerminal(const QString &question, QString *password, QString *error);
    /** The question asked for `endpoint`: "Password for ACL user 'viewer' at 127.0.0.1:6379: ". */
    static QString passwordQuestion(const RedisEndpoint &endpoint);

private:
    QString m_defaultUrl;
    PasswordPrompt m_prompt;
};

} // namespace lockscope
