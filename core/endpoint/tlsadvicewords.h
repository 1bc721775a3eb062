#pragma once

#include "endpoint/frontendwords.h"

#include <QString>

namespace lockscope
{

/**
 * How the front end names the TLS settings in the advice of core's TLS sentences (core
 * names no command-line flag), as AdviceWords does above this floor and
 * RedisConnection::setPasswordAdvice() for the password. RedisTlsOptions (unreadable files,
 * certificate checks) and RedisConnection (closed connections, handshake alerts) ask for a
 * setting's name and for the verb phrase that tells the user to give it: lockscope-cli installs
 * its flags ("--tls-ca FILE", "pass --tls-cert and --tls-key"), the dashboard the labels of its
 * connection dialog. The defaults name the settings in plain words. Set once at start-up, before
 * any connection exists (not synchronised).
 */
class TlsAdviceWords
{
public:
    enum class Word {
        CaFile,     ///< the CA certificate file; `value` "FILE" where a file is to be named, else empty or the path
        CertFile,   ///< the client certificate file; `value` empty or the path
        KeyFile,    ///< the client key file; `value` empty or the path
        ServerName, ///< the name the server certificate must carry; `value` empty
        Insecure,   ///< the switch that skips verification; `value` empty
        Give,       ///< a verb phrase telling to give `value` (names of the words above)
    };
    using Namer = FrontEndWords<Word>::Namer;

    /** Replaces the words (an empty function restores the defaults). */
    static void setNamer(Namer namer) { FrontEndWords<Word>::setNamer(std::move(namer)); }
    /** The front end's words for `word`. */
    static QString name(Word word, const QString &value = QString())
    {
        return FrontEndWords<Word>::name(word, value, &defaultName);
    }
    /** The words without a front end (the defaults): "the CA certificate file", "give %1". */
    static QString defaultName(Word word, const QString &value);
    /** lockscope-cli's words: "--tls-ca FILE", "--tls-key /path", "pass --tls-cert". For the CLI
     *  and for tests that check the CLI's sentences on core objects. */
    static QString cliName(Word word, const QString &value);
};

} // namespace lockscope
